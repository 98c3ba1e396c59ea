/* SPDX-License-Identifier: MIT */
/* wasi:cli: environment and exit (public, wasync/wasi.h) and the std
 * streams (cli.h). A list comes back as (ptr, len) in a return area; the
 * list and each of its strings are separate cabi_realloc (malloc) blocks,
 * the strings not terminated. The public calls turn them into C strings
 * and free the host's blocks (lift.h). */
#include <stdio.h>
#include <string.h>

#include "../../wasi/cabi.h"
#include "../../wasi/lift.h"
#include "cli.h"
#include "io.h"
#include "wasync/wasi.h"

#define ENV "wasi:cli/environment@0.2.12"

WA__WASI_IMPORT(ENV, "get-environment") void wa__wasip2_imp_cli_get_environment(int32_t ret);
WA__WASI_IMPORT(ENV, "get-arguments") void wa__wasip2_imp_cli_get_arguments(int32_t ret);
WA__WASI_IMPORT("wasi:cli/exit@0.2.12", "exit") void wa__wasip2_imp_cli_exit(int32_t status);
WA__WASI_IMPORT("wasi:cli/stdin@0.2.12", "get-stdin") int32_t wa__wasip2_imp_cli_get_stdin(void);
WA__WASI_IMPORT("wasi:cli/stdout@0.2.12", "get-stdout") int32_t wa__wasip2_imp_cli_get_stdout(void);
WA__WASI_IMPORT("wasi:cli/stderr@0.2.12", "get-stderr") int32_t wa__wasip2_imp_cli_get_stderr(void);

/* Calls a list-returning import; returns the list and its length. */
static wa__wasip2_str *wa__wasip2_list(void (*imp)(int32_t), size_t *n)
{
    uint32_t ret[2];
    imp((int32_t)(uintptr_t)ret);
    *n = ret[1];
    return (wa__wasip2_str *)(uintptr_t)ret[0];
}

int wa_wasi_environ(char ***env)
{
    size_t n;
    wa__wasip2_str *s = wa__wasip2_list(wa__wasip2_imp_cli_get_environment, &n);
    return wa__wasip2_lift_strv(s, n, 2, env);
}

int wa_wasi_args(char ***argv)
{
    size_t n;
    wa__wasip2_str *s = wa__wasip2_list(wa__wasip2_imp_cli_get_arguments, &n);
    return wa__wasip2_lift_strv(s, n, 1, argv);
}

char *wa_wasi_getenv(const char *name)
{
    size_t n, len = strlen(name);
    wa__wasip2_str *s = wa__wasip2_list(wa__wasip2_imp_cli_get_environment, &n);
    char *value = NULL;
    if (wa__wasip2_list_check(s, n, 2) < 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        wa__wasip2_str *k = &s[2 * i];
        if (k->len == len && memcmp(k->ptr, name, len) == 0) {
            wa__wasip2_lift_str(k[1], &value);
            break;
        }
    }
    wa__wasip2_list_free(s, 2 * n);
    return value;
}

void wa_wasi_exit(int status)
{
    fflush(NULL); /* as exit() would: buffered output is not lost */
    wa__wasip2_imp_cli_exit(status != 0); /* result: 0 ok, 1 err */
    __builtin_trap(); /* a host that returned would break noreturn */
}

uint32_t wa__wasip2_get_stdin(void) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_cli_get_stdin(); }
uint32_t wa__wasip2_get_stdout(void) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_cli_get_stdout(); }
uint32_t wa__wasip2_get_stderr(void) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_cli_get_stderr(); }
