// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The few browser globals that the Strudel packages use, for a bare
// JavaScriptCore context (strudel-jam-dryrun). This module is imported first
// so that it runs before any package's top level.
//
// Nothing in a dry-run may be scheduled or leave the process: timers are
// accepted and never fire, fetch fails, and console output is kept in memory
// (stdout is the helper's protocol channel, so nothing may print there).

const g = globalThis;

// A do-nothing value that tolerates any use (property read, call, new): the
// same stand-in build-scope.mjs uses for the page's DOM and Web Audio at load.
export function inert() {
  const target = function () {};
  const proxy = new Proxy(target, {
    get(t, key) {
      if (key === Symbol.toPrimitive) return () => '';
      if (key === Symbol.iterator) return function* () {};
      if (key === 'then') return undefined; // not a thenable: await must not hang
      if (key === 'length') return 0;
      if (typeof key === 'symbol') return undefined;
      return key in t ? t[key] : proxy;
    },
    set: () => true,
    apply: () => proxy,
    construct: () => proxy,
  });
  return proxy;
}

function define(name, value) {
  if (!(name in g)) {
    Object.defineProperty(g, name, { value, configurable: true, writable: true });
  }
}

// The helper gives a monotonic clock in milliseconds; Date.now() otherwise.
const now = typeof g.__sjNow === 'function' ? g.__sjNow : () => Date.now();
const timeOrigin = Date.now();
define('performance', { now, timeOrigin, mark() {}, measure() {}, getEntriesByName: () => [] });

let lastTimer = 0;
const neverFires = () => ++lastTimer;
for (const name of ['setTimeout', 'setInterval', 'requestAnimationFrame', 'requestIdleCallback', 'setImmediate']) {
  define(name, neverFires);
}
for (const name of ['clearTimeout', 'clearInterval', 'cancelAnimationFrame', 'cancelIdleCallback', 'clearImmediate']) {
  define(name, () => {});
}
define('queueMicrotask', (fn) => void Promise.resolve().then(fn));

class TextEncoderShim {
  get encoding() {
    return 'utf-8';
  }
  encode(text = '') {
    const utf8 = unescape(encodeURIComponent(String(text)));
    const bytes = new Uint8Array(utf8.length);
    for (let i = 0; i < utf8.length; i++) bytes[i] = utf8.charCodeAt(i);
    return bytes;
  }
}
class TextDecoderShim {
  get encoding() {
    return 'utf-8';
  }
  decode(buffer) {
    if (!buffer) return '';
    const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer.buffer ?? buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    try {
      return decodeURIComponent(escape(binary));
    } catch {
      return binary;
    }
  }
}
define('TextEncoder', TextEncoderShim);
define('TextDecoder', TextDecoderShim);

// Enough of structuredClone for plain data, which is all Strudel clones.
function clone(value, seen = new Map()) {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  let copy;
  if (Array.isArray(value)) {
    copy = [];
    seen.set(value, copy);
    value.forEach((v, i) => (copy[i] = clone(v, seen)));
  } else if (value instanceof Date) {
    copy = new Date(value.getTime());
  } else if (value instanceof Map) {
    copy = new Map();
    seen.set(value, copy);
    value.forEach((v, k) => copy.set(clone(k, seen), clone(v, seen)));
  } else if (value instanceof Set) {
    copy = new Set();
    seen.set(value, copy);
    value.forEach((v) => copy.add(clone(v, seen)));
  } else if (ArrayBuffer.isView(value)) {
    copy = value.slice();
  } else {
    copy = {};
    seen.set(value, copy);
    for (const key of Object.keys(value)) copy[key] = clone(value[key], seen);
  }
  return copy;
}
define('structuredClone', (value) => clone(value));

// Console output is kept (the last lines) for debugging, never printed.
export const consoleLines = [];
const keep = (level) => (...args) => {
  consoleLines.push(`${level}: ${args.map((a) => (typeof a === 'string' ? a : String(a))).join(' ')}`);
  if (consoleLines.length > 50) consoleLines.shift();
};
const quiet = {};
for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) quiet[level] = keep(level);
for (const name of ['group', 'groupEnd', 'groupCollapsed', 'time', 'timeEnd', 'table', 'assert', 'dir', 'count']) {
  quiet[name] = () => {};
}
Object.defineProperty(g, 'console', { value: quiet, configurable: true, writable: true });

define('fetch', (url) => Promise.reject(new Error(`no network in a dry-run (${String(url)})`)));

// The page's browser environment, inert: modules that touch the DOM, Web
// Audio or storage at load time find something and do nothing.
const stub = inert();
const standIns = {
  window: g,
  self: g,
  document: stub,
  navigator: { userAgent: 'strudel-jam-dryrun', language: 'en', mediaDevices: stub, requestMIDIAccess: undefined },
  location: { href: 'strudel-jam://app/index.html', origin: 'strudel-jam://app', protocol: 'strudel-jam:', host: 'app', hostname: 'app', pathname: '/index.html', search: '', hash: '' },
  localStorage: stub,
  sessionStorage: stub,
  devicePixelRatio: 1,
  matchMedia: () => ({ matches: false, addEventListener() {}, removeEventListener() {} }),
  addEventListener: () => {},
  removeEventListener: () => {},
  dispatchEvent: () => true,
  CustomEvent: class CustomEvent {
    constructor(type, init = {}) {
      this.type = type;
      this.detail = init.detail;
    }
  },
  Event: class Event {
    constructor(type) {
      this.type = type;
    }
  },
  EventTarget: class EventTarget {
    addEventListener() {}
    removeEventListener() {}
    dispatchEvent() {
      return true;
    }
  },
  BaseAudioContext: stub,
  AudioContext: stub,
  OfflineAudioContext: stub,
  AudioWorkletNode: stub,
  AudioNode: stub,
  AudioParam: stub,
  AudioBuffer: stub,
  GainNode: stub,
  HTMLElement: class HTMLElement {},
  HTMLCanvasElement: class HTMLCanvasElement {},
  Image: stub,
  Worker: stub,
  SharedWorker: undefined,
  MessageChannel: stub,
  BroadcastChannel: stub,
  Blob: stub,
  MutationObserver: stub,
  ResizeObserver: stub,
  IntersectionObserver: stub,
  URL: stub,
  URLSearchParams: stub,
  AbortController: stub,
  WebSocket: stub,
  XMLHttpRequest: stub,
};
for (const [name, value] of Object.entries(standIns)) {
  if (value !== undefined) define(name, value);
}
