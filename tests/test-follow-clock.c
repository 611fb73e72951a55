/* test-follow-clock.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The follow clock (src/audio-sink/sj-follow-clock.c, issue 35): a system
 * clock that takes another clock's rate. The leaders here are clocks whose
 * own time runs fast (as the sound server's clock runs against the
 * system's) or stands still (a stream not yet playing); the follower
 * measures them every 50 ms. What is checked is
 * what keeps the sink from its 20 ms skew corrections: the follower runs
 * at the leader's rate and stays in phase with it, its time never jumps,
 * and a leader that stands still is not followed.
 */

#include "config.h"

#include <gst/gst.h>

#include "sj-follow-clock.h"

#define INTERVAL (50 * GST_MSECOND)
#define WAIT_LIMIT_US (15 * G_USEC_PER_SEC)

/* A leader: a clock whose own (internal) time runs @ppm faster than the
 * system's, as a sound server's clock does; -1e6 ppm stands still. The
 * follower reads the leader's internal time, so the leader's is what
 * moves at another rate (a sink recalibrates its clock's external time). */
typedef struct
{
  GstClock     parent_instance;
  GMutex       lock;
  double       rate;
  gint64       base_system;  /* ns of the system's monotonic time */
  GstClockTime base;
  GstClockTime jitter;       /* each reading off by up to this, either way */
  GRand       *rand;
} TestLeader;

typedef GstClockClass TestLeaderClass;

static GType test_leader_get_type (void);
G_DEFINE_TYPE (TestLeader, test_leader, GST_TYPE_CLOCK)

static GstClockTime
test_leader_get_internal_time (GstClock *clock)
{
  TestLeader *self = (TestLeader *) clock;
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  gint64 now = g_get_monotonic_time () * 1000;
  GstClockTime time = self->base + (GstClockTime) ((double) (now - self->base_system) * self->rate);

  /* A sound server's clock is read from its latest timing update, off by a
   * fraction of a period either way. */
  if (self->jitter > 0)
    time += (GstClockTime) g_rand_int_range (self->rand, 0, 2 * (gint32) self->jitter) - self->jitter;
  return time;
}

static void
test_leader_finalize (GObject *object)
{
  g_mutex_clear (&((TestLeader *) object)->lock);
  g_rand_free (((TestLeader *) object)->rand);
  G_OBJECT_CLASS (test_leader_parent_class)->finalize (object);
}

static void
test_leader_class_init (TestLeaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_leader_finalize;
  klass->get_internal_time = test_leader_get_internal_time;
}

static void
test_leader_init (TestLeader *self)
{
  g_mutex_init (&self->lock);
  self->rate = 1.0;
  self->base_system = g_get_monotonic_time () * 1000;
  self->rand = g_rand_new_with_seed (35);
}

static void
leader_set_rate (GstClock *leader,
                 double    ppm)
{
  TestLeader *self = (TestLeader *) leader;
  GstClockTime now = gst_clock_get_internal_time (leader);
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  self->base = now;
  self->base_system = g_get_monotonic_time () * 1000;
  self->rate = 1.0 + ppm * 1e-6;
}

static GstClock *
leader_new (double ppm)
{
  GstClock *leader = g_object_new (test_leader_get_type (), NULL);

  gst_object_ref_sink (leader);
  leader_set_rate (leader, ppm);
  /* Its external time is moved about, as a slaved sink's is: the follower
   * must not be fooled. */
  gst_clock_set_calibration (leader, 0, 5 * GST_SECOND, 3, 2);
  return leader;
}

/* Moves @leader's time on by @step at once, as a stream's time jumps after
 * an underrun; reading it is off by up to @jitter from now on. */
static void
leader_jump (GstClock     *leader,
             GstClockTime  step,
             GstClockTime  jitter)
{
  TestLeader *self = (TestLeader *) leader;
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  self->base += step;
  self->jitter = jitter;
}

/* Watches @clock's time against the system's for @seconds (every 1 ms): it
 * never goes back, and no step is more than 1 ms off the system's. */
