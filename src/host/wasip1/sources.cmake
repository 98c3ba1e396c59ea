# SPDX-License-Identifier: MIT
# The WASI 0.1 host (commands run by node:wasi): its poll_oneoff reactor,
# and the fds, fd streams and trace sink it shares with the native host.
wasync_sources(host/wasip1 reactor.c)
wasync_sources(host/posix fd.c fd_stream.c trace_sink.c)
wasync_sources(reactor regs.c log_stderr.c)
