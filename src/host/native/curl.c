/* SPDX-License-Identifier: MIT */
/* libcurl's multi interface driven by the reactor
 * (curl_multi_socket_action), for the HTTP client's transfers (http.c).
 * curl says which sockets to watch (CURLMOPT_SOCKETFUNCTION: each becomes
 * an fd registration) and when to call it back (CURLMOPT_TIMERFUNCTION:
 * one deadline); a driver task waits on those and hands curl what
 * happened, and a transfer that ended is told through its done callback.
 *
 * One multi handle per runtime (on many threads, not one per worker),
 * kept as a runtime extension (rt.h): made by the first send, freed by
 * wa_rt_free. It outlives transfers because it holds curl's cache of open
 * connections, reused by the next request to the same host; the driver
 * lives as long, parked while there is nothing to wait for. The driver is
 * an internal task (wa__spawn_internal): not the program's, so wa_rt_run
 * ends without it and it is in no stats or dump; a fetch in flight keeps
 * the program's task waiting, and the driver's fd waits and timer keep
 * that from being a deadlock. It is aborted with the other tasks, before
 * the extension goes.
 *
 * On many threads the sends, the body reads and the driver run on any
 * worker, at once: the multi handle, every call into curl (whose callbacks
 * then run) and the state those callbacks share with the transfers' tasks
 * are under the handle's lock (wa__curl_lock). */
#include "curl.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>

#include "../../core/rt.h"

typedef struct wa__curl_sock wa__curl_sock;

/* The driver's future: waits on curl's sockets and timer. */
typedef struct wa__curl_driver {
    wa_future fut;
    wa__curl *c;
    int sleeping;
    uint64_t until; /* the sleep's deadline */
    wa_sleep sleep;
} wa__curl_driver;

struct wa__curl {
    wa__rt_ext ext;
    wa_rt *rt;             /* the runtime (not a worker's view) */
    pthread_mutex_t lock;  /* what follows, curl's calls and what its callbacks and the transfers' tasks both touch */
    CURLM *multi;
    wa__curl_sock *socks;   /* the sockets curl watches */
    uint64_t deadline;     /* curl's timer; WA_NEVER: none */
    int driving;           /* the driver task is alive */
    wa_waker driver;       /* the driver, parked */
    wa__curl_driver drv;    /* its future (the internal task borrows it) */
    wa__curl_xfer *added;   /* the transfers in multi */
};

struct wa__curl_sock {
    wa__curl_sock *next;
    curl_socket_t fd;
    wa_fd_key key;
    unsigned want; /* WA_READABLE | WA_WRITABLE */
    int waiting;
    wa_fd_wait wait;
};

static void wa__curl_wake_driver(wa__curl *c) { wa_waker_wake(&c->driver); }

static wa__curl_sock *wa__curl_sock_find(wa__curl *c, curl_socket_t fd)
{
    wa__curl_sock *s = c->socks;
    while (s && s->fd != fd)
        s = s->next;
    return s;
}

static void wa__curl_sock_free(wa__curl *c, wa__curl_sock *s)
{
    for (wa__curl_sock **p = &c->socks; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    wa_drop_held(&s->wait.fut, &s->waiting);
    wa_fd_deregister(c->rt, s->key);
    free(s);
}

/* CURLMOPT_SOCKETFUNCTION: watch fd for what, or stop. */
static int wa__curl_on_socket(CURL *e, curl_socket_t fd, int what, void *arg, void *sockp)
{
    (void)sockp;
    wa__curl *c = arg;
    wa__curl_sock *s = wa__curl_sock_find(c, fd);
    if (what == CURL_POLL_REMOVE) {
        if (s)
            wa__curl_sock_free(c, s);
        return 0;
    }
    if (!s) {
        int rc = (s = calloc(1, sizeof *s)) ? wa_fd_register(c->rt, fd, &s->key) : WA_ENOMEM;
        if (rc < 0) { /* the transfer cannot be waited on: it fails */
            free(s);
            wa__curl_xfer *x;
            if (curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&x) == CURLE_OK && x)
                x->done(x, CURLE_OK, rc);
            return 0;
        }
        s->fd = fd;
        s->next = c->socks;
        c->socks = s;
    }
    unsigned want = (what & CURL_POLL_IN ? WA_READABLE : 0) | (what & CURL_POLL_OUT ? WA_WRITABLE : 0);
    if (want != s->want) {
        wa_drop_held(&s->wait.fut, &s->waiting); /* the driver waits anew */
        s->want = want;
    }
    wa__curl_wake_driver(c);
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: call back in ms (-1: no timer). The clock is
 * read from the backend: the runtime's cache of it is its thread's, and
 * this runs on whichever worker called into curl. */
static int wa__curl_on_timer(CURLM *m, long ms, void *arg)
{
    (void)m;
    wa__curl *c = arg;
    wa_backend *b = c->rt->backend;
    c->deadline = ms < 0 ? WA_NEVER : wa__add_sat(b->vt->now(b), (uint64_t)ms * 1000000);
    wa__curl_wake_driver(c);
    return 0;
}

/* Hands curl what happened on fd (or its timer), then tells the transfers
 * that ended. */
static void wa__curl_act(wa__curl *c, curl_socket_t fd, int ev)
{
    int running;
    curl_multi_socket_action(c->multi, fd, ev, &running);
    CURLMsg *m;
    while ((m = curl_multi_info_read(c->multi, &running))) {
        wa__curl_xfer *x;
        if (m->msg == CURLMSG_DONE && curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x) == CURLE_OK)
            x->done(x, m->data.result, 0);
    }
}

