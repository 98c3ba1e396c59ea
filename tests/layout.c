/* SPDX-License-Identifier: MIT */
/* Prints the size and alignment of every public type, and the offsets of
 * the fields after a host's private storage. Built once per host the
 * headers can be configured for (wasync/config.h: native, js, wasip1,
 * wasip2, wasip3) and compared (tests/layout.cmake): the public types have one
 * layout, so no host's storage can leak into them. */
#include <stddef.h>
#include <stdio.h>

#include "wasync.h"
#include "wasync/component.h"
#include "wasync/http.h"
#include "wasync/js.h"
#include "wasync/net.h"
#include "wasync/udp.h"
#include "wasync/wasi.h"

#define TYPE(t) printf("%-18s %4zu %2zu\n", #t, sizeof(t), _Alignof(t));
#define FIELD(t, f) printf("%-18s .%-10s %4zu\n", #t, #f, offsetof(t, f));

int main(void)
{
    TYPE(wa_acquire) TYPE(wa_backend) TYPE(wa_backend_vt) TYPE(wa_barrier) TYPE(wa_barrier_wait) TYPE(wa__branch)
    TYPE(wa_broadcast_recv) TYPE(wa_broadcast_rx) TYPE(wa_broadcast_tx)
    TYPE(wa_combo) TYPE(wa_copy)
    TYPE(wa_coro) TYPE(wa_cx) TYPE(wa_dns) TYPE(wa_future) TYPE(wa_future_vt) TYPE(wa_http_fetch)
    TYPE(wa_http_header) TYPE(wa_http_request) TYPE(wa_http_send) TYPE(wa_interval) TYPE(wa_ip) TYPE(wa_join)
    TYPE(wa_js_op) TYPE(wa__list) TYPE(wa__list_node) TYPE(wa_mutex) TYPE(wa_net_host) TYPE(wa_notified) TYPE(wa_notify) TYPE(wa_pollable_wait)
    TYPE(wa_read) TYPE(wa_read_all) TYPE(wa_read_exact) TYPE(wa_read_until) TYPE(wa_reader) TYPE(wa_recv) TYPE(wa_rt_stats)
    TYPE(wa_rwlock) TYPE(wa_rx) TYPE(wa_scope) TYPE(wa_sem)
    TYPE(wa_send) TYPE(wa_signals_wait) TYPE(wa_sleep) TYPE(wa_stream) TYPE(wa_stream_vt) TYPE(wa_stream_wait) TYPE(wa_subtask)
    TYPE(wa_task_local) TYPE(wa_tcp_op) TYPE(wa_timeout) TYPE(wa__timer) TYPE(wa_tx) TYPE(wa_udp_op) TYPE(wa__wait_link) TYPE(wa__waiter)
    TYPE(wa__waitq) TYPE(wa_waker) TYPE(wa_waker_vt) TYPE(wa_waitable_wait) TYPE(wa_wasi_datetime) TYPE(wa_wasip2_stats)
    TYPE(wa_watch_rx) TYPE(wa_watch_tx)
    TYPE(wa_wasip3_stats) TYPE(wa_write) TYPE(wa_yield)
    FIELD(wa_tcp_op, host) FIELD(wa_tcp_op, listener) FIELD(wa_tcp_op, conn)
    FIELD(wa_udp_op, host) FIELD(wa_udp_op, data) FIELD(wa_udp_op, n)
    FIELD(wa_dns, host) FIELD(wa_dns, addrs) FIELD(wa_dns, n)
    FIELD(wa_subtask, rt) FIELD(wa_subtask, wait)
    return 0;
}
