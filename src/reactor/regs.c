/* SPDX-License-Identifier: MIT */
/* A backend's registrations and the waits on them (regs.h), for every
 * host. A backend offers its table through its vtable's cap. */
#include "../core/dump.h"
#include "../core/why.h"
#include "regs.h"

const char *const wa__regs_dirs[2] = {" readable", " writable"};

void wa__regs_init(wa_regs *r, wa_backend *b, size_t size, const wa__regs_hooks *hooks)
{
    wa__keys_init(&r->keys, size, WA__KEY_GENS, WA__KEY_SLOTS);
    r->b = b;
    r->hooks = hooks;
#if WA__MT
    pthread_mutex_init(&r->lock, NULL);
    r->shared = false;
#endif
}

#if WA__MT
void wa__regs_share(wa_regs *r) { r->shared = true; }
#endif

void wa__regs_free(wa_regs *r)
{
    for (uint32_t i = 0; r->hooks->del && i < r->keys.n; i++) {
        wa__reg *g = wa__regs_at(r, i);
        if (g->slot.live)
            r->hooks->del(r->b, g);
    }
    wa__keys_free(&r->keys);
#if WA__MT
    pthread_mutex_destroy(&r->lock);
#endif
}

/* Adds d to the backend's sources, which a many-threads runtime's
 * deadlock check reads without the lock. */
static void wa__regs_count(wa_regs *r, size_t d) { __atomic_add_fetch(&r->b->sources, d, __ATOMIC_RELAXED); }

/* Tells the host when g's last wait left it. */
static void wa__regs_left(wa_regs *r, wa__reg *g)
{
    if (wa__list_empty(&g->waits) && r->hooks->disarm)
        r->hooks->disarm(r->b, g);
}

/* Hands events to every wait that wants them (each will try its I/O: with
 * edge triggering, one event can be enough for all). */
void wa__regs_ready(wa_regs *r, wa__reg *g, unsigned events)
{
    if (events & WA__REG_HUP)
        g->hup = true;
    events &= ~WA__REG_HUP;
    if (wa__list_empty(&g->waits)) {
        g->ready |= events;
        return;
    }
    unsigned taken = 0;
    bool traced = wa__why_now.waiting; /* (the wakes say why) */
    wa__list_node *n = wa__list_first(&g->waits);
    while (n) {
        wa__list_node *next = wa__list_next(n);
        wa_reg_wait *w = WA__WAIT_OF(n, wa_reg_wait);
        unsigned got = w->events & events;
        if (got) {
            taken |= got;
            w->ready = got;
            if (traced)
                wa__why_source(r->hooks->noun, g->id, r->hooks->dirs, got);
            wa__wait_wake(&g->waits, &w->link, &w->events, WA__WAIT_HANDED);
        }
        n = next;
    }
    if (traced)
        wa__why_clear();
    g->ready |= events & ~taken;
    wa__regs_left(r, g);
}

bool wa__regs_hung_up(wa_rt *rt, unsigned cap, uint64_t key)
{
    wa_regs *r = wa_backend_cap(rt->backend, cap);
    if (!r)
        return true;
    wa__regs_lock(r);
    const wa__reg *g = wa__regs_find(r, key);
    bool hup = !g || g->hup;
    wa__regs_unlock(r);
    return hup;
}

int wa__regs_register(wa_rt *rt, unsigned cap, uint64_t id, uint64_t *key)
{
    wa_regs *r = wa_backend_cap(rt->backend, cap);
    if (!r)
        return WA_ENOSYS;
    uint32_t i;
    wa__regs_lock(r);
    int rc = wa__keys_alloc(&r->keys, &i);
    if (rc == 0) {
        wa__reg *g = wa__regs_at(r, i);
        uint64_t k = wa__keys_key(&r->keys, i);
        g->id = id;
        rc = r->hooks->add ? r->hooks->add(r->b, g, k) : 0;
        if (rc < 0) {
            wa__keys_release(&r->keys, i);
        } else {
            *key = k;
            wa__regs_count(r, 1);
        }
    }
    wa__regs_unlock(r);
    return rc < 0 ? rc : 0;
}

int wa__regs_deregister(wa_rt *rt, unsigned cap, uint64_t key, const char *fn)
{
    wa_regs *r = wa_backend_cap(rt->backend, cap);
    if (!r)
        return WA_ENOSYS;
    wa__regs_lock(r);
    wa__reg *g = wa__regs_find(r, key);
    if (!g) {
        wa__regs_unlock(r);
        return wa__misuse_in(WA_ESTALE, fn, "a key that is stale or another runtime's");
    }
    if (!wa__list_empty(&g->waits) && r->hooks->disarm)
        r->hooks->disarm(r->b, g);
    if (r->hooks->del)
        r->hooks->del(r->b, g);
    /* Whoever still waits is told (its next poll sees WA_ECLOSED) rather
     * than left waiting forever. */
    while (!wa__list_empty(&g->waits)) {
        wa_reg_wait *w = WA__WAIT_OF(wa__list_first(&g->waits), wa_reg_wait);
        wa__wait_wake(&g->waits, &w->link, &w->events, 0);
    }
    wa__keys_release(&r->keys, wa__key_slot(key));
    wa__regs_count(r, (size_t)-1);
    wa__regs_unlock(r);
    return 0;
}

