/* SPDX-License-Identifier: MIT */
/* DNS over wasi:sockets@0.3.0's ip-name-lookup: resolve-addresses is an
 * async func, awaited as a wa_subtask, its return area in the lookup. */
#include "../backend/wasip3.h"
#include "../wasi/sockets_p3.h"
#include "wasync/component.h"
#include "wasync/net.h"

/* The host part of a lookup (wa_net_host): the call (d->waiting while
 * held) and its return area. */
typedef struct wa_dns_host {
    wa_subtask call;
    _Alignas(4) unsigned char ret[20];
} wa_dns_host;
_Static_assert(sizeof(wa_dns_host) <= sizeof(wa_net_host) && _Alignof(wa_dns_host) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA_DNS_H(d) ((wa_dns_host *)(void *)&(d)->host)

static int wa_dns_poll(wa_future *f, wa_cx *cx)
{
    wa_dns *d = (wa_dns *)f;
    if (!d->registered) { /* (registered: the call was made) */
        wa_wasip3_stats *st = wa_wasip3_stats_of_(cx->rt);
        if (st)
            st->async_calls++;
        wa_subtask_init(&WA_DNS_H(d)->call, wa_p3_resolve(d->name, WA_DNS_H(d)->ret));
        d->registered = d->waiting = 1;
    }
    int rc = wa_poll_held(&WA_DNS_H(d)->call.fut, &d->waiting, cx);
    if (rc != 0)
        return rc;
    return wa_p3_resolve_result(WA_DNS_H(d)->ret, d->addrs, WA_DNS_MAX, &d->n);
}

/* A call dropped after it returned wrote its result: what the host
 * lowered is freed. */
static void wa_dns_drop(wa_future *f)
{
    wa_dns *d = (wa_dns *)f;
    if (!d->waiting)
        return;
    wa_drop(&WA_DNS_H(d)->call.fut);
    d->waiting = 0;
    if (WA_DNS_H(d)->call.state == WA_SUBTASK_RETURNED)
        wa_p3_resolve_result(WA_DNS_H(d)->ret, d->addrs, WA_DNS_MAX, &d->n);
}

static const wa_future_vt wa_dns_vt = {wa_dns_poll, wa_dns_drop, "dns"};

wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name)
{
    *d = (wa_dns){.fut = {&wa_dns_vt}, .rt = rt, .name = name};
    return &d->fut;
}
