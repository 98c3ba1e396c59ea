/* SPDX-License-Identifier: MIT */
/* Signals as futures (wasync/signals.h), natively: a wait ends with the
 * signal sent (kill(getpid())), on a local and a many-threads runtime;
 * every wait pending gets it; waits one after another miss nothing; a
 * dropped wait takes nothing; a close ends the waits and puts the mask
 * back; one watch per signal; misuse. The signals have a counting handler,
 * so that one delivered the ordinary way (a close with one pending, or a
 * failed test) is counted rather than the end of the binary. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "futures.h"
#include "rt_setup.h"

static volatile sig_atomic_t handled;
static void count_signal(int sig)
{
    (void)sig;
    handled++;
}

/* Whether sig is blocked in this thread. */
static int blocked(int sig)
{
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    return sigismember(&cur, sig);
}

/* Waits on sigs, 5 s at most (a signal taken by another thread is a
 * failure, not a hang); its status is the wait's, signo its output. */
typedef struct waiter {
    WA_CORO;
    wa_signals *sigs;
    wa_signals_wait w;
    wa_timeout to;
    int signo;
} waiter;

static int waiter_poll(wa_future *f, wa_cx *cx)
{
    waiter *t = (waiter *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_timeout_init(&t->to, wa_signals_wait_init(&t->w, t->sigs), WA_SEC(5)));
    t->signo = t->w.signo;
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt waiter_vt = {waiter_poll, wa_coro_drop, "waiter"};

static waiter waiter_of(wa_signals *sigs)
{
    waiter t = {.sigs = sigs};
    wa_coro_init(&t.wa, &waiter_vt);
    return t;
}

/* Sleeps 5 ms (or not, when that fails), then sends sig to the process. */
typedef struct sender {
    WA_CORO;
    wa_sleep nap;
    int sig;
} sender;

static int sender_poll(wa_future *f, wa_cx *cx)
{
    sender *t = (sender *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->nap, WA_MS(5)));
    WA_RETURN(kill(getpid(), t->sig));
    WA_END();
}
static const wa_future_vt sender_vt = {sender_poll, wa_coro_drop, "sender"};

static int send_later(wa_rt *rt, int sig)
{
    sender t = {.sig = sig};
    wa_coro_init(&t.wa, &sender_vt);
    return check_spawn_of(rt, &t, NULL);
}

/* wa_block_on of a wait on sigs, within ms milliseconds; the signal in
 * *signo. */
static int wait_for(wa_rt *rt, wa_signals *sigs, int ms, int *signo)
{
    wa_signals_wait w;
    wa_timeout to;
    int rc = wa_block_on(rt, wa_timeout_init(&to, wa_signals_wait_init(&w, sigs), WA_MS(ms)));
    *signo = w.signo;
    return rc;
}

/* One wait, the signal sent while it waits (from a task: on a worker of a
 * many-threads runtime), then one sent before the wait; the close unblocks
 * what the open blocked, and leaves no fd. */
static void signals_one(unsigned workers)
{
    long fds = check_fds_held();
    wa_rt *rt;
    wa_signals *sigs;
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    REQUIRE_OR(wa_signals_open(rt, WA_SIGNAL_INT | WA_SIGNAL_TERM, &sigs) == 0, wa_rt_free(rt));
    CHECK(blocked(SIGINT) && blocked(SIGTERM) && !blocked(SIGHUP));
    int signo = 0;
    REQUIRE_OR(send_later(rt, SIGTERM) == 0, (wa_signals_close(&sigs), wa_rt_free(rt)));
    CHECK_EQ(wait_for(rt, sigs, 5000, &signo), 0); /* (a worker that took it: WA_ETIMEDOUT) */
    CHECK_EQ(signo, SIGTERM);
    CHECK_EQ(kill(getpid(), SIGINT), 0);
    CHECK_EQ(wait_for(rt, sigs, 5000, &signo), 0);
    CHECK_EQ(signo, SIGINT);
    CHECK_EQ(wa_signals_close(&sigs), 0);
    CHECK(sigs == NULL && !blocked(SIGINT) && !blocked(SIGTERM));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(check_fds_held(), fds);
    CHECK_EQ(handled, 0);
}
static void test_signals_one(void) { signals_one(0); }
static void test_signals_one_mt(void) { signals_one(2); }

