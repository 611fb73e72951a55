// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Quantized swaps: new code starts playing exactly at a cycle boundary B
// instead of whenever its evaluation happens to finish.
//
// Strudel's scheduler (Cyclist in @strudel/core) queries its pattern a little
// ahead of time, in spans [begin, end) that follow one another without gaps,
// and plays the events whose onset lies in each span. It has no notion of a
// pending pattern, so everything here works on the instances our page owns,
// never on Strudel's code:
//
//  - The new code is evaluated by the REPL itself (transpiler, `$:` blocks,
//    `hush`, `all`, mutes and solo behave exactly as with Ctrl+Enter), with
//    the scheduler's setPattern and setCps replaced for the duration of that
//    evaluation, so that the pattern and the tempo are captured instead of
//    going live.
//  - The scheduler is given a view of the playing pattern whose queryArc
//    knows about B. The span that contains B is cut short at B (the scheduler's
//    lastEnd is set back to B), so that span plays the old pattern only, and
//    the next span starts exactly at B: there the new pattern takes over, alone.
//    No event is lost, none is played twice, and the first new onset is B.
//  - A captured tempo is applied at that same moment, anchored so that B
//    keeps the audio time the old tempo gave it (see applyTempo()).
//  - Before a new pattern goes live (a swap, or the user's own evaluation),
//    the sample files it is about to trigger are loaded (preload.mjs), and
//    only then is its boundary chosen: the first boundary after its sounds
//    are there, so its first hits are never lost while the old pattern plays on.
//
// Every pattern the scheduler plays goes through such a view, which also
// lets tests record which spans were queried and which events fired.

import { Fraction, stack } from '@strudel/core';
import { updateMiniLocations, updateSliderWidgets, updateWidgets } from '@strudel/codemirror';
import { isolateHistory } from '@codemirror/commands';
import { Transaction } from '@codemirror/state';
import { BEATS_PER_CYCLE, Countdown } from './countdown.mjs';

const QUANTIZE_MODES = new Set(['next_beat', 'next_cycle', 'next_bar', 'bars']);
// A recording left on must not grow without bound.
const MAX_RECORDED_EVENTS = 200000;

function isPositiveNumber(value) {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

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

function beginOf(hap) {
  return (hap.whole ?? hap.part).begin;
}

// The smallest change that turns `from` into `to`: the common prefix and
// suffix stay, so the cursor, the scroll position and CodeMirror's marks
// outside the edited region stay where they are.
function minimalChange(from, to) {
  let start = 0;
  const max = Math.min(from.length, to.length);
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) {
    start++;
  }
  let endFrom = from.length;
  let endTo = to.length;
  while (endFrom > start && endTo > start && from.charCodeAt(endFrom - 1) === to.charCodeAt(endTo - 1)) {
    endFrom--;
    endTo--;
  }
  return { from: start, to: endFrom, insert: to.slice(start, endTo) };
}

export class Swapper {
  constructor({ mirror, post, getTime, preload }) {
    this.mirror = mirror;
    // (pattern, fromCycle) -> Promise<{ready, loaded, failed, late, ms}>
    this.preload = preload ?? (async () => null);
    this.lastPreload = null;
    this.evalTicket = 0; // the user's evaluations, newest wins
    this.scheduler = mirror.repl.scheduler;
    this.post = post;
    this.getTime = getTime;
    this.live = null; // {raw, view, gen, swap, source}: what plays when nothing is pending
    this.pending = null; // the swap waiting for its boundary
    this.capture = null; // set while a swap's code is being evaluated
    this.chain = Promise.resolve(); // swaps and user evaluations, one at a time
    this.nextGen = 1;
    this.nextSwapId = 1;
    this.recording = null;
    this.tags = new WeakMap(); // hap -> {gen, swap, source}, only while recording
    this.patternIds = new WeakMap();
    this.nextPatternId = 1;
    this.banner = null;
    this.oldUntil = null; // after a swap, the drawer still holds old events until B
    this.countdown = new Countdown(this); // "Lands in N beats"
    this.strings = {
      cancel: 'Cancel',
      cancelName: 'Cancel the pending change',
      pending: 'Queued for cycle %g',
      landing: 'Landing at cycle %g',
      landsIn: ['Lands in %d beats (cycle %g)', 'Lands in %d beat (cycle %g)', 'Lands in %d beats (cycle %g)'],
    };
    this.played = []; // [{from, code}]: which code plays from which cycle on
  }

