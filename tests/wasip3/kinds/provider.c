/* SPDX-License-Identifier: MIT */
/* The provider of kinds.wit: every async export a wasync task
 * (WA_EXPORT_TASK over the generated layer), each returning its arguments
 * changed in a way user.c checks. What a task returns it owns (the layer
 * frees it after task.return), so strings and lists are copies. */
#include <stdlib.h>
#include <string.h>

#include "provider_wasync.h"
#include "wasync.h"

typedef provider_string_t string;

/* A new copy of n bytes at p, with prefix before them (both borrowed). */
static string dup_with(const char *prefix, const uint8_t *p, size_t n)
{
    size_t k = strlen(prefix);
    string s = {malloc(k + n + 1), k + n};
    if (!s.ptr)
        abort(); /* (a test: the host would trap on a NULL of a length) */
    memcpy(s.ptr, prefix, k);
    if (n)
        memcpy(s.ptr + k, p, n);
    return s;
}

/* ---- the counter resource ---- */

struct exports_test_kinds_types_counter_t {
    uint64_t value;
};
static uint32_t live_counters, nothing_calls, cleanups;

exports_test_kinds_types_own_counter_t exports_test_kinds_types_constructor_counter(uint32_t start)
{
    exports_test_kinds_types_counter_t *c = malloc(sizeof *c);
    if (!c)
        abort();
    c->value = start;
    live_counters++;
    return exports_test_kinds_types_counter_new(c);
}

void exports_test_kinds_types_counter_destructor(exports_test_kinds_types_counter_t *c)
{
    live_counters--;
    free(c);
}

uint32_t exports_test_kinds_types_method_counter_add(exports_test_kinds_types_borrow_counter_t self, uint32_t n)
{
    return (uint32_t)(self->value += n);
}

/* total, async: after a yield (a task that is suspended once). */
typedef struct total_task {
    WA_CORO;
    wa_exports_test_kinds_types_method_counter_total_io io;
} total_task;

WA_ASYNC(total_task, t, cx)
{
    WA_BEGIN(t, cx);
    WA_YIELD();
    t->io.ret = t->io.self->value;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_types_method_counter_total, total_task);

uint32_t exports_test_kinds_echo_live_counters(void) { return live_counters; }
uint32_t exports_test_kinds_echo_nothings(void) { return nothing_calls; }

/* ---- one task per function ---- */

typedef struct scalars_task {
    WA_CORO;
    wa_exports_test_kinds_echo_scalars_io io;
} scalars_task;

WA_ASYNC(scalars_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret = (provider_tuple8_u8_s16_u32_s64_f32_f64_bool_char32_t){
        (uint8_t)(t->io.a + 1), (int16_t)(t->io.b - 1), t->io.c * 2, -t->io.d, t->io.e * 2, t->io.f / 2, !t->io.g,
        t->io.h + 1};
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_scalars, scalars_task);

/* text: the list reversed, then s. */
typedef struct text_task {
    WA_CORO;
    wa_exports_test_kinds_echo_text_io io;
    wa_sleep sl;
} text_task;

WA_ASYNC(text_task, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->sl, WA_MS(1)));
    {
        size_t n = t->io.l.len;
        t->io.ret.ptr = calloc(n + 1, sizeof(string));
        if (!t->io.ret.ptr)
            WA_RETURN(WA_ENOMEM);
        t->io.ret.len = n + 1;
        for (size_t i = 0; i < n; i++)
            t->io.ret.ptr[i] = dup_with("", t->io.l.ptr[n - 1 - i].ptr, t->io.l.ptr[n - 1 - i].len);
        t->io.ret.ptr[n] = dup_with("", t->io.s.ptr, t->io.s.len);
    }
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_text, text_task);

/* bytes: each byte xor 0xff. */
typedef struct bytes_task {
    WA_CORO;
    wa_exports_test_kinds_echo_bytes_io io;
} bytes_task;

