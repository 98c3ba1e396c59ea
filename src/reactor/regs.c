/* SPDX-License-Identifier: MIT */
/* A backend's registrations and the waits on them (regs.h), for every
 * host. A backend offers its table through its vtable's cap. */
#include "regs.h"

void wa_regs_init(wa_regs *r, wa_backend *b, size_t size, const wa_regs_hooks *hooks)
{
    wa_keys_init(&r->keys, size, WA_KEY_GENS, WA_KEY_SLOTS);
    r->b = b;
    r->hooks = hooks;
#if WA_MT
    pthread_mutex_init(&r->lock, NULL);
    r->shared = false;
#endif
}

#if WA_MT
void wa_regs_share(wa_regs *r) { r->shared = true; }
#endif

void wa_regs_free(wa_regs *r)
{
    for (uint32_t i = 0; r->hooks->del && i < r->keys.n; i++) {
        wa_reg *g = wa_regs_at(r, i);
        if (g->slot.live)
            r->hooks->del(r->b, g);
    }
    wa_keys_free(&r->keys);
#if WA_MT
    pthread_mutex_destroy(&r->lock);
#endif
}

/* Adds d to the backend's sources, which a many-threads runtime's
 * deadlock check reads without the lock. */
static void wa_regs_count(wa_regs *r, size_t d) { __atomic_add_fetch(&r->b->sources, d, __ATOMIC_RELAXED); }

/* Tells the host when g's last wait left it. */
static void wa_regs_left(wa_regs *r, wa_reg *g)
{
    if (wa_list_empty(&g->waits) && r->hooks->disarm)
        r->hooks->disarm(r->b, g);
}

/* Hands events to every wait that wants them (each will try its I/O: with
 * edge triggering, one event can be enough for all). */
void wa_regs_ready(wa_regs *r, wa_reg *g, unsigned events)
{
    if (wa_list_empty(&g->waits)) {
        g->ready |= events;
        return;
    }
    unsigned taken = 0;
    wa_list_node *n = wa_list_first(&g->waits);
    while (n) {
        wa_list_node *next = wa_list_next(n);
        wa_reg_wait *w = WA_WAIT_OF(n, wa_reg_wait);
        unsigned got = w->events & events;
        if (got) {
            taken |= got;
            w->ready = got;
            wa_wait_wake(&g->waits, &w->link, &w->events, WA_WAIT_HANDED);
        }
        n = next;
    }
    g->ready |= events & ~taken;
    wa_regs_left(r, g);
}

int wa_regs_register(wa_rt *rt, unsigned cap, uint64_t id, uint64_t *key)
{
    wa_regs *r = wa_backend_cap(rt->backend, cap);
    if (!r)
        return WA_ENOSYS;
    uint32_t i;
    wa_regs_lock(r);
    int rc = wa_keys_alloc(&r->keys, &i);
    if (rc == 0) {
        wa_reg *g = wa_regs_at(r, i);
        uint64_t k = wa_keys_key(&r->keys, i);
        g->id = id;
        rc = r->hooks->add ? r->hooks->add(r->b, g, k) : 0;
        if (rc < 0) {
            wa_keys_release(&r->keys, i);
        } else {
            *key = k;
            wa_regs_count(r, 1);
        }
    }
    wa_regs_unlock(r);
    return rc < 0 ? rc : 0;
}

int wa_regs_deregister(wa_rt *rt, unsigned cap, uint64_t key, const char *fn)
{
    wa_regs *r = wa_backend_cap(rt->backend, cap);
    if (!r)
        return WA_ENOSYS;
    wa_regs_lock(r);
    wa_reg *g = wa_regs_find(r, key);
    if (!g) {
        wa_regs_unlock(r);
        return wa_misuse_in_(WA_ESTALE, fn, "a key that is stale or another runtime's");
    }
    if (!wa_list_empty(&g->waits) && r->hooks->disarm)
        r->hooks->disarm(r->b, g);
    if (r->hooks->del)
        r->hooks->del(r->b, g);
    /* Whoever still waits is told (its next poll sees WA_ECLOSED) rather
     * than left waiting forever. */
    while (!wa_list_empty(&g->waits)) {
        wa_reg_wait *w = WA_WAIT_OF(wa_list_first(&g->waits), wa_reg_wait);
        wa_wait_wake(&g->waits, &w->link, &w->events, 0);
    }
    wa_keys_release(&r->keys, wa_key_slot(key));
    wa_regs_count(r, (size_t)-1);
    wa_regs_unlock(r);
    return 0;
}

/* Takes w off g if it is queued there (g: NULL if not), and drops its waker. */
static void wa_reg_wait_leave(wa_reg_wait *w, wa_reg *g)
{
    bool queued = w->events & WA_WAIT_QUEUED;
    wa_wait_leave(queued ? &g->waits : NULL, &w->link, &w->events);
    if (queued)
        wa_regs_left(w->regs, g);
}

/* wa_reg_wait_poll under the table's lock, once r is known. */
static int wa_reg_wait_locked(wa_reg_wait *w, wa_regs *r, wa_cx *cx)
{
    if (wa_wait_handed(&w->events)) /* by wa_regs_ready */
        return WA_READY;
    wa_reg *g = wa_regs_find(r, w->key);
    if (!g) {
        /* Deregistered while we waited (closing a source is how another
         * task stops a wait): an error, not misuse. */
        if (w->regs)
            return WA_ECLOSED;
        return wa_misuse_in_(WA_ESTALE, w->fut.vt->name, "a key that is stale or another runtime's");
    }
    w->regs = r;
    unsigned got = g->ready & w->events;
    if (got) {
        wa_reg_wait_leave(w, g);
        g->ready &= ~got;
        w->ready = got;
        return WA_READY;
    }
    if (wa_list_empty(&g->waits) && r->hooks->arm) {
        int rc = r->hooks->arm(r->b, g, wa_key_slot(w->key));
        if (rc < 0)
            return rc;
    }
    wa_wait_join(&g->waits, &w->link, &w->events, cx);
    return WA_PENDING;
}

int wa_reg_wait_poll(wa_future *f, wa_cx *cx, unsigned cap)
{
    wa_regs *r = wa_backend_cap(cx->rt->backend, cap);
    if (!r)
        return WA_ENOSYS;
    wa_regs_lock(r);
    int rc = wa_reg_wait_locked((wa_reg_wait *)f, r, cx);
    wa_regs_unlock(r);
    return rc;
}

void wa_reg_wait_drop(wa_future *f)
{
    wa_reg_wait *w = (wa_reg_wait *)f;
    wa_regs *r = w->regs;
    if (!r)
        return; /* never reached its table: holds nothing */
    wa_regs_lock(r);
    /* (queued only while its registration lives: found by its key) */
    wa_reg_wait_leave(w, (w->events & WA_WAIT_QUEUED) ? wa_regs_find(r, w->key) : NULL);
    wa_regs_unlock(r);
    w->regs = NULL;
}

wa_future *wa_reg_wait_init(wa_reg_wait *w, const wa_future_vt *vt, uint64_t key, unsigned events)
{
    w->fut.vt = vt;
    w->key = key;
    w->events = events;
    w->ready = 0;
    w->regs = NULL;
    wa_wait_link_init(&w->link);
    return &w->fut;
}
