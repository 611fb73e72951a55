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
 * an audio time that is late by up to a block: its offset (epoch − audio)
 * is too large by that much, and never too small. The best estimate is
 * therefore the smallest offset among the recent pairs, which converges on
 * the true one within a few pairs. Pairs older than the window are
 * forgotten so that the slow drift between the sound card's clock and the
 * system clock (a few ppm) is followed; a new AudioContext (its clock
 * starting again from zero) resets the estimate.
 */

#include "config.h"

#include <math.h>

#include "sj-output-clock.h"

/* How many pairs, and how old at most, the estimate is taken from. */
#define PAIRS      64
#define WINDOW_US  (5 * G_USEC_PER_SEC)

typedef struct
{
  double offset_us;
  gint64 when_us;
} Pair;

struct _SjOutputClock
{
  Pair   pairs[PAIRS];
  guint  count;
  guint  next;
  double last_audio_s;
};

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
  clock->count = 0;
  clock->next = 0;
  clock->last_audio_s = 0;
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
  g_return_if_fail (clock != NULL);

  if (!isfinite (audio_s) || !isfinite (epoch_ms) || audio_s <= 0)
    return;

  /* The audio clock only moves forward: going back means another
   * AudioContext, whose offset has nothing to do with the old one. */
  if (audio_s + 0.5 < clock->last_audio_s)
    sj_output_clock_reset (clock);
  clock->last_audio_s = MAX (clock->last_audio_s, audio_s);

  clock->pairs[clock->next].offset_us = epoch_ms * 1000.0 - audio_s * 1e6;
  clock->pairs[clock->next].when_us = now_us;
  clock->next = (clock->next + 1) % PAIRS;
  clock->count = MIN (clock->count + 1, PAIRS);
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
  gint64 newest = G_MININT64;
  double best = INFINITY;

  g_return_val_if_fail (clock != NULL, FALSE);

  if (clock->count == 0 || !isfinite (audio_s))
    return FALSE;

  for (guint i = 0; i < clock->count; i++)
    newest = MAX (newest, clock->pairs[i].when_us);

  for (guint i = 0; i < clock->count; i++)
    {
      if (newest - clock->pairs[i].when_us <= WINDOW_US)
        best = MIN (best, clock->pairs[i].offset_us);
    }

  *epoch_us = (gint64)llround (audio_s * 1e6 + best);
  return TRUE;
}
