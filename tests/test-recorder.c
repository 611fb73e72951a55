/* test-recorder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Record what you hear (issue 33), SjRecorder against a private PulseAudio
 * (tests/with-pulse.sh): pacat plays a 440 Hz sine at half scale as "the
 * app" (its application.name is what the recorder looks for) while a
 * second pacat plays 3 kHz into the same sink. The recording, to WAV and
 * to FLAC, is as long as the time it ran (within a fragment), at the
 * sine's level (within 1 dB), and holds no 3 kHz: only our stream. A child
 * process recording to WAV and FLAC killed with SIGKILL leaves both
 * playable, the WAV's header at most a second short of its data; one
 * dropped while recording (quitting) closes the file whole. A folder
 * that cannot be written is an error at once; a full disk (RLIMIT_FSIZE)
 * is the "failed" signal naming the file, the tone playing on; a recording
 * with nothing playing keeps no file.
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include "sj-recorder.h"
#include "sj-test-files.h"
#include "sj-test-pcm.h"

#define RATE 44100
#define TONE "sj-test-tone"
#define OTHER "sj-test-other"

static char *tmp;

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until @done or @seconds passed; FALSE on timeout. */
static gboolean
spin_until (gboolean (*done) (gpointer),
            gpointer  data,
            double    seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64)(seconds * G_USEC_PER_SEC);

  while (done == NULL || !done (data))
    {
      gboolean tick = FALSE;
      guint id;

      if (g_get_monotonic_time () >= end)
        return done == NULL;
      id = g_timeout_add (20, timeout_cb, &tick);
      while (!tick)
        g_main_context_iteration (NULL, TRUE);
      (void)id;
    }

  return TRUE;
}

static gboolean
attached (gpointer data)
{
  return sj_recorder_is_attached (data);
}

static gboolean
heard (gpointer data)
{
  return sj_recorder_get_seconds (data) > 0;
}

/* 30 s of a sine at half scale, both channels, s16le. */
static char *
write_tone (double frequency)
{
  g_autofree char *name = g_strdup_printf ("tone-%.0f.raw", frequency);
  char *path = g_build_filename (tmp, name, NULL);
  gsize frames = RATE * 30;
  g_autofree gint16 *samples = g_new (gint16, frames * 2);

  for (gsize i = 0; i < frames; i++)
    samples[2 * i] = samples[2 * i + 1] = (gint16)(16384 * sin (2 * G_PI * frequency * i / RATE));
  g_assert_true (g_file_set_contents (path, (const char *)samples, frames * 4, NULL));

  return path;
}

static GSubprocess *
play (const char *client,
      double      frequency)
{
  g_autofree char *file = write_tone (frequency);
  g_autofree char *client_arg = g_strdup_printf ("--client-name=%s", client);
  g_autoptr(GError) error = NULL;
  GSubprocess *player;

  player = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "pacat", "--playback", "--raw", "--format=s16le",
                             "--rate=44100", "--channels=2", "--latency-msec=30", client_arg, file, NULL);
  g_assert_no_error (error);

  return player;
}

static void
stop_player (GSubprocess *player)
{
  g_subprocess_send_signal (player, SIGTERM);
  g_subprocess_wait (player, NULL, NULL);
}

typedef struct
{
  guint   rate;
  guint   channels;
  gsize   frames;
  gint16 *samples;
  gsize   header_frames;   /* a WAV's: what its header says */
} Sound;

