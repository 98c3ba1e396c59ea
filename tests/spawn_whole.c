/* SPDX-License-Identifier: MIT */
/* wa_spawn_of takes the whole future's struct: &c compiles, and &c.wa (a
 * header, 32 bytes of a larger struct) is refused at compile time
 * (compiled with -DWA_TEST_HEADER by tests/CMakeLists.txt, which expects
 * the error). */
#include "wasync.h"

typedef struct big {
    WA_CORO;
    char payload[4096];
} big;

static int big_poll(wa_future *f, wa_cx *cx)
{
    big *t = (big *)f;
    WA_BEGIN(t, cx);
    WA_END();
}
static const wa_future_vt big_vt = {big_poll, wa_coro_drop, "big"};

int spawn_whole(wa_rt *rt, wa_scope *s);
int spawn_whole(wa_rt *rt, wa_scope *s)
{
    big c;
    wa_coro_init(&c.wa, &big_vt);
#ifdef WA_TEST_HEADER
    return wa_spawn_of(rt, &c.wa, NULL) + wa_scope_spawn_of(s, &c.wa.fut, NULL);
#else
    return wa_spawn_of(rt, &c, NULL) + wa_scope_spawn_of(s, &c, NULL);
#endif
}
