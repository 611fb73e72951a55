/* sj-skew-guard.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * When pulsesink moves its playout point (issue 35). The sink is slaved to
 * the pipeline's clock; on each buffer it compares the sound server's time
 * (itime) with the pipeline's (etime). Its default slave method, "skew",
 * moves the playout point by the moving average of that skew as soon as it
 * passes 20 ms. With the follow clock keeping the two clocks at one rate
 * the skew stays within a few ms, except in an underrun: there the sound
 * server's time, read through its latency interpolation, leaps by 100 ms or
 * more and comes back within a second. "skew" chases the leap in 20 ms
 * steps and then chases it back, each step a resync, and a single underrun
 * became 3.6 s of silence in a 30-minute soak (bench/README.md).
 *
 * This guard asks for a correction only when the skew has stood past the
 * tolerance, on the same side, for a whole second of pipeline time, and
 * then asks for the least of it seen in that second: the part that is
 * surely real, in one step. A leap that comes back is never corrected; a
 * real one (the clock's phase lost) costs one gap. Until the skew has
 * first stood within the tolerance for a second (the stream's start, which
 * lags the pipeline's by 50-700 ms here), it does what "skew" does, to the
 * letter: correcting that lag at once in one step left the sink's
 * alignment a second later with a 127 ms discontinuity to resync.
 * The sink (SLAVE_CUSTOM) calls it from its streaming thread, one guard per
 * sink, so it needs no lock.
 */

#include "config.h"

#include "sj-skew-guard.h"

/* A stream (re)starting: new caps, a flush, the latency synced. */
void
sj_skew_guard_start (SjSkewGuard *guard)
{
  guard->settled = FALSE;
  guard->calm_since = GST_CLOCK_TIME_NONE;
  guard->averaging = FALSE;
  guard->average = 0;
  sj_skew_guard_interrupt (guard);
}

/* The sink resynced (a discontinuity in the timestamps): a skew seen
 * before it is not waited on any more. */
void
sj_skew_guard_interrupt (SjSkewGuard *guard)
{
  guard->since = GST_CLOCK_TIME_NONE;
  guard->smallest = 0;
}

/* Starting: the stream's lag, corrected as pulsesink's "skew" does
 * (gst_audio_base_sink_skew_slaving ()): by the average, once it is past
 * 20 ms, the average then starting over from 0. */
static GstClockTimeDiff
correct_starting (SjSkewGuard *guard)
{
  GstClockTimeDiff drift = guard->average;

  guard->calm_since = GST_CLOCK_TIME_NONE;
  guard->average = 0;
  guard->corrections++;

  return drift;
}

/* The skew the sink should correct now (itime - etime, as
 * GstAudioBaseSinkCustomSlavingCallback's requested_skew), or 0. */
GstClockTimeDiff
sj_skew_guard_observe (SjSkewGuard  *guard,
                       GstClockTime  etime,
                       GstClockTime  itime)
{
  GstClockTimeDiff skew, requested;

  if (!GST_CLOCK_TIME_IS_VALID (etime) || !GST_CLOCK_TIME_IS_VALID (itime))
    {
      sj_skew_guard_interrupt (guard);
      return 0;
    }

  skew = GST_CLOCK_DIFF (etime, itime);

  if (!guard->settled)
    {
      /* gstaudiobasesink.c's moving average of the skew, over 32. */
      guard->average = guard->averaging ? (31 * guard->average + skew) / 32 : skew;
      guard->averaging = TRUE;
      if (ABS (guard->average) > (GstClockTimeDiff) SJ_SKEW_GUARD_START_TOLERANCE)
        return correct_starting (guard);

      /* Settled once the skew has stood within the tolerance a while. */
      if (ABS (skew) > (GstClockTimeDiff) SJ_SKEW_GUARD_TOLERANCE)
        guard->calm_since = GST_CLOCK_TIME_NONE;
      else if (!GST_CLOCK_TIME_IS_VALID (guard->calm_since) || etime < guard->calm_since)
        guard->calm_since = etime;
      else if (etime - guard->calm_since >= SJ_SKEW_GUARD_PERSIST)
        guard->settled = TRUE;
      return 0;
    }

  if (ABS (skew) <= (GstClockTimeDiff) SJ_SKEW_GUARD_TOLERANCE)
    {
      sj_skew_guard_interrupt (guard);
      return 0;
    }

  /* Past it on the other side from before: the wait starts again. */
  if (GST_CLOCK_TIME_IS_VALID (guard->since) && (skew > 0) != (guard->smallest > 0))
    sj_skew_guard_interrupt (guard);

  if (!GST_CLOCK_TIME_IS_VALID (guard->since) || etime < guard->since)
    {
      guard->since = etime;
      guard->smallest = skew;
      return 0;
    }

  if (ABS (skew) < ABS (guard->smallest))
    guard->smallest = skew;

  if (etime - guard->since < SJ_SKEW_GUARD_PERSIST)
    return 0;

  requested = guard->smallest;
  guard->corrections++;
  sj_skew_guard_interrupt (guard);

  return requested;
}
