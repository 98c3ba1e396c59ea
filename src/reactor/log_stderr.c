/* SPDX-License-Identifier: MIT */
/* Diagnostics go to stderr on hosts that have one (native, WASI). */
#include <stdio.h>

#include "../core/rt.h"

void wa__log(const char *text)
{
    fputs(text, stderr);
    size_t n = 0;
    while (text[n])
        n++;
    if (!n || text[n - 1] != '\n')
        fputc('\n', stderr);
}
