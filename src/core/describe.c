/* SPDX-License-Identifier: MIT */
/* What futures say of themselves and what they await, for dumps and
 * traces: the chain a future awaits, through the vtables' awaits and
 * describe (future.h), and the describes of the core's sleeps and
 * intervals, which come with it (describe.h). */
#include "describe.h"
#include "rt.h"
#include "timer.h"

/* Appends what f describes of itself (future.h), in parentheses. */
static void wa__text_describe(wa__text *d, const wa_future *f, uint64_t now)
{
    char what[96];
    if (!f->vt->describe)
        return;
    f->vt->describe(f, now, what, sizeof what);
    if (!what[0])
        return;
    wa__text_str(d, " (");
    wa__text_str(d, what);
    wa__text_str(d, ")");
}

/* Appends the futures f awaits, after lead, down to the leaves: "a > b
 * (what b waits for)", or "[a, b]" for more than one; depth bounds it. */
static void wa__text_awaits(wa__text *d, const wa_future *f, uint64_t now, unsigned depth, const char *lead)
{
    const wa_future *c0 = f->vt->awaits ? f->vt->awaits(f, 0) : NULL;
    if (!c0)
        return;
    const wa_future *c1 = f->vt->awaits(f, 1);
    wa__text_str(d, lead);
    if (c1)
        wa__text_str(d, "[");
    const wa_future *c = c0;
    for (unsigned i = 1; c; c = f->vt->awaits(f, i++)) {
        if (i > 1)
            wa__text_str(d, ", ");
        wa__text_str(d, c->vt->name ? c->vt->name : "?");
        wa__text_describe(d, c, now);
        if (depth)
            wa__text_awaits(d, c, now, depth - 1, " > ");
        else if (c->vt->awaits && c->vt->awaits(c, 0))
            wa__text_str(d, " > ...");
    }
    if (c1)
        wa__text_str(d, "]");
}

void wa__text_waits(wa__text *d, const wa_future *f, uint64_t now, const char *lead)
{
    if (f->vt == &wa__root_vt)
        f = ((const wa__root *)f)->inner;
    wa__text_describe(d, f, now);
    wa__text_awaits(d, f, now, 8, lead);
}

/* When the timer t, armed, fires. One armed by the poll that just returned
 * is not committed yet: its deadline is still the duration, from about
 * now. Before its first poll: not armed. */
static size_t wa__timer_describe(const wa__timer *t, uint64_t now, char *buf, size_t len)
{
    wa__text d = {buf, len, 0};
    if (!t->rt) {
        wa__text_str(&d, "not armed");
    } else if (t->deadline == WA_NEVER) {
        wa__text_str(&d, "never due");
    } else if (t->slot & WA__TIMER_ARMING) {
        wa__text_str(&d, "due in ");
        wa__text_ns(&d, t->deadline);
    } else if (t->deadline > now) {
        wa__text_str(&d, "due in ");
        wa__text_ns(&d, t->deadline - now);
    } else {
        wa__text_str(&d, "due");
    }
    return d.need;
}

size_t wa__sleep_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    return wa__timer_describe(&((const wa_sleep *)f)->timer, now, buf, len);
}

size_t wa__interval_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    return wa__timer_describe(&((const wa_interval *)f)->timer, now, buf, len);
}
