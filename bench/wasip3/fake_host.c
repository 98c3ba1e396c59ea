/* SPDX-License-Identifier: MIT */
#include "wasync/component.h"
/* A native stand-in for the WASI 0.3 host: the async built-ins and the
 * clock of src/host/wasip3/builtins.h, linked instead of
 * src/host/wasip3/builtins.c (whose bodies are wasm imports).
 *
 * Handles are table indices from 1, reused last-freed first (as a
 * component's table reuses them). A subtask is an I/O call (returns when
 * the bench says) or a timer (returns at its instant of the fake clock,
 * which only waits move). A waitable set is a queue of the waitables
 * joined to it whose event is pending, in the order the events came; a
 * subtask's event waits on the subtask until it is joined. Misuse the spec
 * makes a trap (a cancel of a joined subtask, a drop of one that did not
 * resolve, a wait that could never end) aborts.
 *
 * What a measurement counts (under callgrind with fake_host_exclude on):
 * every guest instruction, including the calls into each host function
 * and their returns; not the bodies of the host functions, nor the
 * callgrind client requests' own few instructions beyond a fixed handful
 * per host call.
 */
#include "fake_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#include "../../src/host/wasip3/builtins.h"

fake_host_calls fake_host_calls_made;
uint64_t fake_host_ready_count, fake_host_ready_sum;
long wa__wasip3_live; /* builtins.c's: the subtasks the library holds */

enum { H_FREE, H_SET, H_IO, H_TIMER };

typedef struct handle {
    uint8_t kind;
    uint8_t state;   /* a subtask's */
    uint8_t pending; /* its event is not delivered yet */
    uint32_t set;    /* joined to, or 0 */
    uint32_t prev, next; /* in its set's queue while pending and joined; a free handle's next */
    uint32_t started;    /* an I/O subtask's place in the started list + 1 */
    uint64_t at;         /* a timer's instant */
    uint32_t head, tail; /* a set's queue */
} handle;

static handle *h;
static uint32_t nh, cap, free_head;
static uint32_t *started; /* I/O subtasks STARTED, in no order */
static uint32_t nstarted, cstarted;
static uint64_t alive, rng, clock_ns;
static int auto_ready, exclude;

#define HOST_ENTER()                     \
    do {                                 \
        if (exclude)                     \
            CALLGRIND_TOGGLE_COLLECT;    \
    } while (0)
#define HOST_EXIT() HOST_ENTER()

static void fail(const char *what, uint32_t w)
{
    fprintf(stderr, "fake host: %s (handle %u)\n", what, w);
    abort();
}

static uint32_t make(uint8_t kind)
{
    uint32_t w = free_head;
    if (w) {
        free_head = h[w].next;
    } else {
        if (nh + 1 >= cap) {
            cap = cap ? cap * 2 : 1024;
            if (!(h = realloc(h, cap * sizeof *h)))
                fail("out of memory", 0);
        }
        w = ++nh;
    }
    h[w] = (handle){.kind = kind};
    alive++;
    return w;
}

static handle *get(uint32_t w, int kind)
{
    if (w == 0 || w > nh || h[w].kind == H_FREE || (kind == H_SET) != (h[w].kind == H_SET))
        fail(kind == H_SET ? "not a live waitable set" : "not a live waitable", w);
    return &h[w];
}

static void release(uint32_t w)
{
    h[w].kind = H_FREE;
    h[w].next = free_head;
    free_head = w;
    alive--;
}

/* The set's queue: w's event goes to the back, or leaves it. */
static void enqueue(uint32_t w)
{
    handle *s = &h[h[w].set];
    h[w].prev = s->tail;
    h[w].next = 0;
    if (s->tail)
        h[s->tail].next = w;
    else
        s->head = w;
    s->tail = w;
}

static void dequeue(uint32_t w)
{
    handle *s = &h[h[w].set];
    if (h[w].prev)
        h[h[w].prev].next = h[w].next;
    else
        s->head = h[w].next;
    if (h[w].next)
        h[h[w].next].prev = h[w].prev;
    else
        s->tail = h[w].prev;
}

static void unstart(uint32_t w)
{
    uint32_t i = h[w].started;
    if (!i)
        return;
    uint32_t last = started[--nstarted];
    started[i - 1] = last;
    h[last].started = i;
    h[w].started = 0;
}

/* w's call returned: its event is pending (queued if it is joined). */
static void resolve(uint32_t w)
{
    unstart(w);
    h[w].state = WA__WASIP3_SUBTASK_RETURNED;
    h[w].pending = 1;
    if (h[w].set)
        enqueue(w);
}

static uint32_t start(uint8_t kind)
{
    uint32_t w = make(kind);
    h[w].state = WA__WASIP3_SUBTASK_STARTED;
    return w;
}

void fake_host_reset(uint64_t seed)
{
    free(h);
    free(started);
    h = NULL;
    started = NULL;
    nh = cap = free_head = nstarted = cstarted = 0;
    alive = 0;
    clock_ns = 1000000000u;
    rng = seed ? seed : 0x9e3779b97f4a7c15u;
    fake_host_calls_made = (fake_host_calls){0};
    fake_host_ready_count = fake_host_ready_sum = 0;
}

void fake_host_auto_ready(int on) { auto_ready = on; }
void fake_host_exclude(int on) { exclude = on; }
uint64_t fake_host_alive(void) { return alive; }

uint32_t fake_host_io_call(void)
{
    HOST_ENTER();
    fake_host_calls_made.io_calls++;
    uint32_t w = start(H_IO);
    if (nstarted == cstarted) {
        cstarted = cstarted ? cstarted * 2 : 1024;
        if (!(started = realloc(started, cstarted * sizeof *started)))
            fail("out of memory", 0);
    }
    started[nstarted++] = w;
    h[w].started = nstarted;
    HOST_EXIT();
    return WA__WASIP3_SUBTASK_STARTED | w << 4;
}

