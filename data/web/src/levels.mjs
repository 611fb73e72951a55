// SPDX-License-Identifier: AGPL-3.0-or-later
//
// What the app hears of its own output (issue 29). Native Web Audio nodes
// tap the last node before the destination (the master limiter's ceiling
// when it is on, superdough's master gain when it is off: limiter.mjs's
// finalNode(), tapped again whenever onOutputRouted() says the wiring
// changed), so the figures are what the listener hears: AnalyserNodes on
// its two channels and on its mono mix (whose spectrum gives the bands); and an
// AnalyserNode on each orbit's output (the `$:` layers when they play on
// their own orbits; layers sharing an orbit are heard together). No script
// runs on the audio thread (an AudioWorklet cost the web process several %
// of a core, bench/levels): four times a second (twice while no one sees
// the meter) the samples played since the last tick are read and summed
// here in one pass (RMS, peak, full-scale samples,
// bands, onsets), mapped to the scheduler's cycles from the audio time of
// the notes it triggers, and one small `levels` message goes to the app:
// the level of the last quarter second (for the meter) and the figures of
// every cycle that finished meanwhile (for `listen` and for checking that a
// change was heard). The app checks every field (sj-page-message.c).

import { post } from './post.mjs';

const POST_MS = 250;
// While no one can see the meter (the page hidden: the window minimized or
// on another workspace; or the window not focused), every other tick is
// skipped: a read every 500 ms still finds every sample played since the
// last one in the analysers (READ_FRAMES, 743 ms), so `listen` and the
// verifier get the same figures, a quarter second later.
const SLOW_EVERY = 2;
const TICKS_KEPT = 64;
const MAX_ORBITS = 8;
const ORBIT_WINDOW = 8192; // samples of each orbit read a tick (186 ms at 44.1 kHz)
const MAX_CYCLES = 8;
const FLOOR_DB = -120;
// Each analyser keeps the last READ_FRAMES samples (743 ms at 44.1 kHz, the
// most it can: three ticks, for a main thread that is late): every sample
// is read once.
const READ_FRAMES = 32768;
const CHUNK_FRAMES = 2048; // the sums go to a cycle this many at a time
// The spectrum for the bands: 4096 samples (93 ms at 44.1 kHz, 10.8 Hz a
// bin, the 250 Hz line within half a bin), a snapshot of each tick: a
// longer one cost the main thread more than its precision was worth.
const SPECTRUM_FRAMES = 4096;
const LOW_HZ = 250; // the low band ends here
const HIGH_HZ = 4000; // and the high one starts here
const BLOCK = 128; // onsets are looked for a render quantum at a time
const ONSET_FLOOR = 1e-5; // -50 dBFS: quieter blocks never start an onset
const ONSET_RATIO = 4; // 6 dB over the background
const ONSET_GAP_S = 0.05; // two onsets are at least 50 ms apart (more than a chunk)

function db(meanSquare) {
  if (!(meanSquare > 0)) {
    return FLOOR_DB;
  }
  return Math.max(FLOOR_DB, Math.min(24, 10 * Math.log10(meanSquare)));
}

function peakDb(peak) {
  return peak > 0 ? Math.max(FLOOR_DB, Math.min(24, 20 * Math.log10(peak))) : FLOOR_DB;
}

const round = (x) => Math.round(x * 10) / 10;

function emptySums() {
  return { sumSq: 0, n: 0, frames: 0, seconds: 0, peak: 0, clipped: 0, lowSq: 0, midSq: 0, highSq: 0, onsets: 0 };
}

// A chunk of samples: the master's (all fields) or an orbit's (the bands
// and onsets left at 0). One shape for both, so that addSums() stays
// monomorphic; each reader reuses its own (no allocation a read).
function emptyChunk() {
  return { t: 0, d: 0, n: 0, frames: 0, sumSq: 0, monoSq: 0, peak: 0, clipped: 0, lowSq: 0, midSq: 0, highSq: 0, onsets: 0, onsetAt: -1 };
}

function resetChunk(chunk, t) {
  chunk.t = t;
  chunk.d = 0;
  chunk.n = 0;
  chunk.frames = 0;
  chunk.sumSq = 0;
  chunk.monoSq = 0;
  chunk.peak = 0;
  chunk.clipped = 0;
  chunk.lowSq = 0;
  chunk.midSq = 0;
  chunk.highSq = 0;
  chunk.onsets = 0;
  chunk.onsetAt = -1;
}

