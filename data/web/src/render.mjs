// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Render to a file (issue 33): the code, or each of its `$:` layers, through
// upstream's renderPatternAudio (@strudel/webaudio), which renders in an
// OfflineAudioContext and hands the WAV to a browser download.
//
// This only ever runs in the app's second, hidden page (src/web/sj-renderer.c),
// never in the one that plays: renderPatternAudio closes the page's
// AudioContext. Upstream's code is called as published; around the call:
//
//  - the WAV blob is taken where upstream makes its object URL, and the
//    download it would start is not clicked. The C side then pulls the file
//    in bounded pieces (renderChunk, base64, at most CHUNK_BYTES a call) and
//    writes it itself: no download machinery, no race with upstream revoking
//    the blob's URL right after its click, and what crosses to C per call
//    stays small whatever the file's length;
//  - the page's AudioContext is never created for a render: upstream closes
//    whatever getAudioContext() gives, and a real one would open an output
//    stream for nothing, so it is handed a stand-in it can close;
//  - the output goes through the live page's master limiter when it is on
//    (limiter.mjs), as the live output does: the file is what is heard.
//    Each stem goes through one of its own, so that it keeps the mix's
//    timing (the limiter looks 6 ms ahead) and, where nothing is limited,
//    the stems still sum to the mix;
//  - progress: the OfflineAudioContext upstream makes is seen as it is
//    constructed, and suspends itself at each tenth of its length to say so;
//  - stems: while the code is evaluated, every `$:` (or p()) layer's values
//    carry the layer's index, so that each stem is the whole pattern (with
//    all(), each() and solo applied as in the mix) filtered to one layer.

import { evaluateTimeline, parseTimeline, spliceTimeline } from './render-timeline.mjs';
import { limitRender } from './limiter.mjs';

const CHUNK_BYTES = 3 * 1024 * 1024;
const LAYER_KEY = 'sjRenderLayer';
// superdough's own default; upstream's initAudio turns `undefined` into NaN.
const MAX_POLYPHONY = 128;
const PROGRESS_STEPS = 10;
// Strudel logs what fails while it queries or plays (errorLogger) and goes
// on with silence: live, that keeps the music going; in a render, a file
// with holes would be a lie, so the first such error fails the render.
const LOG_KEY = 'strudel.log';
const LOGGED_ERROR = /^\[[\w.-]+\] error: /;

// The page's bundle holds a second copy of superdough's audio context
// module (its `r_`), which effectSend (room, delay) asks for its gain node
// and which upstream's setAudioContext never sets: left alone it makes a
// real AudioContext, and the send cannot connect to the offline one. While
// a render runs, `new AudioContext()` gives this stand-in instead, which
// forwards to the offline context of the render in progress (so that it
// stays right for the next stem's context too).
let currentContext = null;
const contextStandIn = new Proxy(
  {},
  {
    get(_, key) {
      const value = currentContext?.[key];
      return typeof value === 'function' ? value.bind(currentContext) : value;
    },
  },
);

let results = [];
let progress = { fraction: 0, phase: 'idle' };
let tagging = null; // {next, ids} while an evaluation for a render runs

// Called from the REPL's beforeEval, after the REPL has set Pattern.prototype.p
// for this evaluation: each layer's values are tagged with its index.
export function tagLayers(Pattern) {
  if (!tagging) {
    return;
  }
  const upstream = Pattern.prototype.p;
  const state = tagging;
  Pattern.prototype.p = function (id) {
    if (typeof id === 'string' && (id.startsWith('_') || id.endsWith('_'))) {
      return upstream.call(this, id);
    }
    const layer = state.ids.length;
    state.ids.push(String(id));
    const tagged = this.withValue((value) =>
      value !== null && typeof value === 'object' ? { ...value, [LAYER_KEY]: layer } : value,
    );
    return upstream.call(tagged, id);
  };
}

function encodeBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

