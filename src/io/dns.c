/* SPDX-License-Identifier: MIT */
/* The lookup future of every host's DNS (see dns.h): a lookup polled after
 * its end is found out here, the same everywhere, and the host's ops
 * resolve the name. */
#include "dns.h"

/* A lookup's name is NULL once it ended (or was dropped). */
static int wa_dns_poll(wa_future *f, wa_cx *cx)
{
    wa_dns *d = (wa_dns *)f;
    if (!d->name)
        return wa_misuse(WA_EMISUSE, "wa_dns_lookup: polled after its end (or dropped), or a NULL name");
    int rc = wa_dns_host.lookup(d, cx);
    if (rc != WA_PENDING)
        d->name = NULL;
    return rc;
}

static void wa_dns_drop(wa_future *f)
{
    wa_dns *d = (wa_dns *)f;
    d->name = NULL;
    wa_dns_host.release(d);
}

static const wa_future_vt wa_dns_vt = {wa_dns_poll, wa_dns_drop, "dns_lookup"};

wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name)
{
    *d = (wa_dns){.fut = {&wa_dns_vt}, .rt = rt, .name = name};
    if (wa_dns_host.none)
        wa_dns_host.none(d);
    return &d->fut;
}
