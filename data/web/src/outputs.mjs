// SPDX-License-Identifier: AGPL-3.0-or-later
//
// .osc() and .midi() for the page, sent natively by the C side
// (src/services/outputs/) instead of through a Node bridge (@strudel/osc)
// or Web MIDI, which WebKitGTK does not have (@strudel/midi).
//
// Both use Strudel's public onTrigger() hook, as the upstream packages do:
// a pattern with .osc() or .midi() no longer sounds through Web Audio, and
// each of its haps becomes one 'output' message to the C side, with the
// hap's target time on the audio clock and a fresh (audio clock, epoch)
// pair, from which the C side maps the time onto the system clock and sends
// the OSC bundle or the MIDI events at that time. Nothing is sent unless the
// code calls .osc() or .midi().
//
// The controls are computed as @strudel/osc and @strudel/midi compute them
// (the same fields and defaults), so that SuperDirt and synthesizers receive
// what they would from the Strudel website.

import { Pattern, isNote, isPattern, noteToMidi, parseNumeral, ref, register } from '@strudel/core';
import { getAudioContext } from '@strudel/webaudio';

import { controlValue } from './midi-in.mjs';
import { post } from './post.mjs';

// The audio clock against the page's epoch clock, sampled together. The C
// side filters these pairs (the audio clock advances in render quanta), so
// each message carries one.
function clockPair() {
  let audio = 0;
  try {
    audio = getAudioContext().currentTime;
  } catch {
    // No context yet: the C side drops the message as unmappable.
  }
  return { audio, epochMs: performance.timeOrigin + performance.now() };
}

// Numbers and strings travel as they are; anything else (objects, arrays,
// functions) as JSON text, as @strudel/osc does for `channels`.
function plain(controls) {
  const out = {};
  for (const [key, value] of Object.entries(controls)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
      out[key] = value;
    } else {
      try {
        out[key] = JSON.stringify(value);
      } catch {
        out[key] = String(value);
      }
    }
  }
  return out;
}

// The /dirt/play fields of a hap: cps, cycle and delta (its duration in
// seconds), then its value, with n and note made numbers and the bank folded
// into s, as @strudel/osc's parseControlsFromHap.
function oscControls(hap, cps) {
  hap.ensureObjectValue();
  const controls = Object.assign(
    {},
    { cps, cycle: hap.wholeOrPart().begin.valueOf(), delta: hap.duration.valueOf() / cps },
    hap.value,
  );
  if (controls.n) controls.n = parseNumeral(controls.n);
  if (controls.note !== undefined) {
    if (isNote(controls.note)) {
      controls.midinote = noteToMidi(controls.note, controls.octave || 3);
    } else {
      controls.note = parseNumeral(controls.note);
    }
  }
  if (controls.bank) controls.s = controls.bank + controls.s;
  if (controls.roomsize) controls.size = parseNumeral(controls.roomsize);
  if (controls.unit === 'c' && controls.speed != null) controls.speed = controls.speed / cps;
  return plain(controls);
}

function oscTrigger(hap, _currentTime, cps = 1, targetTime) {
  post({ type: 'output', kind: 'osc', time: targetTime, clock: clockPair(), controls: oscControls(hap, cps) });
}

/**
 * Sends each hap as an OSC message to SuperDirt (host and port in Settings,
 * or the oschost and oscport controls), timestamped so that it plays on time.
 *
 * @name osc
 * @memberof Pattern
 * @returns Pattern
 * @example
 * s("bd sd").osc()
 */
export const osc = register('osc', (pat) => pat.onTrigger(oscTrigger));

// The MIDI fields of a hap, with @strudel/midi's defaults: channel 1,
// velocity 0.9 scaled by gain, notes as MIDI numbers.
function midiControls(hap, cps, config) {
  hap.ensureObjectValue();
  const v = hap.value;
  const controls = {
    midichan: v.midichan ?? config.midichannel,
    velocity: (v.gain ?? config.gain) * (v.velocity ?? config.velocity),
  };
  if (v.note !== undefined && v.note !== null && v.note !== '' && !config.isController) {
    controls.note = typeof v.note === 'number' ? v.note : noteToMidi(v.note);
    // Note-offs a little early, as @strudel/midi does, so that a note never
    // overlaps the next one of the same pitch.
    controls.duration = Math.max(0, (hap.duration.valueOf() / cps) * 1000 - config.noteOffsetMs) / 1000;
  }
  for (const key of ['ccn', 'ccv', 'progNum', 'midibend', 'miditouch', 'midiport']) {
    if (v[key] !== undefined) controls[key] = v[key];
  }
  if (typeof v.midicmd === 'string') controls.midicmd = v.midicmd;
  // Upstream sends a start message with the first cycle's first hap.
  if (hap.whole && hap.whole.begin.valueOf() === 0) controls.start = true;
  return plain(controls);
}

/**
 * Sends each hap to a MIDI port named after the app (JACK MIDI, or the ALSA
 * sequencer): notes with midichan and velocity, ccn/ccv control changes,
 * progNum, midibend, miditouch and midicmd (clock, start, stop, continue).
 * The destination is picked in Settings or with any patchbay.
 *
 * @name midi
 * @memberof Pattern
 * @param {string} [port] the destination port (part of its name), or the one in Settings
 * @param {Object} [options] midichannel, velocity, gain, noteOffsetMs, isController
 * @returns Pattern
 * @example
 * note("c a f e").midi()
 */
Pattern.prototype.midi = function (midiport, options = {}) {
  if (isPattern(midiport)) {
    throw new Error(".midi() takes the port's name in quotes, not a pattern: .midi('port')");
  }
  if (midiport && typeof midiport === 'object') {
    const { port, ...rest } = midiport;
    options = { ...rest, ...options };
    midiport = port;
  }
  const config = {
    isController: false,
    noteOffsetMs: 10,
    midichannel: 1,
    velocity: 0.9,
    gain: 1,
    ...options,
  };
  return this.onTrigger((hap, _currentTime, cps = 1, targetTime) => {
    const controls = midiControls(hap, cps, config);
    if (midiport !== undefined && controls.midiport === undefined) controls.midiport = String(midiport);
    post({ type: 'output', kind: 'midi', time: targetTime, clock: clockPair(), controls });
  });
};

/**
 * MIDI input: control changes that reach the app's MIDI input port
 * ("Strudel Jam:midi_in" in JACK), connected to the port whose name
 * contains `input` (or with any patchbay). Returns a function cc(number,
 * channel?) giving a pattern of that control's latest value, from 0 to 1.
 *
 * @name midin
 * @param {string} input part of the name of the MIDI output to listen to
 * @example
 * const cc = await midin('IAC Driver Bus 1')
 * note("c a f e").lpf(cc(0).range(0, 1000)).lpq(cc(1).range(0, 10)).sound("sawtooth")
 */
export async function midin(input) {
  if (isPattern(input)) {
    throw new Error("midin() takes the device's name in quotes, not a pattern: midin('device')");
  }
  post({ type: 'midi-in', port: typeof input === 'string' ? input : '' });
  return (cc, chan) => ref(() => controlValue(cc, chan));
}