// One renderPatternAudio call; resolves to the WAV's bytes.
async function renderOne(webaudio, pattern, cps, cycles, sampleRate, index, count) {
  let blob = null;
  let context = null;
  const createObjectURL = URL.createObjectURL;
  const click = HTMLAnchorElement.prototype.click;
  const OfflineContext = window.OfflineAudioContext;
  const marker = 'about:blank#sj-render';

  URL.createObjectURL = function (object) {
    if (object instanceof Blob && object.type === 'audio/wav') {
      blob = object;
      return marker;
    }
    return createObjectURL.call(URL, object);
  };
  HTMLAnchorElement.prototype.click = function () {
    if (this.href === marker) {
      return undefined;
    }
    return click.call(this);
  };
  // Only upstream's own context is watched: the constructor is put back at
  // once, so that the contexts superdough makes for itself (the reverb's
  // impulse response) are the browser's own.
  window.OfflineAudioContext = class extends OfflineContext {
    constructor(...args) {
      super(...args);
      window.OfflineAudioContext = OfflineContext;
      context = this;
      currentContext = this;
      const seconds = this.length / this.sampleRate;
      const startRendering = this.startRendering.bind(this);
      this.startRendering = () => {
        progress.phase = 'rendering';
        // What is heard: the live page's master limiter, when it is on.
        limitRender(webaudio.getSuperdoughAudioController?.());
        for (let step = 1; step < PROGRESS_STEPS; step++) {
          const at = (seconds * step) / PROGRESS_STEPS;
          this.suspend(at).then(
            () => {
              progress.fraction = (index + step / PROGRESS_STEPS) / count;
              return this.resume();
            },
            () => {},
          );
        }
        return startRendering();
      };
    }
  };
  const errors = [];
  const onLog = (event) => {
    const message = String(event.detail?.message ?? '');
    if (LOGGED_ERROR.test(message)) {
      errors.push(message.replace(LOGGED_ERROR, ''));
    }
  };
  document.addEventListener(LOG_KEY, onLog);
  const RealtimeContext = window.AudioContext;
  window.AudioContext = function () {
    return contextStandIn;
  };
  webaudio.setAudioContext({ close: async () => {} });
  progress.phase = 'preparing';
  try {
    await webaudio.renderPatternAudio(pattern, cps, 0, cycles, sampleRate, MAX_POLYPHONY, false, 'render');
  } finally {
    URL.createObjectURL = createObjectURL;
    HTMLAnchorElement.prototype.click = click;
    window.OfflineAudioContext = OfflineContext;
    window.AudioContext = RealtimeContext;
    document.removeEventListener(LOG_KEY, onLog);
  }
  if (errors.length > 0) {
    throw new Error(errors[0]);
  }
  if (!blob || !context) {
    throw new Error('the render produced no sound');
  }
  progress.fraction = (index + 1) / count;
  return new Uint8Array(await blob.arrayBuffer());
}

