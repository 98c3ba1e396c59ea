/* SPDX-License-Identifier: MIT */
/* An HTTP service in front of the store of wit/store.wit (store.c, its
 * own component), which it imports: wac plugs the two into one component
 * (README.md). Every call into the store is a wasync future made by the
 * bindings (wasync_bindings): awaited like any other, raced, put under a
 * timeout; dropped before it ends, it cancels the store's task across
 * the boundary.
 *   GET /kv/KEY             the value (200), or 404
 *   GET /kv/KEY?timeout=MS  the same, or 504 when the store takes longer
 *                           than MS: the call is cancelled
 *   PUT /kv/KEY             stores the request body, streamed into the
 *                           store; answers "stored=N write-ms=M": the
 *                           bytes and how long the writes into the store
 *                           waited (its backpressure)
 *   GET /stats              the store's figures and this component's
 * A KEY is the path's rest as sent (no percent-decoding). A PUT whose body
 * is cut off (a client gone midway) stores nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_wasync.h"
#include "wasync.h"
#include "wasync/http.h"
#include "wasync/wasi.h"

/* ---- answer: a response with a body in memory ---- */

typedef struct answer {
    WA_CORO;
    wa_http_incoming *in;
    int status;
    const char *type;
    const void *data; /* len bytes, borrowed until the answer is written */
    size_t len;
    wa_stream *body;
    wa_write w;
} answer;

WA_ASYNC(answer, t, cx)
{
    WA_BEGIN(t, cx);
    {
        const wa_http_header h[] = {{"content-type", t->type}};
        int rc = wa_http_incoming_respond(t->in, t->status, h, 1, &t->body);
        if (rc < 0)
            WA_RETURN(rc);
    }
    WA_AWAIT(wa_write_init(&t->w, t->body, t->data, t->len));
    WA_RETURN(WA_STATUS); /* (the server ends the body, or aborts it on an error) */
    WA_END();
}

/* Answers in with status and the len bytes at data; returns the future. */
static wa_future *answer_init_with(answer *a, wa_http_incoming *in, int status, const char *type, const void *data,
                                   size_t len)
{
    *a = (answer){.in = in, .status = status, .type = type, .data = data, .len = len};
    return answer_init(a);
}

/* The length snprintf wrote into cap bytes, given what it returned. */
static size_t text_len(int n, size_t cap) { return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1; }

/* A text answer: what the printf format and arguments after buf (an
 * array, cut at its size) say. */
#define TEXT(a, in, status, buf, ...)                                \
    answer_init_with((a), (in), (status), "text/plain", (buf),       \
                     text_len(snprintf((buf), sizeof(buf), __VA_ARGS__), sizeof(buf)))

/* ---- GET /kv/KEY[?timeout=MS] ---- */

typedef struct get_route {
    WA_CORO;
    wa_http_incoming *in;
    app_string_t key; /* in the request's path */
    uint64_t timeout; /* ns, or WA_NEVER */
    wa_example_store_kv_get get;
    wa_timeout deadline;
    answer out;
    char msg[64];
} get_route;

/* (the result is zeroed unless the call returned) */
static void get_route_free(get_route *t) { app_option_list_u8_free(&t->get.result); }

WA_ASYNC(get_route, t, cx, get_route_free)
{
    WA_BEGIN(t, cx);
    /* Dropped when the deadline comes first: that cancels the call, and
     * the store's task, which runs its cleanup before the call ends. */
    WA_AWAIT(wa_timeout_init(&t->deadline, wa_example_store_kv_get_init(&t->get, t->key), t->timeout));
    if (WA_STATUS == WA_ETIMEDOUT)
        WA_AWAIT(TEXT(&t->out, t->in, 504, t->msg, "the store took too long\n"));
    else if (WA_STATUS < 0)
        WA_AWAIT(TEXT(&t->out, t->in, 502, t->msg, "the store failed: %s\n", wa_strerror(WA_STATUS)));
    else if (!t->get.result.is_some)
        WA_AWAIT(TEXT(&t->out, t->in, 404, t->msg, "no such key\n"));
    else
        WA_AWAIT(answer_init_with(&t->out, t->in, 200, "application/octet-stream", t->get.result.val.ptr,
                                  t->get.result.val.len));
    WA_RETURN(WA_STATUS);
    WA_END();
}