function addSums(into, chunk) {
  into.sumSq += chunk.sumSq;
  into.n += chunk.n;
  into.frames += chunk.frames;
  into.seconds += chunk.d;
  if (chunk.peak > into.peak) into.peak = chunk.peak;
  into.clipped += chunk.clipped;
  into.lowSq += chunk.lowSq;
  into.midSq += chunk.midSq;
  into.highSq += chunk.highSq;
  into.onsets += chunk.onsets;
}

export class Levels {
  // getAudioContext(), getController() (superdough's audio controller) and
  // getScheduler() (Strudel's Cyclist, or undefined) are read each time:
  // superdough may rebuild its output, the scheduler comes with the editor.
  // getMasterNode() answers the last node before the destination (or null
  // before audio exists); onOutputRouted(listener) calls back when it changes.
  constructor({ getAudioContext, getController, getScheduler, getMasterNode, onOutputRouted, setInterval, clearInterval }) {
    this.getAudioContext = getAudioContext;
    this.getMasterNode = getMasterNode ?? (() => null);
    // A rewiring disconnects superdough's master gain from everything, the
    // tap included: tap again, even when the node is the same.
    onOutputRouted?.(() => {
      if (this.master) {
        this.untap(this.master);
        this.master = null;
      }
      if (this.timer) {
        this.connect();
      }
    });
    this.getController = getController;
    this.getScheduler = getScheduler;
    this.setInterval = setInterval;
    this.clearInterval = clearInterval;
    this.master = null; // { node, source }
    this.orbits = new Map(); // orbit number -> { node, source }
    this.anchor = null; // { cycle, time, cps } from the last triggered note
    this.now = emptySums();
    this.open = new Map(); // cycle -> { sums, orbits: Map, cps }
    this.finished = [];
    this.timer = 0;
    this.quietPosts = 0;
    this.onset = { background: 0, last: -1 };
    this.costMs = 0;
    this.tickMs = [];
    this.tickCount = 0;
    this.lostFrames = 0; // played while the main thread was too late to read them
    this.started = null;
    this.chunk = emptyChunk(); // the master's, reused
    this.orbitSums = emptyChunk(); // an orbit's, reused
    this.shares = new Float64Array(3); // the bands' shares of the last spectrum
    this.skipped = 0; // ticks skipped in a row while no one sees the meter
    this.slow = false;
  }

  // Whether no one sees the meter: the page hidden or its window not
  // focused (the figures stay whole, see SLOW_EVERY).
  unseen() {
    return typeof document !== 'undefined' && (document.visibilityState === 'hidden' || !document.hasFocus());
  }

  // Starts the taps and the ticks; settles, never throws.
  async start() {
    const ac = this.getAudioContext();
    if (!ac || typeof AnalyserNode === 'undefined') {
      return false;
    }
    this.connect();
    if (!this.timer) {
      this.timer = this.setInterval(() => this.tick(), POST_MS);
    }
    return true;
  }

  // Stops the ticks and removes every tap, as if never started (bench/levels
  // alternates start() and stop() in one page to weigh what the analysis
  // costs without the variance between launches).
  stop() {
    if (this.timer) {
      this.clearInterval(this.timer);
      this.timer = 0;
    }
    if (this.master) {
      this.untap(this.master);
      this.master = null;
    }
    for (const entry of this.orbits.values()) {
      this.untapOrbit(entry);
    }
    this.orbits.clear();
    this.open.clear();
    this.finished = [];
    this.now = emptySums();
    this.anchor = null;
  }

  // The audio time and cycle of a note the scheduler triggered: the map
  // from the audio clock to cycles, latency included.
  noteTrigger(hap, t, cps) {
    const cycle = hap?.whole?.begin?.valueOf();
    if (Number.isFinite(cycle) && Number.isFinite(t) && cps > 0) {
      this.anchor = { cycle, time: t, cps };
    }
  }

  cycleAt(time) {
    const s = this.getScheduler();
    if (!s?.started) {
      return null;
    }
    const a = this.anchor;
    if (a && a.cps === s.cps && Math.abs(time - a.time) < 16 / a.cps) {
      return a.cycle + (time - a.time) * a.cps;
    }
    // Nothing triggered lately (a silent pattern): the scheduler's clock,
    // and the latency it adds to every note.
    const ac = this.getAudioContext();
    return s.now() + (time - ac.currentTime - (s.latency ?? 0.1)) * s.cps;
  }

