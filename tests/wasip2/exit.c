/* SPDX-License-Identifier: MIT */
/* wa_wasi_exit under jco: `exit STATUS` (read through wa_wasi_args)
 * prints a line without a newline, which stdio keeps buffered, and exits
 * with STATUS; exit.cmake checks the exit code and that the line got out. */
#include <stdio.h>
#include <stdlib.h>

#include "wasync/wasi.h"

int main(void)
{
    char **argv;
    int argc = wa_wasi_args(&argv);
    int status = argc == 2 ? atoi(argv[1]) : 2;
    if (argc >= 0)
        free(argv);
    printf("exiting with %d", status);
    wa_wasi_exit(status);
}
