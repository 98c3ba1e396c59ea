/* SPDX-License-Identifier: MIT */
/* Internal: what every host's DNS shares (dns.c). The lookup future checks
 * its state and leaves the resolving to its host's wa__dns_host (src/host/:
 * native/dns.c, wasip2/dns.c, wasip3/dns.c: one links). */
#ifndef WASYNC_IO_DNS_H
#define WASYNC_IO_DNS_H

#include "wasync/net.h"

/* What a host does of a lookup. */
typedef struct wa__dns_ops {
    /* Sets a new lookup's host part to "nothing held" (NULL: zeros are). */
    void (*none)(wa_dns *d);
    /* Polls d (its name not NULL): WA_PENDING, or its status with d->addrs
     * and d->n, what it held released. */
    int (*lookup)(wa_dns *d, wa_cx *cx);
    /* Releases what d holds (again: nothing). */
    void (*release)(wa_dns *d);
} wa__dns_ops;

extern const wa__dns_ops wa__dns_host;

#endif
