// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Lists the names that Strudel code can really call in the page's runtime:
// the globals that the page's evalScope() and the REPL's evaluate() put on
// the global scope, and the methods of Pattern.prototype; and the sounds
// the page's prebake registers without any network (synths, ZZFX,
// General MIDI soundfonts), as the page's own sound snapshot.
//
//   node build-scope.mjs <node_modules parent dir> <output runtime-scope.json>
//
// The packages are bundled with the same esbuild resolution as the page
// (platform "browser", same node_modules) and then run in Node with a few
// browser stand-ins, so the lists come from the code that ships, not from a
// hand-kept list. Nothing is scheduled and no audio is produced: the
// packages only need to load and register their functions.

import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { soundSnapshot } from './src/sounds.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const [workDir, outFile] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!workDir || !outFile) {
  console.error('usage: node build-scope.mjs <dir with node_modules> <output runtime-scope.json>');
  process.exit(2);
}
const nodeModules = path.join(workDir, 'node_modules');
const esbuild = createRequire(path.join(workDir, 'package.json'))('esbuild');

// The modules the page hands to evalScope(), in its order (later modules win
// on equal names), read from src/app.mjs so that the list follows the page.
// The page's own modules (./…) are found next to it.
function scopeModules() {
  const app = readFileSync(path.join(here, 'src', 'app.mjs'), 'utf8');
  const imports = new Map(
    [...app.matchAll(/^import \* as (\w+) from '([^']+)';$/gm)].map((m) => [
      m[1],
      m[2].startsWith('.') ? path.join(here, 'src', m[2]) : m[2],
    ]),
  );
  const call = app.match(/\bevalScope\(([\w\s,]+)\)/);
  const ids = call ? call[1].split(',').map((id) => id.trim()) : [];
  if (ids.length === 0 || !ids.every((id) => imports.has(id))) {
    console.error('build-scope: cannot find evalScope(<namespace imports>) in src/app.mjs');
    process.exit(1);
  }
  return ids.map((id) => [id, imports.get(id)]);
}
const SCOPE_MODULES = scopeModules();
const entry = [
  ...SCOPE_MODULES.map(([id, name]) => `export * as ${id} from '${name}';`),
  // evaluate() below needs these whatever the page's scope holds.
  `export * as strudelCore from '@strudel/core';`,
  `export { transpiler } from '@strudel/transpiler';`,
].join('\n');

// A do-nothing value that tolerates any use (property read, call, new):
// enough for module top levels that touch the DOM, Web Audio or storage.
function inert() {
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

function installBrowserStandIns() {
  const stub = inert();
  const standIns = {
    window: globalThis,
    self: globalThis,
    document: stub,
    location: new URL('strudel-jam://scope/'),
    localStorage: stub,
    sessionStorage: stub,
    matchMedia: () => ({ matches: false, addEventListener() {}, removeEventListener() {} }),
    requestAnimationFrame: () => 0,
    cancelAnimationFrame: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    BaseAudioContext: stub,
    AudioContext: stub,
    OfflineAudioContext: stub,
    AudioWorkletNode: stub,
    AudioNode: stub,
    AudioParam: stub,
    AudioBuffer: stub,
    GainNode: stub,
    HTMLElement: class {},
    HTMLCanvasElement: class {},
    Image: stub,
    Worker: stub,
    MutationObserver: stub,
    ResizeObserver: stub,
    IntersectionObserver: stub,
  };
  for (const [name, value] of Object.entries(standIns)) {
    if (!(name in globalThis)) {
      Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
    }
  }
}

const tmp = mkdtempSync(path.join(workDir, 'scope-'));
try {
  const bundleFile = path.join(tmp, 'scope.mjs');
  await esbuild.build({
    stdin: { contents: entry, resolveDir: workDir, sourcefile: 'scope-entry.mjs', loader: 'js' },
    outfile: bundleFile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    nodePaths: [nodeModules],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });

  installBrowserStandIns();
  // The packages log through console on load (e.g. a missing AudioContext);
  // that is noise here, only a thrown error matters.
  const { log, info, warn, debug } = console;
  Object.assign(console, { log() {}, info() {}, warn() {}, debug() {} });
  let modules;
  try {
    modules = await import(pathToFileURL(bundleFile).href);
    const { strudelCore: core, transpiler } = modules;
    await core.evalScope(...SCOPE_MODULES.map(([id]) => modules[id]));
    // StrudelMirror's REPL adds setcps, setcpm, hush, all, each, cpm and the
    // Pattern methods p, q, d1..d9 on every evaluation: evaluate once.
    const repl = core.repl({ defaultOutput: () => {}, getTime: () => 0, transpiler });
    await repl.evaluate('silence', false);
    if (repl.state.evalError) {
      throw repl.state.evalError;
    }
    // The offline part of the page's prebake (see prebake() in app.mjs).
    const { webaudio, soundfonts } = modules;
    await Promise.all([webaudio.registerSynthSounds(), webaudio.registerZZFXSounds(), soundfonts.registerSoundfonts()]);
  } finally {
    Object.assign(console, { log, info, warn, debug });
  }

  const { Pattern, strudelScope } = modules.strudelCore;
  // evalScope() sets a name both on globalThis and in strudelScope;
  // register() alone only fills strudelScope, which user code cannot see.
  const globals = Object.keys(strudelScope).filter(
    (name) => Object.hasOwn(globalThis, name) && globalThis[name] === strudelScope[name],
  );
  const methods = Object.getOwnPropertyNames(Pattern.prototype).filter((name) => name !== 'constructor');
  const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const registry = modules.webaudio.soundMap.get();
  const sounds = soundSnapshot(registry);
  // Each General MIDI soundfont's font files (<font>.js), as
  // @strudel/soundfonts registers them: the native sound cache only serves
  // those names, and the sound library resolves gm_*:n to one of them.
  const soundfonts = Object.fromEntries(
    Object.entries(registry)
      .filter(([, sound]) => sound?.data?.type === 'soundfont' && Array.isArray(sound.data.fonts))
      .map(([name, sound]) => [name, sound.data.fonts.map(String)]),
  );
  const scope = { globals: globals.sort(byName), methods: methods.sort(byName), sounds, soundfonts };

  // Names the page's users rely on; missing ones mean the probe is broken.
  const expect = {
    globals: ['s', 'sound', 'note', 'n', 'stack', 'cat', 'sine', 'saw', 'rand', 'irand', 'samples', 'setcps', 'setcpm', 'hush', 'scale'],
    methods: ['fast', 'room', 's', 'note', 'scale', 'voicing', 'pianoroll', 'p'],
  };
  const missing = Object.entries(expect).flatMap(([kind, names]) =>
    names.filter((n) => !scope[kind].includes(n)).map((n) => `${kind}.${n}`),
  );
  for (const name of ['sine', 'sawtooth', 'square', 'triangle', 'supersaw', 'white', 'zzfx', 'gm_piano']) {
    if (!(name in sounds)) missing.push(`sounds.${name}`);
  }
  if (!soundfonts.gm_piano?.length) missing.push('soundfonts.gm_piano');
  if (missing.length > 0) {
    throw new Error(`build-scope: runtime lacks ${missing.join(', ')}`);
  }

  writeFileSync(`${outFile}.tmp`, JSON.stringify(scope, null, 1) + '\n');
  renameSync(`${outFile}.tmp`, outFile);
  console.log(
    `strudel-jam runtime-scope.json: ${scope.globals.length} globals, ${scope.methods.length} methods, ${Object.keys(sounds).length} bundled sounds`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
// Modules may have left timers or handles behind; the lists are written.
process.exit(0);