WA_ASYNC(bytes_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret.ptr = malloc(t->io.b.len + 1);
    if (!t->io.ret.ptr)
        WA_RETURN(WA_ENOMEM);
    t->io.ret.len = t->io.b.len;
    for (size_t i = 0; i < t->io.b.len; i++)
        t->io.ret.ptr[i] = t->io.b.ptr[i] ^ 0xff;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_bytes, bytes_task);

/* rec: x + 1, y * 2, "<" label. */
typedef struct rec_task {
    WA_CORO;
    wa_exports_test_kinds_echo_rec_io io;
} rec_task;

WA_ASYNC(rec_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret.x = t->io.p.x + 1;
    t->io.ret.y = t->io.p.y * 2;
    t->io.ret.label = dup_with("<", t->io.p.label.ptr, t->io.p.label.len);
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_rec, rec_task);

/* var: a circle's radius doubled, a rect's x and y swapped, empty kept. */
typedef struct var_task {
    WA_CORO;
    wa_exports_test_kinds_echo_var_io io;
} var_task;

WA_ASYNC(var_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret.tag = t->io.s.tag;
    if (t->io.s.tag == EXPORTS_TEST_KINDS_TYPES_SHAPE_CIRCLE) {
        t->io.ret.val.circle = t->io.s.val.circle * 2;
    } else if (t->io.s.tag == EXPORTS_TEST_KINDS_TYPES_SHAPE_RECT) {
        exports_test_kinds_types_point_t p = t->io.s.val.rect;
        t->io.ret.val.rect = (exports_test_kinds_types_point_t){p.y, p.x, dup_with("", p.label.ptr, p.label.len)};
    }
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_var, var_task);

/* en: the next color, the flags flipped. */
typedef struct en_task {
    WA_CORO;
    wa_exports_test_kinds_echo_en_io io;
} en_task;

WA_ASYNC(en_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret.f0 = (uint8_t)((t->io.c + 1) % 3);
    t->io.ret.f1 = (uint8_t)(t->io.p ^ 7);
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_en, en_task);

/* opt: some(s) as some(s s), none as none. */
typedef struct opt_task {
    WA_CORO;
    wa_exports_test_kinds_echo_opt_io io;
} opt_task;

WA_ASYNC(opt_task, t, cx)
{
    WA_BEGIN(t, cx);
    if ((t->io.ret.is_some = t->io.o.is_some)) {
        string s = t->io.o.val;
        t->io.ret.val = dup_with("", s.ptr, s.len * 2);
        if (s.len)
            memcpy(t->io.ret.val.ptr + s.len, s.ptr, s.len);
    }
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_opt, opt_task);

/* res: ok(n) as ok(n + 1), err(s) as err("E:" s). */
typedef struct res_task {
    WA_CORO;
    wa_exports_test_kinds_echo_res_io io;
} res_task;

WA_ASYNC(res_task, t, cx)
{
    WA_BEGIN(t, cx);
    if ((t->io.ret.is_err = t->io.r.is_err))
        t->io.ret.val.err = dup_with("E:", t->io.r.val.err.ptr, t->io.r.val.err.len);
    else
        t->io.ret.val.ok = t->io.r.val.ok + 1;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_res, res_task);

typedef struct nothing_task {
    WA_CORO;
    wa_exports_test_kinds_echo_nothing_io io;
} nothing_task;

WA_ASYNC(nothing_task, t, cx)
{
    WA_BEGIN(t, cx);
    nothing_calls++;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_nothing, nothing_task);

/* own-counter: the handle taken, 10 added, the handle given back. */
typedef struct own_task {
    WA_CORO;
    wa_exports_test_kinds_echo_own_counter_io io;
} own_task;

WA_ASYNC(own_task, t, cx)
{
    WA_BEGIN(t, cx);
    exports_test_kinds_types_counter_rep(t->io.c)->value += 10;
    t->io.ret = t->io.c;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_own_counter, own_task);

typedef struct borrow_task {
    WA_CORO;
    wa_exports_test_kinds_echo_borrow_counter_io io;
} borrow_task;

