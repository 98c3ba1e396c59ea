# SPDX-License-Identifier: MIT
# The WASI 0.2 host (components): its pollable reactor, its bindings (one
# file per WASI package) and what it does over them (streams, TCP, DNS, the
# HTTP client and server), with the parts it shares with WASI 0.3 (src/wasi)
# and every host (TCP's common part, addresses, the HTTP front end).
wasync_sources(host/wasip2 reactor.c io.c clocks.c random.c cli.c sockets.c http.c
  stream.c tcp.c udp.c dns.c http_client.c http_server.c)
wasync_sources(wasi cabi.c lift.c http_call.c http_incoming.c)
wasync_sources(reactor regs.c log_stderr.c)
# (a trace's file or stderr through the C library, as natively)
wasync_sources(host/posix trace_sink.c)
wasync_sources(io tcp.c udp.c dns.c ip.c http_url.c http_fields.c http_send.c http_fetch.c http_body_read.c)
