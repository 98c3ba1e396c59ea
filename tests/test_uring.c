/* SPDX-License-Identifier: MIT */
/* The native io_uring backend: asked for by name and by WASYNC_BACKEND,
 * epoll in its place where io_uring is refused (a seccomp filter here),
 * said once, and a multishot poll the kernel ended (its completion queue
 * full) armed again. The rest of the native suite runs on it too: the
 * NAME_uring tests, under WASYNC_BACKEND=uring. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A runtime on io_uring asked for by name, or NULL: where the kernel
 * refuses it (said once) and under allocation failures. */
static wa_rt *uring_rt(void)
{
    static int said;
    int err = 0;
    wa_rt *rt = NULL;
    wa_backend *b = wa_backend_uring_new(&err);
    if (!b && err == WA_ENOSYS && !said++)
        printf("io_uring is refused on this machine: only the fallback is tested\n");
    if (b && wa_rt_new_on(&rt, b) < 0)
        return NULL;
    return rt;
}

static const char *backend_name(wa_rt *rt) { return wa_rt_backend(rt)->vt->name; }

/* WASYNC_BACKEND picks wa_rt_new's backend: uring, epoll, epoll unset. */
static void test_env_picks(void)
{
    wa_rt *rt = uring_rt();
    if (!rt)
        return;
    wa_rt_free(rt);
    const char *was = getenv("WASYNC_BACKEND");
    char *keep = was ? strdup(was) : NULL;
    static const char *const env[][2] = {{"uring", "uring"}, {"epoll", "epoll"}, {NULL, "epoll"}};
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
        if (env[i][0])
            setenv("WASYNC_BACKEND", env[i][0], 1);
        else
            unsetenv("WASYNC_BACKEND");
        if (wa_rt_new(&rt) == 0) {
            CHECK(strcmp(backend_name(rt), env[i][1]) == 0);
            wa_rt_free(rt);
        }
    }
    if (keep)
        setenv("WASYNC_BACKEND", keep, 1);
    free(keep);
}

/* Runs fn in a child process with its stderr into out (up to n - 1
 * bytes, terminated); returns the child's exit status, or -1. */
static int in_child(int (*fn)(void), char *out, size_t n)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 2);
        _exit(fn());
    }
    close(p[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && got + 1 < n && (r = read(p[0], out + got, n - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = 0;
    close(p[0]);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *at = s; (at = strstr(at, what)); at++)
        n++;
    return n;
}

/* (child) Two runtimes on WASYNC_BACKEND, each epoll: 0, 1 if not, 2 if
 * one could not be made (allocation failures). */
static int two_epoll_runtimes(const char *want)
{
    setenv("WASYNC_BACKEND", want, 1);
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        wa_rt *rt;
        if (wa_rt_new(&rt) < 0)
            return 2;
        ok &= strcmp(backend_name(rt), "epoll") == 0;
        wa_rt_free(rt);
    }
    return ok ? 0 : 1;
}

/* (child) io_uring_setup refused as a seccomp filter (a container's
 * profile, a sandbox) refuses it: EPERM. */
static int refused_child(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
        return 3;
    int err = 0;
    wa_backend *b = wa_backend_uring_new(&err);
    if (b) {
        b->vt->free(b);
        return 1;
    }
    if (err != WA_ENOSYS) /* (no fallback when asked for by name) */
        return err == WA_ENOMEM ? 2 : 1;
    return two_epoll_runtimes("uring");
}

/* Where io_uring is refused, WASYNC_BACKEND=uring runs on epoll, and says
 * so once however many runtimes are made. */
static void test_refused_falls_back_once(void)
{
    char err[4096];
    int rc = in_child(refused_child, err, sizeof err);
    REQUIRE(rc != 2 && rc != 3);
    CHECK_EQ(rc, 0);
    CHECK_EQ(count(err, "WASYNC_BACKEND=uring: io_uring is refused here"), 1);
}

static int unknown_child(void) { return two_epoll_runtimes("kqueue"); }

/* A name it does not know is epoll too, said once. */
static void test_unknown_name_said_once(void)
{
    char err[4096];
    int rc = in_child(unknown_child, err, sizeof err);
    REQUIRE(rc != 2);
    CHECK_EQ(rc, 0);
    CHECK_EQ(count(err, "WASYNC_BACKEND: unknown backend"), 1);
}

/* fd_wait on key for READABLE, for at most ms: its status. */
static int wait_readable(wa_rt *rt, wa_fd_key key, unsigned ms)
{
    wa_fd_wait w;
    wa_timeout to;
    return wa_block_on(rt, wa_timeout_init(&to, wa_fd_wait_init(&w, key, WA_READABLE), WA_MS(ms)));
}

/* More wakes of one watched pipe than the completion queue holds (4096)
 * between two waits: the kernel ends that multishot poll, and the backend
 * arms it again, or the pipe's later data would never wake anyone. */
static void test_multishot_ended_is_rearmed(void)
{
    wa_rt *rt = uring_rt();
    if (!rt)
        return;
    int p[2];
    wa_fd_key key;
    REQUIRE_OR(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0, wa_rt_free(rt));
    REQUIRE_OR(wa_fd_register(rt, p[0], &key) == 0, (close(p[0]), close(p[1]), wa_rt_free(rt)));
    CHECK_EQ(wait_readable(rt, key, 1), WA_ETIMEDOUT); /* (watched from here on) */
    char c = 'x', buf[256];
    int wrote = 0;
    for (int i = 0; i < 6000; i++) /* a wake, and a completion, each */
        wrote += write(p[1], &c, 1) == 1;
    CHECK_EQ(wrote, 6000);
    while (read(p[0], buf, sizeof buf) > 0) {
    }
    wa_backend *b = wa_rt_backend(rt);
    for (int i = 0; i < 200; i++) /* the completions, 64 a wait */
        b->vt->wait(b, 0);
    wait_readable(rt, key, 1); /* (the readiness they left) */
    CHECK(write(p[1], &c, 1) == 1);
    uint64_t t0 = mono_ns();
    CHECK_EQ(wait_readable(rt, key, 5000), 0);
    CHECK(mono_ns() - t0 < WA_SEC(2));
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    close(p[0]);
    close(p[1]);
    wa_rt_free(rt);
}

/* What epoll refuses, io_uring's registration refuses too (a poll request
 * would take a regular file, and report a bad fd only later). */
static void test_refuses_what_epoll_refuses(void)
{
    wa_rt *rt = uring_rt();
    if (!rt)
        return;
    wa_fd_key key;
    CHECK_EQ(wa_fd_register(rt, -1, &key), WA_EINVAL);
    int f = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (f >= 0) {
        CHECK_EQ(wa_fd_register(rt, f, &key), WA_EINVAL);
        close(f);
    }
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.sources, 0);
    wa_rt_free(rt);
}

int main(void)
{
    RUN(test_env_picks);
    RUN(test_refused_falls_back_once);
    RUN(test_unknown_name_said_once);
    RUN(test_multishot_ended_is_rearmed);
    RUN(test_refuses_what_epoll_refuses);
    return check_finish();
}
