/* test-swap.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Quantized swaps in the real page under Xvfb: while a pattern plays, new
 * code takes over exactly at a cycle boundary. Every event the scheduler
 * triggers is recorded by the page (sjBridge.recordEvents) and compared with
 * what the old pattern before the boundary and the new one from there on
 * must produce (sj-test-swap.c): none lost, none twice, none from a pattern that should not
 * play, the first new onset exactly at the boundary, and the audio times
 * following one continuous tempo map. Also: rejected code, superseded and
 * canceled swaps, the user's own evaluation, swapping while stopped, and
 * tempo changes that land at the boundary.
 *
 * With SJ_SWAP_BENCH=N in the environment, /swap/bench runs N swaps at each
 * of several tempos and prints the exactness figures (bench/swap does that).
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <webkit/webkit.h>

#include "sj-test-swap.h"
#include "sj-window-private.h"

/* A pattern that must never be heard in the tests that use it. */
#define CODE_NEVER "note(\"g3*2\").s(\"square\").decay(.05).sustain(0).gain(.05)"
#define NOTE_NEVER "g3"

static gint64
pattern_id (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "return window.sjBridge.getPatternId();");

  return json_node_get_int (node);
}

static gboolean
js_is_true (SjRepl     *repl,
            const char *body)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, body);

  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_boolean (node);
}

/* Whether the page shows a swap pending until @cycle (any swap: -1). */
static gboolean
shows_pending_mark (SjRepl *repl,
                    double  cycle)
{
  g_autofree char *body = g_strdup_printf ("const banner = document.getElementById('sj-swap-banner');"
                                           "const marked = document.getElementById('editor').classList.contains('sj-swap-pending');"
                                           "if (!banner || banner.hidden || !marked) return false;"
                                           "return %g < 0 || (banner.dataset.cycle === '%g' && banner.textContent.includes('%g'));",
                                           cycle, cycle, cycle);

  return js_is_true (repl, body);
}

static gboolean
pending_mark_gone (gpointer repl)
{
  return !shows_pending_mark (repl, -1);
}

/* Tests ------------------------------------------------------------------- */

static guint
iterations (guint fallback)
{
  const char *env = g_getenv ("SJ_SWAP_ITERATIONS");

  return env != NULL ? (guint)MAX (1, atoi (env)) : fallback;
}

/* At least 20 swaps in a row at each tempo (each swap takes about a cycle,
 * so the slow tempos are what make this test long). */
static void
test_consecutive_swaps (void)
{
  static const struct { double cps; guint n; } runs[] = { { 0.5, 20 }, { 1, 20 }, { 2, 20 }, { 4, 20 } };
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());

  for (guint r = 0; r < G_N_ELEMENTS (runs); r++)
    {
      SjTestSwapFigures figures = { 0 };

      g_test_message ("cps %g", runs[r].cps);
      sj_test_swap_run (repl, runs[r].cps, iterations (runs[r].n), FALSE, &figures);
      sj_test_swap_assert_exact (&figures);
    }

  sj_test_swap_stop_playing (repl);
}

/* setcps() in swapped code changes the tempo exactly at the boundary, up
 * and down: until there the old tempo plays, from there the new one, with
 * the boundary itself where the old tempo put it. */
static void
test_tempo_lands_at_boundary (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  SjTestSwapFigures figures = { 0 };

  sj_test_swap_run (repl, 1, iterations (6), TRUE, &figures);
  sj_test_swap_assert_exact (&figures);
  sj_test_swap_stop_playing (repl);
}

/* Code that does not evaluate changes nothing: the same pattern object
 * plays on, the editor keeps its text. */
