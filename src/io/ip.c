/* SPDX-License-Identifier: MIT */
/* IP address literals, read exactly as inet_pton reads them, in code of our
 * own: WASI has no inet_pton, and both hosts must agree on what an address
 * is. IPv4: four decimal parts, each 0..255, without leading zeros
 * (inet_pton refuses "0127.0.0.1" rather than read it as octal or as
 * decimal). IPv6: RFC 4291's text forms: eight groups of one to four hex
 * digits, one "::" standing for one or more zero groups, and the last two
 * groups optionally written as IPv4 ("::ffff:1.2.3.4"). No zone ids
 * ("fe80::1%eth0"): inet_pton has none, and WASI's scope-id is no name.
 * tests/test_net.c and tests/fuzz/fuzz_ip.c compare this with inet_pton. */
#include <string.h>

#include "ip.h"

/* "a.b.c.d" to the end of s into out[4]: 0 or WA_EINVAL. */
static int wa__ip4_parse(const char *s, uint8_t out[4])
{
    for (int i = 0; i < 4; i++) {
        unsigned v = 0;
        int digits = 0;
        while (digits < 3 && s[digits] >= '0' && s[digits] <= '9')
            v = v * 10 + (unsigned)(s[digits++] - '0');
        if (!digits || v > 255 || (digits > 1 && s[0] == '0'))
            return WA_EINVAL;
        out[i] = (uint8_t)v;
        s += digits;
        if (*s != (i < 3 ? '.' : '\0'))
            return WA_EINVAL; /* (a fourth digit lands here too) */
        s++;
    }
    return 0;
}

static int wa__hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20; /* lower case */
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An IPv6 literal, the whole of s, into out[16]: 0 or WA_EINVAL. */
static int wa__ip6_parse(const char *s, uint8_t out[16])
{
    uint8_t b[16] = {0};
    int n = 0, gap = -1; /* bytes so far; where "::" is, if any */
    if (*s == ':' && *++s != ':')
        return WA_EINVAL; /* a leading colon only as "::" */
    for (;;) {
        if (*s == ':') { /* the second colon of a "::" */
            if (gap >= 0)
                return WA_EINVAL;
            gap = n;
            if (!*++s)
                break;
            continue;
        }
        const char *group = s;
        unsigned v = 0;
        while (s - group < 4 && wa__hex(*s) >= 0)
            v = v << 4 | (unsigned)wa__hex(*s++);
        if (s == group)
            return WA_EINVAL;
        if (*s == '.') { /* the group was IPv4's first part: IPv4 ends s */
            if (n > 12 || wa__ip4_parse(group, b + n) < 0)
                return WA_EINVAL;
            n += 4;
            break;
        }
        if (n == 16)
            return WA_EINVAL;
        b[n++] = (uint8_t)(v >> 8);
        b[n++] = (uint8_t)v;
        if (!*s)
            break;
        if (*s++ != ':' || !*s)
            return WA_EINVAL; /* not a colon, or a colon that ends s */
    }
    if (gap >= 0) {
        if (n == 16)
            return WA_EINVAL; /* "::" stands for at least one group */
        memmove(b + 16 - (n - gap), b + gap, (size_t)(n - gap));
        memset(b + gap, 0, (size_t)(16 - n));
    } else if (n != 16) {
        return WA_EINVAL;
    }
    memcpy(out, b, 16);
    return 0;
}

int wa__ip_parse(const char *s, wa_ip *out)
{
    if (!s)
        return WA_EINVAL;
    /* every IPv6 literal has a colon and no IPv4 one does */
    wa_ip ip = {.v6 = strchr(s, ':') != NULL};
    int rc = ip.v6 ? wa__ip6_parse(s, ip.bytes) : wa__ip4_parse(s, ip.bytes);
    if (rc == 0)
        *out = ip;
    return rc;
}

/* The public call (udp.h): a receive's sender is a wa_ip, and so is a
 * send's peer. */
int wa_ip_parse(const char *s, wa_ip *ip) { return wa__ip_parse(s, ip); }

void wa__ip_unmap(wa_ip *ip)
{
    static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
    if (ip->v6 && !memcmp(ip->bytes, mapped, sizeof mapped)) {
        wa_ip v4 = {0};
        memcpy(v4.bytes, ip->bytes + 12, 4);
        *ip = v4;
    }
}
