/* test-wav-writer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjWavWriter (issue 33): a WAV arriving in uneven pieces is written whole
 * and measured (peak, RMS, frames); a file that cannot be finished (a full
 * disk, stood in for by RLIMIT_FSIZE; a header that is not 16-bit PCM; data
 * that ends early; an abort) leaves nothing under the chosen name and no
 * temporary file, and an older file of that name as it was. A .flac name
 * gets the same samples as FLAC (flacenc), which GStreamer's flacdec decodes
 * back to exactly the samples written, same length; a full disk there too
 * leaves the old file.
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include "sj-render-options.h"
#include "sj-wav-header.h"
#include "sj-wav-writer.h"

static GByteArray *
make_wav (guint frames)
{
  GByteArray *wav = g_byte_array_new ();
  guint32 data_size = frames * 4;
  guint32 riff_size = 36 + data_size;
  guint8 header[44] = { 'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
                        16, 0, 0, 0, 1, 0, 2, 0, 0x80, 0xbb, 0, 0, 0, 0xee, 2, 0, 4, 0, 16, 0,
                        'd', 'a', 't', 'a', 0, 0, 0, 0 };

  memcpy (header + 4, &riff_size, 4);
  memcpy (header + 40, &data_size, 4);
  g_byte_array_append (wav, header, sizeof header);
  for (guint i = 0; i < frames; i++)
    {
      /* A square wave at half scale on the left, silence on the right. */
      gint16 sample[2] = { (i / 50) % 2 ? 16384 : -16384, 0 };

      g_byte_array_append (wav, (guint8 *)sample, sizeof sample);
    }

  return wav;
}

static guint
count_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (d) != NULL)
    n++;

  return n;
}

