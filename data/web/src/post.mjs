// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Messages to the C side. They travel as JSON strings in DOM events to the
// isolated script world (bridge-world.js), which owns the message handler.
// Outside Strudel Jam (for example in a browser, for benchmarks) there is no
// such world and messages simply go nowhere.

let nextId = 1;
const pending = new Map();

document.addEventListener('sj-bridge-reply', (event) => {
  let data;
  try {
    data = JSON.parse(event.detail);
  } catch {
    return;
  }
  const resolve = pending.get(data?.id);
  if (resolve) {
    pending.delete(data.id);
    resolve(data.reply);
  }
});

export function post(message) {
  document.dispatchEvent(new CustomEvent('sj-bridge-post', { detail: JSON.stringify(message) }));
}

// A request expects a reply. Without a host (a plain browser) there is no
// one to answer, so requests resolve to null at once; a host that does not
// answer in time also yields null.
export function request(message, timeoutMs = 2000) {
  if (document.documentElement.dataset.sjHost !== '1') {
    return Promise.resolve(null);
  }
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      resolve(null);
    }, timeoutMs);
    pending.set(id, (reply) => {
      clearTimeout(timer);
      resolve(reply);
    });
    post({ ...message, id });
  });
}
