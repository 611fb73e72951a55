// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Runs in the isolated "strudel-jam" script world, not in the page's world.
// Only this world sees window.webkit.messageHandlers.sj, so code evaluated by
// Strudel (which is arbitrary JavaScript) cannot reach the C handler directly.
// The page posts JSON strings as DOM events; strings cross worlds unchanged.
// The C side validates every message anyway: nothing here is trusted.
(() => {
  'use strict';
  const handler = window.webkit?.messageHandlers?.sj;
  if (!handler) {
    return;
  }
  // Tells the page, through the shared DOM, that a host is listening.
  document.documentElement.dataset.sjHost = '1';
  document.addEventListener('sj-bridge-post', (event) => {
    const text = event.detail;
    if (typeof text !== 'string') {
      return;
    }
    let id = null;
    try {
      id = JSON.parse(text).id ?? null;
    } catch {
      // Malformed JSON still goes to C, which logs and drops it.
    }
    Promise.resolve(handler.postMessage(text))
      .then((reply) => reply, (error) => ({ error: String(error) }))
      .then((reply) => {
        if (id === null) {
          return;
        }
        document.dispatchEvent(
          new CustomEvent('sj-bridge-reply', { detail: JSON.stringify({ id, reply: reply ?? null }) }),
        );
      });
  });
})();