static void
test_whole_and_measured (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-wav-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.wav", NULL);
  g_autoptr(GByteArray) wav = make_wav (48000);
  g_autoptr(SjWavWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;
  /* Uneven pieces: inside the header, then odd sizes. */
  gsize cuts[] = { 0, 7, 45, 10001, 77777, wav->len };

  writer = sj_wav_writer_new (path, &error);
  g_assert_no_error (error);
  for (guint i = 0; i + 1 < G_N_ELEMENTS (cuts); i++)
    {
      g_assert_true (sj_wav_writer_write (writer, wav->data + cuts[i], cuts[i + 1] - cuts[i], &error));
      g_assert_no_error (error);
    }
  /* Nothing under the name before the commit. */
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (sj_wav_writer_commit (writer, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_cmpmem (contents, length, wav->data, wav->len);
  g_assert_cmpuint (sj_wav_writer_get_frames (writer), ==, 48000);
  g_assert_cmpuint (sj_wav_writer_get_rate (writer), ==, 48000);
  g_assert_cmpuint (sj_wav_writer_get_channels (writer), ==, 2);
  g_assert_cmpfloat_with_epsilon (sj_wav_writer_get_peak (writer), 0.5, 1e-9);
  /* Half scale on one channel of two: sqrt(0.25 / 2). */
  g_assert_cmpfloat_with_epsilon (sj_wav_writer_get_rms (writer), sqrt (0.125), 1e-9);
  g_assert_cmpuint (count_files (dir), ==, 1);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_full_disk_leaves_the_old_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-wav-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.wav", NULL);
  g_autoptr(GByteArray) wav = make_wav (48000);
  g_autoptr(SjWavWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  struct rlimit old, small = { 64 * 1024, 64 * 1024 };
  gboolean ok;

  g_assert_true (g_file_set_contents (path, "the old take", -1, NULL));
  writer = sj_wav_writer_new (path, &error);
  g_assert_no_error (error);

  /* Files may grow to 64 KiB only: write() fails with EFBIG, as with a
   * full disk (ENOSPC), past that. */
  signal (SIGXFSZ, SIG_IGN);
  getrlimit (RLIMIT_FSIZE, &old);
  setrlimit (RLIMIT_FSIZE, &small);
  ok = sj_wav_writer_write (writer, wav->data, wav->len, &error);
  setrlimit (RLIMIT_FSIZE, &old);

  g_assert_false (ok);
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  g_assert_nonnull (strstr (error->message, path));
  sj_wav_writer_abort (writer);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "the old take");
  g_assert_cmpuint (count_files (dir), ==, 1);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_refused_and_short (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-wav-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.wav", NULL);
  g_autoptr(GByteArray) wav = make_wav (1000);
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(SjWavWriter) writer = sj_wav_writer_new (path, &error);

    /* Not PCM: format 3 (float). */
    wav->data[20] = 3;
    g_assert_false (sj_wav_writer_write (writer, wav->data, wav->len, &error));
    g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_FORMAT);
    g_clear_error (&error);
    wav->data[20] = 1;
  }
  g_assert_cmpuint (count_files (dir), ==, 0);

  {
    g_autoptr(SjWavWriter) writer = sj_wav_writer_new (path, &error);

    /* The data ends early: no commit. */
    g_assert_true (sj_wav_writer_write (writer, wav->data, wav->len - 100, &error));
    g_assert_false (sj_wav_writer_commit (writer, &error));
    g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_FORMAT);
    g_clear_error (&error);
  }
  g_assert_cmpuint (count_files (dir), ==, 0);

  {
    g_autoptr(SjWavWriter) writer = sj_wav_writer_new (path, &error);

    /* Dropped without a commit (a cancelled render). */
    g_assert_true (sj_wav_writer_write (writer, wav->data, 1000, &error));
  }
  g_assert_cmpuint (count_files (dir), ==, 0);

  g_rmdir (dir);
}

/* Decodes a FLAC file with GStreamer's flacdec into 16-bit samples. */
static GByteArray *
decode_flac (const char *path,
             guint      *rate,
             guint      *channels)
{
  g_autofree char *description = g_strdup_printf ("filesrc location=\"%s\" ! flacparse ! flacdec ! audioconvert ! "
                                                  "audio/x-raw,format=S16LE ! appsink name=sink sync=false", path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GstElement) pipeline = gst_parse_launch (description, &error);
  g_autoptr(GstElement) sink = NULL;
  GByteArray *pcm = g_byte_array_new ();
  GstSample *sample;

  g_assert_no_error (error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink))) != NULL)
    {
      GstStructure *caps = gst_caps_get_structure (gst_sample_get_caps (sample), 0);
      GstMapInfo map;
      int value;

      gst_structure_get_int (caps, "rate", &value);
      *rate = value;
      gst_structure_get_int (caps, "channels", &value);
      *channels = value;
      gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
      g_byte_array_append (pcm, map.data, map.size);
      gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      gst_sample_unref (sample);
    }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  return pcm;
}