  // The master output, heard through native nodes only: its two channels
  // (for the RMS, the peak and the full-scale samples of each), each into
  // an AnalyserNode that keeps the last READ_FRAMES samples, and its mono
  // mix into one more whose spectrum gives the bands. Each tick reads the
  // samples that came since the one before (readMaster()). The bands were
  // four Butterworth biquads and three more analysers, which cost the audio
  // thread 2 % of a core (bench/levels): an analyser computes its FFT only
  // when read, on the main thread, four times a second.
  tap(source) {
    const ac = this.getAudioContext();
    const mono = { channelCount: 1, channelCountMode: 'explicit', channelInterpretation: 'speakers' };
    const splitter = new ChannelSplitterNode(ac, { numberOfOutputs: 2 });
    const left = new AnalyserNode(ac, { fftSize: READ_FRAMES, ...mono });
    const right = new AnalyserNode(ac, { fftSize: READ_FRAMES, ...mono });
    const spectrum = new AnalyserNode(ac, { fftSize: SPECTRUM_FRAMES, smoothingTimeConstant: 0, ...mono });
    source.connect(splitter);
    splitter.connect(left, 0);
    splitter.connect(right, 1);
    source.connect(spectrum);
    return {
      source,
      inputs: [splitter, spectrum],
      analysers: [left, right],
      spectrum,
      bins: new Float32Array(SPECTRUM_FRAMES / 2),
      data: [new Float32Array(READ_FRAMES), new Float32Array(READ_FRAMES)],
      lastTime: null,
    };
  }

  // The share of the mono mix's power in each band, from the spectrum of
  // its last SPECTRUM_FRAMES samples (Blackman-windowed by the analyser):
  // [low, mid, high], or zeros in silence. Multiplied by a chunk's mean
  // square, they give its bands in the units of its RMS.
  bandShares(m, sampleRate, shares) {
    const bins = m.bins;
    m.spectrum.getFloatFrequencyData(bins);
    const hz = sampleRate / SPECTRUM_FRAMES;
    const lowEnd = Math.min(bins.length, Math.ceil(LOW_HZ / hz));
    const highStart = Math.min(bins.length, Math.floor(HIGH_HZ / hz) + 1);
    let low = 0;
    let mid = 0;
    let high = 0;
    for (let i = 0; i < lowEnd; i++) {
      if (bins[i] > FLOOR_DB) low += 10 ** (bins[i] / 10);
    }
    for (let i = lowEnd; i < highStart; i++) {
      if (bins[i] > FLOOR_DB) mid += 10 ** (bins[i] / 10);
    }
    for (let i = highStart; i < bins.length; i++) {
      if (bins[i] > FLOOR_DB) high += 10 ** (bins[i] / 10);
    }
    const total = low + mid + high;
    shares[0] = total > 0 ? low / total : 0;
    shares[1] = total > 0 ? mid / total : 0;
    shares[2] = total > 0 ? high / total : 0;
  }

  untap(entry) {
    for (const node of entry.inputs) {
      try {
        entry.source.disconnect(node);
      } catch {
        // superdough already disconnected its node.
      }
    }
  }