  // Replaces a few methods on the instances (never on Strudel's classes).
  install() {
    const s = this.scheduler;
    const mirror = this.mirror;

    this.setSchedulerPattern = s.setPattern.bind(s);
    s.setPattern = async (pattern, autostart = false) => {
      if (this.capture) {
        this.capture.pattern = pattern;
        return;
      }
      // Somebody else (the REPL's own evaluation) sets a pattern. Its sounds
      // load first while what plays goes on; an evaluation made meanwhile
      // wins over this one.
      const ticket = ++this.evalTicket;
      this.lastPreload = await this.preload(pattern, s.started ? s.lastEnd : 0);
      if (ticket !== this.evalTicket) {
        return;
      }
      // It wins over a swap that has not landed yet.
      this.cancelPending('canceled');
      this.oldUntil = null;
      this.notePlayed(s.started ? s.lastEnd : 0, mirror.code);
      this.live = this.track(pattern, null, 'eval');
      return this.setSchedulerPattern(this.live.view, autostart);
    };

    this.setSchedulerCps = s.setCps.bind(s);
    s.setCps = (cps = 0.5) => {
      if (this.capture) {
        this.capture.cps = cps;
        return;
      }
      this.setSchedulerCps(cps);
    };

    // Every evaluation goes through StrudelMirror.evaluate (Ctrl+Enter, the
    // play button, the bridge): it waits for a swap being evaluated, so the
    // capture above never catches a user's pattern.
    const evaluate = mirror.evaluate.bind(mirror);
    mirror.evaluate = async (autostart = true) => {
      await this.chain;
      return evaluate(autostart);
    };

    // While a swap is pending, the editor shows the new code but the old
    // pattern plays: its events point at locations of the old text, so they
    // are not highlighted, neither then nor while they still sound after B.
    const highlight = mirror.highlight.bind(mirror);
    mirror.highlight = (haps, time) => {
      if (this.pending) {
        haps = [];
      } else if (this.oldUntil !== null) {
        haps = haps.filter((hap) => !beginOf(hap).lt(this.oldUntil));
      }
      return highlight(haps, time);
    };
  }

  // Called from the REPL's beforeEval: a user's evaluation cancels a pending
  // swap (the swap's own evaluation does not).
  beforeEval() {
    if (!this.capture) {
      this.cancelPending('canceled');
    }
  }

  // Called when playback starts or stops. Stopped, a pending swap has no
  // boundary to wait for any more: it is applied at once.
  onToggle(started) {
    // Cycles start again from 0.
    this.oldUntil = null;
    const last = this.played.at(-1);
    this.played = last ? [{ from: 0, code: last.code }] : [];
    if (!started && this.pending) {
      const swap = this.pending;
      this.pending = null;
      this.installLive(swap.next);
      if (swap.cps !== undefined) {
        this.setSchedulerCps(swap.cps);
      }
      this.played = [{ from: 0, code: swap.code }];
      this.finishApplied(swap);
    }
  }

  // Which code plays from which cycle on: the app asks which code a cycle
  // it heard sounding came from (Panic brings that code back).
  notePlayed(from, code) {
    if (typeof code !== 'string') {
      return;
    }
    this.played.push({ from: Number(from), code });
    if (this.played.length > 32) {
      this.played.shift();
    }
  }

