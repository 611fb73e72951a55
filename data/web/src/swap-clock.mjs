// SPDX-License-Identifier: AGPL-3.0-or-later
//
// A quantized swap on Strudel's scheduler clock (Cyclist in @strudel/core):
// which cycle boundary B it lands on, the audio time at which a cycle
// sounds, and a captured tempo applied at B so that B keeps its time. Plain
// functions over the scheduler instance, for the Swapper (swap.mjs); they
// write only the fields Cyclist's own setCps writes.

import { Fraction } from '@strudel/core';
import { BEATS_PER_CYCLE } from './countdown.mjs';

export function isPositiveNumber(value) {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

// The boundary a swap asked for with `quantize` lands on, as an exact fraction.
export function cycleBoundary(scheduler, { quantize, bars, barCycles, beatsPerCycle = BEATS_PER_CYCLE }) {
  // Strudel turns each span's float bounds into fractions; the last span
  // ended exactly at Fraction(lastEnd) (exclusive), so every onset from
  // there on is still unplayed: the first whole cycle at or after it is
  // the earliest exact boundary.
  const end = Fraction(scheduler.lastEnd);
  if (quantize === 'next_beat') {
    // The first beat at or after it, as an exact fraction of a cycle.
    const perCycle = Fraction(beatsPerCycle);
    return end.mul(perCycle).ceil().div(perCycle);
  }
  const next = end.ceil();
  if (quantize === 'next_cycle') {
    return next;
  }
  const bar = Fraction(barCycles);
  const nextBar = next.div(bar).ceil().mul(bar);
  return quantize === 'bars' ? nextBar.add(bar.mul(bars)) : nextBar;
}

// Cyclist maps cycles to seconds with an anchor set on the tick after a
// tempo change: cycle c sounds at (c - nc) / cps + sec + latency, where nc
// and sec (num_cycles_at_cps_change, seconds_at_cps_change) are the end of
// the last span and the tick's phase, and each tick n after the anchor
// queries up to nc + n * duration * cps. Its own setCps therefore moves
// the change to the next tick, up to one tick (50 ms) off.
//
// Here the anchor is chosen so that cycle B keeps the time tB the old tempo
// gave it, and sits on the tick grid Cyclist counts on: the previous tick's
// phase, two ticks counted. The span queried now (it starts at B: the one
// before was cut there) then runs to where the new tempo puts the end of
// this tick, and later ticks continue from the same anchor. New events are
// therefore placed exactly: tB + (onset - B) / cps, to floating point
// precision. Tick phases are rounded to 0.1 ms by the clock, which only
// decides which tick schedules an event, not when it sounds.
//
// `setCps` is the scheduler's own setCps (not the Swapper's capturing one).
export function applyTempo(scheduler, swap, exact, begin, setCps) {
  const s = scheduler;
  const cps = Number(swap.cps);
  if (!isPositiveNumber(cps)) {
    // Whatever Strudel does with such a value, it does it here.
    setCps(swap.cps);
    return;
  }
  const duration = s.clock.duration;
  const latency = s.latency;
  const sec = s.lastTick - duration;
  let anchorCycle;
  if (exact) {
    const tB = (swap.atNumber - s.num_cycles_at_cps_change) / s.cps + s.seconds_at_cps_change + latency;
    anchorCycle = swap.atNumber - (tB - latency - sec) * cps;
    swap.appliedAtTime = tB;
  } else {
    // The scheduler skipped past B (a tick came too late, which Strudel
    // answers by not playing it): continue from where it is.
    anchorCycle = begin - duration * cps;
  }
  s.cps = cps;
  s.seconds_at_cps_change = sec;
  s.num_cycles_at_cps_change = anchorCycle;
  s.num_ticks_since_cps_change = 2;
  s.lastEnd = anchorCycle + 2 * duration * cps;
}

// The audio time at which cycle `cycle` sounds with the current tempo
// (`getTime`: the audio clock, for a scheduler with no anchor yet).
export function timeOfCycle(scheduler, cycle, getTime) {
  const s = scheduler;
  const t = (cycle - s.num_cycles_at_cps_change) / s.cps + s.seconds_at_cps_change + s.latency;
  return Number.isFinite(t) ? t : getTime() + (cycle - s.now()) / s.cps;
}
