/* SPDX-License-Identifier: MIT */
/* wasync.h - an async runtime for WebAssembly (and native), in C.
 *
 * One header per concern; this one includes every one that the host the
 * library was built for offers (wasync/config.h says which host), and
 * tests/test_headers.c, built and run on each host, checks it does.
 */
#ifndef WASYNC_H
#define WASYNC_H

#include "wasync/version.h"
#include "wasync/error.h"
#include "wasync/future.h"
#include "wasync/coro.h"
#include "wasync/runtime.h"
#include "wasync/trace.h"
#include "wasync/time.h"
#include "wasync/combine.h"
#include "wasync/scope.h"
#include "wasync/join_set.h"
#include "wasync/sync.h"
#include "wasync/channel.h"
#include "wasync/stream.h"
#include "wasync/backend.h"
/* On every host: a host without threads, sockets, HTTP or signals refuses those
 * calls when they are compiled, with a message that names the host
 * (WA__UNAVAILABLE), which tells more than an undeclared function. */
#include "wasync/thread.h"
#include "wasync/net.h"
#include "wasync/udp.h"
#include "wasync/http.h"
#include "wasync/signals.h"
/* The host's own calls. */
#if defined(WASYNC_HOST_WASIP2)
#include "wasync/wasi.h"
#endif
#if defined(WASYNC_HOST_WASIP3)
#include "wasync/component.h"
#endif
#if defined(WASYNC_HOST_JS)
#include "wasync/js.h"
#endif

#endif
