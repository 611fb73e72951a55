/* sj-follow-clock.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A system clock that runs at another clock's rate (issue 35).
 *
 * WebKit's Web Audio pipeline runs on the system clock, and pulsesink is
 * slaved to it; the sound server plays at its own rate, about 180 ppm off
 * against PulseAudio's null sink, so every ~110 s the sink jumps by 20 ms
 * (its skew correction, an audible hole). Making the sink's own clock the
 * pipeline's removes the jumps but hands the page the sound server's clock
 * as it is, in steps, and the page's scheduler found its notes late more
 * often under load (bench/README.md).
 *
 * This clock is the middle way: a GstSystemClock, so its time moves as
 * smoothly as the system's and starts where the system clock is (nothing in
 * the pipeline sees a jump when it is put in), whose rate is set, once per
 * interval, to the leader's (the sink's clock) as measured since it started
 * following, plus a slow pull that keeps the two from drifting apart in
 * phase. Each new rate is anchored at the current time, so the clock's time
 * stays continuous. The sink, slaved to a pipeline clock that runs at its
 * own rate, then never builds up the 20 ms it would correct.
 *
 * Not gst_clock_set_master (): a slave clock takes its master's time as
 * its own, which for pulsesink's clock starts at 0 when the stream does,
 * hours before the system clock the pipeline's base time was taken from;
 * and its regression follows the master's steps within a few samples.
 * Here only the rate is taken, measured over the whole time since the
 * leader started moving.
 */

#include "config.h"

#include <math.h>

#include "sj-follow-clock.h"

GST_DEBUG_CATEGORY_STATIC (sj_follow_clock_debug);
#define GST_CAT_DEFAULT sj_follow_clock_debug

/* Ticks the leader must be seen advancing before the clock follows it: a
 * sink's clock stands still until its stream plays. */
#define TICKS_TO_START 2
/* Ticks of following before the leader's rate is taken: until then the
 * measured rate is mostly the leader's jitter over a short time. */
#define TICKS_TO_MEASURE 4
/* The phase error is pulled back to 0 over this many ticks. */
#define TICKS_TO_CORRECT 30
/* The smoothing of the phase error (an exponential average, per tick). */
#define ERROR_SMOOTHING 0.2
/* The furthest the rate goes from the system clock's: 1,000 ppm, five
 * times the drift of PulseAudio's null sink. A leader further off is not a
 * clock to follow. */
#define MAX_RATE_OFFSET 1e-3
/* A tick in which the leader moved more than 1 % faster or slower than the
 * system clock is not measured: a stream starting or pausing within it, or
 * a clock gone wrong. */
#define MAX_TICK_OFFSET 1e-2
/* After following starts afresh (the leader paused or jumped), the rate
 * measured before counts as this many ticks of the new measurement, at
 * most: over a short baseline the new one is mostly the leader's jitter
 * (a 0.4 ms step over 4 s is 100 ppm; -376 ppm was seen 10 s after a
 * re-anchoring), and a sound server's rate does not change when its stream
 * resumes. The new measurement takes over as its baseline grows. */
#define TICKS_TO_TRUST 30
/* How often, in ticks, the state is logged at GST_DEBUG=sjfollowclock:4. */
#define TICKS_TO_LOG 10

struct _SjFollowClock
{
  GstSystemClock parent_instance;

  GMutex         lock;
  GstClock      *leader;
  GstClockID     tick;
  GstClockTime   interval;

  gboolean       following;
  guint          advancing;   /* consecutive ticks the leader moved */
  guint64        ticks;       /* ticks while following */
  GstClockTime   last_leader;
  GstClockTime   last_internal;
  GstClockTime   internal0;   /* anchors, when following started */
  GstClockTime   time0;
  GstClockTime   leader0;
  double         error;       /* smoothed phase error, ns (this clock ahead) */
  double         rate;        /* this clock's, in the leader's ns per system ns */
  double         measured;    /* the leader's, over the current baseline */
  double         settled;     /* the leader's, over the baseline before */
  double         settled_ns;  /* how much that counts, ns of baseline */
};