static void
sound_clear (Sound *sound)
{
  g_clear_pointer (&sound->samples, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Sound, sound_clear)

static void
read_wav (const char *path,
          Sound      *sound)
{
  g_autofree char *contents = NULL;
  gsize length;
  guint32 size;
  guint16 channels;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_cmpuint (length, >=, 44);
  g_assert_cmpmem (contents, 4, "RIFF", 4);
  g_assert_cmpmem (contents + 8, 8, "WAVEfmt ", 8);
  g_assert_cmpmem (contents + 36, 4, "data", 4);
  memcpy (&channels, contents + 22, 2);
  memcpy (&sound->rate, contents + 24, 4);
  memcpy (&size, contents + 40, 4);
  sound->channels = channels;
  g_assert_cmpuint (sound->channels, ==, 2);
  g_assert_cmpuint (size, <=, length - 44);
  sound->header_frames = size / 4;
  sound->frames = (length - 44) / 4;
  sound->samples = g_memdup2 (contents + 44, sound->frames * 4);
}

static void
read_flac (const char *path,
           Sound      *sound)
{
  guint rate = 0;
  g_autoptr(GBytes) pcm = sj_test_pcm_decode (path, &rate);
  gsize size;
  gconstpointer data = g_bytes_get_data (pcm, &size);

  sound->rate = rate;
  sound->channels = 2;
  sound->frames = size / 4;
  sound->samples = g_memdup2 (data, size);
}

static void
check_tone (const Sound *sound)
{
  /* Past the first 0.1 s (the stream's start). */
  gsize skip = sound->rate / 10;
  const gint16 *samples = sound->samples + 2 * skip;
  gsize frames = sound->frames - skip;
  double level = sj_test_pcm_rms_db (samples, frames * 2);
  double tone = sj_test_pcm_power_at (samples, frames, 440, sound->rate);
  double other = sj_test_pcm_power_at (samples, frames, 3000, sound->rate);

  g_test_message ("level %.2f dBFS, 3 kHz %.1f dB under the tone", level, 10 * log10 (tone / MAX (other, 1e-30)));
  /* A sine at half scale: 20 log10 (0.5 / sqrt 2) = -9.03 dBFS. */
  g_assert_cmpfloat (fabs (level - -9.03), <, 1);
  g_assert_cmpfloat (10 * log10 (tone / MAX (other, 1e-30)), >, 40);
}

static void
record (const char *extension)
{
  g_autofree char *name = g_strdup_printf ("take.%s", extension);
  g_autofree char *path = g_build_filename (tmp, name, NULL);
  g_autoptr(GSubprocess) tone = play (TONE, 440);
  g_autoptr(GSubprocess) other = play (OTHER, 3000);
  g_autoptr(SjRecorder) recorder = sj_recorder_new (TONE, NULL);
  g_autoptr(GError) error = NULL;
  g_auto(Sound) sound = { 0 };
  gint64 start;
  double elapsed, seconds;

  g_assert_true (sj_recorder_start (recorder, path, &error));
  g_assert_no_error (error);
  g_assert_true (spin_until (attached, recorder, 10));
  /* The null sink's monitor delivers its first audio a second or two
   * after a stream starts: the clock starts with the first sound. */
  g_assert_true (spin_until (heard, recorder, 10));
  start = g_get_monotonic_time ();
  spin_until (NULL, NULL, 4);
  g_assert_cmpfloat (sj_recorder_get_seconds (recorder), >, 3);
  g_assert_cmpuint (sj_recorder_get_bytes (recorder), >, 0);
  seconds = sj_recorder_get_seconds (recorder);
  elapsed = (g_get_monotonic_time () - start) / (double)G_USEC_PER_SEC;
  g_assert_true (sj_recorder_stop (recorder, &error));
  g_assert_no_error (error);
  stop_player (tone);
  stop_player (other);

  if (g_str_equal (extension, "wav"))
    {
      read_wav (path, &sound);
      g_assert_cmpuint (sound.header_frames, ==, sound.frames);
    }
  else
    read_flac (path, &sound);

  g_test_message ("%s: %.3f s recorded in %.3f s (%.3f s counted while recording)",
                  extension, (double)sound.frames / sound.rate, elapsed, seconds);
  g_assert_cmpuint (sound.rate, ==, RATE);
  /* Within a block (a 100 ms fragment, and the time to stop). */
  g_assert_cmpfloat (fabs ((double)sound.frames / sound.rate - elapsed), <, 0.25);
  check_tone (&sound);
}

static void
test_wav (void)
{
  record ("wav");
}

static void
test_flac (void)
{
  record ("flac");
}

/* The child: records to WAV and FLAC, says so, and waits to be killed. */
static int
child_main (const char *dir)
{
  g_autofree char *wav = g_build_filename (dir, "killed.wav", NULL);
  g_autofree char *flac = g_build_filename (dir, "killed.flac", NULL);
  g_autoptr(SjRecorder) a = sj_recorder_new (TONE, NULL);
  g_autoptr(SjRecorder) b = sj_recorder_new (TONE, NULL);

  gst_init (NULL, NULL);
  g_assert_true (sj_recorder_start (a, wav, NULL));
  g_assert_true (sj_recorder_start (b, flac, NULL));
  while (sj_recorder_get_seconds (a) < 2.5 || sj_recorder_get_seconds (b) < 2.5)
    spin_until (NULL, NULL, 0.1);
  printf ("recording\n");
  fflush (stdout);
  for (;;)
    spin_until (NULL, NULL, 1);

  return 0;
}

static void
test_killed (void)
{
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *wav = g_build_filename (tmp, "killed.wav", NULL);
  g_autofree char *flac = g_build_filename (tmp, "killed.flac", NULL);
  g_autoptr(GSubprocess) tone = play (TONE, 440);
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_auto(Sound) a = { 0 };
  g_auto(Sound) b = { 0 };

  g_subprocess_launcher_setenv (launcher, "SJ_TEST_RECORDER_CHILD", tmp, TRUE);
  child = g_subprocess_launcher_spawn (launcher, &error, self_path, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (child));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "recording");
  g_subprocess_send_signal (child, SIGKILL);
  g_subprocess_wait (child, NULL, NULL);
  stop_player (tone);

  read_wav (wav, &a);
  g_test_message ("killed: the WAV holds %.2f s, its header says %.2f s",
                  (double)a.frames / a.rate, (double)a.header_frames / a.rate);
  g_assert_cmpfloat ((double)a.header_frames / a.rate, >=, 1.4);
  g_assert_cmpfloat ((double)(a.frames - a.header_frames) / a.rate, <=, 1.2);
  a.frames = a.header_frames;
  check_tone (&a);

  read_flac (flac, &b);
  g_test_message ("killed: the FLAC decodes to %.2f s", (double)b.frames / b.rate);
  g_assert_cmpfloat ((double)b.frames / b.rate, >, 1.5);
  check_tone (&b);
}

