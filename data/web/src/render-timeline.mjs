// SPDX-License-Identifier: AGPL-3.0-or-later
//
// "Your jam as it happened" (issue 33 item 4): a session's code changes,
// each from the cycle it landed at, rendered as ONE pattern through the same
// renderPatternAudio call as any render (render.mjs).
//
// The timeline comes from C (src/services/render/sj-render-timeline.c, which
// says how snapshots with no cycle, duplicates and play restarts are placed):
// {end, changes: [{code, at, origin}]}, `at` being where a change starts in
// the render and `origin` the cycle of its own play that sounded then.
//
// Each code is evaluated as the live page evaluates it (the REPL, through
// the Swapper's evaluateCaptured: transpiler, `$:` blocks, setcps captured),
// and the parts are spliced exactly as the live quantized swap splices the
// old and the new pattern (swap.mjs): a part keeps the events whose onset
// lies in [its start, the next change's start), so that no event is lost
// and none is played twice at a boundary:
//
//   stack(a.filterHaps(onset < B1), b.filterHaps(B1 <= onset < B2), …)
//
// Tempo: renderPatternAudio takes one tempo for the whole render. Cycles are
// the timeline's unit, and seconds follow the tempo each code sets (a code
// that sets none keeps the tempo before it, as live): the render runs at the
// first change's tempo R, and a part whose code plays at another tempo c is
// stretched by R / c in the render's cycles, from its start on. Live, a
// tempo change lands on the change's boundary and keeps that boundary's
// time (swap.mjs, applyTempo), which is what the stretch gives: the part's
// events fall at start + (onset - origin) / c seconds. Event lengths follow
// (superdough turns a hap's length into seconds with the render's tempo, and
// the stretched hap is R / c times as long). The render's length in cycles
// is therefore R times its length in seconds, and what the page answers.

import { Fraction, Pattern, silence, stack } from '@strudel/core';

function beginOf(hap) {
  return (hap.whole ?? hap.part).begin;
}

// The C side's JSON, checked: {end, changes: [{code, at, origin}]}.
export function parseTimeline(text) {
  let timeline;
  try {
    timeline = JSON.parse(text);
  } catch (error) {
    throw new Error(`the jam's timeline is not JSON: ${error.message}`);
  }
  const changes = timeline?.changes;
  if (!Array.isArray(changes) || changes.length === 0) {
    throw new Error('the jam has no change to render');
  }
  for (const change of changes) {
    if (typeof change?.code !== 'string' || !Number.isFinite(change.at) || !Number.isFinite(change.origin)) {
      throw new Error('the jam has a change that is not {code, at, origin}');
    }
  }
  if (!Number.isFinite(timeline.end)) {
    throw new Error('the jam has no end');
  }
  return { end: timeline.end, changes };
}

function describe(change, index, count) {
  return `change ${index + 1} of ${count} (cycle ${change.origin})`;
}

// Evaluates every change; resolves to the parts [{pattern, cps, at, origin}]
// or throws naming the change that failed.
export async function evaluateTimeline(changes, { evaluateCaptured, setCps, cps: startCps }) {
  const parts = [];
  let cps = startCps;
  for (const [index, change] of changes.entries()) {
    let pattern = silence;
    if (change.code.trim()) {
      setCps(cps);
      const captured = await evaluateCaptured(change.code);
      if (captured.error) {
        throw new Error(`${describe(change, index, changes.length)}: ${captured.error}`);
      }
      pattern = captured.pattern;
      if (Number(captured.cps) > 0) {
        cps = Number(captured.cps);
      }
    }
    parts.push({ pattern, cps, at: change.at, origin: change.origin, name: describe(change, index, changes.length) });
  }
  return parts;
}

// A pattern whose failures say which change they come from.
function named(pattern, name) {
  return new Pattern((state) => {
    try {
      return pattern.query(state);
    } catch (error) {
      throw new Error(`${name}: ${error?.message ?? error}`);
    }
  });
}

// parts -> {pattern, cps, cycles, changes: [{at, seconds, cps, origin}]}.
export function spliceTimeline(parts, end) {
  const cps = parts[0].cps;
  const starts = [];
  let start = 0;
  parts.forEach((part, index) => {
    if (index > 0) {
      start += ((part.at - parts[index - 1].at) * cps) / parts[index - 1].cps;
    }
    starts.push(start);
  });
  const last = parts.at(-1);
  const length = starts.at(-1) + ((end - last.at) * cps) / last.cps;
  const layers = parts.map((part, index) => {
    const from = Fraction(starts[index]);
    const to = index + 1 < parts.length ? Fraction(starts[index + 1]) : null;
    const stretch = cps / part.cps;
    let pattern = part.pattern;
    if (stretch !== 1) {
      pattern = pattern.early(part.origin).slow(stretch).late(starts[index]);
    } else if (starts[index] !== part.origin) {
      pattern = pattern.late(starts[index] - part.origin);
    }
    const kept = pattern.filterHaps((hap) => {
      const onset = beginOf(hap);
      return onset.gte(from) && (to === null || onset.lt(to));
    });
    return named(kept, part.name);
  });
  return {
    pattern: stack(...layers),
    cps,
    cycles: Math.max(1, Math.ceil(length - 1e-9)),
    changes: parts.map((part, index) => ({
      at: starts[index],
      seconds: starts[index] / cps,
      cps: part.cps,
      origin: part.origin,
    })),
  };
}
