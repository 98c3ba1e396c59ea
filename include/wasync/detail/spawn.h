/* SPDX-License-Identifier: MIT */
/* The library's own, behind wa_spawn_of and wa_scope_spawn_of
 * (wasync/runtime.h, wasync/scope.h): not for users to call. A header
 * must show it because those macros expand to it. Included by
 * wasync/runtime.h once wa_join is declared. */
#ifndef WASYNC_DETAIL_SPAWN_H
#define WASYNC_DETAIL_SPAWN_H

/* Refuses at compile time a ptr that is a future's header (wa_spawn_of). */
struct wa_coro;
#define WA__SPAWN_WHOLE(ptr)                                                            \
    ((void)sizeof(struct {                                                               \
        _Static_assert(!_Generic((ptr), struct wa_coro *: 1, const struct wa_coro *: 1, \
                                 wa_future *: 1, const wa_future *: 1, default: 0),      \
                       "spawn the whole future's struct (&c), not its header (&c.wa)");  \
        int x_;                                                                          \
    }))
/* wa_spawn of a future of n words (1 to 8), its size fixed at compile time:
 * what wa_spawn_of calls for those sizes, which copies the future without
 * testing its size (internal: 11 instructions less per spawn). */
int wa__spawn_w1(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w2(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w3(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w4(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w5(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w6(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w7(wa_rt *rt, const wa_future *fut, wa_join *join);
int wa__spawn_w8(wa_rt *rt, const wa_future *fut, wa_join *join);
#define WA__SPAWN_FIXED(size) \
    ((size) >= sizeof(void *) && (size) <= 8 * sizeof(void *) && (size) % sizeof(void *) == 0)
#define WA__SPAWN_WORDS(n)                                                                 \
    ((n) == 1 ? wa__spawn_w1 : (n) == 2 ? wa__spawn_w2 : (n) == 3 ? wa__spawn_w3            \
     : (n) == 4 ? wa__spawn_w4 : (n) == 5 ? wa__spawn_w5 : (n) == 6 ? wa__spawn_w6          \
     : (n) == 7 ? wa__spawn_w7 : wa__spawn_w8)

#endif