static void
assert_smooth (GstClock *clock,
               double    seconds)
{
  g_autoptr(GstClock) system = gst_system_clock_obtain ();
  GstClockTime last = gst_clock_get_time (clock);
  GstClockTime last_system = gst_clock_get_time (system);
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
  gint64 worst = 0;

  while (g_get_monotonic_time () < end)
    {
      GstClockTime now, now_system;

      g_usleep (1000);
      now = gst_clock_get_time (clock);
      now_system = gst_clock_get_time (system);
      g_assert_cmpuint (now, >=, last);
      worst = MAX (worst, ABS (GST_CLOCK_DIFF (last, now) - GST_CLOCK_DIFF (last_system, now_system)));
      last = now;
      last_system = now_system;
    }
  g_test_message ("largest step off the system clock's: %.3f ms", (double) worst / GST_MSECOND);
  g_assert_cmpint (worst, <, GST_MSECOND);
}

/* Polls until @clock follows at @ppm within @tolerance ppm and within 0.5
 * ms in phase, or fails after WAIT_LIMIT_US. */
static void
wait_following (SjFollowClock *clock,
                double         ppm,
                double         tolerance)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_LIMIT_US;

  for (;;)
    {
      double rate = (sj_follow_clock_get_rate (clock) - 1.0) * 1e6;
      gint64 offset = sj_follow_clock_get_offset (clock);

      if (sj_follow_clock_is_following (clock) && ABS (rate - ppm) < tolerance && ABS (offset) < GST_MSECOND / 2)
        {
          g_test_message ("following at %+.1f ppm (the leader's %+.1f), %+.3f ms ahead",
                          rate, ppm, (double) offset / GST_MSECOND);
          return;
        }
      if (g_get_monotonic_time () > deadline)
        g_error ("not following at %+.1f ppm after %d s: %+.1f ppm, %+.3f ms ahead, following %d",
                 ppm, (int) (WAIT_LIMIT_US / G_USEC_PER_SEC), rate, (double) offset / GST_MSECOND,
                 sj_follow_clock_is_following (clock));
      g_usleep (INTERVAL / GST_USECOND);
    }
}

static void
test_follows_rate_and_phase (void)
{
  g_autoptr(GstClock) leader = leader_new (300.0);
  g_autoptr(GstClock) system = gst_system_clock_obtain ();
  g_autoptr(GstClock) clock = sj_follow_clock_new (leader, INTERVAL);
  GstClockTime leader0, clock0;

  /* It starts at the system clock's time: a pipeline that swaps it in for
   * the system clock sees no jump. */
  g_assert_cmpint (ABS (GST_CLOCK_DIFF (gst_clock_get_time (system), gst_clock_get_time (clock))), <, GST_MSECOND);

  assert_smooth (clock, 1.0);
  wait_following (SJ_FOLLOW_CLOCK (clock), 300.0, 20.0);

  /* From here on the two advance together: over 2 s the follower loses
   * less than 0.2 ms against the leader, where the system clock loses 0.6. */
  leader0 = gst_clock_get_internal_time (leader);
  clock0 = gst_clock_get_time (clock);
  assert_smooth (clock, 2.0);
  g_assert_cmpint (ABS (GST_CLOCK_DIFF (clock0, gst_clock_get_time (clock)) -
                        GST_CLOCK_DIFF (leader0, gst_clock_get_internal_time (leader))),
                   <, 200 * GST_USECOND);

  /* A leader that changes its rate (another sound card) is followed too. */
  leader_set_rate (leader, -150.0);
  wait_following (SJ_FOLLOW_CLOCK (clock), -150.0, 20.0);

  sj_follow_clock_stop (SJ_FOLLOW_CLOCK (clock));
}

static void
test_standing_leader (void)
{
  g_autoptr(GstClock) leader = leader_new (-1e6);
  g_autoptr(GstClock) clock = sj_follow_clock_new (leader, INTERVAL);
  gint64 until = g_get_monotonic_time () + 10 * INTERVAL / GST_USECOND;

  /* A stream not yet playing: its clock stands still, and is not followed
   * (following it would stop the pipeline's clock). */
  while (g_get_monotonic_time () < until)
    {
      g_usleep (INTERVAL / GST_USECOND);
      g_assert_false (sj_follow_clock_is_following (SJ_FOLLOW_CLOCK (clock)));
      g_assert_cmpfloat (sj_follow_clock_get_rate (SJ_FOLLOW_CLOCK (clock)), ==, 1.0);
    }

  /* Once it plays, it is. */
  leader_set_rate (leader, 200.0);
  wait_following (SJ_FOLLOW_CLOCK (clock), 200.0, 20.0);

  /* It stops again (the stream paused): the clock keeps its rate. */
  leader_set_rate (leader, -1e6);
  while (sj_follow_clock_is_following (SJ_FOLLOW_CLOCK (clock)))
    g_usleep (INTERVAL / GST_USECOND);
  g_assert_cmpfloat (ABS ((sj_follow_clock_get_rate (SJ_FOLLOW_CLOCK (clock)) - 1.0) * 1e6 - 200.0), <, 20.0);
  assert_smooth (clock, 0.5);

  sj_follow_clock_stop (SJ_FOLLOW_CLOCK (clock));
}