  // A cycle that two codes shared (an evaluation or a swap on a beat inside
  // it) has no one code that sounded: null, and the app keeps the last code
  // it heard alone in a cycle, rather than take a silent code whose cycle
  // the other one's sound filled.
  codeAtCycle(cycle) {
    const begin = Math.floor(cycle);
    if (this.played.some((p) => p.from > begin && p.from < begin + 1)) {
      return null;
    }
    for (let i = this.played.length - 1; i >= 0; i--) {
      if (this.played[i].from <= cycle) {
        return this.played[i].code;
      }
    }
    return null;
  }

  patternId() {
    const pattern = this.scheduler.pattern;
    if (!pattern) {
      return 0;
    }
    if (!this.patternIds.has(pattern)) {
      this.patternIds.set(pattern, this.nextPatternId++);
    }
    return this.patternIds.get(pattern);
  }

  // Patterns as the scheduler sees them ------------------------------------

  // A view answers the scheduler's queries (they carry `cyclist` in their
  // controls) through `onScheduler` and everybody else's (the drawer, the
  // highlighting) straight from `raw`.
  makeView(raw, onScheduler) {
    const view = Object.create(raw);
    view.queryArc = (begin, end, controls) =>
      controls?.cyclist !== undefined ? onScheduler(begin, end, controls) : raw.queryArc(begin, end, controls);
    return view;
  }

  track(raw, swap, source) {
    const record = { raw, gen: this.nextGen++, swap, source };
    record.view = this.makeView(raw, (begin, end, controls) => {
      const haps = raw.queryArc(begin, end, controls);
      this.noteQuery(begin, end, haps, record, record.source);
      return haps;
    });
    return record;
  }

  installLive(record) {
    this.live = record;
    // What Cyclist.setPattern does without autostart; not through our
    // wrapper, which would take it for a user's evaluation.
    this.scheduler.pattern = record.view;
  }

  // The playing pattern, tracked (a pattern set behind our back is adopted).
  currentRecord() {
    if (this.pending) {
      return this.pending.old;
    }
    const pattern = this.scheduler.pattern;
    if (!this.live || this.live.view !== pattern) {
      this.live = this.track(pattern, null, 'eval');
      this.scheduler.pattern = this.live.view;
    }
    return this.live;
  }

