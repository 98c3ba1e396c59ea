/* SPDX-License-Identifier: MIT */
/* DNS on native Linux. getaddrinfo blocks, so each lookup runs it on a
 * thread of its own, which then signals an eventfd registered with the
 * runtime's epoll backend. The lookup and the thread share a job with two
 * references: a lookup dropped first leaves the thread to free it. */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "wasync/net.h"

/* The host part of a lookup (wa_net_host): the job its thread shares,
 * the eventfd's registration and the wait on it. */
typedef struct wa_dns_host {
    struct wa_dns_job *job;
    wa_fd_key key;
    wa_fd_wait wait;
} wa_dns_host;
_Static_assert(sizeof(wa_dns_host) <= sizeof(wa_net_host) && _Alignof(wa_dns_host) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA_DNS_H(d) ((wa_dns_host *)(void *)&(d)->host)

struct wa_dns_job {
    atomic_int refs;  /* the lookup's and the thread's */
    atomic_int done;  /* set (release) once rc and the addresses are */
    int efd, rc, n;
    wa_ip addrs[WA_DNS_MAX];
    char name[];
};

static void wa_dns_job_unref(struct wa_dns_job *j)
{
    if (atomic_fetch_sub_explicit(&j->refs, 1, memory_order_acq_rel) == 1) {
        close(j->efd);
        free(j);
    }
}

static int wa_dns_eai(int e)
{
    switch (e) {
    case EAI_MEMORY:
        return WA_ENOMEM;
    case EAI_AGAIN:
        return WA_ETIMEDOUT;
    default: /* EAI_NONAME, EAI_NODATA, EAI_FAIL... */
        return WA_EIO;
    }
}

static void *wa_dns_thread(void *arg)
{
    struct wa_dns_job *j = arg;
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
    j->rc = e ? wa_dns_eai(e) : 0;
    atomic_store_explicit(&j->done, 1, memory_order_release);
    uint64_t one = 1;
    if (write(j->efd, &one, sizeof one) < 0) { /* (cannot fail: a counter) */
    }
    wa_dns_job_unref(j);
    return NULL;
}

/* Starts the job and its thread; registers the eventfd. */
static int wa_dns_start(wa_dns *d)
{
    size_t len = strlen(d->name) + 1;
    struct wa_dns_job *j = calloc(1, sizeof *j + len);
    if (!j)
        return WA_ENOMEM;
    memcpy(j->name, d->name, len);
    atomic_init(&j->refs, 1);
    if ((j->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        free(j);
        return WA_EIO;
    }
    WA_DNS_H(d)->job = j;
    int rc = wa_fd_register(d->rt, j->efd, &WA_DNS_H(d)->key);
    if (rc < 0)
        return rc;
    d->registered = 1;
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add_explicit(&j->refs, 1, memory_order_relaxed); /* the thread's */
    if (pthread_create(&t, &attr, wa_dns_thread, j) != 0) {
        atomic_fetch_sub_explicit(&j->refs, 1, memory_order_relaxed);
        rc = WA_EIO;
    }
    pthread_attr_destroy(&attr);
    return rc;
}

/* Releases what the lookup holds; it is finished. */
static void wa_dns_release(wa_dns *d)
{
    d->name = NULL;
    wa_drop_held(&WA_DNS_H(d)->wait.fut, &d->waiting);
    if (d->registered) {
        wa_fd_deregister(d->rt, WA_DNS_H(d)->key);
        d->registered = 0;
    }
    if (WA_DNS_H(d)->job) {
        wa_dns_job_unref(WA_DNS_H(d)->job);
        WA_DNS_H(d)->job = NULL;
    }
}

static int wa_dns_poll(wa_future *f, wa_cx *cx)
{
    wa_dns *d = (wa_dns *)f;
    int rc;
    if (!d->name)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed DNS lookup");
    if (!WA_DNS_H(d)->job && (rc = wa_dns_start(d)) < 0) {
        wa_dns_release(d);
        return rc;
    }
    while (!atomic_load_explicit(&WA_DNS_H(d)->job->done, memory_order_acquire)) {
        if (!d->waiting) {
            wa_fd_wait_init(&WA_DNS_H(d)->wait, WA_DNS_H(d)->key, WA_READABLE);
            d->waiting = 1;
        }
        if ((rc = wa_poll_held(&WA_DNS_H(d)->wait.fut, &d->waiting, cx)) != 0) {
            if (rc != WA_PENDING)
                wa_dns_release(d);
            return rc;
        }
    }
    rc = WA_DNS_H(d)->job->rc;
    d->n = WA_DNS_H(d)->job->n;
    memcpy(d->addrs, WA_DNS_H(d)->job->addrs, sizeof d->addrs);
    wa_dns_release(d);
    return rc;
}

static void wa_dns_drop(wa_future *f) { wa_dns_release((wa_dns *)f); }

static const wa_future_vt wa_dns_vt = {wa_dns_poll, wa_dns_drop, "dns_lookup"};

wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name)
{
    *d = (wa_dns){.fut = {&wa_dns_vt}, .rt = rt, .name = name};
    return &d->fut;
}
