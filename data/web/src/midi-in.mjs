// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The control changes that reach the app's MIDI input (the C side reads
// them from its JACK port and hands them over with
// window.sjBridge.midiControls()), as midin()'s references read them
// (outputs.mjs). Kept out of the REPL's scope: only midin is the code's.

const byCc = new Map();
const byCcAndChannel = new Map();

// [[channel (1–16), control number, value (0–127)], …]
export function receiveMidiControls(list) {
  if (!Array.isArray(list)) return 0;
  let n = 0;
  for (const entry of list) {
    if (!Array.isArray(entry) || entry.length !== 3) continue;
    const [chan, cc, value] = entry.map(Number);
    if (![chan, cc, value].every(Number.isInteger)) continue;
    byCc.set(cc, value / 127);
    byCcAndChannel.set(`${cc}:${chan}`, value / 127);
    n++;
  }
  return n;
}

export function controlValue(cc, chan) {
  return (chan === undefined ? byCc.get(cc) : byCcAndChannel.get(`${cc}:${chan}`)) ?? 0;
}
