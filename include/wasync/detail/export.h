/* SPDX-License-Identifier: MIT */
/* The library's own, behind WA_EXPORT_ASYNC (wasync/component.h) and
 * WA_HTTP_SERVE (wasync/http.h): the steps of an async export's call. Not
 * for users to call; a header must show it because the macros expand to
 * it. Included by wasync/component.h once wa_export_return is declared. */
#ifndef WASYNC_DETAIL_EXPORT_H
#define WASYNC_DETAIL_EXPORT_H

/* The steps of an export call, as WA_EXPORT_ASYNC expands them. */
typedef struct wa__export_call wa__export_call;
wa__export_call *wa__export_begin(void);
wa_join *wa__export_join(wa__export_call *c);
/* release(done) runs when c ends without ret: cancelled (task.cancel
 * made) or resolved early (wa__export_resolve), to free what the task's
 * future holds for the call (generated bindings: the lifted parameters). */
void wa__export_on_cancel(wa__export_call *c, void (*release)(wa_future *done));
uint32_t wa__export_start(wa__export_call *c, int spawned, wa_export_return ret);
uint32_t wa__export_callback(uint32_t event, uint32_t p1, uint32_t p2, wa_export_return ret);
/* Private to the library's exports (the HTTP handler): asks that the call
 * whose task is join's make its task.return before its task ends:
 * resolve(arg) runs in the call's own task at its next entry or callback,
 * and ret does not run at the end (the spec lets a task run on after
 * task.return, to write its streams). */
void wa__export_resolve(wa_join *join, void (*resolve)(void *arg), void *arg);

#endif
