/* SPDX-License-Identifier: MIT */
/* Internal: IP address literals (ip.c), read the same way by TCP and UDP
 * on every host. */
#ifndef WASYNC_IO_IP_H
#define WASYNC_IO_IP_H

#include "wasync/net.h"

/* Reads s (borrowed), an IPv4 or IPv6 literal, as inet_pton does, into
 * *out. Returns 0, or WA_EINVAL (NULL too). */
int wa__ip_parse(const char *s, wa_ip *out);

/* Makes an IPv4-mapped *ip ("::ffff:a.b.c.d") its IPv4 address: IPv6
 * sockets are IPv6 only (WASI 0.2 refuses mapped addresses outright). */
void wa__ip_unmap(wa_ip *ip);

#endif
