// SPDX-License-Identifier: AGPL-3.0-or-later
//
// What the scheduler played, recorded for tests and benchmarks (the
// bridge's recordEvents/takeRecordedEvents): the spans it queried and those
// it skipped, every event it triggered tagged with the pattern and swap it
// came from, and each swap as it landed. The Swapper (swap.mjs) reports
// queries and swaps; the page's output reports triggers.

import { Fraction } from '@strudel/core';

// A recording left on must not grow without bound.
const MAX_RECORDED_EVENTS = 200000;

// Only the fields that tell events apart: the rest of a hap's value may hold
// functions or cycles that JSON cannot carry.
function recordedValue(value) {
  if (value === null || typeof value !== 'object') {
    return { value: typeof value === 'number' || typeof value === 'string' ? value : String(value) };
  }
  const picked = {};
  for (const key of ['s', 'note', 'n', 'bank', 'gain']) {
    const field = value[key];
    if (typeof field === 'number' || typeof field === 'string') {
      picked[key] = field;
    }
  }
  return picked;
}

export class EventRecorder {
  constructor(scheduler) {
    this.scheduler = scheduler;
    this.recording = null;
    this.tags = new WeakMap(); // hap -> {gen, swap, source}, only while recording
  }

  start(on) {
    this.recording = on
      ? { events: [], gaps: [], swaps: [], begin: undefined, end: undefined, overflow: false }
      : null;
    return { recording: Boolean(on) };
  }

  // The scheduler queried [begin, end) of `record` (a tracked pattern) and
  // got `haps`.
  noteQuery(begin, end, haps, record, source) {
    const rec = this.recording;
    if (!rec) {
      return;
    }
    if (rec.end !== undefined && begin !== rec.end) {
      // A span the scheduler never asked for (a tick it dropped as too late).
      rec.gaps.push([rec.end, begin]);
    }
    rec.begin ??= begin;
    rec.end = end;
    for (const hap of haps) {
      if (hap.hasOnset()) {
        this.tags.set(hap, { gen: record.gen, swap: record.swap, source });
      }
    }
  }

  // A swap landed (`entry` as takeRecordedEvents lists it).
  noteSwap(entry) {
    this.recording?.swaps.push(entry);
  }

  // Called by the page's output for every event the scheduler triggers.
  noteTrigger(hap, t, cps) {
    const rec = this.recording;
    if (!rec || !hap.whole) {
      return;
    }
    if (rec.events.length >= MAX_RECORDED_EVENTS) {
      rec.overflow = true;
      return;
    }
    const tag = this.tags.get(hap);
    rec.events.push({
      onset: hap.whole.begin.valueOf(),
      onsetFraction: hap.whole.begin.toFraction(),
      t,
      cps,
      cycleTime: this.scheduler.now(),
      value: recordedValue(hap.value),
      source: tag?.source ?? 'unknown',
      gen: tag?.gen ?? null,
      swap: tag?.swap ?? null,
    });
  }

  // Everything recorded since the last take. `begin`/`end` is the span the
  // scheduler queried meanwhile (exact fractions alongside the floats);
  // `gaps` lists spans inside it that it skipped.
  take() {
    const rec = this.recording;
    if (!rec) {
      return { recording: false, events: [], gaps: [], swaps: [] };
    }
    const taken = {
      recording: true,
      begin: rec.begin ?? null,
      end: rec.end ?? null,
      beginFraction: rec.begin === undefined ? null : Fraction(rec.begin).toFraction(),
      endFraction: rec.end === undefined ? null : Fraction(rec.end).toFraction(),
      events: rec.events,
      gaps: rec.gaps.map(([b, e]) => [Fraction(b).toFraction(), Fraction(e).toFraction()]),
      swaps: rec.swaps,
      overflow: rec.overflow,
    };
    rec.events = [];
    rec.gaps = [];
    rec.swaps = [];
    rec.begin = rec.end;
    rec.overflow = false;
    return taken;
  }
}
