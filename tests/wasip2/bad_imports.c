/* SPDX-License-Identifier: MIT */
/* Imports wasip2_imports_mismatch expects scripts/component.mjs --check to
 * reject: a wrong result type, and a function the interface does not have. */
#include <stdint.h>

__attribute__((import_module("wasi:clocks/monotonic-clock@0.2.12"), import_name("now")))
int32_t bad_now(void);
__attribute__((import_module("wasi:cli/stdout@0.2.12"), import_name("get-stdin")))
int32_t bad_get_stdin(void);

int main(void)
{
    return bad_now() + bad_get_stdin();
}
