/* test-fidelity.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Faithful (issue 33 item 5), with a private PulseAudio
 * (tests/with-pulse.sh): the render of a drum pattern and of the demo
 * against the live page playing the same code, recorded with the Record
 * button (the page's own stream): every intact live cycle's onsets within
 * 5 ms of the render's and its band levels within 1 dB of the same cycles
 * of the render (sj-test-fidelity.c says how they are laid on each other;
 * a cycle with a dropout or a late note is counted, not compared, and the
 * take is taken again, up to 5 times, until 2 cycles are intact).
 * Rendering while playing (opt-in, see below): a steady tone recorded
 * while the hidden page renders the demo and for as long alone, its
 * dropouts counted in both.
 *
 * SJ_TEST_FIDELITY_KEEP=DIR keeps each take and render there.
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include <glib/gstdio.h>
#include <gst/gst.h>

#include "sj-application.h"
#include "sj-code-store.h"
#include "sj-renderer.h"
#include "sj-test-app.h"
#include "sj-test-fidelity.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define TAKES 5

static gboolean
heard (gpointer data)
{
  SjWindow *window = data;

  return window->recorder != NULL && sj_recorder_get_seconds (window->recorder) > 0.2;
}

static gboolean
time_passed (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *)data;
}

static gboolean
is_set (gpointer data)
{
  return *(gpointer *)data != NULL;
}

static void
rendered_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  JsonObject **summary = user_data;
  g_autoptr(GError) error = NULL;

  *summary = sj_renderer_render_finish (SJ_RENDERER (object), result, &error);
  g_assert_no_error (error);
}

static SjRenderer *
new_renderer (void)
{
  GApplication *app = g_application_get_default ();

  return SJ_IS_APPLICATION (app) ? sj_renderer_new (sj_application_get_sound_cache (SJ_APPLICATION (app)),
                                                    sj_application_get_remote_samples (SJ_APPLICATION (app)),
                                                    sj_application_get_user_samples (SJ_APPLICATION (app)))
                                 : sj_renderer_new (NULL, NULL, NULL);
}

/* Starts rendering @cycles of @code to @path; *@summary is set when done. */
static SjRenderer *
start_render (const char  *code,
              guint        cycles,
              double       cps,
              const char  *path,
              JsonObject **summary)
{
  g_autoptr(SjRenderOptions) options = sj_render_options_new ();
  SjRenderer *renderer = new_renderer ();

  options->code = g_strdup (code);
  options->cycles = cycles;
  options->cps = cps;
  options->output = g_strdup (path);
  sj_renderer_render_async (renderer, options, NULL, rendered_cb, summary);

  return renderer;
}

static void
keep (const char *path,
      const char *name)
{
  const char *dir = g_getenv ("SJ_TEST_FIDELITY_KEEP");
  g_autofree char *copy = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (dir == NULL)
    return;
  copy = g_build_filename (dir, name, NULL);
  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (copy, contents, length, NULL));
}

/* Records @seconds of the live page with the Record button; the file's
 * path. */
static char *
record (SjWindow   *window,
        const char *dir,
        double      seconds)
{
  gint64 until;

  _sj_window_set_record_folder (window, dir, "wav");
  g_action_group_change_action_state (G_ACTION_GROUP (window), "record", g_variant_new_boolean (TRUE));
  sj_test_spin_until (heard, window, "the recording to hear the page");
  until = g_get_monotonic_time () + (gint64)(seconds * G_USEC_PER_SEC);
  sj_test_spin_until (time_passed, &until, "the recording");
  g_action_group_change_action_state (G_ACTION_GROUP (window), "record", g_variant_new_boolean (FALSE));

  return sj_test_only_recording (dir);
}

/* Renders @period + 2 cycles of @code, plays it live and records it, up to
 * TAKES times until @need cycles of a take are intact; asserts the
 * issue's bounds on that take. */
