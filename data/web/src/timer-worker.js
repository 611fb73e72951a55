// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Ticks for the page's scheduler. A hidden page has its timers throttled
// (WebKit lets them fire about once a second), which would silence most
// notes while the window is minimised; a dedicated worker's timers are not
// throttled, so the page asks this worker to tick instead.
'use strict';

const timers = new Map();

self.onmessage = (event) => {
  const { command, id, ms } = event.data ?? {};
  if (command === 'set' && Number.isInteger(id) && ms > 0) {
    clearInterval(timers.get(id));
    timers.set(id, setInterval(() => self.postMessage(id), ms));
  } else if (command === 'clear') {
    clearInterval(timers.get(id));
    timers.delete(id);
  }
};
