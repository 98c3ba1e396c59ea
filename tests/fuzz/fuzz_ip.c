/* SPDX-License-Identifier: MIT */
/* The address parser (src/io/ip.c) on any bytes, read as a C string (up to
 * the first NUL): it must take exactly what the libc's inet_pton takes, in
 * one family or the other, with the same bytes. */
#include <arpa/inet.h>

#include "../../src/io/tcp.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    unsigned char b4[4], b6[16];
    int v4 = inet_pton(AF_INET, s, b4) == 1, v6 = inet_pton(AF_INET6, s, b6) == 1;
    wa_ip ip;
    int rc = wa__ip_parse(s, &ip);
    FUZZ_CHECK(rc == (v4 || v6 ? 0 : WA_EINVAL));
    if (rc == 0)
        FUZZ_CHECK(ip.v6 == v6 && memcmp(ip.bytes, v6 ? b6 : b4, v6 ? 16 : 4) == 0);
    free(s);
    return 0;
}