/* Aborts the tasks of js[0..n) on rt (a handle from a failed spawn,
 * zeroed beforehand, holds none) and runs rt until they ended, so that
 * none of them polls a watch closed next (on many threads an abort is
 * seen by the task's next poll, which may be its first). */
static void abort_joins(wa_rt *rt, wa_join *js, int n)
{
    for (int i = 0; i < n; i++)
        if (js[i].task)
            wa_join_abort(&js[i]);
    check_joins_drop(js, n);
    wa_rt_run(rt);
}

/* Three tasks wait on one watch: one SIGHUP ends all three with it. */
static void signals_waiters(unsigned workers)
{
    wa_rt *rt;
    wa_signals *sigs;
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    REQUIRE_OR(wa_signals_open(rt, WA_SIGNAL_HUP, &sigs) == 0, wa_rt_free(rt));
    wa_join j[3] = {0};
    int spawned = 1;
    for (int i = 0; i < 3; i++) {
        waiter t = waiter_of(sigs);
        spawned &= check_spawn_of(rt, &t, &j[i]) == 0;
    }
    REQUIRE_OR(spawned && send_later(rt, SIGHUP) == 0, (abort_joins(rt, j, 3), wa_signals_close(&sigs), wa_rt_free(rt)));
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(wa_join_status(&j[i]), 0);
        waiter *w = (waiter *)wa_join_output(&j[i]);
        CHECK(w && w->signo == SIGHUP);
        wa_join_drop(&j[i]);
    }
    CHECK_EQ(wa_signals_close(&sigs), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(handled, 0);
}
static void test_signals_waiters(void) { signals_waiters(0); }
static void test_signals_waiters_mt(void) { signals_waiters(3); }

/* Waits one after another: two signals that came at once are the next
 * two waits', then nothing is there; a wait dropped by its timeout takes
 * nothing, and a signal that comes between waits is the next one's. */
