/* SPDX-License-Identifier: MIT */
/* The lookup future of every host's DNS (see dns.h): a lookup polled after
 * its end is found out here, the same everywhere, and the host's ops
 * resolve the name. */
#include "dns.h"

/* A lookup's name is NULL once it ended (or was dropped). */
static int wa__dns_poll(wa_future *f, wa_cx *cx)
{
    wa_dns *d = (wa_dns *)f;
    if (!d->name)
        return wa_misuse(WA_EMISUSE, "wa__dns_lookup: polled after its end (or dropped), or a NULL name");
    int rc = wa__dns_host.lookup(d, cx);
    if (rc != WA_PENDING)
        d->name = NULL;
    return rc;
}

static void wa__dns_drop(wa_future *f)
{
    wa_dns *d = (wa_dns *)f;
    d->name = NULL;
    wa__dns_host.release(d);
}

static const wa_future_vt wa__dns_vt = {wa__dns_poll, wa__dns_drop, "dns_lookup"};

wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name)
{
    *d = (wa_dns){.fut = {&wa__dns_vt}, .rt = rt, .name = name};
    if (wa__dns_host.none)
        wa__dns_host.none(d);
    return &d->fut;
}

const char *wa_dns_reason(const wa_dns *d) { return d->reason; }
