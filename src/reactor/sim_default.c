/* SPDX-License-Identifier: MIT */
/* The backend wa_rt_new gives on a host whose list takes no reactor of its
 * own for it: the simulated clock. That is the JS host (its module's own
 * runtime runs on host/js/reactor.c, made by the exports) and a native
 * build off Linux (no epoll). Every other host's reactor file ends with
 * its wa__backend_default. */
#include "../core/rt.h"

wa_backend *wa__backend_default(int *err)
{
    wa_backend *b = wa_backend_sim_new(0);
    if (!b)
        *err = WA_ENOMEM;
    return b;
}
