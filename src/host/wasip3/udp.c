/* SPDX-License-Identifier: MIT */
/* UDP over wasi:sockets@0.3.0. Binding is synchronous (create, bind);
 * send and receive are async funcs, awaited as subtasks whose areas hold
 * their arguments and results (kept from the host past a cancel,
 * subtask.c). A send is its op's call: dropped, it is cancelled. A
 * receive's call is the socket's: an op dropped while it is in flight
 * leaves it to the next receive, so that the datagram it brings is not
 * lost, and only the close cancels it. That is for jco's preview3-shim
 * (0.7), whose receive, cancelled, still takes the next datagram off the
 * socket's queue (and two at once: one takes it, the other fails); and
 * whose close leaves a receive in flight pending for ever (its area is
 * then held, wa_wasip3_held_areas). These are the operations
 * (wa__udp_host) of the front end, src/io/udp.c, which makes the futures
 * and the socket. */
#include <stdlib.h>
#include <string.h>

#include "../../io/udp.h"
#include "reactor.h"
#include "sockets.h"
#include "wasync/component.h"

/* The socket's receive call. */
enum { WA__UDP_P3_IDLE, WA__UDP_P3_BLOCKED, WA__UDP_P3_DONE };

/* A socket, and its receive call: a subtask never polled as a future
 * (its drop cancels and keeps the area as subtask.c does), registered
 * under key while BLOCKED or DONE (an event came that nobody read yet). */
struct wa_udp {
    wa__udp_head head;
    uint32_t sock;
    int reading;
    wa_subtask call;
    wa_waitable_key key;
};

/* The host part of an operation (wa_net_host): a receive's wait on its
 * socket's call (op->waiting), or a send's call. */
