// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The Strudel Jam page: the original Strudel REPL editor (StrudelMirror from
// @strudel/codemirror) with the Strudel website's prebake (its sample maps
// are bundled, their audio comes through our scheme), plus a thin bridge to
// the C side. State goes out as messages, commands come in through
// window.sjBridge, which C calls with webkit_web_view_call_async_javascript_function.
// Nothing here decides anything: the C services do the thinking.

import * as core from '@strudel/core';
import * as mini from '@strudel/mini';
import * as tonal from '@strudel/tonal';
import * as webaudio from '@strudel/webaudio';
import * as codemirror from '@strudel/codemirror';
import * as draw from '@strudel/draw';
import * as soundfonts from '@strudel/soundfonts';
import { transpiler } from '@strudel/transpiler';

import { installWorkletMap } from './worklets.mjs';
import { registerLibrary, registerUserSamples, soundfontUrl, SOUNDS_URL } from './library.mjs';
import * as workerTimers from './worker-timers.mjs';
import { capFrameRate } from './frame-rate.mjs';
import { post, request } from './post.mjs';
import { soundSnapshot, watchSounds } from './sounds.mjs';
import { Swapper } from './swap.mjs';
import { labelOf, preloadPattern } from './preload.mjs';
import { installSoundFetchGuard, isLoadFailure, sayUnavailable } from './unavailable.mjs';
import { installFrameStarts } from './sample-frames.mjs';
import { installLimiter, setLimiter, limiterState, finalNode, onOutputRouted } from './limiter.mjs';
import * as remote from './remote-scope.mjs';
import * as outputs from './outputs.mjs';
import { receiveMidiControls } from './midi-in.mjs';
import { Levels } from './levels.mjs';
import * as render from './render.mjs';

const { evalScope, logger, silence } = core;
const { StrudelMirror } = codemirror;
const {
  getAudioContext,
  getAudioContextCurrentTime,
  getSuperdoughAudioController,
  initAudio,
  registerSynthSounds,
  registerZZFXSounds,
  soundMap,
  superdough,
  webaudioOutput,
} = webaudio;

const PROTOCOL_VERSION = 1;

// The music's gain while the microphone listens: about -12 dB.
const DUCK_GAIN = 0.25;
let duckGain = 1;

// Counters that let the C side (and its tests and benchmarks) see that notes
// really fire and whether any fired late, without touching the audio path.
// Previews count as triggered notes too, and separately in `previews`.
const stats = { triggered: 0, late: 0, maxLateMs: 0, previews: 0 };

// Sounds played with a pitch in a preview: everything but samples, whose
// natural pitch is the point. Strudel's sounds tab does the same.
const PITCHED_TYPES = new Set(['synth', 'soundfont', 'wavetable']);
// How far ahead a preview is scheduled: superdough refuses onsets in the
// past, and a freshly resumed context may take a moment to start its clock.
const PREVIEW_LEAD_S = 0.05;
const PREVIEW_DURATION_S = 0.5;

// Everything that can fail at load time is settled, never thrown: a missing
// sample map or an offline network must not make evaluation fail.
async function settle(label, promise) {
  try {
    return await promise;
  } catch (error) {
    logger(`[strudel-jam] ${label} could not be loaded: ${error?.message ?? error}`, 'warning');
    return undefined;
  }
}

// Outside Strudel Jam, in a plain browser (no host world has set
// data-sj-host), bench/sounds opens this very bundle in Chromium to compare
// it with the Strudel website: ?sounds=<http(s) base URL> takes the
// library's files from <base URL><pack>/ instead of our scheme, which a
// browser does not have, and ?preload=0 turns preloading off, so that a
// sample loads when its first note plays, as on the website. In the app
// both are ignored.
const pageOptions = (() => {
  const options = { soundsBase: SOUNDS_URL, preload: true };
  if (document.documentElement.dataset.sjHost === '1') {
    return options;
  }
  const params = new URLSearchParams(location.search);
  const base = params.get('sounds');
  if (base && /^https?:\/\//.test(base)) {
    options.soundsBase = base.endsWith('/') ? base : `${base}/`;
  }
  options.preload = params.get('preload') !== '0';
  return options;
})();

