# SPDX-License-Identifier: MIT
# The native host. On Linux: the epoll and io_uring reactors (default.c
# picks one), fds, TCP and DNS on them, the HTTP client over libcurl, and
# src/threads/ (the many-threads executor, remotes, events, the blocking
# pool).
# Elsewhere the core alone, on the simulated clock.
wasync_sources(reactor log_stderr.c)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  wasync_sources(host/native default.c epoll.c uring.c tcp.c dns.c curl.c http.c)
  wasync_sources(host/posix fd.c fd_stream.c)
  wasync_sources(reactor regs.c)
  wasync_sources(io tcp.c dns.c ip.c http_url.c http_fields.c http_send.c http_body.c http_fetch.c)
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
else()
  wasync_sources(reactor sim_default.c)
endif()
