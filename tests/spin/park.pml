/* SPDX-License-Identifier: MIT */
/* A model of parking in the many-threads executor (src/threads/mt.c): the
 * state counter (unparked and searching workers), the idle list and each
 * worker's futex word under mt->lock, wa_mt_notify after every push from
 * outside (its unlocked look at the state, then its locked one; a worker's
 * own push may skip it: its look without a fence may see a stale state,
 * and a worker runs its own queues before it parks), the search limit (at
 * most half the workers search), wa_worker_search ending a search (the
 * last searcher that found work notifies) and wa_worker_park (the last
 * searcher to park looks at every queue again). The queues are one set of
 * tasks taken atomically (the ring's own model is ring.pml). Task 1 comes
 * from a thread outside and, when it runs, queues task 2 from its worker
 * (which may skip the notify). The driver: a parking worker that takes
 * the token (driving) waits in the backend instead of on its futex, until
 * an fd is ready (io) or the eventfd is written (evfd, which stays set
 * until the wait reads it); notify picks it after the idle workers, and
 * writes the eventfd after unlocking; a wake from its own wait marks it up
 * without writing. An fd is registered throughout (without one, a parking
 * worker takes the futex and nobody drives: the model without io). It
 * becomes ready once from outside (io), after task 1 is pushed, or never
 * (then no readiness hides a lost wake-up), and its task 3 is queued by
 * whoever polls the backend: the driver in its wait, or a busy worker's
 * non-blocking look, which holds the token meanwhile. Checked
 * exhaustively (tests/spin/run.sh): when nothing can move (every worker
 * parked, on its futex or in the backend), no task is left queued, the
 * fd's task ran if it was ready, and the state says every worker parked
 * (no lost wake-up, no readiness left with nobody in the backend), and no
 * task runs twice: the check fails when notify picks the driver without
 * writing the eventfd, or when the last searcher does not look again
 * after saying it parks. Timer and shutdown wake-ups are left out: they
 * only add wake-ups. */
#define WORKERS 2
#define TASKS 3
#define NONE WORKERS

bool queued[TASKS + 1], ran[TASKS + 1];
byte unparked = WORKERS, searching;
bool lock;                 /* mt->lock */
byte idle[WORKERS], idle_len;
bit parked[WORKERS];       /* futex words */
bool searcher[WORKERS];    /* w->searching */
bool driving;              /* mt->driving, the token */
byte driver = NONE;        /* mt->driver */
bool evfd, io;             /* the eventfd's counter; the fd's readiness */
bool fired;                /* io was set (the fd's task 3 is due) */

inline acquire() { atomic { !lock -> lock = 1 } }
inline release() { lock = 0 }

/* Queues task t, then wa_mt_notify. Its variables are the caller's: u, s,
 * v, and w, the caller's worker (NONE outside); an inline has none of its
 * own. */
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
        :: searching > 0 || (idle_len == 0 && driver == NONE) -> release()
        :: searching == 0 && idle_len == 0 && driver != NONE && driver == w -> /* the driver's own wake */
            driver = NONE;
            unparked++;
            release()
        :: searching == 0 && idle_len == 0 && driver != NONE && driver != w ->
            v = driver;
            driver = NONE;
            atomic { unparked++; searching++ };
            searcher[v] = 1;
            release();
            evfd = 1
        :: searching == 0 && idle_len > 0 ->
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
    bool last, drive;
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
    :: t == 1 -> push_local(2)
    :: else
    fi;
    if                             /* wa_worker_poll_io, now and then */
    :: atomic { !driving -> driving = 1 };
        if
        :: atomic { io -> io = 0; queued[3] = 1 } /* to its LIFO slot: no notify */
        :: else
        fi;
        driving = 0
    :: skip
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
    if
    :: atomic { !driving -> driving = 1 }; driver = w; drive = 1
    :: else -> idle[idle_len] = w; idle_len++; parked[w] = 1; drive = 0
    fi;
    release();
    if
    :: last && (queued[1] || queued[2] || queued[3]) -> notify()
    :: else
    fi;
    if
    :: drive ->                    /* wa_worker_drive */
        if
        :: driver == w ->
end_drive:  (evfd || io);            /* epoll_wait */
            atomic {
                evfd = 0;
                if
                :: io -> io = 0; queued[3] = 1 /* its wake: to its LIFO slot, no notify */
                :: else
                fi
            }
        :: else
        fi;
        acquire();
        if
        :: driver == w -> driver = NONE; unparked++
        :: else
        fi;
        release();
        drive = 0;
        driving = 0;
        goto loop
    :: else
    fi;
end: (parked[w] == 0);             /* the futex wait */
    goto loop
}

proctype outside()
{
    byte u, s, v, w = NONE;
    push(1);
    if                             /* an fd becomes ready, or never */
    :: io = 1; fired = 1
    :: skip
    fi
}

/* When nothing can move, every task ran (the fd's if it was ready), and
 * every worker is counted parked (one woken but still asleep in the
 * backend, a lost wake-up that later pushes would trip over, shows here). */
proctype check()
{
    timeout -> assert(ran[1] && ran[2] && ran[3] == fired && unparked == 0 && searching == 0)
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