G_DEFINE_FINAL_TYPE (SjFollowClock, sj_follow_clock, GST_TYPE_SYSTEM_CLOCK)

/* Sets this clock's rate, anchored at @internal and the time it has there
 * now, so that the time goes on from where it is. */
static void
set_rate (SjFollowClock *self,
          GstClockTime   internal,
          double         rate)
{
  GstClockTime cal_internal, cal_external, num, denom, now;

  gst_clock_get_calibration (GST_CLOCK (self), &cal_internal, &cal_external, &num, &denom);
  now = gst_clock_adjust_with_calibration (GST_CLOCK (self), internal,
                                           cal_internal, cal_external, num, denom);
  gst_clock_set_calibration (GST_CLOCK (self), internal, now,
                             (GstClockTime) llround (rate * GST_SECOND), GST_SECOND);
  self->rate = rate;
}

static gboolean
tick_cb (GstClock     *system,
         GstClockTime  time,
         GstClockID    id,
         gpointer      user_data)
{
  SjFollowClock *self = SJ_FOLLOW_CLOCK (user_data);
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  GstClockTime internal, now, leader;
  double elapsed, measured, error, rate;

  if (self->leader == NULL)
    return FALSE;

  internal = gst_clock_get_internal_time (GST_CLOCK (self));
  now = gst_clock_get_time (GST_CLOCK (self));
  /* The leader's own time, not its calibrated one: a sink slaved to the
   * pipeline's clock recalibrates its clock to track that clock (its skew
   * correction moves the calibration), and following that would be
   * following ourselves. */
  leader = gst_clock_get_internal_time (self->leader);

  /* A leader that stands still (its stream paused or not started), or
   * moved at another pace than a clock's in this tick (its stream started or
   * stopped within it), is not followed: the rate stays what it was before
   * this tick, and following starts afresh, from new anchors, after two
   * regular ticks. */
  if (!GST_CLOCK_TIME_IS_VALID (leader) || !GST_CLOCK_TIME_IS_VALID (self->last_leader) ||
      leader <= self->last_leader ||
      fabs ((double) (leader - self->last_leader) / (double) (internal - self->last_internal) - 1.0) > MAX_TICK_OFFSET)
    {
      if (self->following)
        {
          GST_INFO_OBJECT (self, "the leader stopped or jumped; the rate stays %+.1f ppm", (self->rate - 1.0) * 1e6);
          /* What was measured is kept for the next baseline to start from. */
          if (self->ticks >= TICKS_TO_MEASURE)
            {
              self->settled = self->measured;
              self->settled_ns = MIN ((double) (self->last_internal - self->internal0),
                                      (double) TICKS_TO_TRUST * (double) self->interval);
            }
        }
      self->following = FALSE;
      self->advancing = 0;
      self->last_leader = leader;
      self->last_internal = internal;
      return TRUE;
    }
  self->last_leader = leader;
  self->last_internal = internal;

  if (!self->following)
    {
      if (++self->advancing < TICKS_TO_START)
        return TRUE;
      self->following = TRUE;
      self->ticks = 0;
      self->internal0 = internal;
      self->time0 = now;
      self->leader0 = leader;
      self->error = 0.0;
      GST_INFO_OBJECT (self, "following %s", GST_OBJECT_NAME (self->leader));
      return TRUE;
    }

  self->ticks++;
  elapsed = (double) (internal - self->internal0);
  error = (double) (now - self->time0) - (double) (leader - self->leader0);
  self->error += ERROR_SMOOTHING * (error - self->error);

  /* The leader's rate over everything since following started (the longer,
   * the less its jitter counts), weighed against the rate measured before
   * the last re-anchoring, less the phase error spread over a while. */
  if (self->settled_ns > 0 && elapsed > 0)
    measured = (self->settled * self->settled_ns + (double) (leader - self->leader0)) /
               (self->settled_ns + elapsed);
  else if (self->ticks >= TICKS_TO_MEASURE && elapsed > 0)
    measured = (double) (leader - self->leader0) / elapsed;
  else
    measured = self->rate;
  self->measured = measured;
  rate = measured - self->error / ((double) TICKS_TO_CORRECT * (double) self->interval);
  rate = CLAMP (rate, 1.0 - MAX_RATE_OFFSET, 1.0 + MAX_RATE_OFFSET);
  set_rate (self, internal, rate);

  if (self->ticks % TICKS_TO_LOG == 0)
    GST_INFO_OBJECT (self, "after %.1f s: the leader at %+.1f ppm, this clock at %+.1f ppm, %+.3f ms ahead",
                     elapsed / GST_SECOND, (measured - 1.0) * 1e6, (rate - 1.0) * 1e6, self->error / GST_MSECOND);

  return TRUE;
}