static void test_signals_rearm(void)
{
    wa_rt *rt;
    wa_signals *sigs;
    int signo = 0;
    REQUIRE(check_rt_new(&rt, 0, NULL, NULL) == 0);
    REQUIRE_OR(wa_signals_open(rt, WA_SIGNAL_INT | WA_SIGNAL_HUP, &sigs) == 0, wa_rt_free(rt));
    CHECK_EQ(kill(getpid(), SIGHUP), 0);
    CHECK_EQ(kill(getpid(), SIGINT), 0);
    CHECK_EQ(wait_for(rt, sigs, 1000, &signo), 0);
    CHECK_EQ(signo, SIGINT); /* (both there: the first bit first) */
    CHECK_EQ(wait_for(rt, sigs, 1000, &signo), 0);
    CHECK_EQ(signo, SIGHUP);
    CHECK_EQ(wait_for(rt, sigs, 10, &signo), WA_ETIMEDOUT);
    CHECK_EQ(kill(getpid(), SIGHUP), 0);
    CHECK_EQ(wait_for(rt, sigs, 1000, &signo), 0);
    CHECK_EQ(signo, SIGHUP);
    CHECK_EQ(wa_signals_close(&sigs), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(handled, 0);
}

/* A close while a wait is pending ends it with WA_ECLOSED; a signal
 * pending at the close (never waited for) is delivered the ordinary way
 * once the mask is back (here to the counting handler). */
static void test_signals_close(void)
{
    wa_rt *rt;
    wa_signals *sigs;
    REQUIRE(check_rt_new(&rt, 0, NULL, NULL) == 0);
    REQUIRE_OR(wa_signals_open(rt, WA_SIGNAL_TERM, &sigs) == 0, wa_rt_free(rt));
    wa_signals_wait w;
    wa_cx cx = {WA_NOOP_WAKER, rt, NULL, 0, NULL};
    CHECK_EQ(wa_poll(wa_signals_wait_init(&w, sigs), &cx), WA_PENDING);
    CHECK_EQ(wa_signals_close(&sigs), 0);
    CHECK_EQ(wa_poll(&w.fut, &cx), WA_ECLOSED);
    wa_drop(&w.fut);
    CHECK(sigs == NULL && !blocked(SIGTERM));
    REQUIRE_OR(wa_signals_open(rt, WA_SIGNAL_TERM, &sigs) == 0, wa_rt_free(rt)); /* free again */
    CHECK_EQ(kill(getpid(), SIGTERM), 0);
    CHECK_EQ(handled, 0);
    CHECK_EQ(wa_signals_close(&sigs), 0);
    CHECK_EQ(handled, 1);
    handled = 0;
    CHECK_RT_EMPTY_FREE(rt);
}

/* One watch per signal; bad arguments; a closed watch, through a copy of
 * its handle; a backend without fds (sim), which leaves nothing blocked. */
static void test_signals_misuse(void)
{
    check_catch_misuse();
    wa_rt *rt;
    wa_signals *a, *b, *copy;
    REQUIRE(check_rt_new(&rt, 0, NULL, NULL) == 0);
    CHECK_MISUSE(wa_signals_open(NULL, WA_SIGNAL_INT, &a), WA_EINVAL, "wa_signals_open");
    CHECK_MISUSE(wa_signals_open(rt, 0, &a), WA_EINVAL, "wa_signals_open");
    CHECK_MISUSE(wa_signals_open(rt, 8, &a), WA_EINVAL, "wa_signals_open");
    CHECK_MISUSE(wa_signals_open(rt, WA_SIGNAL_INT, NULL), WA_EINVAL, "wa_signals_open");
    REQUIRE_OR(wa_signals_open(rt, WA_SIGNAL_INT | WA_SIGNAL_HUP, &a) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_signals_open(rt, WA_SIGNAL_HUP, &b), WA_EBUSY);
    CHECK(b == NULL);
    int rc = wa_signals_open(rt, WA_SIGNAL_TERM, &b); /* another signal */
    CHECK(rc == 0 || rc == WA_ENOMEM);
    wa_signals *stale = b; /* (or NULL) */
    if (rc == 0)
        CHECK_EQ(wa_signals_close(&b), 0);
    copy = a;
    CHECK_EQ(wa_signals_close(&a), 0);
    CHECK_MISUSE(wa_signals_close(&a), WA_EMISUSE, "wa_signals_close");
    CHECK_MISUSE(wa_signals_close(&copy), WA_EMISUSE, "wa_signals_close");
    CHECK_MISUSE(wa_signals_close(NULL), WA_EMISUSE, "wa_signals_close");
    wa_signals_wait w;
    CHECK_MISUSE(wa_block_on(rt, wa_signals_wait_init(&w, stale)), WA_EMISUSE, "wa_signals_wait");
    CHECK_RT_EMPTY_FREE(rt);
    rt = check_sim_rt(0);
    REQUIRE(rt);
    CHECK_EQ(wa_signals_open(rt, WA_SIGNAL_INT, &a), WA_ENOSYS);
    CHECK(!blocked(SIGINT) && !blocked(SIGHUP));
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(handled, 0);
}

int main(void)
{
    struct sigaction sa = {.sa_handler = count_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    RUN(test_signals_one);
    RUN(test_signals_one_mt);
    RUN(test_signals_waiters);
    RUN(test_signals_waiters_mt);
    RUN(test_signals_rearm);
    RUN(test_signals_close);
    RUN(test_signals_misuse);
    return check_finish();
}
