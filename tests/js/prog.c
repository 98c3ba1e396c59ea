/* SPDX-License-Identifier: MIT */
/* The C side of the JS host tests: exported async functions that the tests
 * call through the glue's callAsync(name, ...args). Each takes the call id
 * first and settles it with wa_js_settle when its task finishes. */
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/js.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/* A task that settles call with status rc and number or bytes at the end. */
typedef struct job {
    WA_CORO;
    uint32_t call;
    wa_sleep s;
    wa_js_op op;
    wa_http_request req;
    wa_http_fetch fetch;
    wa_http_send send;
    wa_read_all all;
    WA_COMBO(2) race;
    uint64_t ms, t0;
    long n, i;
    char *url, *body;
    wa_stream *pipe;
} job;

/* A job that cannot be spawned is dropped: that frees its url. */
static int spawn_job(const wa_future_vt *vt, job *j)
{
    wa_coro_init(&j->wa, vt);
    int rc = wa_spawn_of(wa_js_rt(), j, NULL);
    if (rc < 0)
        wa_drop(&j->wa.fut);
    return rc;
}

static char *copy_str(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

/* Spawns j, a job of vt, for a copy of the url (len bytes). */
static int spawn_url_job(const wa_future_vt *vt, job j, const char *url, size_t len)
{
    j.url = copy_str(url, len);
    return j.url ? spawn_job(vt, &j) : WA_ENOMEM;
}

static void job_drop(wa_future *f)
{
    job *j = (job *)f;
    wa_coro_drop(f);
    free(j->url);
    free(j->body);
    if (j->pipe)
        wa_stream_close(&j->pipe);
    j->url = j->body = NULL;
}

/* sleep_ms(ms): resolves with the ms it took. */
static int sleeper_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    j->t0 = wa_now(cx->rt);
    WA_AWAIT(wa_sleep_init(&j->s, WA_MS(j->ms)));
    wa_js_settle(j->call, 0, NULL, 0, (double)(wa_now(cx->rt) - j->t0) / 1e6);
    WA_END();
}
static const wa_future_vt sleeper_vt = {sleeper_poll, job_drop, "sleeper"};

EXPORT(sleep_ms) int sleep_ms(uint32_t call, double ms)
{
    job j = {.call = call, .ms = (uint64_t)ms};
    return spawn_job(&sleeper_vt, &j);
}

/* late_sleep_ms(busy, ms): a poll busy for `busy` ms (a long tick), then a
 * sleep of ms; resolves with the ms from the sleep's first poll to its end,
 * on the host's clock (never less than ms). */
static uint64_t host_now(wa_rt *rt)
{
    wa_backend *b = wa_rt_backend(rt);
    return b->vt->now(b);
}

static int late_sleeper_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    (void)wa_now(cx->rt); /* the tick's time, read (and cached) first */
    j->t0 = host_now(cx->rt);
    while (host_now(cx->rt) - j->t0 < WA_MS(j->n)) {
    }
    j->t0 = host_now(cx->rt);
    WA_AWAIT(wa_sleep_init(&j->s, WA_MS(j->ms)));
    wa_js_settle(j->call, 0, NULL, 0, (double)(host_now(cx->rt) - j->t0) / 1e6);
    WA_END();
}
static const wa_future_vt late_sleeper_vt = {late_sleeper_poll, job_drop, "late_sleeper"};

EXPORT(late_sleep_ms) int late_sleep_ms(uint32_t call, double busy, double ms)
{
    job j = {.call = call, .n = (long)busy, .ms = (uint64_t)ms};
    return spawn_job(&late_sleeper_vt, &j);
}

/* fetch_body(url): resolves with the body (http.h's wa_http_fetch), or
 * with the HTTP status when the body is empty; rejects on failure, the
 * host's reason as the error's detail. post_empty(url): the same of a POST
 * without a body. fetch_max(url, max): fetch_body of at most max bytes. */
static int fetcher_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    j->req = (wa_http_request){.method = j->n ? "POST" : NULL, .url = j->url};
    WA_AWAIT(wa_http_fetch_init(&j->fetch, &j->req, (size_t)j->ms));
    if (WA_STATUS < 0) {
        const char *why = wa_http_fetch_reason(&j->fetch);
        wa_js_settle(j->call, WA_STATUS, why, strlen(why), 0);
        WA_RETURN(0);
    }
    wa_js_settle(j->call, 0, j->fetch.len ? j->fetch.data : NULL, j->fetch.len,
                 wa_http_response_status(j->fetch.response));
    wa_http_response_free(j->fetch.response);
    free(j->fetch.data);
    WA_END();
}
static const wa_future_vt fetcher_vt = {fetcher_poll, job_drop, "fetcher"};

EXPORT(fetch_body) int fetch_body(uint32_t call, const char *url, size_t len)
{
    return spawn_url_job(&fetcher_vt, (job){.call = call}, url, len);
}

EXPORT(post_empty) int post_empty(uint32_t call, const char *url, size_t len)
{
    return spawn_url_job(&fetcher_vt, (job){.call = call, .n = 1}, url, len);
}