// Registers the sound library and leaves a User Timing measure for
// bench/sounds, 'sj:register-library': from its start to its end (the rest
// of the prebake runs in between), with detail.busyMs, the time spent
// registering (library.mjs).
async function registerLibraryTimed() {
  const start = performance.now();
  const busyMs = await registerLibrary(webaudio, pageOptions.soundsBase);
  try {
    performance.measure('sj:register-library', { start, end: performance.now(), detail: { busyMs } });
  } catch {
    // An engine without User Timing level 3: nothing to measure with.
  }
}

// The website's prebake: synths, ZZFX, the General MIDI soundfonts and the
// sound library's packs, then the bank aliases (library.mjs). Samples and
// soundfonts are fetched from strudel-jam://sounds/ when first played, and
// the C side answers from its cache (or downloads them once).
async function prebake() {
  soundfonts.setSoundfontUrl(soundfontUrl(pageOptions.soundsBase));
  // The code's own samples() goes through the app (remote-scope.mjs): after
  // webaudio in the scope, so that it is the `samples` the code sees; .osc()
  // and .midi() are sent by the app (outputs.mjs).
  await Promise.all([
    settle('modules', evalScope(core, mini, tonal, webaudio, codemirror, draw, soundfonts, remote, outputs)),
    settle('synth sounds', registerSynthSounds()),
    settle('zzfx sounds', registerZZFXSounds()),
    settle('soundfonts', soundfonts.registerSoundfonts()),
    settle('sound library', registerLibraryTimed()),
  ]);
}

// The AudioContext is created on the first evaluation rather than at load:
// an idle context still runs the audio thread, which costs CPU while the
// user is only reading code.
let audioReady;
function ensureAudio() {
  audioReady ??= settle('audio', initAudio().then(() => installLimiter(getSuperdoughAudioController()))).then((result) => {
    if (levelsAlternateS > 0) {
      alternateLevels(levelsAlternateS);
    } else if (levelsWanted) {
      levels.start();
    }
    return result;
  });
  return audioReady;
}

// What the app hears of its output (levels.mjs); the hello may turn it off
// (STRUDEL_JAM_LEVELS=0, for bench/levels' A/B run) or have it alternate.
let levelsWanted = true;
let levelsAlternateS = 0;
const levels = new Levels({
  getAudioContext,
  getController: getSuperdoughAudioController,
  getScheduler: () => scheduler(),
  getMasterNode: finalNode,
  onOutputRouted,
  setInterval: (fn, ms) => workerTimers.setInterval(fn, ms),
  clearInterval: (id) => workerTimers.clearInterval(id),
});

// bench/levels --alternate: the analysis on in the even periods of the
// wall clock (Date.now () / period) and off in the odd ones, so the bench,
// reading the same clock, weighs both sides in one page. It weighs the
// dearer case, the meter seen: four reads a second even when the window
// under Xvfb has no focus.
function alternateLevels(seconds) {
  let on = null;
  levels.unseen = () => false;
  const check = () => {
    const want = Math.floor(Date.now() / (seconds * 1000)) % 2 === 0;
    if (want !== on) {
      on = want;
      if (on) {
        levels.start();
      } else {
        levels.stop();
      }
    }
  };
  check();
  workerTimers.setInterval(check, 100);
}

function output(hap, deadline, duration, cps, t) {
  stats.triggered++;
  swapper?.noteTrigger(hap, t, cps);
  levels.noteTrigger(hap, t, cps);
  const lateMs = (getAudioContext().currentTime - t) * 1000;
  if (lateMs > 0) {
    stats.late++;
    stats.maxLateMs = Math.max(stats.maxLateMs, lateMs);
  }
  // A note whose sound cannot be had is said once per sound, not once a
  // note (unavailable.mjs); any other error is getTrigger's to log.
  return Promise.resolve(webaudioOutput(hap, deadline, duration, cps, t)).catch((error) => {
    if (!isLoadFailure(error)) {
      throw error;
    }
    sayUnavailable(labelOf(hap.value) ?? 'a sound', error);
  });
}

