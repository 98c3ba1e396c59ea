/* SPDX-License-Identifier: MIT */
/* The slow path of a shared primitive's lock (lock.h), out of line so that
 * the fast paths, and those of unshared primitives, stay small. */
#include "lock.h"

#if WA__MT
#include <sched.h>

void wa__sync_spin(unsigned *l)
{
    /* held for a few list moves, by a thread that may be descheduled */
    do
        for (unsigned i = 1; __atomic_load_n(l, __ATOMIC_RELAXED) == WA__LOCK_HELD; i++)
            if (i % 64 == 0)
                sched_yield();
    while (__atomic_exchange_n(l, WA__LOCK_HELD, __ATOMIC_ACQUIRE) == WA__LOCK_HELD);
}
#endif
