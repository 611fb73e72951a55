/* test-limiter.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The master safety limiter (issue 29), heard: the real window plays into a
 * private PulseAudio null sink (tests/with-pulse.sh) and parecord records
 * its monitor. The demo and the tutorial's drums, s("bd*4, [~ sd]*2,
 * hh*8"), offline (the built-in kit plays the drums, as on a first start
 * without network), are recorded with the "master-limiter" setting off and
 * then on, switched while the music plays: on, not one sample reaches full
 * scale (|x| ≥ 32767/32768); off, the output is superdough's own, and the
 * figures are printed for bench/README.md. Quiet music keeps its level
 * through it. SJ_TEST_LIMITER_SECONDS sets the
 * length of each recording (6 s by default).
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "sj-code-store.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

/* What the output may still hold from before a switch (its latency). */
#define SKIP_S    0.4

#define DRUMS "s(\"bd*4, [~ sd]*2, hh*8\")"

typedef SjTestRecording Level;

static gboolean
limiter_is (gpointer data)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_current_window ());
  g_autoptr(JsonNode) state = sj_test_call_js (repl, "return sjBridge.getLimiter();");
  JsonObject *object = json_node_get_object (state);

  return json_object_get_boolean_member (object, "installed") &&
         json_object_get_boolean_member (object, "enabled") == GPOINTER_TO_INT (data);
}

static double
recording_seconds (void)
{
  const char *text = g_getenv ("SJ_TEST_LIMITER_SECONDS");
  double seconds = text != NULL ? g_ascii_strtod (text, NULL) : 0;

  return seconds >= 1 ? seconds : 6;
}

static void
set_limiter (GSettings *settings,
             gboolean   on)
{
  g_settings_set_boolean (settings, "master-limiter", on);
  sj_test_spin_until (limiter_is, GINT_TO_POINTER (on), on ? "the limiter on in the page" : "the limiter off in the page");
}

/* Plays @code, then records it with the limiter off and then on, switched
 * while it plays. */
static void
measure (const char *name,
         const char *code,
         Level      *off,
         Level      *on)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(JsonObject) outcome = NULL;
  Progress progress = { repl, 0, 0 };

  g_settings_set_boolean (settings, "master-limiter", FALSE);
  outcome = sj_test_evaluate (repl, code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_spin_until (sj_test_progressed, &progress, "a cycle of music");

  set_limiter (settings, FALSE);
  *off = sj_test_record_sink (recording_seconds (), SKIP_S);
  set_limiter (settings, TRUE);
  *on = sj_test_record_sink (recording_seconds (), SKIP_S);

  g_test_message ("%s: limiter off: %" G_GUINT64_FORMAT " full-scale samples in %.1f s, peak %.2f dBFS, "
                  "RMS %.2f dBFS; on: %" G_GUINT64_FORMAT " in %.1f s, peak %.2f dBFS, RMS %.2f dBFS",
                  name, off->full_scale, off->seconds, off->peak_db, off->rms_db,
                  on->full_scale, on->seconds, on->peak_db, on->rms_db);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static gboolean
have_sink (void)
{
  if (g_getenv ("SJ_TEST_PULSE_SINK") != NULL)
    return TRUE;
  g_test_skip ("no PulseAudio null sink (run under tests/with-pulse.sh)");
  return FALSE;
}

/* The setting is on by default, and the page gets it before any sound. */
static void
test_limiter_on_by_default (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(JsonNode) state = NULL;

  g_assert_true (g_settings_get_boolean (settings, "master-limiter"));
  g_assert_true (sj_repl_get_limiter (repl));
  state = sj_test_call_js (repl, "return sjBridge.getLimiter();");
  g_assert_true (json_object_get_boolean_member (json_node_get_object (state), "enabled"));
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (state), "ceilingDb"), ==, -1);
}

static void
test_demo (void)
{
  Level off, on;

  if (!have_sink ())
    return;
  measure ("demo", sj_code_store_get_demo_code (), &off, &on);
  g_assert_cmpuint (on.full_scale, ==, 0);
  g_assert_cmpfloat (on.peak_db, <, -0.9);
  /* Music, not silence, was measured. */
  g_assert_cmpfloat (on.peak_db, >, -20);
}

static void
test_drums (void)
{
  Level off, on;

  if (!have_sink ())
    return;
  measure ("drums", DRUMS, &off, &on);
  g_assert_cmpuint (on.full_scale, ==, 0);
  g_assert_cmpfloat (on.peak_db, <, -0.9);
  g_assert_cmpfloat (on.peak_db, >, -20);
  /* Off is superdough's output as the website plays it: these drums sum
   * past full scale there. */
  g_assert_cmpuint (off.full_scale, >, 0);
}

/* Music that stays under the limiter's threshold keeps its level: the
 * compressor's automatic make-up gain is taken back out. */
static void
test_quiet_music_unchanged (void)
{
  Level off, on;

  if (!have_sink ())
    return;
  measure ("quiet sine", "note(\"c4 e4 g4 c5\").s(\"sine\").sustain(1).gain(.2)", &off, &on);
  g_assert_cmpuint (on.full_scale, ==, 0);
  g_assert_cmpuint (off.full_scale, ==, 0);
  g_assert_cmpfloat (off.peak_db, >, -30);
  /* The peak, not the RMS: a recording starts anywhere in the cycle. */
  g_assert_cmpfloat (fabs (on.peak_db - off.peak_db), <, 0.2);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(GSettings) settings = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();
  /* Offline: the drums are the built-in kit's, as on a first start. */
  settings = g_settings_new (APP_ID);
  g_settings_set_boolean (settings, "download-sounds", FALSE);

  g_test_add_func ("/limiter/on-by-default", test_limiter_on_by_default);
  g_test_add_func ("/limiter/demo", test_demo);
  g_test_add_func ("/limiter/drums", test_drums);
  g_test_add_func ("/limiter/quiet-music-unchanged", test_quiet_music_unchanged);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