let mirror;
let swapper;
let rendering = false;
let lastPostedCycle = -1;
let codeTimer = 0;
let stateTimer = 0;

function scheduler() {
  return mirror?.repl.scheduler;
}

function currentState() {
  const s = scheduler();
  return {
    playing: Boolean(s?.started),
    cps: s?.cps ?? 0.5,
    cycle: s?.started ? s.now() : 0,
    horizon: s?.lastEnd ?? 0,
    pending: Boolean(mirror?.repl.state.pending),
    triggered: stats.triggered,
    late: stats.late,
    maxLateMs: stats.maxLateMs,
  };
}

function postState() {
  const state = currentState();
  lastPostedCycle = Math.floor(state.cycle);
  post({ type: 'state', ...state });
}

// While playing, the cycle counter is reported when it crosses an integer
// and the tempo when it changes; four checks a second are plenty for a label
// and cost nothing next to the scheduler's own 20 Hz clock.
function watchCycles(started) {
  swapper?.onToggle(started);
  workerTimers.clearInterval(stateTimer);
  stateTimer = 0;
  if (started) {
    let lastCps = scheduler().cps;
    stateTimer = workerTimers.setInterval(() => {
      const s = scheduler();
      if (Math.floor(s.now()) !== lastPostedCycle || s.cps !== lastCps) {
        lastCps = s.cps;
        postState();
      }
    }, 250);
  }
  postState();
}

function postCode() {
  clearTimeout(codeTimer);
  codeTimer = 0;
  post({ type: 'code', code: mirror.code });
}

function onCodeChanged() {
  clearTimeout(codeTimer);
  codeTimer = setTimeout(postCode, 250);
}

// Before evaluating, the host gets the exact code: if the code never
// returns (an endless loop), a restarted page can still bring it back.
function beforeEval() {
  // A render (the hidden page's only work) needs no AudioContext of its
  // own: its layers are tagged instead (render.mjs).
  if (rendering) {
    render.tagLayers(core.Pattern);
    return undefined;
  }
  swapper?.beforeEval();
  if (codeTimer) {
    postCode();
  }
  return ensureAudio();
}

function describeError(error) {
  const info = { type: 'eval-error', message: String(error?.message ?? error) };
  const loc = error?.loc;
  if (loc && Number.isInteger(loc.line)) {
    info.line = loc.line;
    info.column = (loc.column ?? 0) + 1;
  }
  return info;
}

function hapToJson(hap) {
  let value = hap.value;
  try {
    value = JSON.parse(JSON.stringify(value));
  } catch {
    value = String(value);
  }
  return {
    show: hap.show(),
    whole: hap.whole ? [hap.whole.begin.valueOf(), hap.whole.end.valueOf()] : null,
    part: [hap.part.begin.valueOf(), hap.part.end.valueOf()],
    onset: hap.hasOnset(),
    value,
  };
}

