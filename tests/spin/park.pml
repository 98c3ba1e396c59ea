/* SPDX-License-Identifier: MIT */
/* A model of parking in the many-threads executor (src/core/mt.c): the
 * state counter (unparked and searching workers), the idle list and each
 * worker's futex word under mt->lock, wa_mt_notify after every push from
 * outside (its unlocked look at the state, then its locked one; a worker's
 * own push may skip it: its look without a fence may see a stale state,
 * and a worker runs its own queues before it parks), the search limit (at
 * most half the workers search), wa_worker_search ending a search (the
 * last searcher that found work notifies) and wa_worker_park (the last
 * searcher to park looks at every queue again). The queues are one set of
 * tasks taken atomically (the ring's own model is ring.pml). Tasks come
 * from a thread outside, and task 1, when it runs, queues task 3 from its
 * worker. Checked exhaustively (tests/spin/run.sh): when nothing can move
 * (every worker parked), no task is left queued (no lost wake-up), and no
 * task runs twice. Timer and shutdown wake-ups are left out: they only add
 * wake-ups. */
#define WORKERS 2
#define TASKS 3

bool queued[TASKS + 1], ran[TASKS + 1];
byte unparked = WORKERS, searching;
bool lock;                 /* mt->lock */
byte idle[WORKERS], idle_len;
bit parked[WORKERS];       /* futex words */
bool searcher[WORKERS];    /* w->searching */

inline acquire() { atomic { !lock -> lock = 1 } }
inline release() { lock = 0 }

/* Queues task t, then wa_mt_notify. Its variables are the caller's: u, s,
 * v (an inline has none of its own). */
inline push(t)
{
    queued[t] = 1;
    notify()
}

inline notify()
{
    s = searching;
    u = unparked;
    if
    :: s > 0 || u >= WORKERS -> skip
    :: else ->
        acquire();
        if
        :: searching > 0 || idle_len == 0 -> release()
        :: else ->
            idle_len--;
            v = idle[idle_len];
            atomic { unparked++; searching++ };
            searcher[v] = 1;
            parked[v] = 0;
            release()
        fi
    fi
}

/* A worker queues task t: wa_mt_notify, or nothing (its look at the state
 * without a fence). */
inline push_local(t)
{
    queued[t] = 1;
    if
    :: notify()
    :: skip
    fi
}

/* Takes a queued task into t (0: none), as one compare-and-swap. */
inline take(t)
{
    atomic {
        if
        :: queued[1] -> t = 1
        :: queued[2] -> t = 2
        :: queued[3] -> t = 3
        :: else -> t = 0
        fi;
        if
        :: t -> queued[t] = 0
        :: else
        fi
    }
}

proctype worker(byte w)
{
    byte t, u, s, v, was;
    bool last;
loop:
    take(t);                       /* its own ring, the injector */
    if
    :: t == 0 ->                   /* wa_worker_search (the code looks up to
                                      16 times before it parks: one look is
                                      modelled, more only find work sooner) */
        if
        :: !searcher[w] ->
            if
            :: 2 * searching >= WORKERS -> goto park
            :: else -> atomic { searching++ }; searcher[w] = 1
            fi
        :: else
        fi;
        take(t);
        if
        :: t == 0 -> goto park
        :: else ->
            searcher[w] = 0;
            atomic { was = searching; searching-- };
            if
            :: was == 1 -> notify()
            :: else
            fi
        fi
    :: else
    fi;
    assert(!ran[t]);               /* wa_mt_run */
    ran[t] = 1;
    if
    :: t == 1 -> push_local(3)
    :: else
    fi;
    goto loop;
park:                              /* wa_worker_park */
    acquire();
    atomic {
        was = searching;
        unparked--;
        if
        :: searcher[w] -> searching--
        :: else
        fi
    };
    last = searcher[w] && was == 1;
    searcher[w] = 0;
    idle[idle_len] = w;
    idle_len++;
    parked[w] = 1;
    release();
    if
    :: last && (queued[1] || queued[2] || queued[3]) -> notify()
    :: else
    fi;
end: (parked[w] == 0);             /* the futex wait */
    goto loop
}

proctype outside()
{
    byte u, s, v;
    push(1);
    push(2)
}

/* When nothing can move, every task ran. */
proctype check()
{
    timeout -> assert(ran[1] && ran[2] && ran[3])
}

init
{
    atomic {
        run worker(0);
        run worker(1);
        run outside();
        run check()
    }
}
