// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The master safety limiter (Settings → Sounds, "master-limiter").
//
// superdough mixes every orbit into one ChannelMergerNode, then its master
// gain (SuperdoughOutput.destinationGain, which voice ducking also rides),
// then the AudioContext's destination (superdoughoutput.mjs). Music that
// sums above full scale is clipped there by the sound server: the demo peaks
// at 0 dBFS, the tutorial's drums clip hundreds of samples in a few seconds.
//
// On, the master gain goes through a limiter instead of straight to the
// destination: a DynamicsCompressorNode set as a limiter (threshold −3 dBFS,
// ratio 20, no knee, 2 ms attack; WebKit's compressor also looks 6 ms
// ahead), its automatic make-up gain taken back out so that quiet music
// keeps its level, then a WaveShaperNode that holds every sample within the
// −1 dBFS ceiling (the brick wall for whatever the compressor lets through
// in its attack). No sample reaches full scale.
// Off, the master gain goes straight to the destination again: superdough's
// output exactly as on the Strudel website. A render (render.mjs) goes
// through the same limiter as the live page when it is on (limitRender).
//
// Nothing in the npm packages is changed: only this page's wiring of the
// instance superdough made (its initializeAudio() is wrapped on the
// instance, so a reset of superdough's output is wired the same way). The
// setting is live: switching it while music plays rewires at once.

export const CEILING_DB = -1;
const THRESHOLD_DB = -3;
const RATIO = 20;
const ATTACK_S = 0.002;
const RELEASE_S = 0.15;
const CURVE_POINTS = 4097;

let enabled = true;
let output = null; // superdough's SuperdoughOutput, once audio exists
const listeners = new Set(); // (node) => void, after each rewiring
const chains = new WeakMap(); // AudioContext -> {input, compressor, makeup, clip}

const dbToGain = (db) => Math.pow(10, db / 20);

// The Web Audio specification's make-up gain of a compressor with no knee:
// (1 / the curve's gain at full scale) ^ 0.6, in dB.
function makeupDb(threshold, ratio) {
  const atFullScale = threshold + (0 - threshold) / ratio;
  return -atFullScale * 0.6;
}

function clipCurve(ceiling) {
  const curve = new Float32Array(CURVE_POINTS);
  for (let i = 0; i < CURVE_POINTS; i++) {
    const x = (i * 2) / (CURVE_POINTS - 1) - 1;
    curve[i] = Math.max(-ceiling, Math.min(ceiling, x));
  }
  return curve;
}

function chainFor(ac) {
  let chain = chains.get(ac);
  if (chain) {
    return chain;
  }
  const channels = ac.destination.channelCount;
  const clip = new WaveShaperNode(ac, { curve: clipCurve(dbToGain(CEILING_DB)), oversample: 'none' });
  clip.connect(ac.destination);
  // A compressor takes at most two channels: with more outputs, the
  // ceiling alone keeps them under full scale.
  if (channels <= 2) {
    const compressor = new DynamicsCompressorNode(ac, {
      threshold: THRESHOLD_DB,
      knee: 0,
      ratio: RATIO,
      attack: ATTACK_S,
      release: RELEASE_S,
      channelCount: channels,
      channelCountMode: 'explicit',
    });
    const makeup = new GainNode(ac, { gain: dbToGain(-makeupDb(THRESHOLD_DB, RATIO)) });
    compressor.connect(makeup);
    makeup.connect(clip);
    chain = { input: compressor, compressor, makeup, clip };
  } else {
    chain = { input: clip, compressor: null, makeup: null, clip };
  }
  chains.set(ac, chain);
  return chain;
}

// Sends superdough's master gain through the limiter or straight out.
function route() {
  const gain = output?.destinationGain;
  if (!gain) {
    return;
  }
  const ac = output.audioContext;
  gain.disconnect();
  gain.connect(enabled ? chainFor(ac).input : ac.destination);
  const last = finalNode();
  for (const listener of listeners) {
    listener(last);
  }
}

// The last node before the destination: what the listener hears (the
// limiter's ceiling when on, superdough's master gain when off), or null
// before audio exists.
export function finalNode() {
  const gain = output?.destinationGain;
  if (!gain) {
    return null;
  }
  return enabled ? chainFor(output.audioContext).clip : gain;
}

// Calls `listener(node)` with finalNode() whenever the wiring changes (the
// setting switched, superdough's output reset), so that a tap on the
// output (a level meter) follows what is heard. Answers a function that
// removes it.
export function onOutputRouted(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Takes over the wiring of superdough's master output (once audio exists).
export function installLimiter(controller) {
  const out = controller?.output;
  if (!out) {
    return;
  }
  if (!out.sjLimiterInstalled) {
    const initializeAudio = out.initializeAudio;
    out.initializeAudio = function (...args) {
      const value = initializeAudio.apply(this, args);
      if (output === this) {
        route();
      }
      return value;
    };
    out.sjLimiterInstalled = true;
  }
  output = out;
  route();
}

// A render's OfflineAudioContext (render.mjs): superdough's master gain of
// that context's controller through the same limiter as the live page's when
// it is on, so that the file is what is heard (without it a render of the
// tutorial's drums peaked 2 dB over the live take, bench/README.md, issue
// 33). The live page's own wiring is left alone. Answers whether it did.
export function limitRender(controller) {
  const out = controller?.output;
  const gain = out?.destinationGain;
  if (!enabled || !gain) {
    return false;
  }
  gain.disconnect();
  gain.connect(chainFor(out.audioContext).input);
  return true;
}

// Turns the limiter on or off, at once if audio runs. Answers the state.
export function setLimiter(on) {
  enabled = Boolean(on);
  route();
  return limiterState();
}

// {enabled, installed, reductionDb}: the compressor's gain reduction now
// (0 when off or not limiting).
export function limiterState() {
  const chain = output ? chains.get(output.audioContext) : undefined;
  return {
    enabled,
    installed: Boolean(output),
    ceilingDb: CEILING_DB,
    reductionDb: enabled && chain?.compressor ? chain.compressor.reduction : 0,
  };
}