/* ---- PUT /kv/KEY ---- */

/* Copies the request body into the store's stream, counting the bytes
 * and the time the writes waited for the store to take them; ends the
 * value by closing the stream once the body ended whole. */
typedef struct feed {
    WA_CORO;
    wa_stream *in;     /* the request body (borrowed) */
    wa_stream **out;   /* the store's stream (the route's) */
    wa_read r;
    wa_write w;
    uint64_t bytes, waited, t0;
    unsigned char buf[16 * 1024];
} feed;

WA_ASYNC(feed, t, cx)
{
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->in, t->buf, sizeof t->buf));
        if (WA_STATUS == WA_ECLOSED)
            break;
        /* A body that failed (a client gone midway: the host says so in
         * the body's trailers, and the read fails) is no value: the route
         * then cancels the put and nothing is stored. */
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->t0 = wa_now(cx->rt);
        WA_AWAIT(wa_write_init(&t->w, *t->out, t->buf, t->r.n));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS); /* the store stopped reading */
        t->waited += wa_now(cx->rt) - t->t0;
        t->bytes += t->r.n;
    }
    WA_RETURN(wa_stream_close(t->out)); /* the value's end */
    WA_END();
}

typedef struct put_route {
    WA_CORO;
    wa_http_incoming *in;
    app_string_t key;
    wa_stream *value; /* the writable end of the put's stream */
    feed feed;
    wa_example_store_kv_put put;
    WA_COMBO(2) both;
    answer out;
    char msg[160];
} put_route;

static void put_route_free(put_route *t)
{
    if (t->value)
        wa_stream_close(&t->value);
    example_store_kv_result_u64_string_free(&t->put.result); /* (zeroed unless the call returned) */
}

WA_ASYNC(put_route, t, cx, put_route_free)
{
    WA_BEGIN(t, cx);
    {
        int rc = wa_http_incoming_body(t->in, &t->feed.in);
        if (rc < 0)
            WA_RETURN(rc);
        example_store_kv_stream_u8_writer_t w;
        example_store_kv_stream_u8_t r = example_store_kv_stream_u8_new(&w);
        if ((rc = wa_wasip3_stream_open(cx->rt, &wa_example_store_kv_stream_u8, 0, w, &t->value)) < 0) {
            example_store_kv_stream_u8_drop_readable(r);
            WA_RETURN(rc);
        }
        t->feed.out = &t->value;
        /* The call and the feed at once: the store reads while the body
         * comes. The first to fail drops the other: a body cut off midway
         * cancels the put (the stream is closed after that, so the store
         * never takes a short value for a whole one). */
        WA_AWAIT(wa_all_init(&t->both, feed_init(&t->feed), wa_example_store_kv_put_init(&t->put, t->key, r)));
    }
    /* (a store that refused stops reading: the feed fails too) */
    if (wa_combo_status(&t->both.c, 1) == 0 && t->put.result.is_err)
        WA_AWAIT(TEXT(&t->out, t->in, 500, t->msg, "the store refused: %.*s\n", (int)t->put.result.val.err.len,
                      (const char *)t->put.result.val.err.ptr));
    else if (WA_STATUS < 0)
        WA_AWAIT(TEXT(&t->out, t->in, 502, t->msg, "the put failed: %s\n", wa_strerror(WA_STATUS)));
    else
        WA_AWAIT(TEXT(&t->out, t->in, 200, t->msg, "stored=%llu write-ms=%llu\n",
                      (unsigned long long)t->put.result.val.ok, (unsigned long long)(t->feed.waited / 1000000)));
    WA_RETURN(WA_STATUS);
    WA_END();
}

