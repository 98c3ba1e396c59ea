// SPDX-License-Identifier: MIT
// Draws the tasks of timeline.wasm live from the runtime's trace (the
// glue's option trace; each event handed to onTraceEvent as it comes): a
// row per task named at its spawn (wa_spawn_named), a segment for what
// each poll left it awaiting (a sleep, a fetch, a join), a tick per poll
// and per wake, a mark at its end. The ongoing segments grow every frame;
// at the end, the trace is a download for Perfetto (ui.perfetto.dev).
import { instantiate } from '/js/wasync.mjs';

const PX_PER_MS = 0.5, WIDTH_MS = 2000;
const timeline = document.getElementById('timeline');
const status = document.getElementById('status');
timeline.style.width = `${WIDTH_MS * PX_PER_MS}px`;
for (let ms = 0; ms <= WIDTH_MS; ms += 250) {
  const t = document.createElement('div');
  t.className = 'tick';
  t.style.left = `${ms * PX_PER_MS}px`;
  t.textContent = `${ms} ms`;
  timeline.appendChild(t);
}

const rows = new Map(); // task id -> { el, open: { el, from, label } }
let origin = null, lag = 0, finished = false;
// The trace's times (µs from its start) as the page's ms from the first task.
const at = (ts) => ts / 1000 - origin;
const now = () => performance.now() - lag - origin;

function mark(r, kind, ms, title) {
  const el = document.createElement('div');
  el.className = kind;
  el.style.left = `${ms * PX_PER_MS}px`;
  el.title = title;
  r.el.appendChild(el);
}

function close(r, ms) {
  if (r.open) {
    r.open.el.style.width = `${Math.max(ms - r.open.from, 0) * PX_PER_MS}px`;
    r.open = null;
  }
}

// What a poll left the task awaiting: a segment, named by its leaf.
function wait(r, ms, awaits) {
  if (r.open?.label === awaits) return; // (the same wait, polled again)
  close(r, ms);
  const kind = awaits.startsWith('sleep') ? 'sleep' : awaits.startsWith('http') ? 'fetch' : 'join';
  const el = document.createElement('div');
  el.className = `seg ${kind}`;
  el.style.left = `${ms * PX_PER_MS}px`;
  el.textContent = el.title = awaits;
  r.el.appendChild(el);
  r.open = { el, from: ms, label: awaits };
}

function event(e) {
  if (origin === null) { // the first task's spawn is 0 ms
    origin = e.ts / 1000;
    lag = performance.now() - e.ts / 1000;
  }
  const ms = at(e.ts);
  if (e.ph === 'b' && e.name !== 'poll') {
    const el = document.createElement('div');
    el.className = 'row';
    el.innerHTML = '<span class="name"></span>';
    el.firstChild.textContent = e.name;
    el.title = `task ${e.id}: ${e.args.future}, spawned by ${e.args.spawned_by ? `task ${e.args.spawned_by}` : 'the page'}`;
    timeline.insertBefore(el, timeline.querySelector('.tick'));
    rows.set(e.id, { el, open: null });
    return;
  }
  const r = rows.get(e.id);
  if (!r) return;
  if (e.ph === 'b') mark(r, 'poll', ms, `polled at ${Math.round(ms)} ms`);
  else if (e.ph === 'n') mark(r, 'wake', ms, `woken by ${e.args.by} at ${Math.round(ms)} ms`);
  else if (e.name === 'poll' && e.args?.awaits) wait(r, ms, e.args.awaits);
  else if (e.name === 'task') {
    close(r, ms);
    const ok = e.args.status === 0;
    mark(r, ok ? 'done' : 'fail', ms, `${ok ? 'done' : `failed (${e.args.status})`} at ${Math.round(ms)} ms`);
  }
}

function frame() {
  if (origin !== null)
    for (const r of rows.values()) if (r.open) r.open.el.style.width = `${(now() - r.open.from) * PX_PER_MS}px`;
  if (!finished) requestAnimationFrame(frame);
}

const rt = await instantiate(fetch('/build/js/tests/js/timeline.wasm'), { trace: true, onTraceEvent: event });
requestAnimationFrame(frame);
status.textContent = 'running…';
try {
  await rt.callAsync('run_timeline', location.origin);
  status.textContent = `all tasks finished at +${Math.round(now())} ms`;
} catch (e) {
  status.textContent = `failed: ${e.message}`;
}
finished = true;
// The trace, whole, for Perfetto or chrome://tracing.
window.traceText = rt.trace();
const link = document.getElementById('download');
link.href = URL.createObjectURL(new Blob([window.traceText], { type: 'application/json' }));
link.hidden = false;
document.body.dataset.done = '1';
