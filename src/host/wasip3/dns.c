/* SPDX-License-Identifier: MIT */
/* DNS over wasi:sockets@0.3.0's ip-name-lookup: resolve-addresses is an
 * async func, awaited as a wa_subtask that holds its area (the result and
 * a copy of the name: kept from the host past a cancel, subtask.c). These
 * are the operations (wa__dns_host) of the front end, src/io/dns.c, which
 * makes the future. */
#include <stdlib.h>
#include <string.h>

#include "../../io/dns.h"
#include "reactor.h"
#include "sockets.h"
#include "wasync/component.h"

/* The host part of a lookup (wa_net_host): the call (d->waiting while
 * held), its area in call.area. */
typedef struct wa__dns_part {
    wa_subtask call;
} wa__dns_part;
_Static_assert(sizeof(wa__dns_part) <= sizeof(wa_net_host) && _Alignof(wa__dns_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__DNS_H(d) ((wa__dns_part *)(void *)&(d)->host)

static int wa__dns_lookup(wa_dns *d, wa_cx *cx)
{
    wa_subtask *call = &WA__DNS_H(d)->call;
    if (!d->registered) { /* (registered: the call was made) */
        size_t len = strlen(d->name);
        unsigned char *area = wa_subtask_area_new(WA__WASIP3_RESOLVE_NAME + len + 1, wa__wasip3_resolve_late);
        if (!area)
            return WA_ENOMEM;
        memcpy(area + WA__WASIP3_RESOLVE_NAME, d->name, len + 1);
        wa_wasip3_stats *st = wa__wasip3_stats_of(cx->rt);
        if (st)
            st->async_calls++;
        wa_subtask_init_area(call, wa__wasip3_resolve(area), area);
        d->registered = d->waiting = 1;
    }
    int rc = wa_poll_held(&call->fut, &d->waiting, cx);
    if (rc == WA_PENDING)
        return rc;
    if (rc == 0)
        rc = wa__wasip3_net_said(d->reason, "resolve-addresses", wa__wasip3_resolve_result(call->area, d->addrs, WA_DNS_MAX, &d->n));
    wa_subtask_area_free(call->area);
    call->area = NULL;
    return rc;
}

/* A call dropped after it returned wrote its result: what the host
 * lowered is freed. */
static void wa__dns_release(wa_dns *d)
{
    if (!d->waiting)
        return;
    wa_subtask *call = &WA__DNS_H(d)->call;
    wa_drop(&call->fut);
    d->waiting = 0;
    if (call->state == WA_SUBTASK_RETURNED)
        wa__wasip3_resolve_result(call->area, d->addrs, WA_DNS_MAX, &d->n);
    wa_subtask_area_free(call->area); /* (NULL if kept from the host) */
    call->area = NULL;
}

const wa__dns_ops wa__dns_host = {.lookup = wa__dns_lookup, .release = wa__dns_release};