// The command surface for C. Every method returns plain JSON-able data.
const bridge = {
  version: PROTOCOL_VERSION,
  ready: false,
  getCode() {
    return mirror.code;
  },
  setCode(code) {
    if (typeof code !== 'string') {
      throw new TypeError('code must be a string');
    }
    mirror.setCode(code);
    mirror.code = code;
    return true;
  },
  async evaluate(code) {
    if (typeof code === 'string') {
      bridge.setCode(code);
    }
    await ensureAudio();
    await mirror.evaluate(true);
    const error = mirror.repl.state.evalError;
    return { ok: !error, error: error ? describeError(error) : null, state: currentState() };
  },
  stop() {
    mirror.stop();
    return currentState();
  },
  getState() {
    return currentState();
  },
  // The events as the scheduler will play them: while a swap is pending,
  // the old pattern before its boundary and the new one from there on.
  queryHaps(begin, end, limit = 1000) {
    const pattern = scheduler()?.pattern ?? mirror.repl.state.pattern;
    if (!pattern) {
      return [];
    }
    const haps = pattern.queryArc(begin, end, { _cps: scheduler().cps });
    return haps.slice(0, limit).map(hapToJson);
  },
  // The last evaluated pattern's haps as upstream's examples snapshot test
  // prints them (sorted, hap.show(true)): the page's side of the dry-run
  // fidelity test.
  queryShow(begin, end, limit = 20000) {
    const pattern = mirror.repl.state.pattern;
    if (!pattern) {
      return [];
    }
    const haps = pattern.sortHapsByPart().queryArc(begin, end, { _cps: scheduler().cps });
    return haps.slice(0, limit).map((hap) => hap.show(true));
  },
  getSounds() {
    return soundSnapshot(soundMap.get());
  },
  // The user's folders of samples ([{id, map}], SjUserSamples), replacing
  // the ones registered before (library.mjs).
  async setUserSamples(packs) {
    return { ok: true, sounds: await registerUserSamples(webaudio, packs) };
  },
  // Inserts text at the cursor (replacing the selection) as one edit, without
  // evaluating. 'input.paste' is not a user event CodeMirror's history joins
  // with its neighbours, so a single undo takes the whole insertion back.
  insertAtCursor(text) {
    if (typeof text !== 'string') {
      throw new TypeError('text must be a string');
    }
    const view = mirror.editor;
    const { from, to } = view.state.selection.main;
    view.dispatch({
      changes: { from, to, insert: text },
      selection: { anchor: from + text.length },
      userEvent: 'input.paste',
      scrollIntoView: true,
    });
    return { from, to: from + text.length };
  },
  // Plays one short note of a sound, as the sounds tab of the Strudel website
  // does, straight through superdough: nothing is evaluated and the running
  // pattern (if any) is left alone.
  async previewSound(name) {
    if (typeof name !== 'string' || !(name in soundMap.get())) {
      throw new Error(`unknown sound: ${name}`);
    }
    await ensureAudio();
    const type = soundMap.get()[name]?.data?.type;
    const value = { s: name, clip: 1, release: 0.5, sustain: 1 };
    if (PITCHED_TYPES.has(type)) {
      value.note = 48;
    }
    const ac = getAudioContext();
    await superdough(value, ac.currentTime + PREVIEW_LEAD_S, PREVIEW_DURATION_S);
    stats.triggered++;
    stats.previews++;
    postState();
    return { ok: true, previews: stats.previews };
  },
  // Quantized swaps (swap.mjs): `code` starts playing at the next cycle, the
  // next bar or a number of bars on, exactly there, with the editor showing
  // it at once. Stopped, it is applied at once (and played if `autoStart`).
  // Answers {status: 'scheduled'|'applied', applyAtCycle, inSeconds, cps,
  // cpsAtApply?, id, sounds} or {status: 'error', message}; with
  // `refuseUnavailable`, {status: 'unavailable', message, sounds} when a
  // sound it plays could not be loaded, and nothing changed.
  async scheduleSwap(options) {
    await ensureAudio();
    return swapper.scheduleSwap(options);
  },
  cancelSwap() {
    return swapper.cancelSwap();
  },
  // The pending change's countdown ("Lands in N beats") as computed now,
  // with the clock it comes from, or null (tests).
  getCountdown() {
    return swapper.getCountdown();
  },
  // The code that played at `cycle` (a whole cycle the app heard), or null.
  codeAtCycle(cycle) {
    return swapper.codeAtCycle(Number(cycle));
  },
  // Records every event the scheduler triggers (tests, benchmarks).
  recordEvents(on) {
    return swapper.recordEvents(Boolean(on));
  },
  takeRecordedEvents() {
    return swapper.takeRecordedEvents();
  },
  // What the last pattern to go live had to load first (preload.mjs):
  // {ready, loaded, failed, late, ms} of "sound:n" labels, or null.
  lastPreload() {
    return swapper.lastPreload;
  },
  // Control changes from the app's MIDI input, for midin() (outputs.mjs).
  midiControls(list) {
    return receiveMidiControls(list);
  },
  // Record a Phrase's grid (issue 32): the cycle heard now, the scheduler's
  // latency and the audio output's included, with the epoch time it is
  // heard at; cycle c then sounds at epochMs + (c - cycle) / cps * 1000.
  // The audio clock advances a block at a time (in bursts when the sound
  // server catches up), and this thread may be late reading the epoch:
  // pairs read over 200 ms (without blocking), and the offset of the
  // fifth best, near the least lagging one as SjOutputClock keeps for
  // .midi() and .osc(), yet past a stray burst.
  async cycleClock() {
    const s = scheduler();
    if (!s?.started) {
      return { playing: false, cps: s?.cps ?? 0.5, cycle: 0, epochMs: performance.timeOrigin + performance.now() };
    }
    const ac = getAudioContext();
    const offsets = [];
    const until = performance.now() + 200;
    while (performance.now() < until) {
      offsets.push(performance.timeOrigin + performance.now() - ac.currentTime * 1000);
      await new Promise((resolve) => setTimeout(resolve, 4));
    }
    offsets.sort((a, b) => a - b);
    const offset = offsets[Math.min(4, offsets.length - 1)];
    const epochMs = performance.timeOrigin + performance.now();
    const output = Number.isFinite(ac.outputLatency) ? ac.outputLatency : 0;
    const audio = (epochMs - offset) / 1000;
    const cycle = (audio - output - s.latency - s.seconds_at_cps_change) * s.cps + s.num_cycles_at_cps_change;
    const playing = s.started && Number.isFinite(cycle);
    return { playing, cps: s.cps, cycle: playing ? cycle : 0, epochMs };
  },
  // Learn (issue 32): the code, the selected text and the text of its line
  // before it, for the C side to choose what to write there.
  cursorContext() {
    const state = mirror.editor.state;
    const { from, to } = state.selection.main;
    const line = state.doc.lineAt(from);
    return {
      code: state.doc.toString(),
      selected: state.sliceDoc(from, to),
      before: state.sliceDoc(line.from, from),
    };
  },
  // Replaces the selection with `text` and puts `header` (if any) before
  // the code, in one edit that a single undo takes back.
  replaceSelection(text, header) {
    if (typeof text !== 'string' || (header != null && typeof header !== 'string')) {
      throw new TypeError('text and header must be strings');
    }
    const view = mirror.editor;
    const { from, to } = view.state.selection.main;
    const changes = [{ from, to, insert: text }];
    const shift = header ? header.length : 0;
    if (header) {
      changes.unshift({ from: 0, to: 0, insert: header });
    }
    view.dispatch({
      changes,
      selection: { anchor: from + shift + text.length },
      userEvent: 'input.paste',
      scrollIntoView: true,
    });
    return { from: from + shift, to: from + shift + text.length };
  },
  // A number that changes whenever the scheduler is given another pattern.
  getPatternId() {
    return swapper.patternId();
  },
  // Lowers the music while the microphone listens (voice), on superdough's
  // own master gain, in a 50 ms glide: only the loudness changes, never
  // the scheduler or the timing. Returns the gain it is heading to.
  setDuck(on) {
    duckGain = on ? DUCK_GAIN : 1;
    const gain = getSuperdoughAudioController().output.destinationGain?.gain;
    if (gain) {
      const now = getAudioContext().currentTime;
      gain.cancelScheduledValues(now);
      gain.setTargetAtTime(duckGain, now, 0.05);
    }
    return duckGain;
  },
  getDuck() {
    return getSuperdoughAudioController().output.destinationGain?.gain.value ?? 1;
  },
  // The master safety limiter (limiter.mjs): on, a brick wall just under
  // full scale; off, superdough's output exactly as on the website.
  setLimiter(on) {
    return setLimiter(Boolean(on));
  },
  getLimiter() {
    return limiterState();
  },
  // Render to a file (render.mjs), in the hidden page only: options
  // {code, cycles, cps, sampleRate, mix, stems}; the files are then taken
  // with renderChunk(index, offset) until it answers ''.
  async renderCode(options) {
    rendering = true;
    // Nothing ever played here: the editor's drawer, after an evaluation,
    // queries the scheduler's pattern.
    scheduler().pattern ??= silence;
    return render.renderCode(options ?? {}, {
      webaudio,
      evaluateCaptured: (code) => swapper.evaluateCaptured(code),
      setCps: (cps) => scheduler().setCps(cps),
    });
  },
  renderChunk(index, offset) {
    return render.renderChunk(Number(index), Number(offset));
  },
  renderProgress() {
    return render.renderProgress();
  },
  // What the level analysis (levels.mjs) cost the main thread so far.
  getLevelsCost() {
    return levels.cost();
  },
};
window.sjBridge = bridge;

