/* test-skew-guard.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * When the app's audio sink moves its playout point (issue 35,
 * src/audio-sink/sj-skew-guard.c). A pretend sink asks the guard on every
 * 10 ms buffer, as pulsesink's custom slaving does, and applies what it
 * asks for: the sound server's time stands @lag from the pipeline's, less
 * what has been corrected. pulsesink's own "skew" method chased a leap of
 * the sound server's time through an underrun in 20 ms steps, and back; the
 * guard leaves a leap that comes back alone and corrects one that stays,
 * once.
 */

#include "config.h"

#include "sj-skew-guard.h"

#define BUFFER (10 * GST_MSECOND)

typedef struct
{
  SjSkewGuard      guard;
  GstClockTime     now;        /* the pipeline's time */
  GstClockTimeDiff corrected;  /* what the sink has moved, in all */
  guint            moves;
} Sink;

/* Plays @duration with the sound server's time @lag ahead of the
 * pipeline's (before any correction). */
static void
play (Sink             *sink,
      GstClockTime      duration,
      GstClockTimeDiff  lag)
{
  for (GstClockTime end = sink->now + duration; sink->now < end; sink->now += BUFFER)
    {
      /* The sink's calibration moves the external time by what it
       * corrected (gst_audio_base_sink_custom_slaving ()). */
      GstClockTime etime = sink->now + 10 * GST_SECOND + sink->corrected;
      GstClockTime itime = sink->now + 10 * GST_SECOND + lag;
      GstClockTimeDiff requested = sj_skew_guard_observe (&sink->guard, etime, itime);

      if (requested != 0)
        {
          sink->corrected += requested;
          sink->moves++;
        }
    }
}

static void
sink_init (Sink *sink)
{
  *sink = (Sink) { .now = 0 };
  sj_skew_guard_start (&sink->guard);
}

/* A sink whose stream has started and settled: 2 s with no skew. */
static void
sink_init_settled (Sink *sink)
{
  sink_init (sink);
  play (sink, 2 * GST_SECOND, 0);
  g_assert_true (sink->guard.settled);
}

/* The stream's start lags the pipeline's: corrected right away, as "skew"
 * does, and then the guard settles. */
static void
test_start (void)
{
  Sink sink;

  sink_init (&sink);
  play (&sink, 200 * GST_MSECOND, -300 * GST_MSECOND);
  g_assert_cmpint (ABS (sink.corrected - (-300 * GST_MSECOND)), <=, 20 * GST_MSECOND);
  g_assert_false (sink.guard.settled);

  play (&sink, 2 * GST_SECOND, -300 * GST_MSECOND);
  g_assert_true (sink.guard.settled);
}

/* Settled, the sound server's time leaps 160 ms for 0.6 s (an underrun,
 * read through its latency interpolation) and comes back: nothing moves.
 * "skew" moved eight times, then back. */
static void
test_leap_that_comes_back (void)
{
  Sink sink;

  sink_init_settled (&sink);

  play (&sink, 600 * GST_MSECOND, -160 * GST_MSECOND);
  play (&sink, 5 * GST_SECOND, 0);
  g_assert_cmpuint (sink.moves, ==, 0);

  /* A leap of 0.99 s is still one that comes back. */
  play (&sink, 990 * GST_MSECOND, 200 * GST_MSECOND);
  play (&sink, 2 * GST_SECOND, 0);
  g_assert_cmpuint (sink.moves, ==, 0);
}

/* A skew that stays is corrected once, a second later, by all of it. */
static void
test_skew_that_stays (void)
{
  Sink sink;

  sink_init_settled (&sink);

  play (&sink, 990 * GST_MSECOND, 90 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 0);
  play (&sink, 30 * GST_MSECOND, 90 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 1);
  g_assert_cmpint (sink.corrected, ==, 90 * GST_MSECOND);

  play (&sink, 10 * GST_SECOND, 90 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 1);

  /* Within the tolerance is left alone, however long. */
  play (&sink, 10 * GST_SECOND, 90 * GST_MSECOND + 35 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 1);
}

/* Of a skew that settles down while it is waited on, only the part seen
 * all along is corrected; one that changes side starts the wait again. */
static void
test_least_and_sides (void)
{
  Sink sink;

  sink_init_settled (&sink);

  play (&sink, 300 * GST_MSECOND, -250 * GST_MSECOND);
  play (&sink, 800 * GST_MSECOND, -60 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 1);
  g_assert_cmpint (sink.corrected, ==, -60 * GST_MSECOND);

  sink_init_settled (&sink);
  play (&sink, 600 * GST_MSECOND, -100 * GST_MSECOND);
  play (&sink, 600 * GST_MSECOND, 100 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 0);
  play (&sink, 500 * GST_MSECOND, 100 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 1);
  g_assert_cmpint (sink.corrected, ==, 100 * GST_MSECOND);
}

/* A resync forgets the wait; a flush or new caps start over, unsettled;
 * a time the sink could not read asks for nothing. */
static void
test_discontinuities (void)
{
  Sink sink;

  sink_init_settled (&sink);
  play (&sink, 700 * GST_MSECOND, 80 * GST_MSECOND);
  sj_skew_guard_interrupt (&sink.guard);
  play (&sink, 700 * GST_MSECOND, 80 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 0);
  g_assert_true (sink.guard.settled);

  g_assert_cmpint (sj_skew_guard_observe (&sink.guard, GST_CLOCK_TIME_NONE, GST_SECOND), ==, 0);
  g_assert_cmpint (sj_skew_guard_observe (&sink.guard, GST_SECOND, GST_CLOCK_TIME_NONE), ==, 0);

  sj_skew_guard_start (&sink.guard);
  g_assert_false (sink.guard.settled);
  play (&sink, 50 * GST_MSECOND, 80 * GST_MSECOND);
  g_assert_cmpuint (sink.moves, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/skew-guard/start", test_start);
  g_test_add_func ("/skew-guard/leap-that-comes-back", test_leap_that_comes_back);
  g_test_add_func ("/skew-guard/skew-that-stays", test_skew_that_stays);
  g_test_add_func ("/skew-guard/least-and-sides", test_least_and_sides);
  g_test_add_func ("/skew-guard/discontinuities", test_discontinuities);

  return g_test_run ();
}