  // The samples the master played since the last read, in chunks of
  // CHUNK_FRAMES: their sums go to the cycles they played in.
  readMaster() {
    const m = this.master;
    const ac = this.getAudioContext();
    if (!m || !ac) {
      return;
    }
    const now = ac.currentTime;
    const sr = ac.sampleRate;
    if (m.lastTime === null) {
      m.lastTime = now;
      return;
    }
    // What came since the last read; more than the analysers keep is lost.
    const due = Math.max(0, Math.round((now - m.lastTime) * sr));
    const frames = Math.min(READ_FRAMES, due);
    this.lostFrames += due - frames;
    m.lastTime = now;
    if (frames === 0) {
      return;
    }
    m.analysers[0].getFloatTimeDomainData(m.data[0]);
    m.analysers[1].getFloatTimeDomainData(m.data[1]);
    const left = m.data[0];
    const right = m.data[1];
    const shares = this.shares;
    this.bandShares(m, sr, shares);
    // One pass over the new samples: the sums of both channels, the peak,
    // the full-scale samples and the mono mix's energy a block (onsets).
    const onset = this.onset;
    const chunk = this.chunk;
    let open = false;
    let background = onset.background;
    let last = onset.last;
    for (let i = READ_FRAMES - frames; i < READ_FRAMES; i += BLOCK) {
      const end = Math.min(READ_FRAMES, i + BLOCK);
      const t = now - (READ_FRAMES - i) / sr;
      if (!open) {
        resetChunk(chunk, t);
        open = true;
      }
      let blockSq = 0;
      let sumSq = 0;
      let peak = chunk.peak;
      let clipped = 0;
      for (let j = i; j < end; j++) {
        const l = left[j];
        const r = right[j];
        const al = l < 0 ? -l : l;
        const ar = r < 0 ? -r : r;
        sumSq += l * l + r * r;
        if (al > peak) peak = al;
        if (ar > peak) peak = ar;
        if (al >= 1) clipped++;
        if (ar >= 1) clipped++;
        const x = (l + r) * 0.5;
        blockSq += x * x;
      }
      const n = end - i;
      chunk.sumSq += sumSq;
      chunk.peak = peak;
      chunk.clipped += clipped;
      chunk.monoSq += blockSq;
      chunk.n += 2 * n;
      chunk.frames += n;
      chunk.d += n / sr;
      // An onset: a block's energy 6 dB over its recent background.
      const energy = blockSq / n;
      if (energy > ONSET_FLOOR && energy > ONSET_RATIO * background && t + n / sr - last > ONSET_GAP_S) {
        chunk.onsets++;
        chunk.onsetAt = t + n / sr;
        last = chunk.onsetAt;
      }
      background = 0.7 * background + 0.3 * energy;
      if (chunk.frames >= CHUNK_FRAMES) {
        this.flushChunk(chunk, shares);
        open = false;
      }
    }
    onset.background = background;
    onset.last = last;
    if (open) {
      this.flushChunk(chunk, shares);
    }
  }

  flushChunk(chunk, shares) {
    chunk.lowSq = shares[0] * chunk.monoSq;
    chunk.midSq = shares[1] * chunk.monoSq;
    chunk.highSq = shares[2] * chunk.monoSq;
    this.masterChunk(chunk);
  }

  connect() {
    const controller = this.getController();
    const master = this.getMasterNode() ?? controller?.output?.destinationGain;
    if (master && this.master?.source !== master) {
      if (this.master) {
        this.untap(this.master);
      }
      this.master = this.tap(master);
    }
    for (const [key, orbit] of Object.entries(controller?.nodes ?? {})) {
      const number = Number(key);
      const source = orbit?.output;
      if (!source || !Number.isInteger(number)) {
        continue;
      }
      const known = this.orbits.get(number);
      if (known?.source === source) {
        continue;
      }
      if (known) {
        this.untapOrbit(known);
        this.orbits.delete(number);
      }
      if (this.orbits.size < MAX_ORBITS) {
        this.orbits.set(number, this.tapOrbit(source));
      }
    }
  }

  // An orbit is only heard for its level: a native AnalyserNode, read on
  // each tick, costs the audio thread no script (an AudioWorklet a layer
  // cost the web process several % of a core, bench/levels).
  tapOrbit(source) {
    const node = new AnalyserNode(this.getAudioContext(), { fftSize: ORBIT_WINDOW });
    source.connect(node);
    return { node, source, data: new Float32Array(ORBIT_WINDOW) };
  }

  untapOrbit(entry) {
    try {
      entry.source.disconnect(entry.node);
    } catch {
      // superdough already disconnected its node.
    }
  }

  // The last ORBIT_WINDOW samples of each orbit, in the cycle they played in.
  readOrbits() {
    const ac = this.getAudioContext();
    const seconds = ORBIT_WINDOW / ac.sampleRate;
    for (const [number, entry] of this.orbits) {
      const at = this.record(ac.currentTime - seconds / 2);
      if (!at) {
        return;
      }
      const data = entry.data;
      entry.node.getFloatTimeDomainData(data);
      let sumSq = 0;
      let peak = 0;
      let clipped = 0;
      for (let i = 0; i < data.length; i++) {
        const x = data[i];
        const a = x < 0 ? -x : x;
        sumSq += x * x;
        if (a > peak) peak = a;
        if (a >= 1) clipped++;
      }
      const chunk = this.orbitSums;
      resetChunk(chunk, 0);
      chunk.sumSq = sumSq;
      chunk.n = data.length;
      chunk.frames = data.length;
      chunk.d = seconds;
      chunk.peak = peak;
      chunk.clipped = clipped;
      this.orbitChunk(number, at, chunk);
    }
  }

