// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The dry-run engine, bundled by build-dryrun.mjs into one script that
// strudel-jam-dryrun runs in a bare JavaScriptCore context. It evaluates
// code with Strudel's own REPL machinery (repl() from @strudel/core and the
// transpiler), exactly as the page does, but never starts a scheduler and
// never makes a sound: it queries the resulting pattern and reports what
// would play.
//
//   globalThis.sjDryRun(id, code, cycles, wantHaps)  starts a dry-run
//   globalThis.sjDryRunTake()                         its JSON answer
//   globalThis.sjDryRunDirty()                        whether the code changed
//                                                     the shared runtime
//   globalThis.sjDryRunSetUserSamples(json)           registers the user's
//                                                     folders of samples
//   globalThis.sjDryRunUserSamplesTake()              its JSON answer
//
// JavaScriptCore settles every promise before an API call returns, so the
// answer is there as soon as sjDryRun() has returned.
//
// Nothing in Strudel is patched. What acts outside the process is replaced
// at our level: the scheduler's setCps records the tempo, samples() records
// the requested source and loads nothing, and the editor's functions (the
// page's @strudel/codemirror, which needs a DOM) are stand-ins. The sound
// library's maps and bank aliases are registered as in the page
// (src/library.mjs), so that sounds resolve the same way and the answer can
// say which sample files the code would play (sampleUses).

import { consoleLines, inert } from './polyfills.mjs';
import * as core from '@strudel/core';
import * as mini from '@strudel/mini';
import * as tonal from '@strudel/tonal';
import * as webaudio from '@strudel/webaudio';
import * as draw from '@strudel/draw';
import * as soundfonts from '@strudel/soundfonts';
import { transpiler, registerWidgetType } from '@strudel/transpiler';
import { checkCode } from './checks.mjs';
import { registerLibrary, registerUserSamples, SOUNDS_URL } from '../src/library.mjs';
import { isWebUrl, resolveMapUrl } from '../src/remote.mjs';

// Filled in by build-dryrun.mjs: the page's runtime names (runtime-scope.json)
// and the names @strudel/codemirror exports.
const PAGE_SCOPE = __SJ_PAGE_SCOPE__;
const CODEMIRROR_EXPORTS = __SJ_CODEMIRROR_EXPORTS__;

const MAX_HAPS = 20000;
// The most distinct sample uses an answer lists.
const MAX_SAMPLE_USES = 512;
const { Pattern, evalScope, pure, ref, registerControl, silence } = core;

// What the evaluated code asked for outside of patterns.
let recorded = { tempo: [], samples: [] };

function recordSamples(source, baseUrl) {
  if (typeof source === 'string') {
    // Where the page would fetch the map from (remote.mjs): the C side
    // knows the names of a map it has fetched before.
    const url = resolveMapUrl(source);
    recorded.samples.push({ source, ...(isWebUrl(url) ? { url } : {}) });
  } else if (source && typeof source === 'object') {
    const names = Object.keys(source).filter((name) => !name.startsWith('_'));
    const base = typeof baseUrl === 'string' && baseUrl ? baseUrl : source._base;
    recorded.samples.push({ source: 'map', names, ...(typeof base === 'string' ? { base } : {}) });
  } else {
    recorded.samples.push({ source: String(source) });
  }
}

// The editor's exports, for code that calls them. Those with an effect on
// patterns do what @strudel/codemirror does (sliders hold their value,
// markcss is a control); the others do nothing.
function codemirrorStandIns() {
  const sliderValues = {};
  const specific = {
    slider: (value) => pure(value),
    sliderWithID: (id, value) => {
      sliderValues[id] = value;
      return ref(() => sliderValues[id]);
    },
    sliderValues,
    markcss: registerControl('markcss'),
  };
  return Object.fromEntries(CODEMIRROR_EXPORTS.map((name) => [name, name in specific ? specific[name] : inert()]));
}

// The inline visuals (._pianoroll(), ._scope(), …) that @strudel/codemirror
// registers as widgets: the transpiler gives each call its widget id, and the
// pattern is what the page's widget returns, without the canvas.
function registerWidgets() {
  const widgets = {
    _pianoroll: (id, options, pat) => pat.tag(id).pianoroll({ fold: 1, ...options, id }),
    _punchcard: (id, options, pat) => pat.tag(id).punchcard({ fold: 1, ...options, id }),
    _spiral: (id, options, pat) => pat.tag(id).spiral({ ...options, id }),
    _scope: (id, options, pat) => pat.tag(id).scope({ width: 500, height: 60, pos: 0.5, scale: 1, ...options, id }),
    _pitchwheel: (id, options, pat) => pat.pitchwheel({ ...options, id }),
    _spectrum: (id, options, pat) => pat.spectrum({ ...options, id }),
  };
  for (const [type, fn] of Object.entries(widgets)) {
    registerWidgetType(type);
    Pattern.prototype[type] = function (id, options = { fold: 1 }) {
      return fn(id, options, this);
    };
  }
}

