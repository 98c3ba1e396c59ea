/* fd registrations and waits on them (fd_regs.h), for every backend that
 * has fds. A backend offers its table through its vtable's fd_regs. */
#include <stdlib.h>

#include "fd_regs.h"

void wa_fd_regs_init(wa_fd_regs *r, int (*add)(wa_backend *, int, wa_fd_key), void (*del)(wa_backend *, int))
{
    wa_keys_init(&r->keys, sizeof(wa_fd_reg), WA_KEY_GENS, WA_KEY_SLOTS);
    r->add = add;
    r->del = del;
}

void wa_fd_regs_free(wa_fd_regs *r) { wa_keys_free(&r->keys); }

/* Hands events to every wait that wants them (each will try its I/O: with
 * edge triggering, one event can be enough for all). What nobody waited
 * for is kept for the next wait. */
void wa_fd_regs_ready(wa_fd_reg *g, unsigned events)
{
    unsigned taken = 0;
    wa_wait_link *l = g->waits;
    while (l) {
        wa_wait_link *next = l->next;
        wa_fd_wait *w = WA_WAIT_OF(l, wa_fd_wait);
        unsigned got = w->events & events;
        if (got) {
            taken |= got;
            w->ready = got;
            wa_wait_wake(&g->waits, l, &w->events, WA_WAIT_HANDED);
        }
        l = next;
    }
    g->ready |= events & ~taken;
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
    wa_fd_key k = wa_keys_key(&r->keys, i);
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
        return wa_misuse_in_(WA_ESTALE, "wa_fd_deregister", "a key that is stale or another runtime's");
    if (r->del)
        r->del(rt->backend, g->fd);
    /* Whoever still waits is told (its next poll sees WA_ECLOSED) rather
     * than left waiting forever. */
    while (g->waits)
        wa_wait_wake(&g->waits, g->waits, &WA_WAIT_OF(g->waits, wa_fd_wait)->events, 0);
    wa_keys_release(&r->keys, wa_key_slot(key));
    rt->backend->sources--;
    return 0;
}

static int wa_fd_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_fd_wait *w = (wa_fd_wait *)f;
    if (wa_wait_handed(&w->events)) /* by wa_fd_regs_ready */
        return WA_READY;
    wa_fd_regs *r = wa_fd_regs_of(cx->rt);
    wa_fd_reg *g = r ? wa_fd_regs_lookup(r, w->key) : NULL;
    if (!g) {
        if (!r)
            return WA_ENOSYS;
        /* Deregistered while we waited (closing a source is how another
         * task stops a wait): an error, not misuse. */
        if (w->rt)
            return WA_ECLOSED;
        return wa_misuse_in_(WA_ESTALE, "fd wait", "a key that is stale or another runtime's");
    }
    w->rt = cx->rt;
    unsigned got = g->ready & w->events;
    if (got) {
        wa_wait_leave(&g->waits, &w->link, &w->events);
        g->ready &= ~got;
        w->ready = got;
        return WA_READY;
    }
    wa_wait_join(&g->waits, &w->link, &w->events, cx);
    return WA_PENDING;
}

static void wa_fd_wait_drop(wa_future *f)
{
    wa_fd_wait *w = (wa_fd_wait *)f;
    /* (queued only while its registration lives: found by its key) */
    wa_fd_reg *g = (w->events & WA_WAIT_QUEUED) ? wa_fd_regs_lookup(wa_fd_regs_of(w->rt), w->key) : NULL;
    wa_wait_leave(g ? &g->waits : NULL, &w->link, &w->events);
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
    wa_wait_link_init(&w->link);
    return &w->fut;
}
