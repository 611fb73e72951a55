// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The pending swap's countdown (issue 32): "Lands in N beats" in the
// editor's banner and, posted to the app at each beat, on the chat answer
// that made the change. Our own code over the Swapper (swap.mjs).

// A beat is a quarter of a cycle: Strudel's own convention (setcpm(bpm/4),
// "a cycle is a bar of four beats"). The page does not guess beats from the
// code; a caller may pass another `beatsPerCycle` with a swap.
export const BEATS_PER_CYCLE = 4;
// The countdown's clock: often enough that each beat is shown within a
// couple of frames of its time, and nothing next to the scheduler's ticks.
const COUNTDOWN_MS = 20;

export class Countdown {
  constructor(swapper) {
    this.swapper = swapper;
    this.state = null; // {id, atNumber, beatsPerCycle, endTime, cps, beats, swap, timer}
  }

  // "Lands in N beats": N is the number of beats (of the old tempo) between
  // what is heard now and the swap's boundary B, rounded up, from the
  // scheduler's own tempo map (timeOfCycle(B), the audio time at which B
  // sounds) and the audio clock. It is shown in the banner and posted to
  // the app each time it changes, so that the chat counts with the page's
  // clock; it reaches 0 when B is heard. The swap itself is committed a
  // little earlier (when the scheduler queries the span that starts at B,
  // its lookahead before B sounds): from then on it can no longer be
  // canceled, and the count finishes on the frozen time of B.
  start(swap) {
    this.stop();
    const countdown = {
      id: swap.id,
      atNumber: swap.atNumber,
      beatsPerCycle: swap.beatsPerCycle ?? BEATS_PER_CYCLE,
      endTime: null,
      cps: this.swapper.scheduler.cps,
      beats: null,
      swap,
      timer: 0,
    };
    this.state = countdown;
    countdown.timer = setInterval(() => this.tick(), COUNTDOWN_MS);
    this.tick();
  }

  // Called when the swap is committed: the count goes on to B's time.
  land(swap) {
    const countdown = this.state;
    if (!countdown || countdown.id !== swap.id) {
      return;
    }
    if (countdown.endTime === null || !this.swapper.scheduler.started) {
      // Applied at once (playback stopped): nothing is landing any more.
      this.stop();
      this.swapper.post({ type: 'countdown', cycle: countdown.atNumber, id: countdown.id, beats: 0, seconds: 0,
                          beatsPerCycle: countdown.beatsPerCycle });
      return;
    }
    countdown.swap = null;
    if (typeof swap.appliedAtTime === 'number') {
      countdown.endTime = swap.appliedAtTime;
    }
    // Too late to cancel from here: the banner says it is landing, its
    // Cancel insensitive, until the boundary is heard.
    this.swapper.setPendingMark(swap, null, true);
    this.tick();
  }

  stop() {
    if (this.state) {
      clearInterval(this.state.timer);
      this.state = null;
    }
  }

  beats() {
    const countdown = this.state;
    if (!countdown) {
      return null;
    }
    if (countdown.swap) {
      // Pending: the boundary's time follows the tempo map as it is now.
      countdown.endTime = this.swapper.timeOfCycle(countdown.atNumber);
      countdown.cps = this.swapper.scheduler.cps;
    }
    const seconds = Math.max(0, countdown.endTime - this.swapper.getTime());
    // Half a millisecond of slack: a beat that is due now is not shown as 1.
    const beats = Math.max(0, Math.ceil(seconds * countdown.cps * countdown.beatsPerCycle - 0.0005 * countdown.cps * countdown.beatsPerCycle));
    return { beats, seconds };
  }

  tick() {
    const countdown = this.state;
    const now = this.beats();
    if (!countdown || !now) {
      return;
    }
    if (now.beats !== countdown.beats) {
      countdown.beats = now.beats;
      if (countdown.swap) {
        this.swapper.setPendingMark(countdown.swap, now.beats);
      }
      this.swapper.post({
        type: 'countdown',
        cycle: countdown.atNumber,
        id: countdown.id,
        beats: now.beats,
        seconds: now.seconds,
        beatsPerCycle: countdown.beatsPerCycle,
      });
    }
    if (now.beats === 0 && !countdown.swap) {
      this.stop();
      this.swapper.setPendingMark(null);
    }
  }

  // For tests: the countdown as the page computes it now, with the clock
  // it is computed from.
  get() {
    const countdown = this.state;
    const now = this.beats();
    if (!countdown || !now) {
      return null;
    }
    return {
      id: countdown.id,
      cycle: countdown.atNumber,
      pending: Boolean(countdown.swap),
      landing: !countdown.swap,
      beats: now.beats,
      shown: countdown.beats,
      seconds: now.seconds,
      endTime: countdown.endTime,
      cps: countdown.cps,
      beatsPerCycle: countdown.beatsPerCycle,
      time: this.swapper.getTime(),
    };
  }
}
