/* Internal: what every host's TCP shares. */
#ifndef WASYNC_IO_TCP_H
#define WASYNC_IO_TCP_H

#include <stdint.h>

#include "wasync/net.h"

/* "a.b.c.d" (decimal, each 0..255) into out. Returns 0 or WA_EINVAL. */
static inline int wa_ip4_parse(const char *ip, uint8_t out[4])
{
    for (int i = 0; i < 4; i++) {
        unsigned v = 0, digits = 0;
        while (*ip >= '0' && *ip <= '9' && digits < 4)
            v = v * 10 + (unsigned)(*ip++ - '0'), digits++;
        if (!digits || v > 255 || *ip != (i < 3 ? '.' : '\0'))
            return WA_EINVAL;
        out[i] = (uint8_t)v;
        ip += i < 3;
    }
    return 0;
}

/* Starts op (its host fields zero: set the host's "none" values after) as
 * a TCP operation with vt on rt, to or at ip:port; a bad ip makes its
 * first poll report WA_EINVAL (op->step -1). */
static inline wa_future *wa_tcp_op_start(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, const char *ip,
                                         uint16_t port)
{
    *op = (wa_tcp_op){.fut = {vt}, .rt = rt, .port = port};
    if (ip && wa_ip4_parse(ip, op->ip) < 0)
        op->step = -1;
    return &op->fut;
}

#endif
