/* test-record.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Record what you hear from the window (issue 33), with a private
 * PulseAudio (tests/with-pulse.sh): the header bar's Record toggle
 * (win.record, accessible name "Record") records the live page's drums to
 * WAV while parecord records the sink's monitor: the file is as long as the
 * time recorded (within a block) and as loud as what parecord heard
 * (within 1 dB), and the button showed the time and size. A sine played by
 * the page with pacat playing 3 kHz into the same sink: the FLAC recorded
 * holds the page's 440 Hz and not the other app's 3 kHz. A folder that
 * cannot be made is a toast and no recording, the music playing on.
 * The render against the live recording (item 5): test-fidelity.c.
 * (A crash mid-recording is tested on SjRecorder itself, test-recorder:
 * a child process killed with SIGKILL.)
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include "sj-test-app.h"
#include "sj-test-pcm.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

static gboolean
heard (gpointer data)
{
  SjWindow *window = data;

  return window->recorder != NULL && sj_recorder_get_seconds (window->recorder) > 0.2;
}

static void
test_record_drums (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autofree char *dir = g_dir_make_tmp ("sj-record-XXXXXX", NULL);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GBytes) samples = NULL;
  g_autofree char *path = NULL;
  g_autofree char *label = NULL;
  Progress progress = { repl, 0, 0 };
  SjTestRecording sink;
  const gint16 *pcm;
  gsize size, frames, skip;
  guint rate = 0;
  gint64 start;
  double elapsed, level, first;

  sj_test_spin_until (sj_test_repl_is_ready, repl, "the live page to be ready");
  outcome = sj_test_evaluate (repl, "setcps(1)\n$: s(\"bd*4, hh*8, ~ sd\").gain(.5)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the live page to play");
  /* The drums are heard in the sink before the take (a busy machine may
   * start the page's output late). */
  for (guint i = 0; i < 20 && !(sj_test_record_sink (2, 0.3).rms_db > -40); i++)
    ;

  /* The button is named for a screen reader and bound to win.record. */
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (window->record_button)), ==, "win.record");
  _sj_window_set_record_folder (window, dir, "wav");
  sj_test_click (GTK_WIDGET (window->record_button));
  g_assert_true (g_variant_get_boolean (g_action_group_get_action_state (G_ACTION_GROUP (window), "record")));
  g_assert_true (gtk_toggle_button_get_active (window->record_button));
  sj_test_spin_until (heard, window, "the recording to hear the page");
  start = g_get_monotonic_time ();
  first = sj_recorder_get_seconds (window->recorder);

  /* parecord on the sink's monitor meanwhile: exactly 4 s, four whole
   * cycles of the pattern at 1 cps, as the file's level below, so that the
   * two windows hear the same sound whatever their phase. */
  sink = sj_test_record_sink_exact (4, 0.3, TRUE);
  label = g_strdup (gtk_label_get_label (window->record_label));
  g_test_message ("the button said \"%s\"", label);
  g_assert_nonnull (strstr (label, ":0"));
  g_assert_nonnull (strstr (label, "B"));
  {
    /* What the header bar shows while recording (a figure to look at). */
    g_autoptr(GdkTexture) shot = sj_test_render_widget (GTK_WIDGET (window));
    g_autofree char *figure = NULL;

    g_assert_nonnull (shot);
    figure = sj_test_save_png (shot, "record.png");
    g_test_message ("figure: %s", figure);
  }
  sj_test_click (GTK_WIDGET (window->record_button));
  elapsed = (g_get_monotonic_time () - start) / (double)G_USEC_PER_SEC + first;
  g_assert_false (g_variant_get_boolean (g_action_group_get_action_state (G_ACTION_GROUP (window), "record")));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->record_label)));
  g_assert_nonnull (strstr (window->record_status, "Recorded"));
  g_assert_true (sj_repl_get_state (repl)->playing);

  path = sj_test_only_recording (dir);
  g_assert_true (g_str_has_suffix (path, ".wav"));
  samples = sj_test_pcm_decode (path, &rate);
  pcm = g_bytes_get_data (samples, &size);
  frames = size / 4;
  skip = rate / 2;
  g_assert_cmpuint (frames, >=, skip + 4 * rate);
  level = sj_test_pcm_rms_db (pcm + 2 * skip, 4 * rate * 2);
  g_test_message ("recorded %.3f s in %.3f s at %u Hz: %.2f dBFS RMS; parecord on the monitor: %.2f dBFS",
                  (double)frames / rate, elapsed, rate, level, sink.rms_db);
  g_assert_cmpuint (rate, ==, 44100);
  /* Within a block: the 100 ms fragments the sound server delivers. */
  g_assert_cmpfloat (fabs ((double)frames / rate - elapsed), <, 0.25);
  g_assert_cmpfloat (sink.rms_db, >, -40);
  g_assert_cmpfloat (fabs (level - sink.rms_db), <, 1);

  sj_test_remove_tree (dir);
}