static void
compare_with_live (const char *name,
                   const char *code,
                   double      cps,
                   guint       period,
                   double      seconds,
                   guint       need)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autofree char *dir = g_dir_make_tmp ("sj-fidelity-XXXXXX", NULL);
  g_autofree char *rendered = g_build_filename (dir, "render.wav", NULL);
  g_autofree char *kept = g_strdup_printf ("%s-render.wav", name);
  g_autoptr(SjRenderer) renderer = NULL;
  g_autoptr(JsonObject) outcome = NULL;
  JsonObject *summary = NULL;
  SjTestPcm render = { 0 };
  SjTestFidelity figures = { 0 };
  Progress progress = { repl, 0, 0 };

  sj_test_spin_until (sj_test_repl_is_ready, repl, "the live page to be ready");
  renderer = start_render (code, period + 2, cps, rendered, &summary);
  sj_test_spin_until (is_set, &summary, "the render");
  json_object_unref (summary);
  keep (rendered, kept);
  sj_test_pcm_load (&render, rendered);
  g_assert_cmpuint (render.rate, ==, 48000);

  outcome = sj_test_evaluate (repl, code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  /* A whole cycle of the new code before the take. */
  progress.cycle = floor (sj_repl_get_state (repl)->cycle) + 2;
  sj_test_spin_until (sj_test_progressed, &progress, "the code to play");

  for (guint take = 1; take <= TAKES; take++)
    {
      const SjReplState *state = sj_repl_get_state (repl);
      gint64 late = state->late;
      g_autofree char *path = NULL;
      g_autofree char *kept_take = g_strdup_printf ("%s-live-%u.wav", name, take);
      SjTestPcm live = { 0 };

      path = record (window, dir, seconds);
      keep (path, kept_take);
      sj_test_pcm_load (&live, path);
      g_assert_cmpuint (live.rate, ==, 44100);
      g_assert_true (sj_test_fidelity_compare (&live, &render, cps, period, &figures) || figures.intact == 0);
      g_test_message ("%s, take %u: %" G_GINT64_FORMAT " late note(s) said by the page during the take",
                      name, take, sj_repl_get_state (repl)->late - late);
      sj_test_pcm_clear (&live);
      g_unlink (path);
      if (figures.intact >= need)
        break;
    }

  g_assert_cmpuint (figures.intact, >=, need);
  g_assert_cmpuint (figures.onsets, >=, need);
  g_assert_cmpfloat (figures.worst_onset_ms, <=, 5);
  for (guint b = 0; b < 3; b++)
    g_assert_cmpfloat (fabs (figures.live_db[b] - figures.render_db[b]), <=, 1);

  sj_test_pcm_clear (&render);
  sj_test_remove_tree (dir);
}

static void
test_drums (void)
{
  compare_with_live ("drums", "setcps(1)\n$: s(\"hh*4, bd ~ ~ ~\").gain(.6)", 1, 1, 6, 2);
}

static void
test_demo (void)
{
  /* The demo's bass sweeps over 8 cycles: 10 rendered, 5 live. */
  compare_with_live ("demo", sj_code_store_get_demo_code (), 110.0 / 4 / 60, 8, 12, 2);
}

/* Dropouts (bench/soak's measure): runs of 20 ms or more of digital
 * silence on both channels in a take of a tone that is never silent. */
static guint
count_dropouts (const SjTestPcm *take)
{
  gsize run = 0, need = take->rate / 50, edge = take->rate * 3 / 10;
  guint count = 0;

  /* The take's first and last 0.3 s are left out (its start and stop). */
  for (gsize i = edge; i + edge < take->frames; i++)
    {
      if (take->pcm[2 * i] == 0 && take->pcm[2 * i + 1] == 0)
        {
          if (++run == need)
            count++;
        }
      else
        run = 0;
    }

  return count;
}

/* Records the sink (parecord on its monitor: the live page is all that
 * plays there; the hidden page plays nothing) for @seconds, or (@seconds 0)
 * for as long as the hidden page takes to render 8 cycles of the demo (17.5 s of sound);
 * the dropouts in the take, its length in *@length. */
static guint
tone_take (SjWindow   *window,
           const char *dir,
           double      seconds,
           double     *length)
{
  g_autofree char *rendered = g_build_filename (dir, "demo.wav", NULL);
  g_autofree char *path = g_build_filename (dir, "take.raw", NULL);
  g_autofree char *device = g_strdup_printf ("--device=%s.monitor", g_getenv ("SJ_TEST_PULSE_SINK"));
  g_autoptr(SjRenderer) renderer = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  JsonObject *summary = NULL;
  SjRepl *repl = _sj_window_get_repl (window);
  gint64 late = sj_repl_get_state (repl)->late, start, until;
  SjTestPcm take = { 0 };
  gsize size;
  guint dropouts;

  recorder = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "parecord", "--raw", device, "--format=s16le",
                               "--rate=44100", "--channels=2", "--latency-msec=10", path, NULL);
  g_assert_no_error (error);
  start = g_get_monotonic_time ();
  if (seconds > 0)
    {
      until = start + (gint64)(seconds * G_USEC_PER_SEC);
      sj_test_spin_until (time_passed, &until, "the take");
    }
  else
    {
      renderer = start_render (sj_code_store_get_demo_code (), 8, 0.5, rendered, &summary);
      sj_test_spin_until (is_set, &summary, "the render");
      json_object_unref (summary);
    }
  *length = (g_get_monotonic_time () - start) / (double)G_USEC_PER_SEC;
  g_subprocess_send_signal (recorder, SIGTERM);
  g_subprocess_wait (recorder, NULL, NULL);

  g_assert_true (g_file_get_contents (path, &contents, &size, NULL));
  take.rate = 44100;
  take.bytes = g_bytes_new_take (g_steal_pointer (&contents), size);
  take.pcm = g_bytes_get_data (take.bytes, NULL);
  take.frames = size / 4;
  g_assert_cmpuint (take.frames, >, take.rate);
  dropouts = count_dropouts (&take);
  g_test_message ("%s: %.1f s of a steady tone, %u dropout(s) of 20 ms or more; %" G_GINT64_FORMAT " late note(s)",
                  seconds > 0 ? "alone" : "while the hidden page renders 8 cycles of the demo",
                  (double)take.frames / take.rate, dropouts, sj_repl_get_state (repl)->late - late);
  sj_test_pcm_clear (&take);
  g_unlink (path);

  return dropouts;
}