/**
 * sj_follow_clock_stop:
 *
 * Stops following: the clock keeps its last rate. Called when the sink
 * goes, since the leader is its clock.
 */
void
sj_follow_clock_stop (SjFollowClock *self)
{
  g_assert (SJ_IS_FOLLOW_CLOCK (self));

  g_mutex_lock (&self->lock);
  if (self->tick != NULL)
    {
      gst_clock_id_unschedule (self->tick);
      g_clear_pointer (&self->tick, gst_clock_id_unref);
    }
  g_clear_object (&self->leader);
  self->following = FALSE;
  g_mutex_unlock (&self->lock);
}

/* The rate, in the leader's ns per system ns (1.0 until it follows). */
double
sj_follow_clock_get_rate (SjFollowClock *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_assert (SJ_IS_FOLLOW_CLOCK (self));

  locker = g_mutex_locker_new (&self->lock);
  return self->rate;
}

/* How far this clock is ahead of the leader since following started, in
 * ns, smoothed (0 until it follows). */
gint64
sj_follow_clock_get_offset (SjFollowClock *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_assert (SJ_IS_FOLLOW_CLOCK (self));

  locker = g_mutex_locker_new (&self->lock);
  return self->following ? (gint64) self->error : 0;
}

gboolean
sj_follow_clock_is_following (SjFollowClock *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_assert (SJ_IS_FOLLOW_CLOCK (self));

  locker = g_mutex_locker_new (&self->lock);
  return self->following;
}

static void
sj_follow_clock_finalize (GObject *object)
{
  SjFollowClock *self = SJ_FOLLOW_CLOCK (object);

  g_clear_object (&self->leader);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (sj_follow_clock_parent_class)->finalize (object);
}

static void
sj_follow_clock_class_init (SjFollowClockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_follow_clock_finalize;

  GST_DEBUG_CATEGORY_INIT (sj_follow_clock_debug, "sjfollowclock", 0,
                           "Strudel Jam's system clock at the sink's rate");
}

static void
sj_follow_clock_init (SjFollowClock *self)
{
  g_mutex_init (&self->lock);
  self->rate = 1.0;
  self->measured = 1.0;
  self->last_leader = GST_CLOCK_TIME_NONE;
}

/**
 * sj_follow_clock_new:
 * @leader: the clock whose rate to take (pulsesink's)
 * @interval: how often to measure it
 *
 * Returns: (transfer full): a monotonic system clock, at the system clock's
 * time now, that follows @leader's rate once @leader moves. The ticks run on
 * the system clock's thread and hold a reference until
 * sj_follow_clock_stop ().
 */
GstClock *
sj_follow_clock_new (GstClock     *leader,
                     GstClockTime  interval)
{
  g_autoptr(GstClock) system = gst_system_clock_obtain ();
  SjFollowClock *self;

  g_return_val_if_fail (GST_IS_CLOCK (leader), NULL);
  g_return_val_if_fail (interval > 0, NULL);

  self = g_object_new (SJ_TYPE_FOLLOW_CLOCK,
                       "name", "sjfollowclock",
                       "clock-type", GST_CLOCK_TYPE_MONOTONIC,
                       NULL);
  /* A clock made with g_object_new () is floating, as GstObjects are. */
  gst_object_ref_sink (self);
  self->leader = gst_object_ref (leader);
  self->interval = interval;
  self->tick = gst_clock_new_periodic_id (system, gst_clock_get_time (system) + interval, interval);
  gst_clock_id_wait_async (self->tick, tick_cb, gst_object_ref (self), gst_object_unref);

  return GST_CLOCK (self);
}