static void
test_rejected_code_keeps_pattern (void)
{
  static const char * const broken[] = {
    "note(\"c3 e3\").s(\"sine\").nosuchfunction()",
    "note(\"c3 e3\"",
    "throw new Error('no thanks')",
  };
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  g_autofree char *code_before = NULL;
  gint64 id_before;

  sj_test_swap_start_playing (repl, 2, &sj_test_swap_voice_a);
  code_before = sj_test_fetch_code (repl);
  id_before = pattern_id (repl);
  g_assert_cmpint (id_before, >, 0);

  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(SjSwapResult) answer = sj_test_schedule_swap (repl, broken[i], "next_cycle", 0, 4, FALSE);
      g_autofree char *code_after = NULL;

      g_assert_cmpint (answer->status, ==, SJ_SWAP_ERROR);
      g_test_message ("rejected: %s", answer->message);
      g_assert_cmpstr (answer->message, !=, "");
      g_assert_cmpint (pattern_id (repl), ==, id_before);
      code_after = sj_test_fetch_code (repl);
      g_assert_cmpstr (code_after, ==, code_before);
    }

  /* And it keeps playing. */
  sj_test_swap_wait_for_cycle (repl, sj_repl_get_state (repl)->cycle + 1);
  g_assert_cmpint (pattern_id (repl), ==, id_before);
  sj_test_swap_stop_playing (repl);
}

/* A newer swap replaces a pending one, whether its boundary comes before
 * or after the older one's: the older never plays. The editor shows the
 * pending code with a visible mark until it lands. */
static void
test_superseded_never_plays (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SjTestSwapChange));
  g_autoptr(GArray) segments = g_array_new (FALSE, FALSE, sizeof (SjTestSwapSegment));
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  SjTestSwapSegment segment = { -1, &sj_test_swap_voice_a, 2 };
  SjTestSwapFigures figures = { 0 };
  gulong handler;
  double never_at, at;
  g_autofree char *code = NULL;

  sj_test_swap_start_playing (repl, 2, &sj_test_swap_voice_a);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_change_cb), changes);
  sj_test_swap_record_events (repl, TRUE);
  g_array_append_val (segments, segment);

  /* Later boundary replaced by an earlier one. */
  never_at = sj_test_swap_schedule (repl, CODE_NEVER, "bars", 2, 1, NULL, NULL, NULL);
  g_assert_true (shows_pending_mark (repl, never_at));
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, CODE_NEVER);
  at = sj_test_swap_schedule (repl, sj_test_swap_voice_b.code, "next_cycle", 0, 4, NULL, NULL, NULL);
  g_assert_cmpfloat (at, <, never_at);
  sj_test_swap_wait_for_change (changes, "superseded", never_at);
  sj_test_swap_wait_for_change (changes, "applied", at);
  /* Applied when the scheduler takes the new code, a little ahead of the
   * boundary's sound; the banner says Landing until the boundary is heard. */
  sj_test_spin_until (pending_mark_gone, repl, "the pending mark to go once the boundary sounded");
  segment = (SjTestSwapSegment) { at, &sj_test_swap_voice_b, 2 };
  g_array_append_val (segments, segment);

  /* Earlier boundary replaced by a later one. */
  never_at = sj_test_swap_schedule (repl, CODE_NEVER, "bars", 1, 1, NULL, NULL, NULL);
  at = sj_test_swap_schedule (repl, sj_test_swap_voice_a.code, "bars", 3, 1, NULL, NULL, NULL);
  g_assert_cmpfloat (at, >, never_at);
  sj_test_swap_wait_for_change (changes, "superseded", never_at);
  sj_test_swap_wait_for_change (changes, "applied", at);
  segment = (SjTestSwapSegment) { at, &sj_test_swap_voice_a, 2 };
  g_array_append_val (segments, segment);

  sj_test_swap_wait_for_cycle (repl, at + 1.5);
  {
    g_autoptr(JsonObject) recording = sj_test_swap_take_recorded (repl);

    /* Any g3 would show up as unexpected. */
    sj_test_swap_check_recording (recording, segments, &figures);
  }
  figures.swaps = 2;
  sj_test_swap_assert_exact (&figures);
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "applied"), ==, 2);
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "superseded"), ==, 2);

  sj_test_swap_record_events (repl, FALSE);
  g_signal_handler_disconnect (repl, handler);
  sj_test_swap_stop_playing (repl);
}

/* Ctrl+@key in the editor, as CodeMirror sees it. */
static void
press_key (SjRepl     *repl,
           const char *key)
{
  g_autofree char *body = g_strdup_printf ("const content = document.querySelector('#editor .cm-content');"
                                           "content.focus();"
                                           "const event = new KeyboardEvent('keydown', {key: '%s', ctrlKey: true,"
                                           " bubbles: true, cancelable: true});"
                                           "content.dispatchEvent(event);"
                                           "return event.defaultPrevented;",
                                           key);

  /* Handled by a keybinding: CodeMirror prevents the default. */
  g_assert_true (js_is_true (repl, body));
}

