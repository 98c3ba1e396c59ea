/* Internal: IPv4 text addresses, for every host's TCP. */
#ifndef WASYNC_IO_IP_H
#define WASYNC_IO_IP_H

#include <stdint.h>

#include "wasync/error.h"

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

#endif