// {code, cycles, cps, sampleRate, mix, stems} -> {ok, cps, seconds,
// files: [{name, layer, bytes}]} or {ok: false, error}. The files stay here
// until renderChunk has taken them (or the next render replaces them).
// With `timeline` (a jam's changes, render-timeline.mjs), `cycles` is the
// number of cycles after each play's last change, and the answer also has
// the render's `cycles` and `changes` [{at, seconds, cps, origin}].
export async function renderCode(options, { webaudio, evaluateCaptured, setCps }) {
  const { code, cycles, sampleRate } = options;
  results = [];
  progress = { fraction: 0, phase: 'evaluating' };
  if (typeof options.timeline === 'string' && options.timeline) {
    return renderTimeline(options, { webaudio, evaluateCaptured, setCps });
  }
  if (typeof code !== 'string' || !code.trim()) {
    return { ok: false, error: 'there is no code to render' };
  }
  if (!(Number.isInteger(cycles) && cycles > 0)) {
    return { ok: false, error: 'the number of cycles must be a positive whole number' };
  }
  setCps(options.cps > 0 ? options.cps : 0.5);
  tagging = { ids: [] };
  let captured;
  try {
    captured = await evaluateCaptured(code);
  } finally {
    tagging.done = true;
  }
  const ids = tagging.ids;
  tagging = null;
  if (captured.error) {
    return { ok: false, error: captured.error };
  }
  const cps = Number(captured.cps) > 0 ? Number(captured.cps) : options.cps > 0 ? options.cps : 0.5;
  if (options.maxSeconds > 0 && cycles / cps > options.maxSeconds) {
    return {
      ok: false,
      code: 'too-long',
      error: `${cycles} cycles at ${cps} cycles a second last ${Math.round(cycles / cps)} seconds; a render may last at most ${options.maxSeconds}`,
    };
  }
  const jobs = [];
  if (options.mix) {
    jobs.push({ name: 'mix', layer: -1, pattern: captured.pattern });
  }
  if (options.stems) {
    if (ids.length === 0) {
      jobs.push({ name: 'all', layer: -1, pattern: captured.pattern });
    }
    ids.forEach((id, layer) => {
      jobs.push({
        name: id,
        layer,
        pattern: captured.pattern.filterValues((value) => value?.[LAYER_KEY] === layer),
      });
    });
  }
  return renderJobs(webaudio, jobs, cps, cycles, sampleRate);
}

async function renderJobs(webaudio, jobs, cps, cycles, sampleRate) {
  try {
    for (const [index, job] of jobs.entries()) {
      job.bytes = await renderOne(webaudio, job.pattern, cps, cycles, sampleRate, index, jobs.length);
    }
  } catch (error) {
    results = [];
    progress.phase = 'failed';
    return { ok: false, error: `the pattern failed while rendering: ${error?.message ?? error}` };
  }
  results = jobs.map(({ name, layer, bytes }) => ({ name, layer, bytes }));
  progress = { fraction: 1, phase: 'done' };
  return {
    ok: true,
    cps,
    cycles,
    seconds: cycles / cps,
    files: results.map(({ name, layer, bytes }) => ({ name, layer, bytes: bytes.length })),
  };
}

// A jam's changes as one pattern, one file (render-timeline.mjs).
async function renderTimeline(options, { webaudio, evaluateCaptured, setCps }) {
  const tail = options.cycles;
  if (!(Number.isInteger(tail) && tail >= 0)) {
    return { ok: false, error: 'the cycles after the last change must be a whole number' };
  }
  let timeline;
  let parts;
  try {
    timeline = parseTimeline(options.timeline);
    parts = await evaluateTimeline(timeline.changes, {
      evaluateCaptured,
      setCps,
      cps: options.cps > 0 ? options.cps : 0.5,
    });
  } catch (error) {
    progress.phase = 'failed';
    return { ok: false, error: String(error?.message ?? error) };
  }
  const { pattern, cps, cycles, changes } = spliceTimeline(parts, timeline.end);
  if (options.maxSeconds > 0 && cycles / cps > options.maxSeconds) {
    return {
      ok: false,
      code: 'too-long',
      error: `the jam lasts ${Math.round(cycles / cps)} seconds; a render may last at most ${options.maxSeconds}`,
    };
  }
  const answer = await renderJobs(webaudio, [{ name: 'mix', layer: -1, pattern }], cps, cycles, options.sampleRate);
  return answer.ok ? { ...answer, changes } : answer;
}

// Up to CHUNK_BYTES of file `index` from `offset`, base64; '' past the end.
export function renderChunk(index, offset) {
  const file = results[index];
  if (!file || !Number.isInteger(offset) || offset < 0) {
    throw new Error('no such rendered file');
  }
  return encodeBase64(file.bytes.subarray(offset, offset + CHUNK_BYTES));
}

export function renderProgress() {
  return { ...progress };
}

export function renderRelease() {
  results = [];
  return true;
}
