/* 10,000 concurrent sleeps of up to 100 ms (splitmix64(42), as the native
 * timers benchmark) under a real component host: the wall time against the
 * ideal (the longest sleep), and the host calls they cost. Prints
 * `sleeps n=... ideal_ms=... wall_ms=... ratio=... subscribes=... polls=...`
 * and fails if the ratio is over the bound given in WASYNC_SLEEPS_BOUND
 * (default 1.2). */
#include <stdio.h>
#include <stdlib.h>

#include "../../src/wasi/clocks.h"
#include "wasync.h"
#include "wasync/wasi.h"

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(void)
{
    const char *b = getenv("WASYNC_SLEEPS_BOUND");
    double bound = b ? atof(b) : 1.2;
    long n = 10000;
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    uint64_t seed = 42, ideal = 0, t0 = wa_now(rt);
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        uint64_t ms = splitmix64(&seed) % 101;
        if (ms > ideal)
            ideal = ms;
        wa_sleep s;
        wa_sleep_until_init(&s, t0 + WA_MS(ms));
        rc = wa_spawn_of(rt, &s, NULL);
    }
    if (rc < 0 || (rc = wa_rt_run(rt)) < 0) {
        fprintf(stderr, "sleeps: %s\n", wa_strerror(rc));
        wa_rt_free(rt);
        return 1;
    }
    double wall = (double)(wa_p2_now() - t0) / 1e6, ratio = wall / (double)ideal;
    wa_wasip2_stats st;
    wa_wasip2_stats_get(rt, &st);
    printf("sleeps n=%ld ideal_ms=%llu wall_ms=%.1f ratio=%.3f subscribes=%llu polls=%llu nows=%llu\n", n,
           (unsigned long long)ideal, wall, ratio, (unsigned long long)st.subscribes,
           (unsigned long long)st.polls, (unsigned long long)st.nows);
    wa_rt_free(rt);
    return ratio <= bound ? 0 : 1;
}