static GSubprocess *
play_other_app (const char *dir)
{
  g_autofree char *file = g_build_filename (dir, "other.raw", NULL);
  gsize frames = 44100 * 30;
  g_autofree gint16 *tone = g_new (gint16, frames * 2);
  g_autoptr(GError) error = NULL;
  GSubprocess *player;

  for (gsize i = 0; i < frames; i++)
    tone[2 * i] = tone[2 * i + 1] = (gint16)(16384 * sin (2 * G_PI * 3000 * i / 44100));
  g_assert_true (g_file_set_contents (file, (const char *)tone, frames * 4, NULL));
  player = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "pacat", "--playback", "--raw", "--format=s16le",
                             "--rate=44100", "--channels=2", "--latency-msec=30", "--client-name=another-app",
                             file, NULL);
  g_assert_no_error (error);

  return player;
}

static gboolean
time_passed (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *)data;
}

static void
test_only_the_app (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autofree char *dir = g_dir_make_tmp ("sj-record-XXXXXX", NULL);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GSubprocess) other = NULL;
  g_autoptr(GBytes) samples = NULL;
  g_autofree char *path = NULL;
  const gint16 *pcm;
  gsize size, frames;
  guint rate = 0;
  gint64 until;
  double ratio;

  outcome = sj_test_evaluate (repl, "setcps(1)\nnote(\"a4\").s(\"sine\").sustain(1).release(0).gain(.5)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  other = play_other_app (dir);

  _sj_window_set_record_folder (window, dir, "flac");
  g_action_group_change_action_state (G_ACTION_GROUP (window), "record", g_variant_new_boolean (TRUE));
  sj_test_spin_until (heard, window, "the recording to hear the page");
  until = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  sj_test_spin_until (time_passed, &until, "3 s of recording");
  g_action_group_change_action_state (G_ACTION_GROUP (window), "record", g_variant_new_boolean (FALSE));
  g_subprocess_send_signal (other, SIGTERM);
  g_subprocess_wait (other, NULL, NULL);

  path = sj_test_only_recording (dir);
  g_assert_true (g_str_has_suffix (path, ".flac"));
  samples = sj_test_pcm_decode (path, &rate);
  pcm = g_bytes_get_data (samples, &size);
  frames = size / 4;
  g_assert_cmpfloat ((double)frames / rate, >, 2.5);
  ratio = 10 * log10 (sj_test_pcm_power_at (pcm, frames, 440, rate) / MAX (sj_test_pcm_power_at (pcm, frames, 3000, rate), 1e-30));
  g_test_message ("FLAC: %.2f s; the page's 440 Hz is %.1f dB over the other app's 3 kHz", (double)frames / rate, ratio);
  g_assert_cmpfloat (ratio, >, 40);

  sj_test_remove_tree (dir);
}

static void
test_unwritable (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  Progress progress = { repl, 0, 0 };

  /* /proc takes no folder, not even from root. */
  _sj_window_set_record_folder (window, "/proc/sj-no-such-folder", "wav");
  g_action_group_change_action_state (G_ACTION_GROUP (window), "record", g_variant_new_boolean (TRUE));
  g_assert_false (g_variant_get_boolean (g_action_group_get_action_state (G_ACTION_GROUP (window), "record")));
  g_assert_false (gtk_toggle_button_get_active (window->record_button));
  g_test_message ("%s", window->record_status);
  g_assert_true (g_str_has_prefix (window->record_status, "Cannot record to "));
  g_assert_nonnull (strstr (window->record_status, "/proc/sj-no-such-folder"));

  /* The music plays on. */
  g_assert_true (sj_repl_get_state (repl)->playing);
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the live page to keep playing");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  if (g_getenv ("SJ_TEST_PULSE_SINK") == NULL)
    {
      g_test_skip ("needs a private PulseAudio (tests/with-pulse.sh)");
      return 77;
    }
  sj_test_app_start ();

  g_test_add_func ("/record/drums-as-heard", test_record_drums);
  g_test_add_func ("/record/only-the-app", test_only_the_app);
  g_test_add_func ("/record/unwritable-folder", test_unwritable);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
