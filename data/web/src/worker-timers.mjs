// SPDX-License-Identifier: AGPL-3.0-or-later
//
// setInterval/clearInterval backed by timer-worker.js, for Strudel's
// scheduler clock (StrudelMirror takes them as options, like the Strudel
// website's worker-timers). Timers in a hidden page are throttled; the
// worker's are not, so the music keeps exact time when the window is
// minimised, covered or on another workspace.

let worker;
let nextId = 1;
const callbacks = new Map();

function ensureWorker() {
  if (!worker) {
    worker = new Worker('timer-worker.js');
    worker.onmessage = (event) => callbacks.get(event.data)?.();
  }
  return worker;
}

export function setInterval(callback, ms) {
  const id = nextId++;
  callbacks.set(id, callback);
  ensureWorker().postMessage({ command: 'set', id, ms });
  return id;
}

export function clearInterval(id) {
  if (callbacks.delete(id)) {
    ensureWorker().postMessage({ command: 'clear', id });
  }
}