/* ---- GET /stats ---- */

typedef struct stats_route {
    WA_CORO;
    wa_http_incoming *in;
    wa_example_store_kv_stats stats;
    answer out;
    char msg[512];
} stats_route;

WA_ASYNC(stats_route, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_example_store_kv_stats_init(&t->stats));
    if (WA_STATUS < 0)
        WA_AWAIT(TEXT(&t->out, t->in, 502, t->msg, "the store failed: %s\n", wa_strerror(WA_STATUS)));
    else {
        const example_store_kv_figures_t *s = &t->stats.result;
        wa_rt_stats st;
        wa_rt_stats_get(cx->rt, &st);
        WA_AWAIT(TEXT(&t->out, t->in, 200, t->msg,
                      "store: gets=%llu puts=%llu cancelled=%llu cleanups=%llu keys=%u tasks=%u ends=%u subtasks=%u "
                      "held=%u\napp: tasks=%zu sources=%zu handles=%ld ends=%ld subtasks=%ld held=%ld\n",
                      (unsigned long long)s->gets, (unsigned long long)s->puts, (unsigned long long)s->cancelled,
                      (unsigned long long)s->cleanups, s->keys, s->tasks, s->ends, s->subtasks, s->held_areas,
                      st.tasks, st.sources, wa_wasi_live_handles(), wa_wasip3_live_ends(),
                      wa_wasip3_live_subtasks(), wa_wasip3_held_areas()));
    }
    WA_RETURN(WA_STATUS);
    WA_END();
}

/* ---- the routes ---- */

typedef struct not_found {
    WA_CORO;
    wa_http_incoming *in;
    answer out;
    char msg[64];
} not_found;

WA_ASYNC(not_found, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(TEXT(&t->out, t->in, 404, t->msg, "GET /kv/KEY[?timeout=MS], PUT /kv/KEY or GET /stats\n"));
    WA_RETURN(WA_STATUS);
    WA_END();
}

/* The key of a /kv/KEY path (borrowed from it), and the ns of its
 * ?timeout=MS (WA_NEVER without one). 0, or -1 for another path. */
static int kv_path(const char *path, app_string_t *key, uint64_t *timeout)
{
    if (strncmp(path, "/kv/", 4))
        return -1;
    const char *k = path + 4, *q = strchr(k, '?');
    *key = (app_string_t){(uint8_t *)k, q ? (size_t)(q - k) : strlen(k)};
    *timeout = q && !strncmp(q, "?timeout=", 9) ? WA_MS(strtoull(q + 9, NULL, 10)) : WA_NEVER;
    return key->len ? 0 : -1;
}

/* Spawns the task of in's route. */
static int serve(wa_rt *rt, wa_http_incoming *in, wa_join *task)
{
    const char *method = wa_http_incoming_method(in), *path = wa_http_incoming_path(in);
    app_string_t key;
    uint64_t timeout;
    int kv = !kv_path(path, &key, &timeout);
    if (kv && !strcmp(method, "GET")) {
        get_route r = {.in = in, .key = key, .timeout = timeout};
        get_route_init(&r);
        return wa_spawn_of(rt, &r, task);
    }
    if (kv && !strcmp(method, "PUT")) {
        put_route r = {.in = in, .key = key};
        put_route_init(&r);
        return wa_spawn_of(rt, &r, task);
    }
    if (!strcmp(path, "/stats") && !strcmp(method, "GET")) {
        stats_route r = {.in = in};
        stats_route_init(&r);
        return wa_spawn_of(rt, &r, task);
    }
    not_found r = {.in = in};
    not_found_init(&r);
    return wa_spawn_of(rt, &r, task);
}

WA_HTTP_SERVE(serve)
