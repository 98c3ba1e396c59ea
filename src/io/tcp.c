/* SPDX-License-Identifier: MIT */
/* What every host's TCP shares: addresses into operations, and the life of
 * a listener (tcp.h), which an accept in flight keeps alive. */
#include <stdlib.h>
#include <string.h>

#include "../core/handles.h"
#include "tcp.h"

wa_tcp *wa_tcp_new(wa_rt *rt)
{
    wa_tcp *l = calloc(1, sizeof *l);
    if (!l || wa_handle_new_(l, WA_HANDLE_TCP, &l->h) < 0) {
        free(l);
        return NULL;
    }
    l->rt = rt;
    l->refs = 1;
    return l;
}

void wa_tcp_discard(wa_tcp *l)
{
    wa_handle_release_(l->h);
    free(l);
}

/* The listener of handle h, or NULL (NULL, or closed: through this copy of
 * the handle or another). */
static wa_tcp *wa_tcp_at(const wa_tcp *h) { return wa_handle_get_((uintptr_t)h, WA_HANDLE_TCP); }

static void wa_tcp_unref(wa_tcp *l)
{
    if (--l->refs == 0)
        free(l);
}

int wa_tcp_close_with(wa_tcp **lp, void (*release_socket)(wa_tcp *))
{
    wa_tcp *l = lp ? wa_tcp_at(*lp) : NULL;
    if (lp)
        *lp = NULL;
    if (!l)
        return wa_misuse(WA_EMISUSE, "wa_tcp_close: a listener closed already (through this copy of the handle or another), or NULL");
    wa_handle_release_(l->h); /* every copy of the handle goes stale */
    l->closed = 1;
    release_socket(l);
    wa_tcp_unref(l);
    return 0;
}

uint16_t wa_tcp_port(const wa_tcp *h)
{
    const wa_tcp *l = wa_tcp_at(h);
    if (!l) {
        wa_misuse(WA_EMISUSE, "wa_tcp_port: a closed (or NULL) listener");
        return 0;
    }
    return l->port;
}

wa_future *wa_tcp_op_start(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, const char *ip, uint16_t port)
{
    static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
    *op = (wa_tcp_op){.fut = {vt}, .rt = rt, .port = port};
    if (wa_ip_parse(ip, &op->ip) < 0) {
        op->step = -1;
    } else if (op->ip.v6 && !memcmp(op->ip.bytes, mapped, sizeof mapped)) {
        /* ::ffff:a.b.c.d is a.b.c.d: IPv6 sockets are IPv6 only (WASI
         * 0.2 refuses mapped addresses outright) */
        wa_ip v4 = {0};
        memcpy(v4.bytes, op->ip.bytes + 12, 4);
        op->ip = v4;
    }
    return &op->fut;
}

int wa_tcp_listen_poll_with(wa_tcp_op *op, int (*open)(wa_tcp_op *, wa_tcp *))
{
    if (op->step < 0)
        return WA_EINVAL;
    wa_tcp *l = wa_tcp_new(op->rt);
    if (!l)
        return WA_ENOMEM;
    int rc = open(op, l);
    if (rc < 0) {
        wa_tcp_discard(l);
        return rc;
    }
    op->listener = wa_tcp_handle(l);
    return 0;
}

wa_future *wa_tcp_accept_start(wa_tcp_op *op, const wa_future_vt *vt, wa_tcp *h)
{
    wa_tcp *l = wa_tcp_at(h);
    *op = (wa_tcp_op){.fut = {vt}, .rt = l ? l->rt : NULL, .listener = l};
    if (l)
        l->refs++;
    return &op->fut;
}

int wa_tcp_accept_poll_with(wa_tcp_op *op, wa_cx *cx, int (*try_accept)(wa_tcp_op *, wa_cx *))
{
    int rc;
    if (!op->listener)
        rc = wa_misuse(WA_EMISUSE, "wa_tcp_accept: no listener (NULL, or closed through a copy of the handle), or polled after its end");
    else
        rc = op->listener->closed ? WA_ECLOSED : try_accept(op, cx);
    if (rc != WA_PENDING)
        wa_drop(&op->fut);
    return rc;
}

void wa_tcp_accept_end(wa_tcp_op *op)
{
    if (op->listener) {
        wa_tcp_unref(op->listener);
        op->listener = NULL;
    }
}
