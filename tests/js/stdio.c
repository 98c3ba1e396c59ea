/* SPDX-License-Identifier: MIT */
/* printf in a JS-host module (tests/js/stdio.test.mjs): the C library's
 * stdio runs on the glue's few WASI functions (js/stdio.mjs). */
#include <stdio.h>

#include "wasync.h"

__attribute__((export_name("print"))) int print(int n)
{
    printf("out %d\n", n);
    puts("a line");
    fprintf(stderr, "err %d\n", n);
    printf("no newline");
    fflush(stdout); /* (the glue keeps it until the line ends or the runtime closes) */
    return 0;
}

/* snprintf needs no host at all; its length is the answer. */
__attribute__((export_name("format"))) int format(int n)
{
    char buf[32];
    return snprintf(buf, sizeof buf, "%d-%s", n, WASYNC_VERSION_STRING);
}
