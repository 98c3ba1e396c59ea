/* SPDX-License-Identifier: MIT */
#ifndef PEER_UV_TCP_ECHO_H
#define PEER_UV_TCP_ECHO_H

#include <uv.h>

/* bench/soak.c's TCP echo of n connections on loop (tcp_echo.c): prints
 * the soak's figures; returns 0, or 1 if it failed. */
int tcp_echo(uv_loop_t *loop, long n);

#endif