static void
test_render_adds_no_dropout (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autofree char *dir = g_dir_make_tmp ("sj-fidelity-XXXXXX", NULL);
  g_autoptr(JsonObject) outcome = NULL;
  Progress progress = { repl, 0, 0 };
  guint alone, rendering;
  double length, alone_length;

  /* On the shared 2-core machine, loaded by other work (load average 12
   * to 26, other programs' real-time threads among it), the live page drops
   * out by itself and more while a render runs (bench/README.md): a
   * measurement to make on a quiet machine, not part of the suite. */
  if (g_getenv ("SJ_TEST_FIDELITY_DROPOUTS") == NULL)
    {
      g_test_skip ("set SJ_TEST_FIDELITY_DROPOUTS=1 to count dropouts while rendering (on a quiet machine)");
      return;
    }

  sj_test_spin_until (sj_test_repl_is_ready, repl, "the live page to be ready");
  /* Two sines a fifth apart, overlapping notes: never silent. */
  outcome = sj_test_evaluate (repl, "setcps(1)\nnote(\"[a3,e4]\").s(\"sine\").attack(0).release(.5).gain(.4)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = floor (sj_repl_get_state (repl)->cycle) + 2;
  sj_test_spin_until (sj_test_progressed, &progress, "the tone to play");

  rendering = tone_take (window, dir, 0, &length);
  alone = tone_take (window, dir, length, &alone_length);
  g_test_message ("dropouts: %u in %.1f s while rendering, %u in %.1f s alone", rendering, length, alone, alone_length);
  g_assert_cmpuint (rendering, <=, alone);

  sj_test_remove_tree (dir);
}

/* Analyses DIR/live.wav against DIR/render.wav (cps, period from the
 * environment): a tool for the figures in bench/README.md. */
static int
analyse (const char *dir)
{
  g_autofree char *live_path = g_build_filename (dir, "live.wav", NULL);
  g_autofree char *render_path = g_build_filename (dir, "render.wav", NULL);
  SjTestPcm live = { 0 }, render = { 0 };
  SjTestFidelity figures;
  const char *cps = g_getenv ("SJ_TEST_FIDELITY_CPS");
  const char *period = g_getenv ("SJ_TEST_FIDELITY_PERIOD");

  sj_test_pcm_load (&live, live_path);
  sj_test_pcm_load (&render, render_path);
  sj_test_fidelity_compare (&live, &render, cps ? g_ascii_strtod (cps, NULL) : 1, period ? atoi (period) : 1, &figures);
  sj_test_pcm_clear (&live);
  sj_test_pcm_clear (&render);

  return 0;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  if (g_getenv ("SJ_TEST_FIDELITY_ANALYSE") != NULL)
    {
      g_test_init (&argc, &argv, NULL);
      gst_init (NULL, NULL);
      g_setenv ("G_MESSAGES_DEBUG", "", TRUE);
      return analyse (g_getenv ("SJ_TEST_FIDELITY_ANALYSE"));
    }

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  if (g_getenv ("SJ_TEST_PULSE_SINK") == NULL)
    {
      g_test_skip ("needs a private PulseAudio (tests/with-pulse.sh)");
      return 77;
    }
  sj_test_app_start ();

  g_test_add_func ("/fidelity/drums", test_drums);
  g_test_add_func ("/fidelity/demo", test_demo);
  g_test_add_func ("/fidelity/render-adds-no-dropout", test_render_adds_no_dropout);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
