/* sj-test-pcm.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Measures of 16-bit samples the sound tests share (a recording, a render).
 */

#include "config.h"

#include <math.h>

#include "sj-test-pcm.h"

/* The level of @count samples (any channels), in dB of full scale. */
double
sj_test_pcm_rms_db (const gint16 *samples,
                    gsize         count)
{
  double sum = 0;

  for (gsize i = 0; i < count; i++)
    sum += (samples[i] / 32768.0) * (samples[i] / 32768.0);

  return 10 * log10 (sum / MAX (count, 1));
}

/* Goertzel: the power of @frequency in the left channel of @frames
 * interleaved stereo frames. */
double
sj_test_pcm_power_at (const gint16 *samples,
                      gsize         frames,
                      double        frequency,
                      guint         rate)
{
  double k = 2 * cos (2 * G_PI * frequency / rate), s1 = 0, s2 = 0;

  for (gsize i = 0; i < frames; i++)
    {
      double s = samples[2 * i] / 32768.0 + k * s1 - s2;

      s2 = s1;
      s1 = s;
    }

  return (s1 * s1 + s2 * s2 - k * s1 * s2) / ((double)frames * frames);
}
