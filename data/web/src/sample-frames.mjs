// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Samples start on a sample frame (issue 33, render against live).
//
// superdough starts a sample's AudioBufferSourceNode at the note's time in
// seconds. Live, that time is the cycle's place on the AudioContext's clock
// plus the scheduler's latency: almost never a whole number of frames.
// WebKit starts such a source between two frames and reads the buffer
// between its samples, interpolating linearly: a two-tap filter that takes
// up to 1.5 dB off at 8 kHz and more above (a hi-hat loses most of its top
// octave). Every note of a take shares the same fraction when the notes
// fall on whole frames apart (1 cycle a second, quarter notes: 11,025
// frames), so the same code sounded up to 1.6 dB quieter in its highs from
// one play to the next, and unlike the render, whose notes at whole frames
// from 0 are read sample by sample (bench/README.md, issue 33).
//
// Here each buffer source's start is moved to the nearest frame of its
// context (at most half a frame: 11 µs at 44.1 kHz), live and in the
// render's OfflineAudioContext alike: a sample plays as recorded, the same
// in every take. Sources played faster or slower (speed, note) are still
// interpolated, by design. Nothing in the npm packages is changed.

export function installFrameStarts(target = globalThis) {
  const proto = target.AudioBufferSourceNode?.prototype;
  const start = proto?.start;
  if (typeof start !== 'function' || start.sjFrames) {
    return;
  }
  const onFrame = function (when, ...rest) {
    const rate = this.context?.sampleRate;
    if (typeof when === 'number' && Number.isFinite(when) && when > 0 && rate > 0) {
      when = Math.round(when * rate) / rate;
    }
    return start.call(this, when, ...rest);
  };
  onFrame.sjFrames = true;
  proto.start = onFrame;
}