// Functions that reach the network or the audio device in the page.
function outsideStandIns() {
  const resolved = () => Promise.resolve();
  return {
    samples: (source, baseUrl) => {
      recordSamples(source, baseUrl);
      return Promise.resolve();
    },
    aliasBank: resolved,
    initAudio: resolved,
    initAudioOnFirstClick: resolved,
    loadSoundfont: () => Promise.resolve(inert()),
    loadWorklets: resolved,
    fetchSampleMap: () => Promise.resolve([{}, '']),
    // MIDI input (the page's outputs.mjs): nothing has been received in a
    // dry-run, so every control reads 0, as in the page before a knob moves.
    midin: () => Promise.resolve((cc, chan) => ref(() => 0)),
  };
}

let replInstance;
let baseline;

// The names the REPL itself sets again on every evaluation.
const VOLATILE = new Set(['all', 'each', 'hush', 'cpm', '_cpm', 'setCps', 'setcps', 'setCpm', 'setcpm', 'compileKabel',
  'p', 'q', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((i) => [`d${i}`, `p${i}`, `q${i}`])]);

// The values of an object's own properties (accessors by their getter).
function snapshot(object) {
  const values = new Map();
  const accessors = new Set();
  for (const name of Object.getOwnPropertyNames(object)) {
    if (VOLATILE.has(name)) continue;
    const desc = Object.getOwnPropertyDescriptor(object, name);
    if (desc.get) accessors.add(name);
    values.set(name, desc.get ?? desc.value);
  }
  return { values, accessors };
}

// The names whose value differs from the snapshot. Only the names that were
// accessors are read through descriptors, which are slow to make (1.5 ms
// for the 2,300 names); the others are read directly.
function changed(object, { values, accessors }, prefix = '') {
  const names = [];
  let present = 0;
  for (const name of Object.getOwnPropertyNames(object)) {
    if (VOLATILE.has(name)) continue;
    if (!values.has(name)) {
      names.push(prefix + name);
      continue;
    }
    present++;
    const value = accessors.has(name) ? Object.getOwnPropertyDescriptor(object, name).get : object[name];
    if (!Object.is(value, values.get(name))) names.push(prefix + name);
  }
  if (present !== values.size) {
    for (const name of values.keys()) {
      if (!Object.hasOwn(object, name)) names.push(prefix + name);
    }
  }
  return names;
}

async function init() {
  // The page's evalScope order: core, mini, tonal, webaudio, codemirror,
  // draw, soundfonts (later ones win on equal names).
  await evalScope(core, mini, tonal, webaudio, codemirrorStandIns(), draw, soundfonts, outsideStandIns());
  // The page's prebake registers the library with the real samples() and
  // aliasBank(); maps given as objects load nothing.
  await registerLibrary(webaudio);
  // And the soundfonts, with their font lists (nothing is loaded until a
  // note plays, which never happens here), so sampleUses can name a
  // soundfont note's file.
  soundfonts.registerSoundfonts();
  registerWidgets();
  // Names only the page's runtime has (none expected beyond the above):
  // present, so that code using them evaluates as in the page.
  for (const name of PAGE_SCOPE.globals) {
    if (!(name in globalThis)) globalThis[name] = inert();
  }
  for (const name of PAGE_SCOPE.methods) {
    if (!(name in Pattern.prototype)) {
      Pattern.prototype[name] = function () {
        return this;
      };
    }
  }

  // The page's transpiler adds source locations to every mini-notation
  // leaf, for the editor's highlighting: each hap then carries and merges
  // location lists, which a dry-run never shows. Strudel's own no-location
  // path (offset -1, as getLeaves() uses) builds the same patterns without
  // them; the static checks have parsed every string already.
  const { mini2ast, patternifyAST } = mini;
  globalThis.m = (str) => patternifyAST(mini2ast(`"${str}"`), `"${str}"`, null, -1);
  const dryTranspiler = (code, options) => transpiler(code, { ...options, emitMiniLocations: false });
  replInstance = core.repl({ defaultOutput: () => {}, getTime: () => 0, transpiler: dryTranspiler });
  const scheduler = replInstance.scheduler;
  const setCps = scheduler.setCps.bind(scheduler);
  scheduler.setCps = (cps) => {
    recorded.tempo.push({ cps: typeof cps === 'number' ? cps : Number(cps) });
    setCps(cps);
  };
  replInstance.resetCps = () => setCps(0.5);
  await replInstance.evaluate('silence', false);
  globalThis.sjDryRunReady = true;
  baseline = { globals: snapshot(globalThis), methods: snapshot(Pattern.prototype) };
}

