/* SPDX-License-Identifier: MIT */
/* The store of wit/store.wit: an in-memory map from keys to bytes, as a
 * component of its own. Each call of its async exports runs as a wasync
 * task (WA_EXPORT_TASK over the bindings wasync_bindings made), so calls
 * overlap: a slow get does not hold up a put. A caller that cancels a
 * get (app.c's timeout) cancels its task, which runs its WA_ON_CANCEL
 * section, an awaited cleanup, before the call ends cancelled. */
#include <stdlib.h>
#include <string.h>

#include "store_wasync.h"
#include "wasync.h"

/* What a put reads at a time, and the pause after each read of a slow key
 * (well above a copy's own cost, about 5 ms under jco, so that a slow
 * store shows: 1 MiB is 64 reads, 1.28 s of pauses). */
#define READ_SIZE (16 * 1024)
#define SLOW_PAUSE WA_MS(20)

typedef store_string_t string;

/* ---- the map: a list, newest first (an example's, not a database's) ---- */

typedef struct entry {
    struct entry *next;
    string key;
    uint8_t *value;
    size_t len;
} entry;

static entry *entries;
static uint32_t keys;
static uint64_t gets, puts, cancelled, cleanups;

static entry *find(string key)
{
    for (entry *e = entries; e; e = e->next)
        if (e->key.len == key.len && !memcmp(e->key.ptr, key.ptr, key.len))
            return e;
    return NULL;
}

/* Stores value (taken: malloc'd, len bytes) under key (borrowed): 0, or
 * WA_ENOMEM with value freed. */
static int store(string key, uint8_t *value, size_t len)
{
    entry *e = find(key);
    if (!e) {
        if (!(e = calloc(1, sizeof *e)) || !(e->key.ptr = malloc(key.len + 1))) {
            free(e);
            free(value);
            return WA_ENOMEM;
        }
        memcpy(e->key.ptr, key.ptr, key.len);
        e->key.len = key.len;
        e->next = entries;
        entries = e;
        keys++;
    }
    free(e->value);
    e->value = value;
    e->len = len;
    return 0;
}

static int slow(string key) { return key.len >= 4 && !memcmp(key.ptr, "slow", 4); }

/* ---- get: a lookup after some latency ---- */

typedef struct get_task {
    WA_CORO;
    wa_exports_example_store_kv_get_io io; /* key in, ret out */
    wa_sleep latency;
} get_task;

WA_ASYNC(get_task, t, cx)
{
    WA_BEGIN(t, cx);
    gets++;
    WA_AWAIT(wa_sleep_init(&t->latency, slow(t->io.key) ? WA_SEC(10) : WA_MS(2)));
    {
        entry *e = find(t->io.key);
        if (!e)
            WA_RETURN(0); /* ret is none */
        /* (ret is freed after the call returned: a copy) */
        t->io.ret.val.ptr = malloc(e->len ? e->len : 1);
        if (!t->io.ret.val.ptr)
            WA_RETURN(WA_ENOMEM); /* (answered as none: the WIT has no error here) */
        memcpy(t->io.ret.val.ptr, e->value, e->len);
        t->io.ret.val.len = e->len;
        t->io.ret.is_some = true;
    }
    WA_RETURN(0);
    WA_ON_CANCEL(); /* the caller cancelled the call: this await is shielded */
    cancelled++;
    WA_AWAIT(wa_sleep_init(&t->latency, WA_MS(5))); /* (a cleanup that takes time: say, a remote unlock) */
    cleanups++;
    WA_RETURN(WA_ECANCELED); /* the call ends cancelled */
    WA_END();
}
WA_EXPORT_TASK(example_store_kv_get, get_task);

/* ---- put: the value read from its stream, then stored ---- */

typedef struct put_task {
    WA_CORO;
    wa_exports_example_store_kv_put_io io; /* key and the value's stream in, ret out */
    wa_stream *value;
    wa_read r;
    wa_sleep pause;
    uint8_t *data;
    size_t len, cap;
} put_task;

/* Makes the call return err(why). */
static void put_fail(put_task *t, const char *why)
{
    t->io.ret.is_err = true;
    store_string_dup(&t->io.ret.val.err, why);
}

static void put_task_free(put_task *t)
{
    if (t->value)
        wa_stream_close(&t->value);
    free(t->data);
}

WA_ASYNC(put_task, t, cx, put_task_free)
{
    WA_BEGIN(t, cx);
    puts++;
    {
        int rc = wa_wasip3_stream_open(cx->rt, &wa_exports_example_store_kv_stream_u8, t->io.value, 0, &t->value);
        if (rc < 0) {
            put_fail(t, wa_strerror(rc));
            WA_RETURN(rc);
        }
    }
    for (;;) {
        if (t->cap - t->len < READ_SIZE) {
            size_t cap = t->cap ? 2 * t->cap : 4 * READ_SIZE;
            uint8_t *more = realloc(t->data, cap);
            if (!more) {
                put_fail(t, "out of memory");
                WA_RETURN(WA_ENOMEM);
            }
            t->data = more;
            t->cap = cap;
        }
        WA_AWAIT(wa_read_init(&t->r, t->value, t->data + t->len, READ_SIZE));
        if (WA_STATUS == WA_ECLOSED)
            break; /* the writer ended the value */
        if (WA_STATUS < 0) {
            put_fail(t, wa_strerror(WA_STATUS));
            WA_RETURN(WA_STATUS);
        }
        t->len += t->r.n;
        if (slow(t->io.key)) /* a slow reader: the writer waits meanwhile */
            WA_AWAIT(wa_sleep_init(&t->pause, SLOW_PAUSE));
    }
    if (store(t->io.key, t->data, t->len) < 0) {
        t->data = NULL; /* (freed) */
        put_fail(t, "out of memory");
        WA_RETURN(WA_ENOMEM);
    }
    t->data = NULL; /* (the map's now) */
    t->io.ret.val.ok = t->len;
    WA_END();
}
WA_EXPORT_TASK(example_store_kv_put, put_task);

/* ---- stats: the figures ---- */

typedef struct stats_task {
    WA_CORO;
    wa_exports_example_store_kv_stats_io io;
} stats_task;

WA_ASYNC(stats_task, t, cx)
{
    WA_BEGIN(t, cx);
    {
        wa_rt_stats st;
        wa_rt_stats_get(cx->rt, &st);
        t->io.ret = (exports_example_store_kv_figures_t){
            .gets = gets,
            .puts = puts,
            .cancelled = cancelled,
            .cleanups = cleanups,
            .keys = keys,
            .tasks = (uint32_t)st.tasks,
            .ends = (uint32_t)wa_wasip3_live_ends(),
            .subtasks = (uint32_t)wa_wasip3_live_subtasks(),
            .held_areas = (uint32_t)wa_wasip3_held_areas(),
        };
    }
    WA_END();
}
WA_EXPORT_TASK(example_store_kv_stats, stats_task);