/* Waits on every socket curl watches and on its timer; never finishes.
 * Under the lock (wa__curl_driver_poll). */
static int wa__curl_drive(wa__curl_driver *d, wa_cx *cx)
{
    wa__curl *c = d->c;
again:
    for (wa__curl_sock *s = c->socks; s; s = s->next) {
        if (!s->want)
            continue;
        int ev = 0;
        if (!s->waiting) {
            /* curl expects level-triggered readiness: it may stop short of
             * EAGAIN (one buffer sent, more to come) on a socket that then
             * gives no new edge. So before each wait, a check of the
             * level; edges after it are kept by the registration. */
            struct pollfd p = {s->fd, (short)((s->want & WA_READABLE ? POLLIN : 0) | (s->want & WA_WRITABLE ? POLLOUT : 0)), 0};
            if (poll(&p, 1, 0) > 0)
                ev = (p.revents & (POLLIN | POLLHUP) ? CURL_CSELECT_IN : 0) | (p.revents & POLLOUT ? CURL_CSELECT_OUT : 0) |
                     (p.revents & POLLERR ? CURL_CSELECT_ERR : 0);
            if (!ev) {
                wa_fd_wait_init(&s->wait, s->key, s->want);
                s->waiting = 1;
            }
        }
        if (!ev) {
            int rc = wa_poll_held(&s->wait.fut, &s->waiting, cx);
            if (rc == WA_PENDING)
                continue;
            unsigned ready = s->wait.ready;
            ev = rc < 0 ? CURL_CSELECT_ERR
                        : (ready & WA_READABLE ? CURL_CSELECT_IN : 0) | (ready & WA_WRITABLE ? CURL_CSELECT_OUT : 0);
        }
        if (!wa_coop_proceed(cx))
            return WA_PENDING; /* (the level is checked again next time) */
        wa__curl_act(c, s->fd, ev); /* (may free s: start over) */
        goto again;
    }
    if (c->deadline != WA_NEVER) {
        if (c->deadline <= wa_now(cx->rt)) {
            c->deadline = WA_NEVER;
            wa_drop_held(&d->sleep.fut, &d->sleeping);
            wa__curl_act(c, CURL_SOCKET_TIMEOUT, 0);
            goto again;
        }
        if (!d->sleeping || d->until != c->deadline) {
            wa_drop_held(&d->sleep.fut, &d->sleeping);
            wa_sleep_until_init(&d->sleep, d->until = c->deadline);
            d->sleeping = 1;
        }
        if (wa_poll_held(&d->sleep.fut, &d->sleeping, cx) != WA_PENDING)
            goto again;
    } else {
        wa_drop_held(&d->sleep.fut, &d->sleeping);
    }
    wa_waker_store(&c->driver, cx);
    return WA_PENDING;
}

