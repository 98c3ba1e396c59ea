/* SPDX-License-Identifier: MIT */
/* Error strings and the misuse hook. */
#include "dump.h"
#include "rt.h"

#if WA__ASAN
#include <sanitizer/asan_interface.h>
#endif

const char *wa_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define WA__ERRNO_CASE(name, val, msg) \
    case name:                         \
        return msg;
        WA_ERRNO_MAP(WA__ERRNO_CASE)
#undef WA__ERRNO_CASE
    default:
        return "unknown error";
    }
}

/* The runtime whose tick runs on this thread, if any: a poll must not block
 * (block_on) or re-enter (tick) any runtime, and misuse reports name its
 * task. Here, at the bottom, so that reporting calls nothing above it. */
_Thread_local wa_rt *wa__ticking;

/* Reports and lets the call return its code, in every build and on every
 * host: a program handles misuse as it does any error, and debug and
 * release (or native and wasm, where an abort is a trap without a word)
 * behave alike. A program that wants to stop at the first misuse installs
 * a hook that aborts. */
static void wa__misuse_default(const char *what) { wa__log(what); }

static wa_misuse_fn wa__misuse_hook = wa__misuse_default;

wa_misuse_fn wa_misuse_set_hook(wa_misuse_fn fn)
{
    wa_misuse_fn old = wa__misuse_hook;
    wa__misuse_hook = fn ? fn : wa__misuse_default;
    return old;
}

/* The report "wasync: misuse: call: lead what [in task N]" (call NULL:
 * without "call: "); returns err. */
static int wa__misuse_say(int err, const char *call, const char *lead, const char *what)
{
    char line[320];
    wa__text d = {line, sizeof line, 0};
    wa__text_str(&d, "wasync: misuse: ");
    if (call) {
        wa__text_str(&d, call);
        wa__text_str(&d, ": ");
    }
    wa__text_str(&d, lead);
    wa__text_str(&d, what);
    const wa_rt *rt = wa__ticking;
    if (rt && wa__rt_current(rt)) {
        wa__text_str(&d, " [in ");
        wa__text_task(&d, wa__rt_current(rt));
        wa__text_str(&d, "]");
    }
    wa__misuse_hook(line);
    return err;
}

int wa__misuse_in(int err, const char *call, const char *what) { return wa__misuse_say(err, call, "", what); }

int wa_misuse(int err, const char *what) { return wa__misuse_say(err, NULL, "", what); }

int wa__misuse_done(const char *call, const char *what)
{
    return wa__misuse_say(WA_EMISUSE, call, "poll of a finished or freed ", what);
}

/* Out of line, so that this frame lies below every frame of the poll
 * that called it. */
__attribute__((noinline)) bool wa__poll_local(const void *p)
{
    const wa_rt *rt = wa__ticking;
    if (!rt)
        return false;
    const char *a = p;
#if WA__ASAN
    /* ASan moves address-taken locals to fake frames off the stack; a fake
     * frame knows where on the stack its function ran (a few bytes below
     * its frame): below poll_top for a function of the poll's, above it
     * for block_on's caller, whose frame lies above block_on's and the
     * round's. */
    void *fake = __asan_get_current_fake_stack();
    const char *real = fake ? __asan_addr_is_in_fake_stack(fake, (void *)a, NULL, NULL) : NULL;
    if (real)
        return real < rt->poll_top;
#endif
    return a >= (const char *)__builtin_frame_address(0) && a < rt->poll_top;
}

int wa__misuse_local(const char *call, const wa_future *f)
{
    char what[160];
    wa__text d = {what, sizeof what, 0};
    wa__text_str(&d, "the future \"");
    wa__text_str(&d, f->vt && f->vt->name ? f->vt->name : "?");
    wa__text_str(&d, "\" is in the poll's own stack frame, gone when it returns: keep it in the struct");
    return wa__misuse_in(WA_EMISUSE, call, what);
}
