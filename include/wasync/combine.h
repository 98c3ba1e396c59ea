/* SPDX-License-Identifier: MIT */
/* wasync/combine.h - join and race over N futures.
 *
 * A combinator owns its children: it drops each one as soon as it finishes
 * (outputs stay readable) and drops the rest when it completes early or is
 * dropped itself. Every child gets its own waker, so a wake polls only the
 * child that was woken, not all N.
 *
 * When the task is cancelled, every child is polled so that coroutines among
 * them reach their cancellation points and run their cleanup; the
 * combinator then waits for all of them and finishes with WA_ECANCELED.
 * Except a race with a child that completes meanwhile (a receive that got
 * its message in that very poll): that child still wins and the race ends
 * with its status, so no completed output is lost; the parent sees the
 * cancellation at its next await.
 *
 *     WA_COMBO(2) j;                       // in the coroutine's struct
 *     WA_AWAIT(wa_all_init(&t->j, wa_sleep_init(&t->a, WA_MS(5)),
 *                                 wa_sleep_init(&t->b, WA_MS(9))));
 */
#ifndef WASYNC_COMBINE_H
#define WASYNC_COMBINE_H

#include "future.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_combo wa_combo;

/* One child of a combinator. Private. */
typedef struct wa__branch {
    wa_future *f;         /* NULL once finished and dropped */
    wa_combo *owner;
    struct wa__branch *next; /* in the owner's woken list */
    int status;           /* WA_PENDING until finished */
    short woken;          /* on the woken list */
    short unwinding;      /* claimed the task's cancellation: cleaning up */
} wa__branch;

enum wa_combo_mode {
    WA_ALL = 0,       /* wait for every child; status: the first error */
    WA_ALL_SETTLED,   /* wait for every child even after errors; status 0 */
    WA_RACE,          /* the first to finish wins; the others are dropped */
};

struct wa_combo {
    wa_future fut;
    wa__branch *br;
    size_t n, left;
    size_t unwinding; /* children cleaning up after the task's cancellation */
    wa__branch *woken; /* children woken since the last poll */
    wa_waker waker;   /* the parent's */
    int mode;
    int status;
    int winner;       /* WA_RACE: index of the child that finished first */
    unsigned flags;   /* private */
    unsigned wakers;  /* many threads: live clones of the children's wakers (private) */
    unsigned lock;    /* many threads: held around a change or read of waker (private) */
};

/* Initialises c over the n futures (taken) in futs with branch storage br
 * (n entries, borrowed for c's life), or br NULL: storage allocated for an
 * n decided at run time, whose failure makes the combinator finish with
 * WA_ENOMEM (after dropping futs). Returns the future. */
wa_future *wa_combo_init(wa_combo *c, int mode, wa__branch *br, size_t n,
                         wa_future *const *futs);

/* Fixed-size storage for N children. */
#define WA_COMBO(N)        \
    struct {              \
        wa_combo c;       \
        wa__branch br[N];  \
    }

#define WA__COMBO_ARGS(...) (wa_future *const[]){__VA_ARGS__}
/* The number of arguments (1 to 16), as a constant. */
#define WA__COMBO_N(...) \
    WA__COMBO_N16(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define WA__COMBO_N16(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n, ...) n
#define WA__COMBO(j, mode, ...)                                                  \
    ((void)sizeof(struct {                                                       \
         _Static_assert(WA__COMBO_N(__VA_ARGS__) <= sizeof((j)->br) / sizeof((j)->br[0]), \
                        "more futures than the WA_COMBO storage holds");           \
         int x_;                                                                 \
     }),                                                                         \
     wa_combo_init(&(j)->c, (mode), (j)->br, WA__COMBO_N(__VA_ARGS__),           \
                   WA__COMBO_ARGS(__VA_ARGS__)))

/* Join / race of the futures listed (1 to 16), in WA_COMBO(N) storage j. */
#define wa_all_init(j, ...) WA__COMBO(j, WA_ALL, __VA_ARGS__)
/* Waits for every future listed (taken), even after errors; status 0. */
#define wa_all_settled_init(j, ...) WA__COMBO(j, WA_ALL_SETTLED, __VA_ARGS__)
/* The first of the futures listed (taken) to finish wins (its status);
 * the others are dropped. */
#define wa_race_init(j, ...) WA__COMBO(j, WA_RACE, __VA_ARGS__)

/* After a race: the index of the child that finished first (-1: none). */
static inline int wa_race_winner(const wa_combo *c) { return c->winner; }

/* After completion: the status of child i (WA_PENDING if it was dropped
 * unfinished). With allocated storage, only until the combinator is
 * dropped. */
static inline int wa_combo_status(const wa_combo *c, size_t i) { return c->br[i].status; }

#ifdef __cplusplus
}
#endif
#endif