/* Takes w off g if it is queued there (g: NULL if not), and drops its waker. */
static void wa__reg_wait_leave(wa_reg_wait *w, wa__reg *g)
{
    bool queued = w->events & WA__WAIT_QUEUED;
    wa__wait_leave(queued ? &g->waits : NULL, &w->link, &w->events);
    if (queued)
        wa__regs_left(w->regs, g);
}

/* wa__reg_wait_poll under the table's lock, once r is known. */
static int wa__reg_wait_locked(wa_reg_wait *w, wa_regs *r, wa_cx *cx)
{
    if (wa__wait_handed(&w->events)) /* by wa__regs_ready */
        return WA_READY;
    wa__reg *g = wa__regs_find(r, w->key);
    if (!g) {
        /* Deregistered while we waited (closing a source is how another
         * task stops a wait): an error, not misuse. */
        if (w->regs)
            return WA_ECLOSED;
        return wa__misuse_in(WA_ESTALE, w->fut.vt->name, "a key that is stale or another runtime's");
    }
    w->regs = r;
    unsigned got = g->ready & w->events;
    if (got) {
        wa__reg_wait_leave(w, g);
        g->ready &= ~got;
        w->ready = got;
        return WA_READY;
    }
    if (wa__list_empty(&g->waits) && r->hooks->arm) {
        int rc = r->hooks->arm(r->b, g, wa__key_slot(w->key));
        if (rc < 0)
            return rc;
    }
    wa__wait_join(&g->waits, &w->link, &w->events, cx);
    return WA_PENDING;
}

int wa__reg_wait_poll(wa_future *f, wa_cx *cx, unsigned cap)
{
    wa_regs *r = wa_backend_cap(cx->rt->backend, cap);
    if (!r)
        return WA_ENOSYS;
    wa__regs_lock(r);
    unsigned queued = ((wa_reg_wait *)f)->events & WA__WAIT_QUEUED;
    int rc = wa__reg_wait_locked((wa_reg_wait *)f, r, cx);
    wa__regs_unlock(r);
    if (rc == WA_PENDING && !queued && wa__why_now.polling) /* (after the lock: its describe takes it) */
        wa__why_io_wait(f);
    return rc;
}

/* Drops the wait f; keep: readiness handed to it and never seen goes back
 * to its registration. */
static void wa__reg_wait_leave_table(wa_future *f, bool keep)
{
    wa_reg_wait *w = (wa_reg_wait *)f;
    wa_regs *r = w->regs;
    if (!r)
        return; /* never reached its table: holds nothing */
    wa__regs_lock(r);
    /* (queued only while its registration lives: found by its key) */
    wa__reg *g = (w->events & (WA__WAIT_QUEUED | WA__WAIT_HANDED)) ? wa__regs_find(r, w->key) : NULL;
    if (keep && g && wa__wait_handed(&w->events))
        g->ready |= w->ready;
    wa__reg_wait_leave(w, (w->events & WA__WAIT_QUEUED) ? g : NULL);
    wa__regs_unlock(r);
    w->regs = NULL;
}

void wa__reg_wait_drop(wa_future *f) { wa__reg_wait_leave_table(f, false); }

void wa__reg_wait_drop_edge(wa_future *f) { wa__reg_wait_leave_table(f, true); }

wa_future *wa__reg_wait_init(wa_reg_wait *w, const wa_future_vt *vt, uint64_t key, unsigned events)
{
    w->fut.vt = vt;
    w->key = key;
    w->events = events;
    w->ready = 0;
    w->regs = NULL;
    wa__wait_link_init(&w->link);
    return &w->fut;
}

size_t wa__reg_wait_describe(const wa_future *f, const char *noun, const char *const *dirs, char *buf, size_t len)
{
    const wa_reg_wait *w = (const wa_reg_wait *)f;
    wa__text d = {buf, len, 0};
    wa_regs *r = w->regs; /* (set by its first poll) */
    const wa__reg *g = NULL;
    uint64_t id = 0;
    if (r) {
        wa__regs_lock(r);
        if ((g = wa__regs_find(r, w->key)))
            id = g->id;
        wa__regs_unlock(r);
    }
    wa__text_str(&d, noun);
    if (g)
        wa__text_uint(&d, id);
    else
        wa__text_str(&d, r ? "(deregistered)" : "(not polled)");
    for (unsigned i = 0; dirs && i < 2; i++)
        if (w->events & (1u << i))
            wa__text_str(&d, dirs[i]);
    return d.need;
}
