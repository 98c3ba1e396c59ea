# SPDX-License-Identifier: MIT
# The native host. On Linux: the epoll and io_uring reactors (default.c
# picks one), fds, TCP and DNS on them, the HTTP client over libcurl, the
# HTTP/1.1 server (parsed by llhttp), and src/threads/ (the many-threads
# executor, remotes, events, the blocking pool).
# Elsewhere the core alone, on the simulated clock.
wasync_sources(reactor log_stderr.c)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  wasync_sources(host/native default.c epoll.c uring.c tcp.c udp.c dns.c signals.c curl.c http.c http_parse.c
    http_conn.c http_server.c)
  wasync_sources(host/posix fd.c fd_stream.c trace_sink.c)
  wasync_sources(reactor regs.c)
  wasync_sources(io tcp.c udp.c dns.c ip.c http_url.c http_fields.c http_send.c http_body.c http_fetch.c http_body_read.c)
  wasync_sources(threads mt.c worker.c scope.c queue.c park.c remote.c event.c blocking.c)
  find_package(Threads REQUIRED) # (DNS lookups run getaddrinfo on threads)
  target_link_libraries(wasync PUBLIC Threads::Threads)
  # The HTTP client (http.h) over libcurl's multi interface.
  find_package(CURL REQUIRED)
  target_link_libraries(wasync PUBLIC CURL::libcurl)
  # The io_uring reactor (src/host/native/uring.c) over liburing.
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBURING REQUIRED IMPORTED_TARGET liburing)
  target_link_libraries(wasync PUBLIC PkgConfig::LIBURING)
  # The HTTP server's parser: llhttp's C sources as Debian's node-llhttp
  # installs them, compiled into the library (their objects apart from
  # its own, which tests/call_graph.test.mjs reads: llhttp's files call
  # each other both ways).
  find_path(WASYNC_LLHTTP_INCLUDE llhttp.h PATHS /usr/share/include/llhttp /usr/include/llhttp NO_CACHE)
  find_path(WASYNC_LLHTTP_SOURCES llhttp.c PATHS /usr/share/llhttp NO_CACHE)
  if(NOT WASYNC_LLHTTP_INCLUDE OR NOT WASYNC_LLHTTP_SOURCES)
    message(FATAL_ERROR "The native HTTP server needs llhttp's C sources (llhttp.h, api.c, http.c, llhttp.c): "
      "install Debian's package node-llhttp (scripts/deps.sh does).")
  endif()
  add_library(wasync_llhttp OBJECT ${WASYNC_LLHTTP_SOURCES}/api.c ${WASYNC_LLHTTP_SOURCES}/http.c
    ${WASYNC_LLHTTP_SOURCES}/llhttp.c)
  target_include_directories(wasync_llhttp PRIVATE ${WASYNC_LLHTTP_INCLUDE})
  target_sources(wasync PRIVATE $<TARGET_OBJECTS:wasync_llhttp>)
  target_include_directories(wasync PRIVATE ${WASYNC_LLHTTP_INCLUDE})
else()
  wasync_sources(reactor sim_default.c)
endif()
