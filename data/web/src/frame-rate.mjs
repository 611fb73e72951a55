// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Caps the page's animation frames. While playing, Strudel's Drawer queries
// the pattern and re-highlights the active notes on every frame; at 60 Hz
// that is a large share of the page's CPU for boxes that move a few times a
// second. All callbacks of one frame still run together, so CodeMirror's
// own measuring stays in step with the highlighting.

export function capFrameRate(fps) {
  if (!(fps > 0 && fps < 60)) {
    return;
  }
  const request = window.requestAnimationFrame.bind(window);
  const cancel = window.cancelAnimationFrame.bind(window);
  const interval = 1000 / fps - 2;
  const pending = new Map();
  let nextId = 1;
  let lastFrame = -Infinity;

  window.requestAnimationFrame = (callback) => {
    const id = nextId++;
    const tick = (time) => {
      if (time === lastFrame || time - lastFrame >= interval) {
        pending.delete(id);
        lastFrame = time;
        callback(time);
      } else {
        pending.set(id, request(tick));
      }
    };
    pending.set(id, request(tick));
    return id;
  };
  window.cancelAnimationFrame = (id) => {
    const frame = pending.get(id);
    if (frame !== undefined) {
      cancel(frame);
      pending.delete(id);
    }
  };
}
