// SPDX-License-Identifier: MIT
// fetch.mjs - http.h's client on this host (the C side: src/host/js/http.c):
// HTTP_SEND fetches a request and delivers the response's head; the
// Response is kept under the handle C made for it, and each HTTP_READ
// delivers one chunk of its body, read from the body's reader only then,
// so nothing is read ahead of C.

import { messageBytes } from './bytes.mjs';
import { codes } from './errors.mjs';

/** Host operation kinds (src/host/js/ops.h). */
export const HTTP_SEND = 2, HTTP_READ = 3;

// Header names and values are byte strings (one char per byte), as
// Headers keeps them.
function latin1(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192)
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return s;
}

// The NUL-terminated string at p in the module's memory m, as bytes.
function stringAt(m, p) {
  return latin1(m.subarray(p, m.indexOf(0, p)));
}

/** The request of an HTTP_SEND, read out of wasm memory when the op starts
 * (the import): at ptr, http.h's wa_http_request (wasm32: method, url,
 * headers, nheaders, body, body_len, each 4 bytes; checked by C, the method
 * filled in), each header a name and a value. The body is a copy. */
export function requestAt(wasm, ptr) {
  const m = new Uint8Array(wasm.ex.memory.buffer);
  const [method, url, list, n, body, len] = new Uint32Array(m.buffer, ptr, 6);
  const headers = [];
  const words = new Uint32Array(m.buffer, list, 2 * n);
  for (let i = 0; i < 2 * n; i += 2) headers.push([stringAt(m, words[i]), stringAt(m, words[i + 1])]);
  return { method: stringAt(m, method), url: stringAt(m, url), headers, body: len ? wasm.copyOut(body, len) : new Uint8Array(0) };
}

// The head for C: names and values, each ending with a NUL; a NUL, CR or
// LF in one becomes a space (http.h's rule for what is received).
function encodeHead(headers) {
  const out = [];
  for (const [name, value] of headers)
    for (const s of [name, value]) {
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i) & 0xff;
        out.push(c === 0 || c === 10 || c === 13 ? 32 : c);
      }
      out.push(0);
    }
  return new Uint8Array(out);
}

// The code Node's fetch (undici) puts in a failure's cause: the socket's,
// the resolver's, its HTTP parser's (HPE_*), TLS's, or its own (UND_ERR_*);
// else the cause's class (Node 24's undici leaves HTTPParserError's code
// undefined).
const causeCode = (e) => {
  const code = e?.cause?.code ?? e?.cause?.errors?.[0]?.code ?? e?.cause?.name;
  return typeof code === 'string' ? code : '';
};

/** What a fetch's failure is for C. Node's fetch (undici) names its cause;
 * a browser tells nothing apart (a refused connection, a DNS failure,
 * CORS: all one TypeError), so there it is EIO. */
export function fetchError(e) {
  const code = causeCode(e);
  if (code === 'ECONNREFUSED') return codes.ECONNREFUSED;
  if (code === 'ECONNRESET') return codes.ECONNRESET;
  if (code === 'ENOTFOUND') return codes.ENOTFOUND;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT')
    return codes.ETIMEDOUT;
  if (code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'HPE_HEADER_OVERFLOW') return codes.E2BIG;
  if (code.startsWith('HPE_') || code === 'HTTPParserError' || code === 'EPROTO' || code.startsWith('ERR_SSL_'))
    return codes.EPROTO;
  return codes.EIO;
}

/** Why a fetch failed, for C (http.h's reason): the exception's name and
 * message, and its cause's code and message ("TypeError: fetch failed
 * (ENOTFOUND: getaddrinfo ENOTFOUND x.invalid)"). */
export function fetchReason(e) {
  if (!(e instanceof Error)) return String(e);
  const code = causeCode(e), cause = e.cause?.message ?? (e.cause ? String(e.cause) : '');
  return `${e.name}: ${e.message}${cause || code ? ` (${code && `${code}: `}${cause})` : ''}`;
}

/**
 * HTTP_SEND for op (ops.mjs's record) and exchange (the record kept under
 * the response's handle: its AbortController and, once the head came, the
 * body's reader): fetches request (requestAt's) with fetchImpl(url, init)
 * and posts the head through post(op, status, bytes, number). A request
 * fetch refuses (a forbidden method, a GET with a body) is EINVAL; a
 * failure of the fetch is left to the caller's catch.
 */
export function startSend(op, exchange, request, fetchImpl, post) {
  exchange.ctrl = op.ctrl = new AbortController();
  const { method, url, headers, body } = request;
  const init = { method, headers, body: body.byteLength ? body : undefined, signal: op.ctrl.signal };
  try {
    new Request(url, init); // (what fetch would refuse before any network)
  } catch (e) {
    return Promise.resolve(post(op, codes.EINVAL, messageBytes(fetchReason(e))));
  }
  // fetch is called from a microtask, not from inside the import, so an
  // embedder's fetch can do anything (even call the runtime).
  return Promise.resolve().then(async () => {
    if (op.cancelled) return;
    const res = await fetchImpl(url, init);
    if (op.cancelled) return;
    exchange.reader = res.body ? res.body.getReader() : null;
    post(op, 0, encodeHead(res.headers), res.status);
  });
}

/** HTTP_READ for op: the next chunk of exchange's body (an empty one is
 * skipped), or ECLOSED at its end. A failure is left to the caller's catch. */
export function startRead(op, exchange, post) {
  return Promise.resolve().then(async () => {
    const reader = exchange?.reader;
    if (!reader) return post(op, codes.ECLOSED, null);
    for (;;) {
      const { done, value } = await reader.read();
      if (op.cancelled) return;
      if (done) return post(op, codes.ECLOSED, null);
      const chunk = value instanceof Uint8Array ? value : new Uint8Array(value);
      if (chunk.byteLength) return post(op, 0, chunk);
    }
  });
}