/* After the leader jumps (an underrun), following starts from new anchors.
 * Over the first short baselines the leader's jitter alone would swing the
 * rate by hundreds of ppm (a 0.1 ms difference over 0.2 s is 500 ppm); the
 * rate measured before carries it until the new baseline is long. */
static void
test_rate_kept_across_jump (void)
{
  g_autoptr(GstClock) leader = leader_new (200.0);
  g_autoptr(GstClock) clock = sj_follow_clock_new (leader, INTERVAL);
  double worst = 0;
  guint seen = 0;

  wait_following (SJ_FOLLOW_CLOCK (clock), 200.0, 20.0);
  /* Let the baseline grow past what a re-anchoring keeps. */
  g_usleep (2 * G_USEC_PER_SEC);
  leader_jump (leader, 40 * GST_MSECOND, 50 * GST_USECOND);
  while (sj_follow_clock_is_following (SJ_FOLLOW_CLOCK (clock)))
    g_usleep (INTERVAL / GST_USECOND / 5);

  /* Every rate through the first 24 ticks of the new baseline. */
  for (guint i = 0; i < 24 * 5; i++)
    {
      double rate = (sj_follow_clock_get_rate (SJ_FOLLOW_CLOCK (clock)) - 1.0) * 1e6;

      if (sj_follow_clock_is_following (SJ_FOLLOW_CLOCK (clock)))
        {
          worst = MAX (worst, ABS (rate - 200.0));
          seen++;
        }
      g_usleep (INTERVAL / GST_USECOND / 5);
    }
  g_test_message ("after the jump: the rate at most %.1f ppm off the leader's", worst);
  g_assert_cmpuint (seen, >, 50);
  g_assert_cmpfloat (worst, <, 80.0);
  assert_smooth (clock, 0.5);

  sj_follow_clock_stop (SJ_FOLLOW_CLOCK (clock));
}

/* A leader running wild (a broken clock, 5 % fast) is not followed: the
 * page's time never runs away with it. */
static void
test_wild_leader (void)
{
  g_autoptr(GstClock) leader = leader_new (50000.0);
  g_autoptr(GstClock) clock = sj_follow_clock_new (leader, INTERVAL);
  gint64 until = g_get_monotonic_time () + 20 * INTERVAL / GST_USECOND;

  while (g_get_monotonic_time () < until)
    {
      g_usleep (INTERVAL / GST_USECOND);
      g_assert_false (sj_follow_clock_is_following (SJ_FOLLOW_CLOCK (clock)));
      g_assert_cmpfloat (sj_follow_clock_get_rate (SJ_FOLLOW_CLOCK (clock)), ==, 1.0);
    }
  assert_smooth (clock, 0.3);

  sj_follow_clock_stop (SJ_FOLLOW_CLOCK (clock));
}

/* Stopping lets go of the leader and of the ticks' reference. */
static void
test_stop_releases (void)
{
  GstClock *leader = leader_new (100.0);
  GstClock *clock = sj_follow_clock_new (leader, INTERVAL);

  g_object_add_weak_pointer (G_OBJECT (clock), (gpointer *) &clock);
  g_object_add_weak_pointer (G_OBJECT (leader), (gpointer *) &leader);
  sj_follow_clock_stop (SJ_FOLLOW_CLOCK (clock));
  gst_object_unref (leader);
  g_assert_null (leader);
  gst_object_unref (clock);
  /* The last tick's reference goes when the system clock's thread lets go
   * of the unscheduled entry. */
  for (guint i = 0; clock != NULL && i < 200; i++)
    g_usleep (10000);
  g_assert_null (clock);
}

int
main (int   argc,
      char *argv[])
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/follow-clock/follows-rate-and-phase", test_follows_rate_and_phase);
  g_test_add_func ("/follow-clock/standing-leader", test_standing_leader);
  g_test_add_func ("/follow-clock/rate-kept-across-jump", test_rate_kept_across_jump);
  g_test_add_func ("/follow-clock/wild-leader", test_wild_leader);
  g_test_add_func ("/follow-clock/stop-releases", test_stop_releases);

  return g_test_run ();
}
