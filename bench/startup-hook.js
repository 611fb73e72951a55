// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Loaded by bench/startup, bench/audio and bench/sounds into the Strudel Jam page when Chromium opens it
// from the benchmark's loopback server (the server adds one <script> tag in
// front of app.js; nothing else in the bundle changes). It is the browser
// counterpart of what the C host does:
//  - reports the exact moment window.sjBridge.ready becomes true (the same
//    moment the app's page posts "ready" and the window's play action gets
//    enabled), by trapping the assignment instead of polling;
//  - then takes commands (evaluate code, get state; for bench/sounds, any
//    script, as bench/page-host runs them in Strudel Jam) from the server
//    through a long-poll, so no DevTools connection is attached to the browser.
// It only runs in the benchmark; the app never loads it.
(() => {
  'use strict';
  const params = new URLSearchParams(location.search);
  const run = params.get('run') ?? '';

  // Experiments only (bench/audio --chromium-raf-hz N): animation frames at
  // most N times a second (0: never), to see what the editor's highlighting
  // loop, which runs on requestAnimationFrame, costs.
  if (params.has('raf')) {
    const hz = Number(params.get('raf'));
    let next = 1;
    const timers = new Map();
    window.requestAnimationFrame = (callback) => {
      const id = next++;
      if (hz > 0) {
        timers.set(id, setTimeout(() => {
          timers.delete(id);
          callback(performance.now());
        }, 1000 / hz));
      }
      return id;
    };
    window.cancelAnimationFrame = (id) => {
      clearTimeout(timers.get(id));
      timers.delete(id);
    };
  }
  const base = '/__bench/';
  const AsyncFunction = (async () => {}).constructor;
  let bridge;
  let reported = false;

  function post(path, data) {
    return fetch(`${base}${path}?run=${encodeURIComponent(run)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(data),
      keepalive: true,
    });
  }

  function report(how) {
    if (reported) {
      return;
    }
    reported = true;
    clearInterval(fallback);
    const now = performance.now();
    post('ready', { how, navToReadyMs: now, readyEpochMs: performance.timeOrigin + now }).then(serve, serve);
  }

  // Trap `window.sjBridge = bridge` and then `bridge.ready = true`.
  Object.defineProperty(window, 'sjBridge', {
    configurable: true,
    enumerable: true,
    get() {
      return bridge;
    },
    set(value) {
      bridge = value;
      if (value && typeof value === 'object') {
        let ready = value.ready;
        Object.defineProperty(value, 'ready', {
          configurable: true,
          enumerable: true,
          get() {
            return ready;
          },
          set(v) {
            ready = v;
            if (v === true) {
              report('trap');
            }
          },
        });
        if (ready === true) {
          report('trap');
        }
      }
    },
  });

  // Should the page ever set things up differently, still notice readiness.
  const fallback = setInterval(() => {
    if (window.sjBridge?.ready === true) {
      report('poll');
    }
  }, 50);

  async function run1(cmd) {
    switch (cmd.op) {
      case 'evaluate':
        return await window.sjBridge.evaluate(cmd.code);
      case 'state':
        return window.sjBridge.getState();
      case 'stop':
        return window.sjBridge.stop();
      case 'js':
        // The body of an async function, as WebKit's
        // call_async_javascript_function runs it.
        return await new AsyncFunction(cmd.body)();
      default:
        throw new Error(`unknown op ${cmd.op}`);
    }
  }

  async function serve() {
    for (;;) {
      let cmd;
      try {
        const response = await fetch(`${base}cmd?run=${encodeURIComponent(run)}`);
        cmd = await response.json();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      if (!cmd || cmd.op === 'noop') {
        continue;
      }
      if (cmd.op === 'bye') {
        return;
      }
      let result;
      try {
        result = { ok: true, value: await run1(cmd) };
      } catch (error) {
        result = { ok: false, error: String(error?.message ?? error) };
      }
      try {
        await post('result', { id: cmd.id, ...result });
      } catch {
        // The server is gone; nothing to report to.
      }
    }
  }
})();