static uint32_t timer(uint64_t at)
{
    fake_host_calls_made.async_calls++;
    if (at <= clock_ns)
        return WA__WASIP3_SUBTASK_RETURNED;
    uint32_t w = start(H_TIMER);
    h[w].at = at;
    wa__wasip3_live++; /* (as builtins.c counts the library's own calls) */
    return WA__WASIP3_SUBTASK_STARTED | w << 4;
}

uint32_t wa__wasip3_wait_until(uint64_t when)
{
    HOST_ENTER();
    uint32_t r = timer(when);
    HOST_EXIT();
    return r;
}

uint32_t wa__wasip3_wait_for(uint64_t ns)
{
    HOST_ENTER();
    uint32_t r = timer(clock_ns + ns);
    HOST_EXIT();
    return r;
}

uint64_t wa__wasip3_now(void)
{
    HOST_ENTER();
    fake_host_calls_made.nows++;
    uint64_t t = clock_ns;
    HOST_EXIT();
    return t;
}

uint32_t wa__wasip3_waitable_set_new(void)
{
    HOST_ENTER();
    uint32_t s = make(H_SET);
    HOST_EXIT();
    return s;
}

void wa__wasip3_waitable_set_drop(uint32_t set)
{
    HOST_ENTER();
    get(set, H_SET);
    for (uint32_t w = 1; w <= nh; w++) /* (once per run: a scan will do) */
        if (h[w].kind != H_FREE && h[w].set == set)
            fail("a set dropped with a waitable joined", w);
    release(set);
    HOST_EXIT();
}

void wa__wasip3_waitable_join(uint32_t w, uint32_t set)
{
    HOST_ENTER();
    fake_host_calls_made.joins++;
    handle *x = get(w, 0);
    if (set)
        get(set, H_SET);
    if (x->set && x->pending)
        dequeue(w);
    x->set = set;
    if (set && x->pending)
        enqueue(w);
    HOST_EXIT();
}

/* The event at the front of set's queue, delivered; code NONE if none. */
static wa__wasip3_event take(uint32_t set)
{
    uint32_t w = h[set].head;
    if (!w)
        return (wa__wasip3_event){WA__WASIP3_EVENT_NONE, 0, 0};
    dequeue(w);
    h[w].pending = 0;
    return (wa__wasip3_event){WA__WASIP3_EVENT_SUBTASK, w, h[w].state};
}

wa__wasip3_event wa__wasip3_waitable_set_poll(uint32_t set)
{
    HOST_ENTER();
    fake_host_calls_made.polls++;
    get(set, H_SET);
    wa__wasip3_event e = take(set);
    HOST_EXIT();
    return e;
}

wa__wasip3_event wa__wasip3_waitable_set_wait(uint32_t set)
{
    HOST_ENTER();
    fake_host_calls_made.waits++;
    get(set, H_SET);
    if (!h[set].head && auto_ready && nstarted) {
        rng ^= rng << 13; /* xorshift64 */
        rng ^= rng >> 7;
        rng ^= rng << 17;
        uint32_t w = started[rng % nstarted];
        fake_host_ready_count++;
        fake_host_ready_sum += w;
        resolve(w);
    }
    if (!h[set].head) { /* time passes: to the earliest timer (few: a scan) */
        uint64_t at = UINT64_MAX;
        for (uint32_t w = 1; w <= nh; w++)
            if (h[w].kind == H_TIMER && h[w].state == WA__WASIP3_SUBTASK_STARTED && h[w].at < at)
                at = h[w].at;
        if (at == UINT64_MAX)
            fail("a wait that would never end", set);
        clock_ns = at;
        for (uint32_t w = 1; w <= nh; w++)
            if (h[w].kind == H_TIMER && h[w].state == WA__WASIP3_SUBTASK_STARTED && h[w].at <= at)
                resolve(w);
    }
    wa__wasip3_event e = take(set);
    if (e.code == WA__WASIP3_EVENT_NONE)
        fail("a wait whose event went to no joined waitable", set);
    HOST_EXIT();
    return e;
}

uint32_t wa__wasip3_subtask_cancel(uint32_t w)
{
    HOST_ENTER();
    fake_host_calls_made.cancels++;
    handle *x = get(w, 0);
    if (x->set)
        fail("a cancel of a joined subtask traps", w);
    if (x->state == WA__WASIP3_SUBTASK_STARTED) {
        unstart(w);
        x->state = WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED;
    }
    x->pending = 0; /* (the state returned says it) */
    uint32_t state = x->state;
    HOST_EXIT();
    return state;
}

void wa__wasip3_subtask_drop(uint32_t w)
{
    HOST_ENTER();
    fake_host_calls_made.drops++;
    handle *x = get(w, 0);
    if (x->state < WA__WASIP3_SUBTASK_RETURNED)
        fail("a drop of a subtask that did not resolve traps", w);
    if (x->set && x->pending) /* (a drop leaves the set) */
        dequeue(w);
    wa__wasip3_live--;
    release(w);
    HOST_EXIT();
}
long wa_wasip3_live_subtasks(void) { return wa__wasip3_live; }

/* The stream<u8> the backend's bells are made of (src/host/wasip3/cli.c's):
 * a bench has no async export, so it opens no bell; a stream call aborts. */
static uint64_t no_stream(void)
{
    fail("a stream<u8> in the bench (a bell?)", 0);
    return 0;
}
const struct wa_wasip3_stream_type wa_wasip3_cli_bytes = {.new_ = no_stream};
