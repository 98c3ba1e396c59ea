/* SPDX-License-Identifier: MIT */
/* Internal: lifting what the host lowered into our memory (lists of
 * strings, each a cabi_realloc block) into C strings, checked, and the
 * one lowering both wasi:http versions share (headers). No host call in
 * here: on wasm32 a wa__wasip2_str array is the ABI's list<string>
 * (and a pair of them a tuple<string, list<u8>>), read in place; natively
 * the fuzzers build such lists (tests/fuzz/fuzz_lift.c, fuzz_http_fields.c).
 *
 * Sizes are summed with a check at each step, and a total past what a
 * 32-bit memory can hold is refused with WA_E2BIG before a string is read:
 * no honest host can have lowered it, and on wasm32 it would wrap size_t.
 * Natively the limit is the same, so the fuzzers see wasm32's behaviour. */
#ifndef WASYNC_WASI_LIFT_H
#define WASYNC_WASI_LIFT_H

#include <stddef.h>
#include <stdint.h>

#include "cabi.h"
#include "wasync/http.h"

/* The most bytes a lifted result (or a host list) may take. */
#define WA__WASIP2_MEM_MAX 0xffffffffu

/* 0 if a host list of n entries of k strings each fits a 32-bit memory,
 * so that its entries may be read. Else WA_E2BIG, and the list (taken
 * then) is freed: its block alone, for its entries cannot be read. */
int wa__wasip2_list_check(wa__wasip2_str *list, size_t n, size_t k);

/* Frees a host list of n strings (taken; checked): each string's block,
 * then the list's. */
void wa__wasip2_list_free(wa__wasip2_str *list, size_t n);

/* A copy of s (borrowed) as a new C string in *out, the caller's to
 * free(). A string with a NUL byte is refused (WA_EINVAL): no C string can
 * hold it, and one cut at the NUL could pass for another. Else 0 or
 * WA_ENOMEM. */
int wa__wasip2_lift_str(wa__wasip2_str s, char **out);

/* n entries of k strings each in list (taken, freed whatever the outcome)
 * as one block in *out: n + 1 pointers (the last NULL), then the entries,
 * the k strings of each joined by '=' (an environment's "NAME=value").
 * The caller frees *out. Returns n, or WA_EINVAL (a NUL byte, as above),
 * WA_E2BIG, WA_ENOMEM. */
int wa__wasip2_lift_strv(wa__wasip2_str *list, size_t n, size_t k, char ***out);

/* A fields' entries, n (name, value) pairs in list (taken, freed whatever
 * the outcome), as one block in *out of n headers and their strings, the
 * caller's to free(). A NUL, CR or LF in a name or value becomes a space,
 * as RFC 9110 (section 5.5) allows of a recipient: nothing is cut short,
 * and no line break reaches code that forwards a header. Returns 0,
 * WA_E2BIG or WA_ENOMEM. */
int wa__wasip2_lift_fields(wa__wasip2_str *list, size_t n, wa_http_header **out);

/* wasi:http, whose 0.2 and 0.3 types lay out alike (on wasm32 only: the
 * pointers below are 32-bit). The method variant's first nine cases; the
 * tenth is other(string). */
extern const char *const wa__wasip2_http_methods[];
#define WA__WASIP2_HTTP_METHOD_OTHER 9
/* A u32 at p, unaligned. */
uint32_t wa__wasip2_lift_u32(const unsigned char *p);
/* The (ptr, len) string the host lowered at `at` (its block freed) as a
 * new C string in *out: 0, WA_EINVAL, WA_ENOMEM (wa__wasip2_lift_str). */
int wa__wasip2_lift_take_str(const unsigned char *at, char **out);
/* The same of an option<string> at `at` (tag, string at 4): NULL if none. */
int wa__wasip2_lift_option_str(const unsigned char *at, char **out);
/* The method variant at `at` (tag, other's string at 4) as a static name
 * in *method, or a new string in both *method and *owned (NULL: none):
 * 0, WA_EINVAL, WA_ENOMEM (wa__wasip2_lift_str). */
int wa__wasip2_lift_method(const unsigned char *at, const char **method, char **owned);
/* The other way: n headers (borrowed) lowered as fields.from-list takes
 * them, list<tuple<string, list<u8>>>, (ptr, len, ptr, len) per entry
 * pointing into h. A new block, the caller's to free(); NULL without
 * memory. */
uint32_t *wa__wasip2_lower_fields(const wa_http_header *h, size_t n);
/* The method variant's case of m (borrowed): one of the nine, or
 * WA__WASIP2_HTTP_METHOD_OTHER (m goes as its string). */
int wa__wasip2_lower_method(const char *m);
/* The scheme variant's case of s (borrowed): HTTP 0, HTTPS 1 (a scheme's
 * case does not matter, RFC 3986), else other(string) 2. */
int wa__wasip2_lower_scheme(wa__wasip2_str s);
/* An error-code at ec as a WA_E* code (DNS ENOTFOUND, refused
 * ECONNREFUSED, terminated ECONNRESET, timeouts ETIMEDOUT, TLS and
 * protocol EPROTO, sizes E2BIG, else EIO; an internal-error by the Node
 * message jco puts in it), and in why (cap bytes, cut to fit; none if cap
 * is 0) its case's name and payload ("DNS-error: ENOTFOUND (info-code
 * 3008)"), a control byte in the host's strings a space. The strings some
 * cases carry are freed. */
int wa__wasip2_lift_error_code(const unsigned char *ec, char *why, size_t cap);
/* The option<string> an error-code at ec carries in its case (its tag,
 * then the string at 4), or NULL: where a host writes the string's
 * pointer last (a late write is whole once it is there). */
const unsigned char *wa__wasip2_error_code_string(const unsigned char *ec);

#endif
