// SPDX-License-Identifier: MIT
// Draws the tasks of timeline.wasm live: each event from C opens or closes
// a segment on the task's row; the ongoing segment grows every frame.
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

const rows = new Map(); // task id -> { el, open: { el, from } }
let t0 = 0, finished = false;
const now = () => performance.now() - t0;

function row(id) {
  if (!rows.has(id)) {
    const el = document.createElement('div');
    el.className = 'row';
    el.innerHTML = `<span class="name">task ${id}</span>`;
    timeline.insertBefore(el, timeline.querySelector('.tick'));
    rows.set(id, { el, open: null });
  }
  return rows.get(id);
}

function close(r, at) {
  if (r.open) {
    r.open.el.style.width = `${(at - r.open.from) * PX_PER_MS}px`;
    r.open = null;
  }
}

const KIND = ['start', 'sleep', 'fetch', 'done', 'fail'];
let memory;
function event(task, what, ptr, len) {
  const label = new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
  const r = row(task), at = now(), kind = KIND[what];
  close(r, at);
  if (kind === 'sleep' || kind === 'fetch') {
    const el = document.createElement('div');
    el.className = `seg ${kind}`;
    el.style.left = `${at * PX_PER_MS}px`;
    el.textContent = label;
    r.el.appendChild(el);
    r.open = { el, from: at };
  } else if (kind === 'done' || kind === 'fail') {
    const el = document.createElement('div');
    el.className = kind;
    el.style.left = `${at * PX_PER_MS}px`;
    el.title = `${kind} at ${Math.round(at)} ms`;
    r.el.appendChild(el);
  }
}

function frame() {
  for (const r of rows.values())
    if (r.open) r.open.el.style.width = `${(now() - r.open.from) * PX_PER_MS}px`;
  if (!finished) requestAnimationFrame(frame);
}

const rt = await instantiate(fetch('/build/js/tests/js/timeline.wasm'), { imports: { demo: { event } } });
memory = rt.exports.memory;
t0 = performance.now();
requestAnimationFrame(frame);
status.textContent = 'running…';
try {
  await rt.callAsync('run_timeline', location.origin);
  status.textContent = `all tasks finished at +${Math.round(now())} ms`;
} catch (e) {
  status.textContent = `failed: ${e.message}`;
}
finished = true;
document.body.dataset.done = '1';
