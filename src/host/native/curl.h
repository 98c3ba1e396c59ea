/* SPDX-License-Identifier: MIT */
/* Internal: libcurl's multi handle on the reactor (curl.c), for the HTTP
 * client's transfers (http.c). The driver knows easy handles, not HTTP:
 * a transfer sets its easy handle up, adds it, and hears of its end
 * through the callback it gave. */
#ifndef WASYNC_HOST_NATIVE_CURL_H
#define WASYNC_HOST_NATIVE_CURL_H

#include <curl/curl.h>

#include "wasync/runtime.h"

/* A runtime's multi handle and its driver (opaque). */
typedef struct wa__curl wa__curl;

typedef struct wa__curl_xfer wa__curl_xfer;

/* What the driver holds of one transfer, in the transfer's own struct. */
struct wa__curl_xfer {
    CURL *easy; /* set up by the transfer, which frees it after removing it */
    wa__curl *c; /* the multi handle, set by the transfer; NULL once the runtime is gone */
    /* Called under the lock once the transfer ended: with curl's code,
     * and rc 0; or with CURLE_OK and rc < 0 when the driver could not
     * wait on its socket. (Then curl may still end it later.) */
    void (*done)(wa__curl_xfer *x, CURLcode code, int rc);
    wa__curl_xfer *prev, *next; /* in c's transfers, while added */
    int added;
};

/* rt's multi handle, made on first use with its driver running (rt's
 * extension: freed by wa_rt_free), in *out: 0 or WA_ENOMEM. */
int wa__curl_of(wa_rt *rt, wa__curl **out);

/* c's lock: the multi handle, every call into curl (whose callbacks then
 * run) and what those callbacks share with the transfers' tasks. */
void wa__curl_lock(wa__curl *c);
void wa__curl_unlock(wa__curl *c);

/* Adds x's transfer (x->easy, x->c and x->done given; x borrowed until
 * it is removed) to its multi handle, under the lock it takes: 0 or
 * WA_ENOMEM. */
int wa__curl_add(wa__curl_xfer *x);

/* Takes x's transfer out of its multi handle if it is in (which aborts an
 * unfinished one), under the lock it takes: the driver no longer reaches
 * x. */
void wa__curl_remove(wa__curl_xfer *x);

/* Sets x's pause bits (CURLPAUSE_RECV, CURLPAUSE_SEND) to bits, under the
 * lock (curl may call the transfer's callbacks at once), and wakes the
 * driver: the transfer may have new sockets or a timer. */
void wa__curl_pause(wa__curl_xfer *x, int bits);

#endif