WA_ASYNC(borrow_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret = (uint32_t)t->io.c->value;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_borrow_counter, borrow_task);

/* count: returns the future at once (an early return: the call lives on
 * while its task reads the stream), then writes the byte count into it. */
typedef struct count_task {
    WA_CORO;
    wa_exports_test_kinds_echo_count_io io;
    wa_stream *in;
    uint32_t writer; /* the future's writable end */
    uint32_t n;
    wa_read r;
    wa_wasip3_future_write w;
    unsigned char buf[4096];
} count_task;

WA_ASYNC(count_task, t, cx)
{
    WA_BEGIN(t, cx);
    {
        exports_test_kinds_echo_future_u32_writer_t w;
        t->io.ret = exports_test_kinds_echo_future_u32_new(&w);
        t->writer = w;
        int rc = wa_wasip3_stream_open(cx->rt, &wa_exports_test_kinds_echo_stream_u8, t->io.s, 0, &t->in);
        if (rc < 0)
            WA_RETURN(rc);
        wa_exports_test_kinds_echo_count_return(&t->io);
    }
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->in, t->buf, sizeof t->buf));
        if (WA_STATUS < 0 || t->r.n == 0)
            break;
        t->n += (uint32_t)t->r.n;
    }
    wa_stream_close(&t->in);
    WA_AWAIT(wa_wasip3_future_write_init(&t->w, &wa_exports_test_kinds_echo_future_u32, t->writer, &t->n));
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_count, count_task);

/* join-labels: typed reads of a stream<point>, two elements at most each
 * (their labels lifted into this instance: freed here). */
typedef struct labels_task {
    WA_CORO;
    wa_exports_test_kinds_echo_join_labels_io io;
    wa_wasip3_copy r;
    exports_test_kinds_types_point_t got[2];
} labels_task;

WA_ASYNC(labels_task, t, cx)
{
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_wasip3_stream_read_init(&t->r, &wa_exports_test_kinds_echo_stream_point, t->io.s, t->got, 2));
        if (WA_STATUS < 0)
            break;
        for (uint32_t i = 0; i < t->r.count; i++) {
            string *out = &t->io.ret, label = t->got[i].label;
            uint8_t *p = realloc(out->ptr, out->len + 1 + label.len);
            if (!p)
                abort();
            if (out->len)
                p[out->len++] = ',';
            memcpy(p + out->len, label.ptr, label.len);
            out->ptr = p;
            out->len += label.len;
            exports_test_kinds_types_point_free(&t->got[i]);
        }
    }
    exports_test_kinds_echo_stream_point_drop_readable(t->io.s);
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_join_labels, labels_task);

/* slow: a sleep; cancelled, a cleanup that takes 300 ms, then counted. */
typedef struct slow_task {
    WA_CORO;
    wa_exports_test_kinds_echo_slow_io io;
    wa_sleep s;
} slow_task;

WA_ASYNC(slow_task, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(t->io.ms)));
    t->io.ret = t->io.ms;
    WA_RETURN(0);
    WA_ON_CANCEL();
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(300)));
    cleanups++;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_slow, slow_task);

typedef struct cleanups_task {
    WA_CORO;
    wa_exports_test_kinds_echo_cleanups_io io;
} cleanups_task;

WA_ASYNC(cleanups_task, t, cx)
{
    WA_BEGIN(t, cx);
    t->io.ret = cleanups;
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_cleanups, cleanups_task);

/* later: awaits the future's string; returns "got " and it. */
typedef struct later_task {
    WA_CORO;
    wa_exports_test_kinds_echo_later_io io;
    wa_wasip3_future_read r;
    string got;
} later_task;

WA_ASYNC(later_task, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_wasip3_future_read_init(&t->r, &wa_exports_test_kinds_echo_future_string, t->io.f, &t->got));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->io.ret = dup_with("got ", t->got.ptr, t->got.len);
    provider_string_free(&t->got);
    WA_END();
}
WA_EXPORT_TASK(test_kinds_echo_later, later_task);