// Methods of the other values code gets from Strudel (haps in filter(),
// time spans, fractions, query states), and K(...), which the transpiler
// rewrites.
const OTHER_METHODS = new Set(['K']);
for (const cls of [core.Hap, core.TimeSpan, core.State, core.Fraction]) {
  if (cls?.prototype) Object.getOwnPropertyNames(cls.prototype).forEach((name) => OTHER_METHODS.add(name));
}
const knownGlobal = (name) => name in globalThis || PAGE_SCOPE.globalSet.has(name);
const knownMethod = (name) => name in Pattern.prototype || PAGE_SCOPE.methodSet.has(name) || OTHER_METHODS.has(name);

// The sound superdough would play for a hap's value: `s` (default
// "triangle"), prefixed by the bank, lower-cased; nothing for rests.
function soundOf(value) {
  if (value === null || typeof value !== 'object' || value.source !== undefined) return null;
  let s = value.s ?? 'triangle';
  if (typeof s !== 'string') return null;
  s = s.split(':')[0];
  if (['-', '~', '_', ''].includes(s)) return null;
  if (value.bank && typeof value.bank === 'string') s = `${value.bank}_${s}`;
  return s.toLowerCase();
}

// The sample files a hap would play, as superdough picks them
// (getSampleInfo(): n modulo the files; the closest note first for pitched
// maps such as the piano): for sounds registered from sample maps only.
function sampleUse(sound, value) {
  const data = webaudio.soundMap.get()[sound]?.data;
  // A soundfont note loads its font file, as @strudel/soundfonts picks it.
  if (data?.type === 'soundfont' && Array.isArray(data.fonts) && data.fonts.length) {
    const n = core.getSoundIndex(value.n, data.fonts.length);
    return { sound, n, pack: 'soundfonts', path: `${data.fonts[n]}.js` };
  }
  const bank = data?.type === 'sample' ? data.samples : data?.type === 'wavetable' ? data.tables : undefined;
  if (!bank || typeof bank !== 'object') return null;
  let info;
  try {
    info = webaudio.getSampleInfo({ ...value, s: sound }, bank);
  } catch {
    return null; // superdough would fail on this value too (a note it cannot read)
  }
  const use = { sound, n: info.index };
  if (!Array.isArray(bank)) use.midi = info.midi;
  const url = String(info.url);
  if (url.startsWith(SOUNDS_URL)) {
    const rest = url.slice(SOUNDS_URL.length);
    const slash = rest.indexOf('/');
    use.pack = rest.slice(0, slash);
    use.path = rest.slice(slash + 1);
  } else {
    use.url = url;
  }
  return use;
}

// Milliseconds since t0, to the hundredth.
const elapsed = (t0) => Math.round((performance.now() - t0) * 100) / 100;

// JavaScriptCore's positions point into the transpiled code, but its
// messages quote the failing expression ("undefined is not an object
// (evaluating 'x.y')"): where that text occurs in the user's code is where
// the error is. Only a quote found in the code is used; nothing is guessed.
function locate(message, code) {
  const quoted = /\(evaluating '(.+)'\)\s*$/.exec(message);
  const needle = quoted?.[1];
  const at = needle && code ? code.indexOf(needle) : -1;
  if (at < 0) {
    return {};
  }
  const before = code.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return { line, column };
}

function errorInfo(error, code) {
  const info = { message: String(error?.message ?? error) };
  if (error?.name && typeof error.name === 'string') info.error = error.name;
  return { ...info, ...locate(info.message, code) };
}