static void
test_flac (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-wav-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.flac", NULL);
  g_autoptr(GByteArray) wav = make_wav (48000);
  g_autoptr(GByteArray) pcm = NULL;
  g_autoptr(SjWavWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  gsize cuts[] = { 0, 7, 45, 10001, 77777, wav->len };
  guint rate = 0, channels = 0;
  GStatBuf st;

  writer = sj_wav_writer_new (path, &error);
  g_assert_no_error (error);
  for (guint i = 0; i + 1 < G_N_ELEMENTS (cuts); i++)
    {
      g_assert_true (sj_wav_writer_write (writer, wav->data + cuts[i], cuts[i + 1] - cuts[i], &error));
      g_assert_no_error (error);
    }
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (sj_wav_writer_commit (writer, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_files (dir), ==, 1);
  g_assert_cmpfloat_with_epsilon (sj_wav_writer_get_peak (writer), 0.5, 1e-9);

  /* Lossless, and smaller than the WAV. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, wav->len / 2);
  pcm = decode_flac (path, &rate, &channels);
  g_assert_cmpuint (rate, ==, 48000);
  g_assert_cmpuint (channels, ==, 2);
  g_assert_cmpmem (pcm->data, pcm->len, wav->data + 44, wav->len - 44);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_flac_full_disk (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-wav-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.flac", NULL);
  g_autoptr(GByteArray) wav = make_wav (48000 * 10);
  g_autoptr(SjWavWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  struct rlimit old, small = { 16 * 1024, 16 * 1024 };
  gboolean ok;

  /* Noise does not compress: 10 s of it is far over 16 KiB as FLAC. */
  for (guint i = 44; i < wav->len; i++)
    wav->data[i] = g_random_int () & 0xff;
  g_assert_true (g_file_set_contents (path, "the old take", -1, NULL));
  writer = sj_wav_writer_new (path, &error);
  g_assert_no_error (error);

  signal (SIGXFSZ, SIG_IGN);
  getrlimit (RLIMIT_FSIZE, &old);
  setrlimit (RLIMIT_FSIZE, &small);
  ok = sj_wav_writer_write (writer, wav->data, wav->len, &error) && sj_wav_writer_commit (writer, &error);
  setrlimit (RLIMIT_FSIZE, &old);

  g_assert_false (ok);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, path));
  sj_wav_writer_abort (writer);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "the old take");
  g_assert_cmpuint (count_files (dir), ==, 1);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_options (void)
{
  g_autoptr(SjRenderOptions) options = sj_render_options_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *stem = NULL;

  options->code = g_strdup ("s(\"bd\")");
  options->output = g_strdup ("/tmp/x.wav");
  options->cycles = 0;
  g_assert_false (sj_render_options_check (options, &error));
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES);
  g_clear_error (&error);
  options->cycles = 100000;
  g_assert_false (sj_render_options_check (options, &error));
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES);
  g_clear_error (&error);
  /* 1000 cycles at 0.5 cps: 2000 s, over the 600 s a render may hold. */
  options->cycles = 1000;
  g_assert_false (sj_render_options_check (options, &error));
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_TOO_LONG);
  g_clear_error (&error);
  options->cycles = 8;
  g_assert_true (sj_render_options_check (options, &error));
  g_assert_no_error (error);

  stem = sj_render_stem_path ("/s", 0, "$");
  g_assert_cmpstr (stem, ==, "/s/01-layer.wav");
  g_free (g_steal_pointer (&stem));
  stem = sj_render_stem_path ("/s", 11, "drums/../x");
  g_assert_cmpstr (stem, ==, "/s/12-drumsx.wav");
}

/* The header the recorder and the transcription client write, byte for
 * byte: what SjWavWriter itself accepts. */
static void
test_header (void)
{
  static const guint8 expected[SJ_WAV_HEADER_SIZE] = {
    'R', 'I', 'F', 'F', 0x0c, 0x04, 0x00, 0x00, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
    16, 0, 0, 0, 1, 0, 2, 0, 0x80, 0xbb, 0x00, 0x00, 0x00, 0xee, 0x02, 0x00, 4, 0, 16, 0,
    'd', 'a', 't', 'a', 0xe8, 0x03, 0x00, 0x00 };
  guint8 header[SJ_WAV_HEADER_SIZE];

  sj_wav_header_set (header, 48000, 2, 1000);
  g_assert_cmpmem (header, sizeof header, expected, sizeof expected);

  sj_wav_put_le32 (header + SJ_WAV_DATA_SIZE_OFFSET, 0x01020304);
  g_assert_cmpint (header[40], ==, 4);
  g_assert_cmpint (header[43], ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/wav-writer/whole-and-measured", test_whole_and_measured);
  g_test_add_func ("/wav-writer/full-disk-leaves-the-old-file", test_full_disk_leaves_the_old_file);
  g_test_add_func ("/wav-writer/refused-and-short", test_refused_and_short);
  g_test_add_func ("/wav-writer/options", test_options);
  g_test_add_func ("/wav-writer/flac", test_flac);
  g_test_add_func ("/wav-writer/header", test_header);
  g_test_add_func ("/wav-writer/flac-full-disk-leaves-the-old-file", test_flac_full_disk);

  return g_test_run ();
}