typedef struct wa__udp_part {
    union {
        wa_waitable_wait wait;
        wa_subtask call;
    } u;
} wa__udp_part;
_Static_assert(sizeof(wa__udp_part) <= sizeof(wa_net_host) && _Alignof(wa__udp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__UDP_H(op) ((wa__udp_part *)(void *)&(op)->host)

static void wa__udp_count_call(wa_rt *rt)
{
    wa_wasip3_stats *st = wa__wasip3_stats_of(rt);
    if (st)
        st->async_calls++;
}

/* rc of the wasi:sockets call named call, its error-code op's reason. */
#define WA__SAID(op, call, rc) wa__wasip3_net_said((op)->reason, call, rc)

/* bind, at once: u's socket, bound, and its port. Only on this host's
 * backend, whose waitables the calls need (not on sim: WA_ENOSYS). */
static int wa__udp_bind(wa_udp_op *op, wa_udp *u, wa_cx *cx)
{
    (void)cx;
    if (!wa__wasip3_stats_of(op->rt))
        return WA_ENOSYS;
    int rc = WA__SAID(op, "create", wa__wasip3_udp_create(op->ip.v6, &u->sock));
    if (rc == 0 && (rc = WA__SAID(op, "bind", wa__wasip3_udp_bind(u->sock, &op->ip, op->port))) == 0 &&
        (rc = WA__SAID(op, "get-local-address", wa__wasip3_udp_local_port(u->sock, &u->head.port))) == 0)
        return 0;
    if (u->sock)
        wa__wasip3_udp_drop(u->sock);
    return rc;
}

/* Ends u's receive call, returned or (cancel) not, and its registration:
 * the result read into op (NULL: only freed) if it returned. */
static int wa__udp_call_end(wa_udp *u, wa_udp_op *op)
{
    int rc = WA_ECLOSED;
    if (u->reading != WA__UDP_P3_IDLE)
        wa_waitable_deregister(u->head.rt, u->key);
    wa_drop(&u->call.fut); /* (cancels it unless it returned) */
    if (u->call.state == WA_SUBTASK_RETURNED) {
        size_t n;
        wa_ip ip;
        uint16_t port;
        rc = op ? WA__SAID(op, "receive", wa__wasip3_udp_receive_result(u->call.area, op->buf, op->len, &op->n, &op->ip, &op->port))
                : wa__wasip3_udp_receive_result(u->call.area, NULL, 0, &n, &ip, &port);
    }
    wa_subtask_area_free(u->call.area); /* (NULL if kept from the host) */
    u->call.area = NULL;
    u->reading = WA__UDP_P3_IDLE;
    return rc;
}

/* Starts u's receive call: WA_PENDING (BLOCKED, registered), or at once
 * the end of op's receive (it returned, or an error). */
static int wa__udp_call_start(wa_udp *u, wa_udp_op *op)
{
    unsigned char *area = wa_subtask_area_new(WA__WASIP3_UDP_RECEIVE_SIZE, wa__wasip3_udp_receive_late);
    if (!area)
        return WA_ENOMEM;
    wa__udp_count_call(op->rt);
    wa_subtask_init_area(&u->call, wa__wasip3_udp_receive(area, u->sock), area);
    if (u->call.state == WA_SUBTASK_RETURNED)
        return wa__udp_call_end(u, op);
    int rc = wa_waitable_register(op->rt, u->call.subtask, &u->key);
    if (rc < 0) {
        wa__udp_call_end(u, NULL);
        return rc;
    }
    u->reading = WA__UDP_P3_BLOCKED;
    return WA_PENDING;
}

/* A receive's release: ends op's wait on its socket's call, marking the
 * call DONE if the event came (taken or not). The call stays the
 * socket's. */
static void wa__udp_recv_leave(wa_udp_op *op)
{
    wa__udp_part *h = WA__UDP_H(op);
    if (!op->waiting)
        return;
    if (h->u.wait.ready && op->udp->reading == WA__UDP_P3_BLOCKED)
        op->udp->reading = WA__UDP_P3_DONE;
    wa_drop(&h->u.wait.fut);
    op->waiting = 0;
}

static int wa__udp_recv(wa_udp_op *op, wa_cx *cx)
{
    wa_udp *u = op->udp;
    for (;;) {
        int rc;
        if (op->waiting) {
            if ((rc = wa_poll(&WA__UDP_H(op)->u.wait.fut, cx)) == WA_PENDING)
                return rc;
            wa__udp_recv_leave(op);
            if (rc < 0)
                return rc;
        }
        if (u->reading == WA__UDP_P3_IDLE && (rc = wa__udp_call_start(u, op)) != WA_PENDING)
            return rc;
        if (u->reading == WA__UDP_P3_DONE) {
            uint32_t state;
            wa_waitable_payload(op->rt, u->key, &state);
            u->call.state = state;
            if (state == WA_SUBTASK_RETURNED)
                return wa__udp_call_end(u, op);
            u->reading = WA__UDP_P3_BLOCKED; /* STARTED: wait on */
        }
        wa_waitable_wait_init(&WA__UDP_H(op)->u.wait, u->key);
        op->waiting = 1;
    }
}

/* send: the async call, over a copy of the datagram in its area. */
static int wa__udp_send(wa_udp_op *op, wa_cx *cx)
{
    wa_subtask *call = &WA__UDP_H(op)->u.call;
    if (!op->waiting) {
        if (op->len > SIZE_MAX - WA__WASIP3_UDP_SEND_DATA)
            return WA_E2BIG;
        unsigned char *area = wa_subtask_area_new(WA__WASIP3_UDP_SEND_DATA + op->len, wa__wasip3_udp_send_late);
        if (!area)
            return WA_ENOMEM;
        if (op->len)
            memcpy(area + WA__WASIP3_UDP_SEND_DATA, op->data, op->len);
        wa__udp_count_call(op->rt);
        wa_subtask_init_area(call, wa__wasip3_udp_send(area, op->udp->sock, op->len, &op->ip, op->port), area);
        op->waiting = 1;
    }
    int rc = wa_poll_held(&call->fut, &op->waiting, cx);
    if (rc == WA_PENDING)
        return rc;
    if (rc == 0)
        rc = WA__SAID(op, "send", wa__wasip3_udp_send_result(call->area));
    wa_subtask_area_free(call->area);
    call->area = NULL;
    return rc;
}

/* A send dropped after its call returned frees what the host lowered in
 * the result. */
static void wa__udp_send_release(wa_udp_op *op)
{
    wa_subtask *call = &WA__UDP_H(op)->u.call;
    if (!op->waiting)
        return;
    wa_drop(&call->fut);
    op->waiting = 0;
    if (call->state == WA_SUBTASK_RETURNED)
        wa__wasip3_udp_send_result(call->area);
    wa_subtask_area_free(call->area); /* (NULL if kept from the host) */
    call->area = NULL;
}

/* The receive waiting on the call is woken (WA_ECLOSED) by the
 * deregistration; an event it was handed and did not read says the call
 * returned or not. */
static void wa__udp_release_socket(wa_udp *u)
{
    if (u->reading == WA__UDP_P3_BLOCKED && u->head.receiving && u->head.receiving->waiting &&
        WA__UDP_H(u->head.receiving)->u.wait.ready)
        u->reading = WA__UDP_P3_DONE;
    if (u->reading == WA__UDP_P3_DONE)
        wa_waitable_payload(u->head.rt, u->key, &u->call.state);
    if (u->reading != WA__UDP_P3_IDLE)
        wa__udp_call_end(u, NULL);
    wa__wasip3_udp_drop(u->sock);
}

const wa__udp_ops wa__udp_host = {
    .size = sizeof(wa_udp),
    .bind = wa__udp_bind,
    .send = wa__udp_send,
    .recv = wa__udp_recv,
    .send_release = wa__udp_send_release,
    .recv_release = wa__udp_recv_leave, /* (the call stays the socket's) */
    .close = wa__udp_release_socket,
};