/* Dropped while recording (the window closed, the app quitting): the file
 * is closed whole, its header giving all of its data. */
static void
test_dropped (void)
{
  g_autofree char *path = g_build_filename (tmp, "dropped.wav", NULL);
  g_autoptr(GSubprocess) tone = play (TONE, 440);
  SjRecorder *recorder = sj_recorder_new (TONE, NULL);
  g_auto(Sound) sound = { 0 };

  g_assert_true (sj_recorder_start (recorder, path, NULL));
  g_assert_true (spin_until (heard, recorder, 10));
  spin_until (NULL, NULL, 1.5);
  g_object_unref (recorder);
  stop_player (tone);

  read_wav (path, &sound);
  g_test_message ("dropped: %.2f s, all of it in the header", (double)sound.frames / sound.rate);
  g_assert_cmpuint (sound.header_frames, ==, sound.frames);
  g_assert_cmpfloat ((double)sound.frames / sound.rate, >, 1.4);
  check_tone (&sound);
}

static void
failed_cb (SjRecorder  *recorder,
           GError      *error,
           GError     **out)
{
  if (*out == NULL)
    *out = g_error_copy (error);
}

static gboolean
has_error (gpointer data)
{
  return *(GError **)data != NULL;
}

static void
test_failures (void)
{
  g_autofree char *locked = g_build_filename (tmp, "no-such-folder", "take.wav", NULL);
  g_autofree char *path = g_build_filename (tmp, "full.wav", NULL);
  g_autofree char *nothing = g_build_filename (tmp, "nothing.flac", NULL);
  g_autoptr(SjRecorder) recorder = sj_recorder_new (TONE, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) failed = NULL;
  g_autoptr(GSubprocess) tone = NULL;
  struct rlimit old, small = { 64 * 1024, 64 * 1024 };

  /* A folder that is not there: at once, naming the file. */
  g_assert_false (sj_recorder_start (recorder, locked, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, locked));
  g_clear_error (&error);
  g_assert_false (sj_recorder_is_recording (recorder));

  /* Nothing playing: no file kept. */
  g_assert_true (sj_recorder_start (recorder, nothing, &error));
  spin_until (NULL, NULL, 0.5);
  g_assert_false (sj_recorder_stop (recorder, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (g_file_test (nothing, G_FILE_TEST_EXISTS));

  /* A full disk: files stop at 64 KiB (0.37 s of sound). */
  tone = play (TONE, 440);
  g_signal_connect (recorder, "failed", G_CALLBACK (failed_cb), &failed);
  signal (SIGXFSZ, SIG_IGN);
  getrlimit (RLIMIT_FSIZE, &old);
  setrlimit (RLIMIT_FSIZE, &small);
  g_assert_true (sj_recorder_start (recorder, path, &error));
  g_assert_no_error (error);
  g_assert_true (spin_until (has_error, &failed, 10));
  setrlimit (RLIMIT_FSIZE, &old);
  g_test_message ("full disk: %s", failed->message);
  g_assert_nonnull (strstr (failed->message, path));
  /* The music plays on. */
  g_assert_nonnull (g_subprocess_get_identifier (tone));
  g_assert_false (sj_recorder_stop (recorder, &error));
  g_assert_nonnull (error);
  stop_player (tone);
}

int
main (int   argc,
      char *argv[])
{
  const char *child = g_getenv ("SJ_TEST_RECORDER_CHILD");
  int ret;

  if (child != NULL)
    return child_main (child);

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);

  if (g_getenv ("SJ_TEST_PULSE_SINK") == NULL || g_find_program_in_path ("pacat") == NULL)
    {
      g_test_skip ("needs a private PulseAudio (tests/with-pulse.sh) and pacat");
      return 77;
    }

  tmp = g_dir_make_tmp ("sj-recorder-XXXXXX", NULL);
  g_test_add_func ("/recorder/wav", test_wav);
  g_test_add_func ("/recorder/flac", test_flac);
  g_test_add_func ("/recorder/killed-with-sigkill", test_killed);
  g_test_add_func ("/recorder/dropped-while-recording", test_dropped);
  g_test_add_func ("/recorder/failures", test_failures);
  ret = g_test_run ();
  sj_test_remove_tree (tmp);

  return ret;
}