EXPORT(fetch_max) int fetch_max(uint32_t call, const char *url, size_t len, double max)
{
    return spawn_url_job(&fetcher_vt, (job){.call = call, .ms = (uint64_t)max}, url, len);
}

/* stream_body(url): a send, then its response's body read whole as a
 * stream (wa_http_response_body, wa_read_all); resolves with the body, or
 * rejects with the read's reason as the error's detail. */
static int body_streamer_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    j->req = (wa_http_request){.url = j->url};
    WA_AWAIT(wa_http_send_init(&j->send, &j->req));
    if (WA_STATUS < 0) {
        wa_js_settle(j->call, WA_STATUS, NULL, 0, 0);
        WA_RETURN(0);
    }
    j->pipe = wa_http_response_body(j->send.response); /* (the same stream each time) */
    if (!j->pipe || wa_http_response_body(j->send.response) != j->pipe) {
        wa_js_settle(j->call, WA_EIO, NULL, 0, 0);
        wa_http_response_free(j->send.response);
        WA_RETURN(0);
    }
    WA_AWAIT(wa_read_all_init(&j->all, j->pipe, 0));
    if (WA_STATUS < 0) {
        const char *why = wa_stream_reason(j->pipe, WA_STREAM_READ);
        wa_js_settle(j->call, WA_STATUS, why, why ? strlen(why) : 0, 0);
    } else {
        wa_js_settle(j->call, 0, j->all.data, j->all.len, 0);
        free(j->all.data);
    }
    j->pipe = NULL; /* (the response's: its free closes it) */
    wa_http_response_free(j->send.response);
    WA_END();
}
static const wa_future_vt body_streamer_vt = {body_streamer_poll, job_drop, "body_streamer"};

EXPORT(stream_body) int stream_body(uint32_t call, const char *url, size_t len)
{
    return spawn_url_job(&body_streamer_vt, (job){.call = call}, url, len);
}

/* post_echo(url, body): a PUT with a header x-test and body, read from a
 * stream (a pipe) when stream is nonzero; resolves with the response's
 * x-reply header, a space and its body, or rejects. */
static int poster_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    static const wa_http_header hdrs[] = {{"x-test", "wasync"}};
    j->req = (wa_http_request){.method = "PUT", .url = j->url, .headers = hdrs, .nheaders = 1};
    if (j->n) {
        size_t len = strlen(j->body);
        wa_stream *w;
        if (wa_pipe_new(len + 1, &j->pipe, &w) < 0) {
            wa_js_settle(j->call, WA_ENOMEM, NULL, 0, 0);
            WA_RETURN(0);
        }
        size_t n = 0; /* (the pipe has room for it all) */
        wa_stream *head = wa_stream_head(w);
        head->vt->try_write(head, j->body, len, &n);
        wa_stream_close(&w); /* the reader sees its end */
        j->req.body_stream = j->pipe;
    } else {
        j->req.body = j->body;
        j->req.body_len = strlen(j->body);
    }
    WA_AWAIT(wa_http_fetch_init(&j->fetch, &j->req, 0));
    if (j->pipe)
        wa_stream_close(&j->pipe);
    if (WA_STATUS < 0) {
        wa_js_settle(j->call, WA_STATUS, NULL, 0, 0);
        WA_RETURN(0);
    }
    {
        const char *reply = wa_http_response_header(j->fetch.response, "X-Reply");
        size_t m = strlen(reply ? reply : "");
        char *out = malloc(m + 1 + j->fetch.len);
        if (out) {
            memcpy(out, reply ? reply : "", m);
            out[m] = ' ';
            memcpy(out + m + 1, j->fetch.data, j->fetch.len);
        }
        wa_js_settle(j->call, out ? 0 : WA_ENOMEM, out, m + 1 + j->fetch.len, wa_http_response_status(j->fetch.response));
        free(out);
    }
    wa_http_response_free(j->fetch.response);
    free(j->fetch.data);
    WA_END();
}
static const wa_future_vt poster_vt = {poster_poll, job_drop, "poster"};

EXPORT(post_echo) int post_echo(uint32_t call, const char *url, size_t len, const char *body, size_t n, int stream)
{
    job j = {.call = call, .url = copy_str(url, len), .body = copy_str(body, n), .n = stream};
    return j.url && j.body ? spawn_job(&poster_vt, &j) : (free(j.url), free(j.body), WA_ENOMEM);
}

/* fetch_timeout(url, ms): a fetch raced against a sleep; when the sleep
 * wins the fetch is dropped, which aborts it in the host. Resolves with 1
 * if the fetch won, 0 if the timeout did. */
