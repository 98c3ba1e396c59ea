/* SPDX-License-Identifier: MIT */
/* A runtime's trace (trace.h): Chrome trace-event JSON written through a
 * buffer to the host's sink (a file, stderr, the JS glue). Events come
 * from the diagnostics' wrapper (diag.c) on whichever thread polls a
 * task, so the buffer takes a short lock. Its state is a runtime
 * extension (rt.h), so that a stopped trace stays until wa_rt_free (a
 * worker may still be about to write to it) and wa_rt_free closes one
 * still open. The public calls are trace.c's. */
#include <stdlib.h>
#include <string.h>
#if !defined(__wasm__)
#include <sched.h>
#endif

#include "trace.h"

struct wa__trace {
    wa__rt_ext ext;
    int sink;     /* -1 once stopped */
    uint32_t gen; /* which trace of the runtime: 1, 2 after a stop and a start... */
    int failed;   /* a write failed */
    uint32_t lock;
    uint64_t t0;  /* the clock at the start: ts 0 */
    size_t len;
    char buf[16384];
};

static void wa__trace_lock(wa__trace *tr)
{
    while (__atomic_exchange_n(&tr->lock, 1, __ATOMIC_ACQUIRE))
#if !defined(__wasm__)
        sched_yield(); /* (held for a copy, by a thread that may be descheduled) */
#else
        ;
#endif
}

static void wa__trace_unlock(wa__trace *tr) { __atomic_store_n(&tr->lock, 0, __ATOMIC_RELEASE); }

static void wa__trace_write(wa__trace *tr, const char *p, size_t n)
{
    if (n && !tr->failed && wa__trace_sink_write(tr->sink, p, n) != 0)
        tr->failed = 1;
}

static void wa__trace_flush(wa__trace *tr)
{
    wa__trace_write(tr, tr->buf, tr->len);
    tr->len = 0;
}

static void wa__trace_put(wa__trace *tr, const char *s, size_t n)
{
    if (tr->len + n > sizeof tr->buf)
        wa__trace_flush(tr);
    if (n > sizeof tr->buf) {
        wa__trace_write(tr, s, n);
        return;
    }
    memcpy(tr->buf + tr->len, s, n);
    tr->len += n;
}

/* Appends ns as microseconds with three decimals (the format's unit). */
static void wa__text_us(wa__text *d, uint64_t ns)
{
    char frac[5] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10), 0};
    wa__text_uint(d, ns / 1000);
    wa__text_str(d, frac);
}

static void wa__trace_format(wa__text *d, const char *ph, const char *name, uint32_t id, uint64_t ns,
                             const char *args)
{
    wa__text_str(d, ",\n{\"ph\":\"");
    wa__text_str(d, ph);
    wa__text_str(d, "\",\"cat\":\"task\",\"name\":\"");
    wa__text_json(d, name);
    wa__text_str(d, "\",\"id\":");
    wa__text_uint(d, id);
    wa__text_str(d, ",\"pid\":1,\"tid\":1,\"ts\":");
    wa__text_us(d, ns);
    if (args) {
        wa__text_str(d, ",\"args\":{");
        wa__text_str(d, args);
        wa__text_str(d, "}");
    }
    wa__text_str(d, "}");
}

uint32_t wa__trace_gen(wa_rt *rt)
{
    wa__trace *tr = __atomic_load_n(&wa__rt_home(rt)->trace, __ATOMIC_ACQUIRE);
    return tr ? __atomic_load_n(&tr->gen, __ATOMIC_RELAXED) : 0;
}

void wa__trace_event(wa_rt *rt, uint32_t gen, const char *ph, const char *name, uint32_t id, uint64_t ts,
                     const char *args)
{
    wa__trace *tr = __atomic_load_n(&wa__rt_home(rt)->trace, __ATOMIC_ACQUIRE);
    if (!tr)
        return;
    char line[512], *p = line;
    uint64_t ns = ts > tr->t0 ? ts - tr->t0 : 0;
    wa__text d = {line, sizeof line, 0};
    wa__trace_format(&d, ph, name, id, ns, args);
    if (d.need >= sizeof line) { /* a long name or chain */
        if (!(p = malloc(d.need + 1)))
            return;
        d = (wa__text){p, d.need + 1, 0};
        wa__trace_format(&d, ph, name, id, ns, args);
    }
    wa__trace_lock(tr);
    if (tr->sink >= 0 && tr->gen == gen) { /* (a task of an earlier trace: not this file's) */
        wa__trace_put(tr, p, d.need);
        if (WA__TRACE_EACH)
            wa__trace_flush(tr);
    }
    wa__trace_unlock(tr);
    if (p != line)
        free(p);
}

/* Ends the file: the JSON closed, the buffer written. Returns 0 or WA_EIO. */
static int wa__trace_close(wa__trace *tr)
{
    static const char tail[] = "\n]}\n";
    wa__trace_lock(tr);
    int sink = tr->sink;
    if (sink >= 0) {
        wa__trace_put(tr, tail, sizeof tail - 1);
        wa__trace_flush(tr);
    }
    tr->sink = -1;
    wa__trace_unlock(tr);
    if (sink >= 0 && wa__trace_sink_close(sink) != 0)
        tr->failed = 1;
    return tr->failed ? WA_EIO : 0;
}

static void wa__trace_free(wa__rt_ext *e)
{
    wa__trace *tr = (wa__trace *)e;
    wa__trace_close(tr);
    free(tr);
}

int wa__trace_open(wa_rt *rt, const char *path)
{
    wa__trace *tr = (wa__trace *)wa__rt_ext_find(rt, wa__trace_free);
    bool made = !tr;
    if (made && !(tr = malloc(sizeof *tr)))
        return WA_ENOMEM;
    if (made)
        tr->gen = 0;
    int sink = wa__trace_sink_open(path);
    if (sink < 0) {
        if (made)
            free(tr);
        return sink;
    }
    static const char head[] = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
                               "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"wasync\"}}";
    tr->sink = sink;
    __atomic_store_n(&tr->gen, tr->gen + 1, __ATOMIC_RELAXED); /* (read by spawns on workers) */
    tr->failed = 0;
    tr->lock = 0;
    tr->len = 0;
    tr->t0 = rt->backend->vt->now(rt->backend);
    wa__trace_put(tr, head, sizeof head - 1);
    if (WA__TRACE_EACH)
        wa__trace_flush(tr);
    if (made) {
        tr->ext.free = wa__trace_free;
        wa__rt_ext_add(rt, &tr->ext);
    }
    __atomic_store_n(&rt->trace, tr, __ATOMIC_RELEASE);
    return 0;
}

int wa__trace_stop_file(wa_rt *rt)
{
    wa__trace *tr = rt->trace;
    __atomic_store_n(&rt->trace, NULL, __ATOMIC_RELEASE);
    return wa__trace_close(tr); /* (kept for a late writer: freed with rt) */
}