  // The cycle a moment of audio time belongs to, and its record.
  record(time) {
    const cycle = this.cycleAt(time);
    if (cycle === null || !Number.isFinite(cycle)) {
      return null;
    }
    const index = Math.floor(cycle);
    let record = this.open.get(index);
    if (!record) {
      record = { sums: emptySums(), orbits: new Map(), cps: this.getScheduler()?.cps ?? 0.5 };
      this.open.set(index, record);
    }
    return { index, record };
  }

  masterChunk(chunk) {
    addSums(this.now, chunk);
    const at = this.record(chunk.t + chunk.d / 2);
    if (!at) {
      return;
    }
    addSums(at.record.sums, chunk);
    // A chunk holds at most one onset, counted in the cycle where it
    // happened: a note on the boundary starts the next cycle, even when
    // most of its chunk is still in the one before.
    if (chunk.onsets > 0 && Number.isFinite(chunk.onsetAt)) {
      const onset = this.record(chunk.onsetAt);
      if (onset && onset.index !== at.index) {
        at.record.sums.onsets -= chunk.onsets;
        onset.record.sums.onsets += chunk.onsets;
      }
    }
    // A chunk of a later cycle closes the earlier ones.
    for (const [index, record] of this.open) {
      if (index < at.index) {
        this.open.delete(index);
        this.finish(index, record);
      }
    }
  }

  orbitChunk(number, at, chunk) {
    let sums = at.record.orbits.get(number);
    if (!sums) {
      sums = emptySums();
      at.record.orbits.set(number, sums);
    }
    addSums(sums, chunk);
  }

  finish(index, record) {
    const { sums } = record;
    // The cycle the music started or stopped in is only partly heard.
    if (sums.seconds * record.cps < 0.5) {
      return;
    }
    const frames = Math.max(1, sums.frames);
    this.finished.push({
      cycle: index,
      cps: record.cps,
      rmsDb: round(db(sums.sumSq / Math.max(1, sums.n))),
      peakDb: round(peakDb(sums.peak)),
      clipped: sums.clipped,
      low: round(db(sums.lowSq / frames)),
      mid: round(db(sums.midSq / frames)),
      high: round(db(sums.highSq / frames)),
      onsets: sums.onsets,
      layers: [...record.orbits.entries()].slice(0, MAX_ORBITS).map(([orbit, o]) => ({
        orbit,
        rmsDb: round(db(o.sumSq / Math.max(1, o.n))),
        peakDb: round(peakDb(o.peak)),
        clipped: o.clipped,
      })),
    });
    if (this.finished.length > MAX_CYCLES) {
      this.finished.splice(0, this.finished.length - MAX_CYCLES);
    }
  }

  // What the analysis has cost this page's main thread: {ms, seconds,
  // medianTickMs, ticksPerSecond, lostFrames} since it started (tests/test-hear.c prints it; the audio thread only runs
  // native nodes).
  cost() {
    const sorted = [...this.tickMs].sort((a, b) => a - b);
    return {
      ms: this.costMs,
      seconds: this.started ? (performance.now() - this.started) / 1000 : 0,
      // A tick's time, the median of the last ones: what a tick costs when
      // the thread is not preempted in the middle of it (wall-clock time).
      medianTickMs: sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0,
      ticksPerSecond: 1000 / POST_MS / (this.slow ? SLOW_EVERY : 1),
      slow: this.slow,
      lostFrames: this.lostFrames,
    };
  }

  tick() {
    this.slow = this.unseen();
    if (this.slow && ++this.skipped < SLOW_EVERY) {
      return;
    }
    this.skipped = 0;
    const begin = performance.now();
    this.started ??= begin;
    try {
      this.work();
    } finally {
      const ms = performance.now() - begin;
      this.costMs += ms;
      this.tickMs[this.tickCount++ % TICKS_KEPT] = ms;
    }
  }

  work() {
    this.connect();
    this.readMaster();
    this.readOrbits();
    const started = Boolean(this.getScheduler()?.started);
    if (!started) {
      this.open.clear();
      this.anchor = null;
    }
    const now = this.now;
    this.now = emptySums();
    const rms = db(now.sumSq / Math.max(1, now.n));
    // Quiet and stopped: a few reports say so, then the page stays still.
    // While the music plays, silent or not, the app hears that it does.
    this.quietPosts = !started && rms <= -100 && this.finished.length === 0 ? this.quietPosts + 1 : 0;
    if (this.quietPosts > 2) {
      return;
    }
    post({
      type: 'levels',
      now: { rmsDb: round(rms), peakDb: round(peakDb(now.peak)), clipped: now.clipped },
      cycles: this.finished,
    });
    this.finished = [];
  }
}
