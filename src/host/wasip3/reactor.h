/* SPDX-License-Identifier: MIT */
/* Internal: what the callback ABI driver (export.c) and the I/O futures
 * of src/host/wasip3 ask of the WASI 0.3 backend. A callback-lifted
 * export does not block in waitable-set.wait: the host hands it the event
 * instead, and it returns WAIT with the set. Both ways share the backend's
 * dispatch and its one wait-until. Each call is a no-op (or WA_ENOSYS, or
 * NULL) on another backend. */
#ifndef WASYNC_HOST_WASIP3_REACTOR_H
#define WASYNC_HOST_WASIP3_REACTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "wasync/component.h"
#include "wasync/runtime.h"

/* Dispatches an event the host handed to a callback (code, p1, p2) as the
 * blocking wait dispatches one. The set is not drained: the callback's
 * WAIT gets any other pending event from the host, with no poll. */
void wa__wasip3_deliver(wa_rt *rt, uint32_t code, uint32_t p1, uint32_t p2);

/* Dispatches the events pending in the set, without blocking (YIELD does
 * not deliver them). */
void wa__wasip3_poll(wa_rt *rt);

/* Puts one more wake on its way to the set: a wait-for of at least ns
 * whose only use is its event, dropped when it comes: a host call in
 * flight until then, whose end runs jco's loop. Joining it touches
 * nothing else of the set. Returns 0, WA_ENOMEM, WA_ENOSYS. */
int wa__wasip3_wake(wa_rt *rt, uint64_t ns);

/* A bell: a stream<u8> of the instance's own whose readable end rd always
 * has a 1-byte read pending, joined to set; a 1-byte write rings it at
 * once, and the read's event calls back the task waiting on set. */
typedef struct wa__wasip3_bell {
    const wa_wasip3_stream_type *type; /* NULL: not opened */
    uint32_t set;
    uint32_t rd, wr;
    int rung;           /* written, the read's event not yet taken */
    unsigned char byte; /* the read's buffer */
} wa__wasip3_bell;

/* Rings the runtime's set: its own bell (made at first use; not counted
 * among the waitables a wait needs), whose event the dispatch takes. Its
 * joins and its write touch nothing else of the set: a task may ring it
 * while another waits there. Returns 0, WA_EIO (the write did not complete
 * at once), WA_ENOSYS. */
int wa__wasip3_ring(wa_rt *rt);

/* Opens bell b on a new waitable set of its own, for a task to WAIT on.
 * It lives as long as the instance (reuse it). Returns 0, WA_ENOSYS. */
int wa__wasip3_bell_open(wa_rt *rt, wa__wasip3_bell *b);
/* Rings b, unless it is rung: 0, WA_EIO, WA_ENOSYS. */
int wa__wasip3_bell_ring(wa_rt *rt, wa__wasip3_bell *b);
/* Whether the event (code, p1) is b's; if so, b is quiet again. */
int wa__wasip3_bell_heard(wa_rt *rt, wa__wasip3_bell *b, uint32_t code, uint32_t p1);
/* Takes b's event from its set if b is rung (a poll: its event is pending
 * from the write on). Returns whether it was. */
int wa__wasip3_bell_take(wa_rt *rt, wa__wasip3_bell *b);

/* Readies a WAIT until deadline (WA_NEVER: none): arms the wait-until for
 * it, dispatches the events already pending and puts the set in *set.
 * Returns 1 to wait on the set, 0 when the deadline has passed already or
 * an event was pending (tick again instead), WA_ENOSYS. Nothing joined and
 * no deadline still waits: another task may join something. The caller
 * makes no async-lowered call between a 1 and its WAIT (one lets the host
 * run, and an event may then be pending). */
int wa__wasip3_wait_set(wa_rt *rt, uint64_t deadline, uint32_t *set);

/* Reads bound to the export call that starts them. wasmtime (49.0.3)
 * lowers what a read of the host's gets, when the value may need the
 * instance's realloc (strings, lists), in the context of the thread that
 * started the read, and when that call has exited by then it fails the
 * whole instance ("resource not present"), cutting every request it
 * serves short. So a future or stream read in flight on key's waitable is
 * bound (cancel: its end's cancel-read) until its event comes, and when
 * the call that drives the runtime leaves (export.c), wa__wasip3_rehome
 * cancels each: its event comes at once with the cancel's result, and a
 * CANCELLED read that got nothing is its owner's to start again, from the
 * call that leads next. wa__wasip3_bound says whether key's read is still
 * bound: one that is not, whose owner has not taken its event, has it
 * waiting in the registration (wa_waitable_payload). */
void wa__wasip3_bind(wa_rt *rt, wa_waitable_key key, uint32_t (*cancel)(uint32_t w));
bool wa__wasip3_bound(wa_rt *rt, wa_waitable_key key);
void wa__wasip3_rehome(wa_rt *rt);

/* Returns (borrowed) where the futures of rt (subtask.c, copy.c,
 * stream.c, tcp.c, dns.c) count their host calls and ends; NULL
 * on another backend. */
wa_wasip3_stats *wa__wasip3_stats_of(wa_rt *rt);

#endif
