/* SPDX-License-Identifier: MIT */
/* The backend wa_rt_new gives natively: epoll, or io_uring when the
 * environment says WASYNC_BACKEND=uring (the same programs, tests and
 * benchmarks on either without a rebuild). Where the kernel or a seccomp
 * filter refuses io_uring, epoll it is, said once on stderr: a program
 * asks for uring by name with wa_backend_uring_new, which does not fall
 * back. */
#include <stdlib.h>
#include <string.h>

#include "../../core/rt.h"

/* Says text once in the process's life (many runtimes may be made). */
static void wa__native_say_once(const char *text)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        wa__log(text);
}

wa_backend *wa__backend_default(int *err)
{
    const char *want = getenv("WASYNC_BACKEND");
    if (want && !strcmp(want, "uring")) {
        int rc = WA_ENOSYS;
        wa_backend *b = wa_backend_uring_new(&rc);
        if (b || rc != WA_ENOSYS) {
            if (!b && err)
                *err = rc;
            return b;
        }
        wa__native_say_once("wasync: WASYNC_BACKEND=uring: io_uring is refused here (kernel, sysctl or seccomp), "
                            "using epoll");
    } else if (want && *want && strcmp(want, "epoll")) {
        wa__native_say_once("wasync: WASYNC_BACKEND: unknown backend (epoll or uring), using epoll");
    }
    return wa_backend_epoll_new(err);
}
