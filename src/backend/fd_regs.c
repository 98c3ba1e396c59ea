/* fd registrations and waits on them (fd_regs.h), for every backend that
 * has fds. A backend offers its table through its vtable's fd_regs. */
#include <stdlib.h>

#include "fd_regs.h"

void wa_fd_regs_init(wa_fd_regs *r, int (*add)(wa_backend *, int, wa_fd_key), void (*del)(wa_backend *, int))
{
    wa_keys_init(&r->keys, sizeof(wa_fd_reg), UINT32_MAX);
    r->add = add;
    r->del = del;
}

void wa_fd_regs_free(wa_fd_regs *r)
{
    for (uint32_t i = 0; i < r->keys.n; i++) {
        wa_fd_reg *g = (wa_fd_reg *)wa_keys_at(&r->keys, i);
        if (g->slot.live) {
            wa_waker_drop(&g->rd);
            wa_waker_drop(&g->wr);
        }
    }
    wa_keys_free(&r->keys);
}

void wa_fd_regs_ready(wa_fd_reg *g, unsigned events)
{
    g->ready |= events;
    if (events & WA_READABLE)
        wa_waker_wake(&g->rd);
    if (events & WA_WRITABLE)
        wa_waker_wake(&g->wr);
}

/* The table of rt's backend, or NULL when it has no fds. */
static wa_fd_regs *wa_fd_regs_of(wa_rt *rt)
{
    wa_backend *b = rt->backend;
    return b->vt->fd_regs ? b->vt->fd_regs(b) : NULL;
}

int wa_fd_register(wa_rt *rt, int fd, wa_fd_key *key)
{
    wa_fd_regs *r = wa_fd_regs_of(rt);
    if (!r)
        return WA_ENOSYS;
    uint32_t i;
    if (wa_keys_alloc(&r->keys, &i) < 0)
        return WA_ENOMEM;
    wa_fd_reg *g = (wa_fd_reg *)wa_keys_at(&r->keys, i);
    wa_fd_key k = ((uint64_t)g->slot.gen << 32) | i;
    int rc = r->add ? r->add(rt->backend, fd, k) : 0;
    if (rc < 0) {
        wa_keys_release(&r->keys, i);
        return rc;
    }
    g->fd = fd;
    *key = k;
    rt->backend->sources++;
    return 0;
}

int wa_fd_deregister(wa_rt *rt, wa_fd_key key)
{
    wa_fd_regs *r = wa_fd_regs_of(rt);
    if (!r)
        return WA_ENOSYS;
    wa_fd_reg *g = wa_fd_regs_lookup(r, key);
    if (!g)
        return wa_misuse(WA_ESTALE, "deregister of a stale fd key");
    if (r->del)
        r->del(rt->backend, g->fd);
    /* Whoever still waits is told (its next poll sees WA_ECLOSED) rather
     * than left waiting forever. */
    wa_waker_wake(&g->rd);
    wa_waker_wake(&g->wr);
    wa_keys_release(&r->keys, (uint32_t)key);
    rt->backend->sources--;
    return 0;
}

static int wa_fd_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_fd_wait *w = (wa_fd_wait *)f;
    wa_fd_regs *r = wa_fd_regs_of(cx->rt);
    wa_fd_reg *g = r ? wa_fd_regs_lookup(r, w->key) : NULL;
    if (!g) {
        if (!r)
            return WA_ENOSYS;
        /* Deregistered while we waited (closing a source is how another
         * task stops a wait): an error, not misuse. */
        if (w->rt)
            return WA_ECLOSED;
        return wa_misuse(WA_ESTALE, "wait on a stale fd key");
    }
    w->rt = cx->rt;
    unsigned got = g->ready & w->events;
    if (got) {
        g->ready &= ~got;
        w->ready = got;
        return WA_READY;
    }
    if (w->events & WA_READABLE)
        wa_waker_store(&g->rd, cx);
    if (w->events & WA_WRITABLE)
        wa_waker_store(&g->wr, cx);
    return WA_PENDING;
}

static void wa_fd_wait_drop(wa_future *f)
{
    wa_fd_wait *w = (wa_fd_wait *)f;
    wa_fd_regs *r = w->rt ? wa_fd_regs_of(w->rt) : NULL;
    wa_fd_reg *g = r ? wa_fd_regs_lookup(r, w->key) : NULL;
    if (g && (w->events & WA_READABLE))
        wa_waker_drop(&g->rd);
    if (g && (w->events & WA_WRITABLE))
        wa_waker_drop(&g->wr);
    w->rt = NULL;
}

static const wa_future_vt wa_fd_wait_vt = {wa_fd_wait_poll, wa_fd_wait_drop, "fd_wait"};

wa_future *wa_fd_wait_init(wa_fd_wait *w, wa_fd_key key, unsigned events)
{
    w->fut.vt = &wa_fd_wait_vt;
    w->key = key;
    w->events = events;
    w->ready = 0;
    w->rt = NULL;
    return &w->fut;
}
