// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The level analysis, on the audio thread (an AudioWorkletProcessor): what
// the app hears of its own output. It sums, over chunks of about 43 ms, the
// squares of the samples (RMS), the peak, the full-scale samples, the energy
// of three bands (low < 250 Hz, mid, high > 4 kHz, second-order Butterworth
// filters on the mono mix) and onsets (a jump of the block energy over its
// recent background: energy flux), and posts one small message per chunk.
// Nothing is allocated while it runs, and the page (levels.mjs) does the
// rest: it maps the chunks to the scheduler's cycles. The node passes no
// sound through; its output is silence, connected only so that it is pulled.

const CHUNK_FRAMES = 2048;
const ONSET_FLOOR = 1e-5;     // -50 dBFS: quieter blocks never start an onset
const ONSET_RATIO = 4;        // 6 dB over the background
const ONSET_GAP_S = 0.05;     // two onsets are at least 50 ms apart (more than a chunk)

function biquad(type, f, fs) {
  const w = (2 * Math.PI * f) / fs;
  const alpha = Math.sin(w) / (2 * Math.SQRT1_2);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  const b1 = type === 'low' ? 1 - cos : -(1 + cos);
  const b0 = type === 'low' ? (1 - cos) / 2 : (1 + cos) / 2;
  return { b0: b0 / a0, b1: b1 / a0, b2: b0 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0, x1: 0, x2: 0, y1: 0, y2: 0 };
}

function run(f, x) {
  const y = f.b0 * x + f.b1 * f.x1 + f.b2 * f.x2 - f.a1 * f.y1 - f.a2 * f.y2;
  f.x2 = f.x1;
  f.x1 = x;
  f.y2 = f.y1;
  f.y1 = y;
  return y;
}

class SjLevelsProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.low = biquad('low', 250, sampleRate);
    this.midHigh = biquad('high', 250, sampleRate);
    this.midLow = biquad('low', 4000, sampleRate);
    this.high = biquad('high', 4000, sampleRate);
    this.background = 0;
    this.lastOnset = -1;
    this.alive = true;
    this.port.onmessage = (event) => {
      if (event.data === 'stop') {
        this.alive = false;
      }
    };
    this.reset(currentFrame);
  }

  reset(frame) {
    this.start = frame;
    this.frames = 0;
    this.sumSq = 0;
    this.samples = 0;
    this.peak = 0;
    this.clipped = 0;
    this.lowSq = 0;
    this.midSq = 0;
    this.highSq = 0;
    this.onsets = 0;
    this.onsetAt = -1;
  }

  process(inputs) {
    const input = inputs[0];
    const channels = input?.length ?? 0;
    const n = channels > 0 ? input[0].length : 128;
    let blockSq = 0;

    for (let c = 0; c < channels; c++) {
      const data = input[c];
      for (let i = 0; i < n; i++) {
        const x = data[i];
        const a = x < 0 ? -x : x;
        this.sumSq += x * x;
        if (a > this.peak) this.peak = a;
        if (a >= 1) this.clipped++;
      }
      this.samples += n;
    }

    if (channels > 0) {
      const left = input[0];
      const right = channels > 1 ? input[1] : input[0];
      for (let i = 0; i < n; i++) {
        const m = (left[i] + right[i]) * 0.5;
        const lo = run(this.low, m);
        const mid = run(this.midLow, run(this.midHigh, m));
        const hi = run(this.high, m);
        this.lowSq += lo * lo;
        this.midSq += mid * mid;
        this.highSq += hi * hi;
        blockSq += m * m;
      }
      const energy = blockSq / n;
      const now = (currentFrame - this.lastOnset) / sampleRate;
      if (energy > ONSET_FLOOR && energy > ONSET_RATIO * this.background && (this.lastOnset < 0 || now > ONSET_GAP_S)) {
        this.onsets++;
        this.lastOnset = currentFrame;
        // The end of the block it was heard in: at or after the note's start.
        this.onsetAt = (currentFrame + n) / sampleRate;
      }
      this.background = 0.7 * this.background + 0.3 * energy;
    }

    this.frames += n;
    if (this.frames >= CHUNK_FRAMES) {
      this.port.postMessage({
        t: this.start / sampleRate,
        d: this.frames / sampleRate,
        n: this.samples,
        frames: this.frames,
        sumSq: this.sumSq,
        peak: this.peak,
        clipped: this.clipped,
        lowSq: this.lowSq,
        midSq: this.midSq,
        highSq: this.highSq,
        onsets: this.onsets,
        onsetAt: this.onsetAt,
      });
      this.reset(currentFrame + n);
    }
    return this.alive;
  }
}

registerProcessor('sj-levels', SjLevelsProcessor);
