/* SPDX-License-Identifier: MIT */
/* The backend a runtime gets when none is given. */
#include "../core/rt.h"
#include "wasync/component.h"
#include "wasync/wasi.h"

wa_backend *wa_backend_default_(int *err)
{
#if defined(__linux__)
    return wa_backend_epoll_new(err);
#elif defined(WASYNC_HOST_WASIP2)
    return wa_backend_wasip2_new(err);
#elif defined(WASYNC_HOST_WASIP3)
    return wa_backend_wasip3_new(err);
#elif defined(WASYNC_HOST_WASIP1)
    return wa_backend_wasip1_new(err);
#else
    wa_backend *b = wa_backend_sim_new(0);
    if (!b)
        *err = WA_ENOMEM;
    return b;
#endif
}