/* The user's own evaluation (Ctrl+Enter, the play button) wins over a
 * pending swap, which never plays. */
static void
test_user_evaluation_cancels (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SjTestSwapChange));
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(JsonObject) recording = NULL;
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  JsonArray *events;
  gint64 id_before;
  gulong handler;
  double never_at;

  sj_test_swap_start_playing (repl, 2, &sj_test_swap_voice_a);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_change_cb), changes);
  sj_test_swap_record_events (repl, TRUE);

  never_at = sj_test_swap_schedule (repl, CODE_NEVER, "bars", 2, 1, NULL, NULL, NULL);
  outcome = sj_test_evaluate (repl, sj_test_swap_voice_b.code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_swap_wait_for_change (changes, "canceled", never_at);
  g_assert_false (shows_pending_mark (repl, -1));

  sj_test_swap_wait_for_cycle (repl, never_at + 1.5);
  recording = sj_test_swap_take_recorded (repl);
  events = json_object_get_array_member (recording, "events");
  g_assert_cmpuint (json_array_get_length (events), >, 0);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *value = json_object_get_object_member (json_array_get_object_element (events, i), "value");

      g_assert_cmpstr (json_object_get_string_member (value, "note"), !=, NOTE_NEVER);
    }
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "applied"), ==, 0);
  sj_test_swap_record_events (repl, FALSE);

  /* Ctrl+Enter in the editor, which shows the pending code: the user plays
   * it now rather than at the boundary. */
  id_before = pattern_id (repl);
  never_at = sj_test_swap_schedule (repl, sj_test_swap_voice_a.code, "bars", 2, 1, NULL, NULL, NULL);
  press_key (repl, "Enter");
  sj_test_swap_wait_for_change (changes, "canceled", never_at);
  g_assert_false (shows_pending_mark (repl, -1));
  g_assert_cmpint (pattern_id (repl), !=, id_before);
  sj_test_swap_wait_for_cycle (repl, sj_repl_get_state (repl)->cycle + 0.5);
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "applied"), ==, 0);

  g_signal_handler_disconnect (repl, handler);
  sj_test_swap_stop_playing (repl);
}

/* cancelSwap: the playing pattern goes on and its code comes back into the
 * editor. */
static void
test_cancel_restores_code (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SjTestSwapChange));
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  g_autofree char *code_before = NULL;
  g_autofree char *code_pending = NULL;
  g_autofree char *code_after = NULL;
  gint64 id_before;
  gulong handler;
  double never_at;

  sj_test_swap_start_playing (repl, 2, &sj_test_swap_voice_a);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_change_cb), changes);
  code_before = sj_test_fetch_code (repl);
  id_before = pattern_id (repl);

  g_assert_false (sj_test_cancel_swap (repl));
  never_at = sj_test_swap_schedule (repl, CODE_NEVER, "bars", 2, 1, NULL, NULL, NULL);
  g_assert_cmpint (pattern_id (repl), !=, id_before);
  code_pending = sj_test_fetch_code (repl);
  g_assert_cmpstr (code_pending, ==, CODE_NEVER);

  g_assert_true (sj_test_cancel_swap (repl));
  sj_test_swap_wait_for_change (changes, "canceled", never_at);
  g_assert_cmpint (pattern_id (repl), ==, id_before);
  code_after = sj_test_fetch_code (repl);
  g_assert_cmpstr (code_after, ==, code_before);

  sj_test_swap_wait_for_cycle (repl, never_at + 1);
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "applied"), ==, 0);
  g_assert_cmpint (pattern_id (repl), ==, id_before);

  g_signal_handler_disconnect (repl, handler);
  sj_test_swap_stop_playing (repl);
}

static gboolean
is_playing (gpointer data)
{
  return sj_repl_get_state (SJ_REPL (data))->playing;
}

/* Stopped, there is no boundary to wait for: the swap applies at once and
 * starts playback only when asked to. */
