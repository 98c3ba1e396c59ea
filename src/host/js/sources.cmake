# SPDX-License-Identifier: MIT
# The JS host (wasm32 modules driven by js/wasync.mjs): its reactor, the
# module's runtime on it and its log, the host operations and the fetch
# client over them, the adopted promises, the export ABI, the module's
# malloc and strlen, the trace's sink (linked with the trace only), and
# the HTTP front end (not http_url.c's checks of a request: the glue's
# fetch makes them).
# wa_rt_new's runtimes run on the simulated clock (the module's own
# runtime is made on the reactor: runtime.c).
wasync_sources(host/js reactor.c runtime.c log.c ops.c promises.c http.c stream_bodies.c exports.c wasm_heap.c strlen.c trace_sink.c)
wasync_sources(reactor sim_default.c)
wasync_sources(io http_fields.c http_send.c http_body.c http_fetch.c)
# The exports: nothing in the library calls them, so a module asks for
# one of them, which links their object out of the archive.
target_link_options(wasync INTERFACE -Wl,--undefined=wasync_init)
# memcpy and memset as the memory.copy and memory.fill instructions, in
# the library and in the programs built on it: the C library's byte loops
# are 1.6 KiB of every module. A double made an integer (the clock's
# milliseconds, a response's status) in one saturating instruction, not
# in the range checks around a trapping one. Every engine the glue runs on
# has both (bulk memory: Node 12, Chromium 75, Firefox 79, Safari 15;
# non-trapping float-to-int: Node 12.5, Chromium 75, Firefox 64, Safari 15).
target_compile_options(wasync PUBLIC -mbulk-memory -mnontrapping-fptoint)
# The library and the programs built on it as bitcode, optimized whole at
# the module's link: calls across files (and from the program into the
# library) inlined or left out, the arguments every call passes folded
# (minimal.wasm 16,958 -> 15,786 bytes after -Oz). A module links it with
# the same clang or a newer one.
target_compile_options(wasync PUBLIC -flto)
