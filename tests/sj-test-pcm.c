/* sj-test-pcm.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Measures of 16-bit samples the sound tests share (a recording, a render).
 */

#include "config.h"

#include <math.h>

#include <gst/app/gstappsink.h>
#include <gst/gst.h>

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

/**
 * sj_test_pcm_decode:
 * @path: a sound file GStreamer can decode (WAV, FLAC)
 * @rate: (out): its sample rate
 *
 * Returns: (transfer full): its samples as 16-bit stereo, interleaved
 */
GBytes *
sj_test_pcm_decode (const char *path,
                    guint      *rate)
{
  g_autofree char *description = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! audioconvert ! "
                                                  "audio/x-raw,format=S16LE,channels=2 ! appsink name=sink sync=false",
                                                  path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GstElement) pipeline = NULL;
  g_autoptr(GstElement) sink = NULL;
  GByteArray *pcm = g_byte_array_new ();
  GstSample *sample;

  gst_init (NULL, NULL);
  pipeline = gst_parse_launch (description, &error);
  g_assert_no_error (error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))) != NULL)
    {
      GstStructure *caps = gst_caps_get_structure (gst_sample_get_caps (sample), 0);
      GstMapInfo map;
      int value = 0;

      gst_structure_get_int (caps, "rate", &value);
      *rate = value;
      gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
      g_byte_array_append (pcm, map.data, map.size);
      gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      gst_sample_unref (sample);
    }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  return g_byte_array_free_to_bytes (pcm);
}