static void
test_stopped_applies_at_once (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SjTestSwapChange));
  g_autoptr(SjSwapResult) answer = NULL;
  g_autoptr(SjSwapResult) started = NULL;
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  g_autofree char *code = NULL;
  g_autofree char *code_before = NULL;
  SjReplState state;
  gint64 id_before;
  gulong handler;

  sj_test_swap_start_playing (repl, 1, &sj_test_swap_voice_a);
  sj_test_swap_stop_playing (repl);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_change_cb), changes);
  id_before = pattern_id (repl);
  code_before = sj_test_fetch_code (repl);

  answer = sj_test_schedule_swap (repl, "setcps(1.5)\n" "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)",
                                  "next_bar", 0, 4, FALSE);
  g_assert_cmpint (answer->status, ==, SJ_SWAP_APPLIED);
  g_assert_cmpfloat (answer->apply_at_cycle, ==, 0);
  g_assert_cmpfloat (answer->cps, ==, 1.5);
  sj_test_swap_wait_for_change (changes, "applied", 0);
  g_assert_cmpint (pattern_id (repl), !=, id_before);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, "setcps(1.5)\n" "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)");
  sj_test_query_state (repl, &state);
  g_assert_false (state.playing);
  g_assert_cmpfloat (state.cps, ==, 1.5);

  /* The swap is one step in the editor's history: Ctrl+Z brings the code
   * before it back, Ctrl+Y the swapped code again. */
  press_key (repl, "z");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, code_before);
  press_key (repl, "y");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, "setcps(1.5)\n" "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)");

  /* With autoStart, it plays. */
  started = sj_test_schedule_swap (repl, sj_test_swap_voice_a.code, "next_cycle", 0, 4, TRUE);
  g_assert_cmpint (started->status, ==, SJ_SWAP_APPLIED);
  sj_test_spin_until (is_playing, repl, "playback to start");
  sj_test_swap_wait_for_cycle (repl, 1);

  g_signal_handler_disconnect (repl, handler);
  sj_test_swap_stop_playing (repl);
}

/* SjTestSwapFigures for the README: N swaps at each tempo (SJ_SWAP_BENCH=N). */
static void
test_bench (void)
{
  static const double tempos[] = { 0.5, 1, 2, 4 };
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  guint n = MAX (1, atoi (g_getenv ("SJ_SWAP_BENCH")));

  g_print ("%-24s %6s %6s %7s %5s %10s %10s %8s %5s %13s %12s %12s %9s\n", "run", "swaps", "cut", "events", "lost",
           "duplicated", "unexpected", "skipped", "late", "B err (cyc)", "B err (ms)", "max dev (ms)", "lead (s)");
  for (guint r = 0; r < G_N_ELEMENTS (tempos) * 2; r++)
    {
      gboolean tempo_changes = r >= G_N_ELEMENTS (tempos);
      double cps = tempos[r % G_N_ELEMENTS (tempos)];
      g_autofree char *label = g_strdup_printf ("cps %g%s", cps, tempo_changes ? " + tempo changes" : "");
      SjTestSwapFigures figures = { 0 };

      sj_test_swap_run (repl, cps, n, tempo_changes, &figures);
      g_print ("%-24s %6u %6u %7u %5u %10u %10u %8u %5" G_GINT64_FORMAT " %13g %12.1e %12.1e %9.3f\n", label,
               figures.swaps, figures.cut, figures.events,
               figures.lost, figures.duplicated, figures.unexpected, figures.gaps, figures.late, figures.max_cycle_error,
               figures.max_boundary_ms, figures.max_deviation_ms, figures.sum_lead_s / MAX (1, figures.swaps));
    }

  sj_test_swap_stop_playing (repl);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Private user directories: the test never sees the user's own code. */
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  if (g_getenv ("SJ_SWAP_BENCH") != NULL)
    {
      g_test_add_func ("/swap/bench", test_bench);
    }
  else
    {
      g_test_add_func ("/swap/consecutive", test_consecutive_swaps);
      g_test_add_func ("/swap/tempo-lands-at-boundary", test_tempo_lands_at_boundary);
      g_test_add_func ("/swap/rejected-code-keeps-pattern", test_rejected_code_keeps_pattern);
      g_test_add_func ("/swap/superseded-never-plays", test_superseded_never_plays);
      g_test_add_func ("/swap/user-evaluation-cancels", test_user_evaluation_cancels);
      g_test_add_func ("/swap/cancel-restores-code", test_cancel_restores_code);
      g_test_add_func ("/swap/stopped-applies-at-once", test_stopped_applies_at_once);
    }

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