async function dryRun(id, code, cycles, wantHaps) {
  const t0 = performance.now();
  const base = { id };
  if (typeof code !== 'string' || !Number.isInteger(cycles) || cycles < 1 || cycles > 8) {
    return { ...base, ok: false, phase: 'input', message: 'code must be a string and cycles an integer 1–8' };
  }
  const rejected = checkCode(code, { isKnownGlobal: knownGlobal, isKnownMethod: knownMethod });
  if (rejected) {
    return { ...base, ...rejected, ms: elapsed(t0) };
  }

  const t1 = performance.now();
  recorded = { tempo: [], samples: [] };
  replInstance.resetCps();
  const pattern = await replInstance.evaluate(code, false);
  const t2 = performance.now();
  const evalError = replInstance.state.evalError;
  if (evalError || !pattern) {
    return { ...base, ok: false, phase: 'runtime', ...errorInfo(evalError ?? 'evaluation gave no pattern', code),
      unknownSymbols: [], miniErrors: [], tempo: recorded.tempo, samples: recorded.samples, ms: elapsed(t0) };
  }

  const cps = replInstance.scheduler.cps;
  try {
    const haps = pattern.queryArc(0, cycles, { _cps: cps });
    let events = 0;
    const sounds = new Set();
    const tempo = [...recorded.tempo];
    const uses = new Map();
    let usesTruncated = false;
    for (const hap of haps) {
      if (!hap.hasOnset()) continue;
      events++;
      const sound = soundOf(hap.value);
      if (sound) {
        sounds.add(sound);
        const use = sampleUse(sound, hap.value);
        const key = use && `${use.sound}\u0000${use.n}\u0000${use.midi ?? ''}`;
        if (use && !uses.has(key)) {
          if (uses.size < MAX_SAMPLE_USES) uses.set(key, use);
          else usesTruncated = true;
        }
      }
      if (typeof hap.value?.cps === 'number') tempo.push({ cps: hap.value.cps, cycle: hap.whole.begin.valueOf() });
    }
    const answer = { ...base, ok: true, events, cycles, cps, sounds: [...sounds].sort(), tempo,
      samples: recorded.samples, sampleUses: [...uses.values()] };
    if (usesTruncated) answer.sampleUsesTruncated = true;
    if (wantHaps) {
      // As upstream's examples snapshot test prints them.
      const shown = pattern.sortHapsByPart().queryArc(0, cycles, { _cps: cps });
      answer.haps = shown.slice(0, MAX_HAPS).map((hap) => hap.show(true));
      if (shown.length > MAX_HAPS) answer.hapsTruncated = shown.length;
    }
    answer.ms = elapsed(t0);
    // Where the time went: static checks, evaluation, query.
    const round = (ms) => Math.round(ms * 100) / 100;
    answer.timing = { check: round(t1 - t0), evaluate: round(t2 - t1), query: elapsed(t2) };
    return answer;
  } catch (error) {
    return { ...base, ok: false, phase: 'runtime', ...errorInfo(error, code), unknownSymbols: [], miniErrors: [],
      tempo: recorded.tempo, samples: recorded.samples, ms: elapsed(t0) };
  }
}

let answer = null;
let initError = null;

globalThis.sjDryRun = (id, code, cycles, wantHaps) => {
  answer = null;
  if (initError) {
    answer = JSON.stringify({ id, ok: false, phase: 'runtime', message: `dry-run engine failed to start: ${initError}` });
    return;
  }
  dryRun(id, code, cycles, Boolean(wantHaps)).then(
    (result) => {
      try {
        answer = JSON.stringify(result);
      } catch (error) {
        answer = JSON.stringify({ id, ok: false, phase: 'runtime', message: `unserialisable result: ${error?.message}` });
      }
    },
    (error) => {
      answer = JSON.stringify({ id, ok: false, phase: 'runtime', ...errorInfo(error) });
    },
  );
};
globalThis.sjDryRunTake = () => answer;
// What the code changed in the shared runtime: a new or replaced global or
// pattern method (the REPL's own per-evaluation names aside).
globalThis.sjDryRunChanged = () => [
  ...changed(globalThis, baseline.globals),
  ...changed(Pattern.prototype, baseline.methods, '.'),
];
globalThis.sjDryRunDirty = () => globalThis.sjDryRunChanged().length > 0;
globalThis.sjDryRunConsole = () => consoleLines.join('\n');

PAGE_SCOPE.globalSet = new Set(PAGE_SCOPE.globals);
PAGE_SCOPE.methodSet = new Set(PAGE_SCOPE.methods);
init().catch((error) => (initError = String(error?.stack ?? error)));
globalThis.sjDryRunInitError = () => initError;

// The user's folders of samples ([{id, map}]), registered as the page
// registers them (library.mjs), so that their sounds resolve to their own
// files (sampleUses: pack "user") and replace a library sound of the same
// name. The helper keeps the last set and gives it to every engine it makes.
let userSamplesAnswer = null;
globalThis.sjDryRunSetUserSamples = (json) => {
  userSamplesAnswer = null;
  let packs;
  try {
    packs = JSON.parse(json);
  } catch (error) {
    userSamplesAnswer = JSON.stringify({ ok: false, message: `not JSON: ${error?.message}` });
    return;
  }
  registerUserSamples(webaudio, packs).then(
    (names) => (userSamplesAnswer = JSON.stringify({ ok: true, userSounds: names })),
    (error) => (userSamplesAnswer = JSON.stringify({ ok: false, message: String(error?.message ?? error) })),
  );
};
globalThis.sjDryRunUserSamplesTake = () => userSamplesAnswer;
