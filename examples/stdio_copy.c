/* SPDX-License-Identifier: MIT */
/* stdio-copy: copies stdin to stdout through wasync streams (wa_copy:
 * reads wait for input, writes wait for room), then says on stderr how
 * many bytes it copied. The same source runs natively and as a WASI 0.2
 * component, with pipes, files or a terminal:
 *   build/release/examples/stdio_copy < in > out
 *   jco run build/wasip2/tests/wasip2/stdio_copy.component.wasm < in */
#include <stdio.h>

#include "wasync.h"

int main(void)
{
    wa_rt *rt;
    wa_stream *in = NULL, *out = NULL;
    wa_copy copy = {0};
    int rc = wa_rt_new(&rt);
    if (rc < 0)
        return 1;
    if ((rc = wa_stdio_open(rt, 0, &in)) == 0 && (rc = wa_stdio_open(rt, 1, &out)) == 0)
        rc = wa_block_on(rt, wa_copy_init(&copy, in, out));
    if (in)
        wa_stream_close(&in);
    if (out)
        wa_stream_close(&out);
    wa_rt_free(rt);
    fprintf(stderr, "copied %llu bytes%s%s\n", (unsigned long long)copy.copied, rc < 0 ? ": " : "",
            rc < 0 ? wa_strerror(rc) : "");
    return rc < 0;
}
