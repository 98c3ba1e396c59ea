/* wasync.h - an async runtime for WebAssembly (and native), in C.
 *
 * One header per concern; this one includes them all.
 */
#ifndef WASYNC_H
#define WASYNC_H

#include "wasync/error.h"
#include "wasync/future.h"
#include "wasync/coro.h"
#include "wasync/runtime.h"
#include "wasync/time.h"
#include "wasync/combine.h"
#include "wasync/scope.h"
#include "wasync/sync.h"
#include "wasync/channel.h"
#include "wasync/stream.h"
#include "wasync/backend.h"

#endif
