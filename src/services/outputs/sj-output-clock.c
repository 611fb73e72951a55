/* sj-output-clock.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Maps a time on the page's audio clock (AudioContext.currentTime, in
 * seconds) onto the system clock (microseconds since the epoch), where OSC
 * timetags, JACK and the ALSA sequencer live.
 *
 * The page samples the two clocks together with every output message. The
 * audio clock only advances once per rendered block (128 frames or more, a
 * few milliseconds), so a pair taken just before a block is rendered reads
 * an audio time that is late by up to a block, and a pair delayed on the
 * page's busy main thread reads a late system time: both make the offset
 * (epoch − audio) too large, and the smallest offsets are the best.
 *
 * Two things make the plain smallest offset over a short window jumpy,
 * and every jump of the estimate moves all later timetags against the
 * earlier ones:
 *  - a sound server that fell behind renders blocks in a burst to catch
 *    up, and a pair read during the burst has its audio clock ahead, its
 *    offset too small: one such pair would pull the estimate down;
 *  - when the best pair ages out of the window, the estimate steps up to
 *    the next best, which on a loaded machine can be milliseconds worse.
 * So the estimate is the second smallest offset seen over the last
 * WINDOW seconds: one stray pair cannot move it, and the window is long
 * enough for a performance to rarely see it step, yet short enough to
 * follow the drift between the sound card's clock and the system clock
 * (a few ppm: well under a millisecond over the window). Pairs are kept
 * as the best two of each second, so the memory and the window's length
 * do not depend on how many messages a pattern sends. A new AudioContext
 * (its clock starting again from zero) resets it.
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sj-output-clock.h"

/* Seconds of pairs the estimate is taken from: one bucket each. */
#define WINDOW 20

typedef struct
{
  gint64 second;     /* of arrival, on the monotonic clock */
  double best[2];    /* the two smallest offsets that arrived in it */
  gboolean used;
} Bucket;

struct _SjOutputClock
{
  Bucket buckets[WINDOW];
  gint64 newest_second;
  double last_audio_s;
};

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

SjOutputClock *
sj_output_clock_new (void)
{
  return g_new0 (SjOutputClock, 1);
}

void
sj_output_clock_free (SjOutputClock *clock)
{
  g_free (clock);
}

void
sj_output_clock_reset (SjOutputClock *clock)
{
  memset (clock, 0, sizeof *clock);
}

/**
 * sj_output_clock_add_pair:
 * @audio_s: the audio clock, in seconds
 * @epoch_ms: the system clock read at the same moment, in milliseconds
 *   since the epoch
 * @now_us: the monotonic time of the pair's arrival, which ages it
 */
void
sj_output_clock_add_pair (SjOutputClock *clock,
                          double         audio_s,
                          double         epoch_ms,
                          gint64         now_us)
{
  Bucket *bucket;
  double offset_us;
  gint64 second;

  g_return_if_fail (clock != NULL);

  if (!isfinite (audio_s) || !isfinite (epoch_ms) || audio_s <= 0 || now_us < 0)
    return;

  /* The audio clock only moves forward: going back means another
   * AudioContext, whose offset has nothing to do with the old one. */
  if (audio_s + 0.5 < clock->last_audio_s)
    sj_output_clock_reset (clock);
  clock->last_audio_s = MAX (clock->last_audio_s, audio_s);

  offset_us = epoch_ms * 1000.0 - audio_s * 1e6;
  second = now_us / G_USEC_PER_SEC;
  bucket = &clock->buckets[second % WINDOW];
  if (!bucket->used || bucket->second != second)
    *bucket = (Bucket) { second, { offset_us, INFINITY }, TRUE };
  else if (offset_us < bucket->best[0])
    {
      bucket->best[1] = bucket->best[0];
      bucket->best[0] = offset_us;
    }
  else if (offset_us < bucket->best[1])
    bucket->best[1] = offset_us;
  clock->newest_second = MAX (clock->newest_second, second);
}

/**
 * sj_output_clock_map:
 * @audio_s: a time on the audio clock, in seconds
 * @epoch_us: (out): the same time on the system clock, in microseconds
 *   since the epoch
 *
 * Returns: %FALSE when no pair has been seen yet
 */
gboolean
sj_output_clock_map (SjOutputClock *clock,
                     double         audio_s,
                     gint64        *epoch_us)
{
  double offsets[WINDOW * 2];
  guint count = 0;

  g_return_val_if_fail (clock != NULL, FALSE);

  if (!isfinite (audio_s))
    return FALSE;

  for (guint i = 0; i < WINDOW; i++)
    {
      const Bucket *bucket = &clock->buckets[i];

      if (!bucket->used || clock->newest_second - bucket->second >= WINDOW)
        continue;
      for (guint j = 0; j < 2; j++)
        if (isfinite (bucket->best[j]))
          offsets[count++] = bucket->best[j];
    }
  if (count == 0)
    return FALSE;

  /* With two pairs only, the better one: the second best of two is the
   * worst. From three on, the second best outvotes one stray pair. */
  qsort (offsets, count, sizeof (double), compare_doubles);
  *epoch_us = (gint64)llround (audio_s * 1e6 + offsets[count >= 3 ? 1 : 0]);
  return TRUE;
}