  // The scheduler's query while a swap is pending.
  queryPending(swap, begin, end, controls) {
    const s = this.scheduler;
    if (Fraction(begin).lt(swap.at)) {
      const cut = Fraction(end).gt(swap.at);
      if (cut) {
        // Cut at B: Cyclist computes the next span's end from its own clock,
        // not from lastEnd, so the next span simply starts at B.
        s.lastEnd = swap.atNumber;
        swap.cut = true;
      }
      const haps = swap.old.raw.queryArc(begin, cut ? swap.at : end, controls);
      this.noteQuery(begin, cut ? swap.atNumber : end, haps, swap.old, 'old');
      return haps;
    }
    // This span starts at B (or, if the scheduler skipped a late tick, past
    // it): the new pattern takes over from here, alone.
    this.pending = null;
    const exact = Fraction(begin).eq(swap.at);
    if (swap.cps !== undefined) {
      this.applyTempo(swap, exact, begin);
    }
    this.installLive(swap.next);
    this.oldUntil = swap.at;
    this.notePlayed(swap.atNumber, swap.code);
    swap.appliedExactly = exact;
    // Messages and the editor can wait until the scheduler's tick is over.
    queueMicrotask(() => this.finishApplied(swap));
    return swap.next.view.queryArc(begin, s.lastEnd, controls);
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
  applyTempo(swap, exact, begin) {
    const s = this.scheduler;
    const cps = Number(swap.cps);
    if (!isPositiveNumber(cps)) {
      // Whatever Strudel does with such a value, it does it here.
      this.setSchedulerCps(swap.cps);
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

  // The audio time at which cycle `cycle` sounds with the current tempo.
  timeOfCycle(cycle) {
    const s = this.scheduler;
    const t = (cycle - s.num_cycles_at_cps_change) / s.cps + s.seconds_at_cps_change + s.latency;
    return Number.isFinite(t) ? t : this.getTime() + (cycle - s.now()) / s.cps;
  }

  finishApplied(swap) {
    this.setPendingMark(null);
    this.countdown.land(swap);
    if (this.recording) {
      this.recording.swaps.push({
        id: swap.id,
        at: swap.atNumber,
        cpsBefore: swap.cpsBefore,
        cpsAfter: this.scheduler.cps,
        exact: swap.appliedExactly ?? false,
        // Whether B fell inside one of the scheduler's spans (which was then
        // cut there) rather than on the border between two.
        cut: swap.cut ?? false,
        time: swap.appliedAtTime ?? null,
      });
    }
    this.post({ type: 'swap', state: 'applied', cycle: swap.atNumber, id: swap.id });
    this.mirror.flash?.();
  }

  // Evaluation -------------------------------------------------------------

  // Evaluates `code` with the REPL, capturing its pattern and tempo.
  async evaluateCaptured(code) {
    const repl = this.mirror.repl;
    const capture = { pattern: undefined, cps: undefined };
    this.capture = capture;
    try {
      await repl.evaluate(code, false);
    } finally {
      this.capture = null;
    }
    const error = repl.state.evalError;
    if (error || capture.pattern === undefined) {
      // The REPL now believes the rejected code is the editor's: put it right.
      repl.setCode(this.mirror.code);
      return { error: String(error?.message ?? error ?? 'the code produced no pattern') };
    }
    return capture;
  }

  // After a captured evaluation that does not go live: the REPL, its
  // pattern and the editor's marks are what they were before it.
  undoCapture(before) {
    const mirror = this.mirror;
    mirror.repl.setCode(mirror.code);
    const playing = this.pending?.next.raw ?? this.live?.raw;
    if (playing) {
      mirror.repl.state.pattern = playing;
    }
    mirror.miniLocations = before.locations;
    mirror.widgets = before.widgets;
    this.showCode(mirror.editor.state.doc.toString());
  }

  cycleBoundary({ quantize, bars, barCycles, beatsPerCycle = BEATS_PER_CYCLE }) {
    // Strudel turns each span's float bounds into fractions; the last span
    // ended exactly at Fraction(lastEnd) (exclusive), so every onset from
    // there on is still unplayed: the first whole cycle at or after it is
    // the earliest exact boundary.
    const end = Fraction(this.scheduler.lastEnd);
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

  // Public API ---------------------------------------------------------------

  scheduleSwap(options) {
    const run = this.chain.then(() => this.doScheduleSwap(options));
    this.chain = run.catch(() => {});
    return run;
  }

  async doScheduleSwap({
    code,
    quantize = 'next_cycle',
    bars = 1,
    barCycles = 4,
    beatsPerCycle = BEATS_PER_CYCLE,
    autoStart = false,
    refuseUnavailable = false,
  } = {}) {
    if (typeof code !== 'string') {
      throw new TypeError('code must be a string');
    }
    if (!QUANTIZE_MODES.has(quantize)) {
      throw new TypeError(`quantize must be one of ${[...QUANTIZE_MODES].join(', ')}`);
    }
    if (!Number.isInteger(barCycles) || barCycles < 1) {
      throw new TypeError('barCycles must be a positive integer');
    }
    if (!Number.isInteger(bars) || bars < 0) {
      throw new TypeError('bars must be a non-negative integer');
    }
    if (!Number.isInteger(beatsPerCycle) || beatsPerCycle < 1 || beatsPerCycle > 64) {
      throw new TypeError('beatsPerCycle must be an integer from 1 to 64');
    }

    const mirror = this.mirror;
    const s = this.scheduler;
    // What plays now, to go back to if the swap is canceled. The evaluation
    // below replaces the editor's marks, so they are kept from before it.
    const before = { code: mirror.code, locations: mirror.miniLocations, widgets: mirror.widgets };
    const captured = await this.evaluateCaptured(code);
    if (captured.error) {
      return { status: 'error', message: captured.error };
    }

    // Its sounds first: the boundary is chosen once they are loaded.
    const sounds = await this.preload(captured.pattern, s.started ? s.lastEnd : 0);
    this.lastPreload = sounds;

    // A sound that could not be loaded would be silence: when asked, the
    // change is refused before anything changes, naming the sounds and why.
    if (refuseUnavailable && sounds?.failed?.length) {
      this.undoCapture(before);
      return { status: 'unavailable', message: `could not load ${sounds.failed.join(', ')}`, sounds };
    }

    const id = this.nextSwapId++;
    const next = this.track(captured.pattern, id, 'new');

    if (!s.started) {
      // Nothing to wait for: the new code is simply the code.
      this.cancelPending('superseded');
      if (captured.cps !== undefined) {
        this.setSchedulerCps(captured.cps);
      }
      this.live = next;
      this.played = [{ from: 0, code }];
      await this.setSchedulerPattern(next.view, Boolean(autoStart));
      this.showCode(code);
      this.post({ type: 'swap', state: 'applied', cycle: 0, id });
      return { status: 'applied', applyAtCycle: 0, inSeconds: 0, cps: s.cps, id, sounds };
    }

    // From here to the end, nothing yields: no tick can run in between.
    const old = this.currentRecord();
    const previous = this.pending
      ? { code: this.pending.previousCode, locations: this.pending.previousLocations, widgets: this.pending.previousWidgets }
      : before;
    this.cancelPending('superseded');
    const at = this.cycleBoundary({ quantize, bars, barCycles, beatsPerCycle });
    const swap = {
      id,
      at,
      atNumber: at.valueOf(),
      old,
      next,
      cps: captured.cps,
      cpsBefore: s.cps,
      beatsPerCycle,
      code,
      previousCode: previous.code,
      previousLocations: previous.locations,
      previousWidgets: previous.widgets,
    };
    const keep = (hap) => beginOf(hap).lt(at);
    const spliced = stack(old.raw.filterHaps(keep), next.raw.filterHaps((hap) => !keep(hap)));
    swap.view = this.makeView(spliced, (begin, end, controls) => this.queryPending(swap, begin, end, controls));
    this.pending = swap;
    s.pattern = swap.view;

    const inSeconds = Math.max(0, this.timeOfCycle(swap.atNumber) - this.getTime());
    this.showCode(code);
    this.post({ type: 'swap', state: 'scheduled', cycle: swap.atNumber, id });
    this.setPendingMark(swap);
    this.countdown.start(swap);
    return {
      status: 'scheduled',
      applyAtCycle: swap.atNumber,
      beatsPerCycle,
      inSeconds,
      cps: s.cps,
      cpsAtApply: captured.cps !== undefined && isPositiveNumber(Number(captured.cps)) ? Number(captured.cps) : s.cps,
      id,
      sounds,
    };
  }

  // Cancels the pending swap; the editor gets the playing code back unless
  // it was edited since the swap put the new code there.
  cancelSwap() {
    const run = this.chain.then(() => {
      const swap = this.pending;
      if (!swap) {
        return { canceled: false };
      }
      this.cancelPending('canceled');
      if (this.mirror.code === swap.code) {
        this.mirror.miniLocations = swap.previousLocations;
        this.mirror.widgets = swap.previousWidgets;
        this.showCode(swap.previousCode);
      }
      return { canceled: true, cycle: swap.atNumber, id: swap.id };
    });
    this.chain = run.catch(() => {});
    return run;
  }

  cancelPending(state) {
    const swap = this.pending;
    if (!swap) {
      return;
    }
    this.pending = null;
    if (state === 'canceled') {
      this.installLive(swap.old);
      const replState = this.mirror.repl.state;
      replState.pattern = swap.old.raw;
    }
    this.setPendingMark(null);
    this.countdown.stop();
    this.post({ type: 'swap', state, cycle: swap.atNumber, id: swap.id });
  }

  // The pending change's countdown (countdown.mjs), for tests.
  getCountdown() {
    return this.countdown.get();
  }

  // The editor -------------------------------------------------------------

  // Shows `code` without evaluating it, as one undo step of its own, with
  // the new code's mini-notation marks and widgets.
  showCode(code) {
    const mirror = this.mirror;
    const view = mirror.editor;
    const current = view.state.doc.toString();
    if (current !== code) {
      view.dispatch({
        changes: minimalChange(current, code),
        annotations: [Transaction.userEvent.of('swap'), isolateHistory.of('full')],
      });
    }
    updateMiniLocations(view, mirror.miniLocations ?? []);
    const widgets = mirror.widgets ?? [];
    updateSliderWidgets(view, widgets.filter((w) => w.type === 'slider'));
    updateWidgets(view, widgets.filter((w) => w.type !== 'slider'));
  }

  // The banner's words, translated by the app (the hello's `strings`);
  // English until then.
  setStrings(strings) {
    const forms = Array.isArray(strings?.landsIn) ? strings.landsIn.filter((x) => typeof x === 'string') : [];
    const text = (x, fallback) => (typeof x === 'string' && x ? x : fallback);
    this.strings = {
      cancel: text(strings?.cancel, this.strings.cancel),
      cancelName: text(strings?.cancelName, this.strings.cancelName),
      pending: text(strings?.pending, this.strings.pending),
      landing: text(strings?.landing, this.strings.landing),
      landsIn: forms.length > 1 ? forms : this.strings.landsIn,
    };
    this.banner?.remove();
    this.banner = null;
  }

  // `landing`: the swap is committed (too late to cancel) and sounds when
  // its boundary is heard.
  setPendingMark(swap, beats = null, landing = false) {
    const root = this.mirror.root;
    if (!this.banner) {
      // A status region (read out as it changes) and, next to it, the
      // Cancel button: it asks the app, which cancels the way its own
      // Cancel Change action does (the agent is told, the history kept).
      this.banner = document.createElement('div');
      this.banner.id = 'sj-swap-banner';
      this.banner.hidden = true;
      this.bannerText = document.createElement('span');
      this.bannerText.id = 'sj-swap-countdown';
      this.bannerText.setAttribute('role', 'status');
      this.bannerText.setAttribute('aria-live', 'polite');
      this.bannerCancel = document.createElement('button');
      this.bannerCancel.id = 'sj-swap-cancel';
      this.bannerCancel.type = 'button';
      this.bannerCancel.textContent = this.strings.cancel;
      this.bannerCancel.setAttribute('aria-label', this.strings.cancelName);
      this.bannerCancel.addEventListener('click', () => {
        this.post({ type: 'action', name: 'cancel-change' });
      });
      this.banner.append(this.bannerText, this.bannerCancel);
      document.body.append(this.banner);
    }
    root.classList.toggle('sj-swap-pending', Boolean(swap));
    this.banner.hidden = !swap;
    this.bannerCancel.disabled = landing;
    if (landing) {
      this.banner.dataset.landing = 'true';
    } else {
      delete this.banner.dataset.landing;
    }
    if (!swap) {
      this.bannerText.textContent = '';
      delete this.banner.dataset.cycle;
      delete this.banner.dataset.beats;
      return;
    }
    const cycle = swap.atNumber;
    const shown = Number.isInteger(cycle) ? String(cycle) : cycle.toFixed(2);
    const forms = this.strings.landsIn;
    let text = beats === null ? this.strings.pending : forms[Math.min(beats, forms.length - 1)];
    if (landing) {
      text = this.strings.landing;
    }
    this.bannerText.textContent = text.replace('%d', String(beats)).replace('%g', shown);
    this.banner.dataset.cycle = String(cycle);
    if (beats === null) {
      delete this.banner.dataset.beats;
    } else {
      this.banner.dataset.beats = String(beats);
    }
  }

  // Recording (tests and benchmarks) -----------------------------------------

  recordEvents(on) {
    this.recording = on
      ? { events: [], gaps: [], swaps: [], begin: undefined, end: undefined, overflow: false }
      : null;
    return { recording: Boolean(on) };
  }

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
  takeRecordedEvents() {
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