window.addEventListener('error', (event) => post({ type: 'log', level: 'error', message: String(event.message) }));
window.addEventListener('unhandledrejection', (event) =>
  post({ type: 'log', level: 'error', message: String(event.reason?.message ?? event.reason) }),
);

document.addEventListener(logger.key, (event) => {
  const { message, type } = event.detail ?? {};
  const level = typeof type === 'string' && type ? type : /error/i.test(String(message)) ? 'error' : 'info';
  post({ type: 'log', level, message: String(message) });
});

// The editor is the page's only control, so whenever the window gives the page
// the keyboard (at start, Ctrl+E, Tab or F6 from the side panel) the editor
// takes it: typing edits and Ctrl+Enter plays at once. WebKit focuses the
// document, not a control in it, when the view itself gets the focus, and
// keys typed then would go nowhere.
function focusEditorWithPage(view) {
  const focusEditor = () => {
    if (!document.activeElement || document.activeElement === document.body) {
      view.focus();
    }
  };
  window.addEventListener('focus', focusEditor);
  if (document.hasFocus()) {
    focusEditor();
  }
}

// Links in the editor or in logs must open in the user's browser; the C side
// refuses the navigation and hands http(s) URIs to the desktop.
async function main() {
  installWorkletMap();
  installSoundFetchGuard();
  installFrameStarts();
  const hello = await request({ type: 'hello', version: PROTOCOL_VERSION });
  const initialCode = typeof hello?.code === 'string' ? hello.code : '';
  capFrameRate(Number(hello?.drawFps ?? 60));
  levelsWanted = hello?.levels !== false;
  levelsAlternateS = Number(hello?.levelsAlternateSeconds ?? 0) || 0;
  setLimiter(hello?.limiter !== false);
  const prebaked = prebake();

  mirror = new StrudelMirror({
    root: document.getElementById('editor'),
    initialCode,
    defaultOutput: output,
    getTime: getAudioContextCurrentTime,
    transpiler,
    setInterval: workerTimers.setInterval,
    clearInterval: workerTimers.clearInterval,
    pattern: silence,
    drawTime: [-2, 2],
    drawContext: draw.getDrawContext(),
    autodraw: false,
    bgFill: false,
    prebake: () => prebaked,
    beforeEval,
    onToggle: watchCycles,
    onUpdateState: (state) => {
      if (state.code !== undefined && mirror && state.code === mirror.code) {
        onCodeChanged();
      }
    },
    onEvalError: (error) => post(describeError(error)),
  });
  // Upstream throws "no code to evaluate" for an empty editor, into a
  // console nobody sees: the app says it instead (Ctrl+Enter and Play).
  const upstreamEvaluate = mirror.evaluate.bind(mirror);
  mirror.evaluate = async (...args) => {
    if (!mirror.code?.trim()) {
      post({ type: 'nothing-to-play' });
      return undefined;
    }
    return upstreamEvaluate(...args);
  };
  swapper = new Swapper({
    mirror,
    post,
    getTime: getAudioContextCurrentTime,
    preload: pageOptions.preload
      ? (pattern, from) => preloadPattern(pattern, from, { _cps: scheduler().cps })
      : undefined,
  });
  swapper.install();
  swapper.setStrings(hello?.strings);
  focusEditorWithPage(mirror.editor);
  await prebaked;
  // The user's own samples, after the library (the hello's userSamples).
  await settle('your samples', registerUserSamples(webaudio, hello?.userSamples ?? []));
  bridge.ready = true;
  post({ type: 'ready', version: PROTOCOL_VERSION, strudel: __STRUDEL_VERSIONS__ });
  watchSounds(soundMap, (sounds) => post({ type: 'sounds', sounds }));
}

main().catch((error) => post({ type: 'log', level: 'error', message: `[strudel-jam] start-up failed: ${error?.message}` }));