static int wa__curl_driver_poll(wa_future *f, wa_cx *cx)
{
    wa__curl *c = ((wa__curl_driver *)f)->c;
    pthread_mutex_lock(&c->lock);
    int rc = wa__curl_drive((wa__curl_driver *)f, cx);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static void wa__curl_driver_drop(wa_future *f)
{
    wa__curl_driver *d = (wa__curl_driver *)f;
    wa__curl *c = d->c;
    pthread_mutex_lock(&c->lock);
    wa_drop_held(&d->sleep.fut, &d->sleeping);
    for (wa__curl_sock *s = c->socks; s; s = s->next)
        wa_drop_held(&s->wait.fut, &s->waiting);
    wa_waker_drop(&c->driver);
    c->driving = 0; /* (the next send spawns it again) */
    pthread_mutex_unlock(&c->lock);
}

static const wa_future_vt wa__curl_driver_vt = {wa__curl_driver_poll, wa__curl_driver_drop, "http_curl"};

/* Takes x's transfer out of multi (under its lock). */
static void wa__curl_unlink(wa__curl *c, wa__curl_xfer *x)
{
    curl_multi_remove_handle(c->multi, x->easy); /* aborts it if unfinished */
    *(x->prev ? &x->prev->next : &c->added) = x->next;
    if (x->next)
        x->next->prev = x->prev;
    x->added = 0;
}

/* (every task is gone, the driver with them: no lock) */
static void wa__curl_free(wa__rt_ext *e)
{
    wa__curl *c = (wa__curl *)e;
    /* Responses the program still holds outlive the runtime: their
     * transfers end here, and their free later finds no multi handle. */
    while (c->added) {
        c->added->c = NULL;
        wa__curl_unlink(c, c->added);
    }
    curl_multi_cleanup(c->multi); /* its cached connections: REMOVE each */
    while (c->socks)
        wa__curl_sock_free(c, c->socks);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* curl's process-wide setup, once, whichever thread's runtime is first. */
static CURLcode wa__curl_global_rc;
static void wa__curl_global_init(void) { wa__curl_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* Makes rt's multi handle, added to rt (the runtime, not a view). */
static int wa__curl_new(wa_rt *rt, wa__curl **out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, wa__curl_global_init);
    if (wa__curl_global_rc != CURLE_OK)
        return WA_ENOMEM;
    wa__curl *c = calloc(1, sizeof *c);
    if (!c)
        return WA_ENOMEM;
    if (!(c->multi = curl_multi_init())) {
        free(c);
        return WA_ENOMEM;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->rt = wa__rt_home(rt);
    c->deadline = WA_NEVER;
    c->ext.free = wa__curl_free;
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, wa__curl_on_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, wa__curl_on_timer);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    wa__rt_ext_add(rt, &c->ext);
    *out = c;
    return 0;
}

/* The extension list is made under a lock of this file's: the first sends
 * of a many-threads runtime may come from several workers at once. */
int wa__curl_of(wa_rt *rt, wa__curl **out)
{
    static pthread_mutex_t made = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&made);
    wa__curl *c = (wa__curl *)wa__rt_ext_find(rt, wa__curl_free);
    int rc = c ? 0 : wa__curl_new(rt, &c);
    pthread_mutex_unlock(&made);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&c->lock);
    if (!c->driving) {
        c->drv = (wa__curl_driver){{&wa__curl_driver_vt}, c, 0, 0, {0}};
        rc = wa__spawn_internal(rt, &c->drv.fut);
        c->driving = rc == 0;
    }
    pthread_mutex_unlock(&c->lock);
    *out = c;
    return rc;
}

void wa__curl_lock(wa__curl *c) { pthread_mutex_lock(&c->lock); }

void wa__curl_unlock(wa__curl *c) { pthread_mutex_unlock(&c->lock); }

int wa__curl_add(wa__curl_xfer *x)
{
    wa__curl *c = x->c;
    if (curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x) != CURLE_OK) /* (how the driver finds x) */
        return WA_ENOMEM;
    pthread_mutex_lock(&c->lock);
    int rc = curl_multi_add_handle(c->multi, x->easy) == CURLM_OK ? 0 : WA_ENOMEM;
    if (rc == 0) {
        x->added = 1;
        x->next = c->added;
        if (c->added)
            c->added->prev = x;
        c->added = x;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void wa__curl_remove(wa__curl_xfer *x)
{
    if (!x->added) /* (never added, or the runtime took it out) */
        return;
    pthread_mutex_lock(&x->c->lock);
    wa__curl_unlink(x->c, x);
    wa__curl_wake_driver(x->c);
    pthread_mutex_unlock(&x->c->lock);
}

void wa__curl_pause(wa__curl_xfer *x, int bits)
{
    curl_easy_pause(x->easy, bits);
    wa__curl_wake_driver(x->c);
}
