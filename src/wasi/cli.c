/* wasi:cli: environment and exit (public, wasync/wasi.h) and the std
 * streams (cli.h). A list comes back as (ptr, len) in a return area; the
 * list and each of its strings are separate cabi_realloc (malloc) blocks,
 * the strings not terminated. The public calls turn them into C strings
 * and free the host's blocks (wa_p2_host_free: not an empty string's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "cli.h"
#include "io.h"
#include "wasync/wasi.h"

#define WA_P2_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))
#define ENV "wasi:cli/environment@0.2.12"

WA_P2_IMPORT(ENV, "get-environment") void wa_p2_imp_get_environment(int32_t ret);
WA_P2_IMPORT(ENV, "get-arguments") void wa_p2_imp_get_arguments(int32_t ret);
WA_P2_IMPORT("wasi:cli/exit@0.2.12", "exit") void wa_p2_imp_exit(int32_t status);
WA_P2_IMPORT("wasi:cli/stdin@0.2.12", "get-stdin") int32_t wa_p2_imp_get_stdin(void);
WA_P2_IMPORT("wasi:cli/stdout@0.2.12", "get-stdout") int32_t wa_p2_imp_get_stdout(void);
WA_P2_IMPORT("wasi:cli/stderr@0.2.12", "get-stderr") int32_t wa_p2_imp_get_stderr(void);

/* Calls a list-returning import; returns the list and its length. */
static wa_p2_str *wa_p2_list(void (*imp)(int32_t), size_t *n)
{
    uint32_t ret[2];
    imp((int32_t)(uintptr_t)ret);
    *n = ret[1];
    return (wa_p2_str *)(uintptr_t)ret[0];
}

static void wa_p2_list_free(wa_p2_str *s, size_t nstr)
{
    for (size_t i = 0; i < nstr; i++)
        wa_p2_host_free(s[i].ptr, s[i].len);
    free(s);
}

/* Copies n entries of k host strings each (a pair joined by '=') into one
 * block: n + 1 pointers (the last NULL), then the strings. Frees the
 * host's list. Returns n, or WA_ENOMEM. */
static int wa_p2_strv(wa_p2_str *s, size_t n, size_t k, char ***out)
{
    size_t size = (n + 1) * sizeof(char *);
    for (size_t i = 0; i < n * k; i++)
        size += s[i].len + 1; /* + the '=' or the NUL after it */
    char **v = malloc(size);
    if (v) {
        char *p = (char *)(v + n + 1);
        for (size_t i = 0; i < n; i++) {
            v[i] = p;
            for (size_t j = 0; j < k; j++) {
                const wa_p2_str *e = &s[i * k + j];
                memcpy(p, e->ptr, e->len);
                p += e->len;
                *p++ = j + 1 < k ? '=' : '\0';
            }
        }
        v[n] = NULL;
        *out = v;
    }
    wa_p2_list_free(s, n * k);
    return v ? (int)n : WA_ENOMEM;
}

int wa_wasi_environ(char ***env)
{
    size_t n;
    wa_p2_str *s = wa_p2_list(wa_p2_imp_get_environment, &n);
    return wa_p2_strv(s, n, 2, env);
}

int wa_wasi_args(char ***argv)
{
    size_t n;
    wa_p2_str *s = wa_p2_list(wa_p2_imp_get_arguments, &n);
    return wa_p2_strv(s, n, 1, argv);
}

char *wa_wasi_getenv(const char *name)
{
    size_t n, len = strlen(name);
    wa_p2_str *s = wa_p2_list(wa_p2_imp_get_environment, &n);
    char *value = NULL;
    for (size_t i = 0; i < n; i++) {
        wa_p2_str *k = &s[2 * i], *v = k + 1;
        if (k->len == len && memcmp(k->ptr, name, len) == 0) {
            if ((value = malloc(v->len + 1))) {
                memcpy(value, v->ptr, v->len);
                value[v->len] = '\0';
            }
            break;
        }
    }
    wa_p2_list_free(s, 2 * n);
    return value;
}

void wa_wasi_exit(int status)
{
    fflush(NULL); /* as exit() would: buffered output is not lost */
    wa_p2_imp_exit(status != 0); /* result: 0 ok, 1 err */
    __builtin_trap(); /* a host that returned would break noreturn */
}

uint32_t wa_p2_get_stdin(void) { return wa_p2_live++, (uint32_t)wa_p2_imp_get_stdin(); }
uint32_t wa_p2_get_stdout(void) { return wa_p2_live++, (uint32_t)wa_p2_imp_get_stdout(); }
uint32_t wa_p2_get_stderr(void) { return wa_p2_live++, (uint32_t)wa_p2_imp_get_stderr(); }