static int fetch_timeout_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    j->req = (wa_http_request){.url = j->url};
    WA_AWAIT(wa_race_init(&j->race, wa_http_fetch_init(&j->fetch, &j->req, 0), wa_sleep_init(&j->s, WA_MS(j->ms))));
    if (wa_race_winner(&j->race.c) == 0 && j->fetch.response) {
        wa_http_response_free(j->fetch.response);
        free(j->fetch.data);
    }
    wa_js_settle(j->call, 0, NULL, 0, wa_race_winner(&j->race.c) == 0);
    WA_END();
}
static const wa_future_vt fetch_timeout_vt = {fetch_timeout_poll, job_drop, "fetch_timeout"};

EXPORT(fetch_timeout) int fetch_timeout(uint32_t call, const char *url, size_t len, double ms)
{
    return spawn_url_job(&fetch_timeout_vt, (job){.call = call, .ms = (uint64_t)ms}, url, len);
}

/* await_promise(handle): settles like the promise did (bytes or number;
 * a rejection rejects, with the code of WA_EIO). */
static int awaiter_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    WA_AWAIT(wa_js_await_init(&j->op, (uint32_t)j->n));
    wa_js_settle(j->call, WA_STATUS, j->op.data, j->op.len, j->op.number);
    free(j->op.data);
    WA_END();
}
static const wa_future_vt awaiter_vt = {awaiter_poll, job_drop, "awaiter"};

EXPORT(await_promise) int await_promise(uint32_t call, uint32_t handle)
{
    job j = {.call = call, .n = handle};
    return spawn_job(&awaiter_vt, &j);
}

/* await_within(handle, ms): an await raced against a sleep. When the sleep
 * wins, the await is dropped and the handle released, and the call
 * rejects with WA_ETIMEDOUT; else it settles like await_promise. */
static int await_within_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    WA_AWAIT(wa_race_init(&j->race, wa_js_await_init(&j->op, (uint32_t)j->n), wa_sleep_init(&j->s, WA_MS(j->ms))));
    if (wa_race_winner(&j->race.c) != 0) {
        wa_js_release((uint32_t)j->n);
        wa_js_settle(j->call, WA_ETIMEDOUT, NULL, 0, 0);
    } else {
        wa_js_settle(j->call, WA_STATUS, j->op.data, j->op.len, j->op.number);
        free(j->op.data);
    }
    WA_END();
}
static const wa_future_vt await_within_vt = {await_within_poll, job_drop, "await_within"};

EXPORT(await_within) int await_within(uint32_t call, uint32_t handle, double ms)
{
    job j = {.call = call, .n = handle, .ms = (uint64_t)ms};
    return spawn_job(&await_within_vt, &j);
}

/* yield_n(n): a task that wakes itself n times; resolves with n. */
static int yielder_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    for (j->i = 0; j->i < j->n; j->i++)
        WA_YIELD();
    wa_js_settle(j->call, 0, NULL, 0, (double)j->n);
    WA_END();
}
static const wa_future_vt yielder_vt = {yielder_poll, job_drop, "yielder"};

EXPORT(yield_n) int yield_n(uint32_t call, double n)
{
    job j = {.call = call, .n = (long)n};
    return spawn_job(&yielder_vt, &j);
}

/* spin_ms(ms): a task that wakes itself until ms have passed; resolves
 * with how many times it ran. */
static int spinner_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    j->t0 = wa_now(cx->rt);
    for (j->i = 0; wa_now(cx->rt) - j->t0 < WA_MS(j->ms); j->i++)
        WA_YIELD();
    wa_js_settle(j->call, 0, NULL, 0, (double)j->i);
    WA_END();
}
static const wa_future_vt spinner_vt = {spinner_poll, job_drop, "spinner"};

EXPORT(spin_ms) int spin_ms(uint32_t call, double ms)
{
    job j = {.call = call, .ms = (uint64_t)ms};
    return spawn_job(&spinner_vt, &j);
}

/* fail_with(code): rejects with the given (negative) code at once. */
static int failer_poll(wa_future *f, wa_cx *cx)
{
    job *j = (job *)f;
    WA_BEGIN(j, cx);
    wa_js_settle(j->call, (int)j->n, NULL, 0, 0);
    WA_END();
}
static const wa_future_vt failer_vt = {failer_poll, job_drop, "failer"};

EXPORT(fail_with) int fail_with(uint32_t call, int code)
{
    job j = {.call = call, .n = code};
    return spawn_job(&failer_vt, &j);
}

/* echo(bytes): resolves with a copy of its argument (as bytes, even empty
 * ones: the glue's copy is never NULL). */
EXPORT(echo) int echo(uint32_t call, const char *p, size_t n)
{
    wa_js_settle(call, 0, p, n, (double)n);
    return 0;
}

/* live_tasks(): how many tasks are alive (a synchronous export). */
EXPORT(live_tasks) int live_tasks(void)
{
    wa_rt_stats st;
    wa_rt_stats_get(wa_js_rt(), &st);
    return (int)st.tasks;
}

/* live_sources(): how many keys the reactor has out (host operations,
 * promise handles, including the glue's pool). */
EXPORT(live_sources) int live_sources(void)
{
    wa_rt_stats st;
    wa_rt_stats_get(wa_js_rt(), &st);
    return (int)st.sources;
}
