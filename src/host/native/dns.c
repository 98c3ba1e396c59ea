/* SPDX-License-Identifier: MIT */
/* DNS on native Linux. getaddrinfo blocks, so each lookup runs it on the
 * runtime's blocking pool (src/threads/blocking.c), whose completion wakes the
 * lookup. The name and the addresses travel in a job that the blocking
 * future owns: a lookup dropped while getaddrinfo runs leaves the pool
 * thread to free it, one dropped before it ran cancels it. These are the
 * operations (wa__dns_host) of the front end, src/io/dns.c, which makes the
 * future. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/dns.h"
#include "../../io/reason.h"
#include "wasync/thread.h"

/* The host part of a lookup (wa_net_host): the blocking future running it
 * (d->waiting while held). */
typedef struct wa__dns_part {
    wa_blocking run;
} wa__dns_part;
_Static_assert(sizeof(wa__dns_part) <= sizeof(wa_net_host) && _Alignof(wa__dns_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__DNS_H(d) ((wa__dns_part *)(void *)&(d)->host)

/* A lookup's job: its input, then (the blocking function's result, the
 * job itself) its output. */
typedef struct wa__dns_job {
    int rc, n;
    char reason[WA_REASON_MAX]; /* getaddrinfo's words for its failure */
    wa_ip addrs[WA_DNS_MAX];
    char name[];
} wa__dns_job;

static int wa__dns_eai(int e)
{
    switch (e) {
    case EAI_MEMORY:
        return WA_ENOMEM;
    case EAI_AGAIN:
        return WA_ETIMEDOUT;
    case EAI_NONAME:
    case EAI_NODATA: /* (a name with no address) */
        return WA_ENOTFOUND;
    default: /* EAI_FAIL... */
        return WA_EIO;
    }
}

/* On a pool thread: resolves the job arg (borrowed); returns it. */
static void *wa__dns_resolve(void *arg)
{
    wa__dns_job *j = arg;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int e = getaddrinfo(j->name, NULL, &hints, &res);
    if (e == 0) {
        for (struct addrinfo *a = res; a && j->n < WA_DNS_MAX; a = a->ai_next) {
            wa_ip *ip = &j->addrs[j->n];
            if (a->ai_family == AF_INET) {
                memcpy(ip->bytes, &((struct sockaddr_in *)a->ai_addr)->sin_addr, 4);
                ip->v6 = 0;
                j->n++;
            } else if (a->ai_family == AF_INET6) {
                memcpy(ip->bytes, &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr, 16);
                ip->v6 = 1;
                j->n++;
            }
        }
        freeaddrinfo(res);
    }
    if (e) {
        j->rc = wa__dns_eai(e);
        wa__reason_say(j->reason, "getaddrinfo", e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e));
    }
    return j;
}

/* Takes the job of a lookup that will not read it (result is the job or
 * NULL). */
static void wa__dns_job_free(void *arg, void *result)
{
    (void)result;
    free(arg);
}

static int wa__dns_lookup(wa_dns *d, wa_cx *cx)
{
    if (!d->waiting) { /* the first poll */
        size_t len = strlen(d->name) + 1;
        wa__dns_job *j = malloc(sizeof *j + len);
        if (!j)
            return WA_ENOMEM;
        j->rc = j->n = 0;
        memcpy(j->name, d->name, len);
        wa_blocking_init(&WA__DNS_H(d)->run, wa__dns_resolve, j, wa__dns_job_free);
        d->waiting = 1;
    }
    int rc = wa_poll_held(&WA__DNS_H(d)->run.fut, &d->waiting, cx);
    if (rc == WA_PENDING)
        return rc;
    if (rc == 0) { /* the job is the lookup's now */
        wa__dns_job *j = WA__DNS_H(d)->run.result;
        rc = j->rc;
        d->n = j->n;
        memcpy(d->addrs, j->addrs, sizeof d->addrs);
        if (rc < 0)
            memcpy(d->reason, j->reason, sizeof d->reason);
        free(j);
    }
    return rc;
}

static void wa__dns_release(wa_dns *d) { wa_drop_held(&WA__DNS_H(d)->run.fut, &d->waiting); }

const wa__dns_ops wa__dns_host = {.lookup = wa__dns_lookup, .release = wa__dns_release};
