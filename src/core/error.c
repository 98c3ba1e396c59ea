/* Error strings and the misuse hook. */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

const char *wa_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define WA_ERRNO_CASE_(name, val, msg) \
    case name:                         \
        return msg;
        WA_ERRNO_MAP(WA_ERRNO_CASE_)
#undef WA_ERRNO_CASE_
    default:
        return "unknown error";
    }
}

static void wa_misuse_default(const char *what)
{
    static const char head[] = "wasync: misuse: ";
    char line[160];
    size_t n = strlen(what);
    if (n > sizeof line - sizeof head)
        n = sizeof line - sizeof head;
    memcpy(line, head, sizeof head - 1);
    memcpy(line + sizeof head - 1, what, n);
    line[sizeof head - 1 + n] = 0;
    wa_log_(line);
#ifndef NDEBUG
    abort();
#endif
}

static wa_misuse_fn wa_misuse_hook = wa_misuse_default;

wa_misuse_fn wa_set_misuse_hook(wa_misuse_fn fn)
{
    wa_misuse_fn old = wa_misuse_hook;
    wa_misuse_hook = fn ? fn : wa_misuse_default;
    return old;
}

int wa_misuse(int err, const char *what)
{
    wa_misuse_hook(what);
    return err;
}
