/* DNS over wasi:sockets/ip-name-lookup: the addresses arrive on a stream,
 * read until its end, waiting on its pollable when none is ready yet. */
#include "../wasi/io.h"
#include "../wasi/sockets.h"
#include "wasync/net.h"

static void wa_dns_release(wa_dns *d)
{
    wa_drop_held(&d->wait.fut, &d->waiting);
    if (d->registered) { /* the pollable before its stream */
        wa_pollable_deregister(d->rt, d->key);
        d->registered = 0;
    }
    if (d->stream != WA_NO_HANDLE) {
        wa_p2_resolve_drop(d->stream);
        d->stream = WA_NO_HANDLE;
    }
    if (d->net != WA_NO_HANDLE) {
        wa_p2_network_drop(d->net);
        d->net = WA_NO_HANDLE;
    }
}

static int wa_dns_poll(wa_future *f, wa_cx *cx)
{
    wa_dns *d = (wa_dns *)f;
    int rc;
    if (d->net == WA_NO_HANDLE) {
        d->net = wa_p2_instance_network();
        if ((rc = wa_p2_resolve(d->net, d->name, &d->stream)) < 0)
            goto done;
    }
    for (;;) {
        if (d->waiting && (rc = wa_poll_held(&d->wait.fut, &d->waiting, cx)) != 0) {
            if (rc == WA_PENDING)
                return WA_PENDING;
            goto done;
        }
        wa_p2_addr a;
        rc = wa_p2_resolve_next(d->stream, &a);
        if (rc == 1) {
            if (d->n < WA_DNS_MAX)
                d->addrs[d->n++] = a.ip;
            continue;
        }
        if (rc != WA_EAGAIN)
            goto done;
        if (!d->registered) {
            if ((rc = wa_pollable_register(d->rt, wa_p2_resolve_subscribe(d->stream), &d->key)) < 0)
                goto done;
            d->registered = 1;
        }
        wa_pollable_wait_init(&d->wait, d->key);
        d->waiting = 1;
    }
done:
    wa_dns_release(d);
    return rc < 0 ? rc : 0;
}

static void wa_dns_drop(wa_future *f) { wa_dns_release((wa_dns *)f); }

static const wa_future_vt wa_dns_vt = {wa_dns_poll, wa_dns_drop, "dns"};

wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name)
{
    *d = (wa_dns){.fut = {&wa_dns_vt}, .rt = rt, .name = name, .net = WA_NO_HANDLE, .stream = WA_NO_HANDLE};
    return &d->fut;
}
