/* SPDX-License-Identifier: MIT */
/* DNS over wasi:sockets/ip-name-lookup: the addresses arrive on a stream,
 * read until its end, waiting on its pollable when none is ready yet.
 * These are the operations (wa__dns_host) of the front end, src/io/dns.c,
 * which makes the future. */
#include "../../io/dns.h"
#include "io.h"
#include "sockets.h"

/* The host part of a lookup (wa_net_host): the network and the
 * resolve-address-stream handles, the pollable's registration and the wait
 * on it. */
typedef struct wa__dns_part {
    uint32_t net, stream;
    wa_pollable_key key;
    wa_pollable_wait wait;
} wa__dns_part;
_Static_assert(sizeof(wa__dns_part) <= sizeof(wa_net_host) && _Alignof(wa__dns_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__DNS_H(d) ((wa__dns_part *)(void *)&(d)->host)

static void wa__dns_release(wa_dns *d)
{
    wa_drop_held(&WA__DNS_H(d)->wait.fut, &d->waiting);
    if (d->registered) { /* the pollable before its stream */
        wa_pollable_deregister(d->rt, WA__DNS_H(d)->key);
        d->registered = 0;
    }
    if (WA__DNS_H(d)->stream != WA_NO_HANDLE) {
        wa__wasip2_resolve_drop(WA__DNS_H(d)->stream);
        WA__DNS_H(d)->stream = WA_NO_HANDLE;
    }
    if (WA__DNS_H(d)->net != WA_NO_HANDLE) {
        wa__wasip2_network_drop(WA__DNS_H(d)->net);
        WA__DNS_H(d)->net = WA_NO_HANDLE;
    }
}

static int wa__dns_lookup(wa_dns *d, wa_cx *cx)
{
    int rc;
    if (WA__DNS_H(d)->net == WA_NO_HANDLE) {
        WA__DNS_H(d)->net = wa__wasip2_instance_network();
        if ((rc = wa__wasip2_net_said(d->reason, "resolve-addresses", wa__wasip2_resolve(WA__DNS_H(d)->net, d->name, &WA__DNS_H(d)->stream))) < 0)
            goto done;
    }
    for (;;) {
        if (d->waiting && (rc = wa_poll_held(&WA__DNS_H(d)->wait.fut, &d->waiting, cx)) != 0) {
            if (rc == WA_PENDING)
                return WA_PENDING;
            goto done;
        }
        wa__wasip2_addr a;
        rc = wa__wasip2_net_said(d->reason, "resolve-next-address", wa__wasip2_resolve_next(WA__DNS_H(d)->stream, &a));
        if (rc == 1) {
            if (d->n < WA_DNS_MAX)
                d->addrs[d->n++] = a.ip;
            continue;
        }
        if (rc != WA_EAGAIN)
            goto done;
        if (!d->registered) {
            if ((rc = wa_pollable_register(d->rt, wa__wasip2_resolve_subscribe(WA__DNS_H(d)->stream), &WA__DNS_H(d)->key)) < 0)
                goto done;
            d->registered = 1;
        }
        wa_pollable_wait_init(&WA__DNS_H(d)->wait, WA__DNS_H(d)->key);
        d->waiting = 1;
    }
done:
    wa__dns_release(d);
    return rc < 0 ? rc : 0;
}

/* The host's "none" in a new lookup's fields. */
static void wa__dns_none(wa_dns *d) { WA__DNS_H(d)->net = WA__DNS_H(d)->stream = WA_NO_HANDLE; }

const wa__dns_ops wa__dns_host = {.none = wa__dns_none, .lookup = wa__dns_lookup, .release = wa__dns_release};
