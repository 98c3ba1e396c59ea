/* SPDX-License-Identifier: MIT */
/* Internal: a wa_ip and a port as a socket address, and back (native TCP
 * and UDP); the union holds a Unix socket's too (native tcp.c). */
#ifndef WASYNC_HOST_NATIVE_SOCKADDR_H
#define WASYNC_HOST_NATIVE_SOCKADDR_H

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "wasync/net.h"

typedef union wa__sockaddr {
    struct sockaddr sa;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr_un un;
} wa__sockaddr;

/* ip:port into *a; returns its length. */
static inline socklen_t wa__sockaddr_set(wa__sockaddr *a, const wa_ip *ip, uint16_t port)
{
    memset(a, 0, sizeof *a);
    if (ip->v6) {
        a->v6.sin6_family = AF_INET6;
        a->v6.sin6_port = htons(port);
        memcpy(&a->v6.sin6_addr, ip->bytes, 16);
        return sizeof a->v6;
    }
    a->v4.sin_family = AF_INET;
    a->v4.sin_port = htons(port);
    memcpy(&a->v4.sin_addr, ip->bytes, 4);
    return sizeof a->v4;
}

/* *a's address into *ip; returns its port. */
static inline uint16_t wa__sockaddr_get(const wa__sockaddr *a, wa_ip *ip)
{
    *ip = (wa_ip){.v6 = a->sa.sa_family == AF_INET6};
    if (ip->v6) {
        memcpy(ip->bytes, &a->v6.sin6_addr, 16);
        return ntohs(a->v6.sin6_port);
    }
    memcpy(ip->bytes, &a->v4.sin_addr, 4);
    return ntohs(a->v4.sin_port);
}

#endif
