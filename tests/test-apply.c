/* test-apply.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * apply_strudel_change, read_code and undo end to end: the real window
 * and page under Xvfb, the real dry-run helper.  A stale base hash, an
 * unknown function, an unknown sound and a bad search are rejected with
 * the music untouched; a good change is scheduled, shows in the editor at
 * once and lands exactly at its boundary; undo brings the old code back
 * the same way.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-change-applier.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

static const char base_code[] = "$: note(\"c3*4\").s(\"sine\").gain(.2)\n";

static SjChangeResult *
apply (SjChangeApplier *applier,
       const char      *input)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (input, &error);
  GAsyncResult *slot = NULL;
  SjChangeResult *result;

  g_assert_no_error (error);
  sj_change_applier_apply_async (applier, node, "agent", NULL, sj_test_store_result_cb, &slot);
  result = sj_change_applier_apply_finish (applier, sj_test_wait_result (&slot), &error);
  g_assert_no_error (error);
  g_clear_object (&slot);

  return result;
}

static char *
change_input (const char *base_hash,
              const char *change)
{
  return g_strdup_printf ("{\"baseHash\": \"%s\", \"change\": %s}", base_hash, change);
}

static void
assert_rejected (SjChangeResult    *result,
                 SjChangePhase      phase,
                 SjChangeRejection  rejection)
{
  g_assert_cmpint (result->status, ==, SJ_CHANGE_STATUS_REJECTED);
  g_assert_cmpint (result->phase, ==, phase);
  g_assert_cmpint (result->rejection, ==, rejection);
  g_assert_nonnull (sj_change_result_get_message (result));
}

static gboolean
has_name (GPtrArray  *unknown_names,
          const char *name)
{
  for (guint i = 0; i < unknown_names->len; i++)
    if (g_strcmp0 (((SjChangeUnknownName *) g_ptr_array_index (unknown_names, i))->name, name) == 0)
      return TRUE;
  return FALSE;
}

static void
test_apply_pipeline (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autofree char *base_hash = sj_code_hash (base_code);
  g_autofree char *stale_input = NULL;
  g_autofree char *symbol_input = NULL;
  g_autofree char *sound_input = NULL;
  g_autofree char *search_input = NULL;
  g_autofree char *good_input = NULL;
  g_autoptr(SjChangeResult) stale = NULL;
  g_autoptr(SjChangeResult) symbols = NULL;
  g_autoptr(SjChangeResult) sound = NULL;
  g_autoptr(SjChangeResult) search = NULL;
  g_autoptr(SjChangeResult) good = NULL;
  g_autoptr(SjChangeResult) undo = NULL;
  g_autoptr(JsonObject) evaluated = NULL;
  g_autofree char *code = NULL;
  g_autofree char *stale_hash = g_strnfill (64, 'a');
  SjTestSwapEvent event = { 0 };
  Progress progress = { repl, 1, 0 };
  GAsyncResult *slot = NULL;
  double apply_at;

  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);

  evaluated = sj_test_evaluate (repl, base_code);
  sj_test_spin_until (sj_test_progressed, &progress, "the base pattern to play");

  /* Written against other code: rejected, with the latest code to rebase on. */
  stale_input = change_input (stale_hash, "{\"kind\": \"full_code\", \"code\": \"s(\\\"sine\\\")\"}");
  stale = apply (applier, stale_input);
  assert_rejected (stale, SJ_CHANGE_PHASE_STALE, SJ_CHANGE_REJECTION_STALE_BASE_HASH);
  g_assert_cmpstr (stale->latest_hash, ==, base_hash);
  g_assert_cmpstr (stale->latest_code, ==, base_code);

  /* Invented functions: all of them at once, with real suggestions. */
  symbol_input = change_input (base_hash, "{\"kind\": \"full_code\", \"code\": \"$: note(\\\"c3\\\").fastt(2).roomy(.3)\"}");
  symbols = apply (applier, symbol_input);
  assert_rejected (symbols, SJ_CHANGE_PHASE_COMPILE, SJ_CHANGE_REJECTION_DRY_RUN_FAILED);
  g_assert_true (has_name (symbols->unknown_symbols, "fastt"));
  g_assert_true (has_name (symbols->unknown_symbols, "roomy"));
  {
    g_autoptr(JsonObject) json = sj_change_result_to_json (symbols);

    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json, "suggestedNext"), "action"), ==,
                     "consult_strudel_knowledge");
  }

  /* A sound that is not loaded. */
  sound_input = change_input (base_hash, "{\"kind\": \"full_code\", \"code\": \"$: s(\\\"nosuchsound*4\\\")\"}");
  sound = apply (applier, sound_input);
  assert_rejected (sound, SJ_CHANGE_PHASE_SOUNDS, SJ_CHANGE_REJECTION_UNKNOWN_SOUNDS);
  g_assert_true (has_name (sound->unknown_sounds, "nosuchsound"));

  /* Sounds from an online pack cannot be checked offline, so they do not
   * reject the change; here the pack itself cannot load (no network), and
   * the page's own evaluation refuses it: rejected at the last step, with
   * the music untouched. */
  {
    g_autofree char *remote_input =
      change_input (base_hash, "{\"kind\": \"full_code\", \"code\": \"samples('https://127.0.0.1:9/pack.json')\\n$: s(\\\"nosuchsound*4\\\")\"}");
    g_autoptr(SjChangeResult) remote = apply (applier, remote_input);

    assert_rejected (remote, SJ_CHANGE_PHASE_RUNTIME, SJ_CHANGE_REJECTION_LIVE_EVALUATION_FAILED);
    g_assert_cmpuint (remote->unknown_sounds->len, ==, 0);
  }

  /* An edit whose search text is not there. */
  search_input = change_input (base_hash, "{\"kind\": \"search_replace\", \"edits\": [{\"search\": \"e3*8\", \"replace\": \"g3\"}]}");
  search = apply (applier, search_input);
  assert_rejected (search, SJ_CHANGE_PHASE_INPUT, SJ_CHANGE_REJECTION_SEARCH_NOT_FOUND);

  /* None of that touched the music or the editor. */
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, base_code);
  g_clear_pointer (&code, g_free);
  g_assert_null (event.state);

  /* A good edit: scheduled for a boundary ahead, in the editor at once,
   * and landing exactly there. */
  good_input = change_input (base_hash, "{\"kind\": \"search_replace\", \"edits\": [{\"search\": \"c3*4\", \"replace\": \"e3*8\"}]}");
  good = apply (applier, good_input);
  g_assert_cmpint (good->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_cmpint (good->rejection, ==, SJ_CHANGE_REJECTION_NONE);
  g_assert_cmpuint (good->dry_run.events, >, 0);
  g_assert_true (g_strv_contains ((const char * const *) good->dry_run.sounds, "sine"));
  apply_at = good->apply_at_cycle;
  g_assert_cmpfloat (apply_at, ==, floor (apply_at));
  code = sj_test_fetch_code (repl);
  g_assert_nonnull (strstr (code, "e3*8"));
  {
    g_autofree char *hash = sj_code_hash (code);

    g_assert_cmpstr (good->new_hash, ==, hash);
  }
  sj_test_spin_until (sj_test_swap_applied, &event, "the change to land");
  g_assert_cmpfloat (event.cycle, ==, apply_at);

  /* Undo: the same path back to the code before. */
  g_clear_pointer (&event.state, g_free);
  sj_change_applier_undo_async (applier, NULL, sj_test_store_result_cb, &slot);
  undo = sj_change_applier_undo_finish (applier, sj_test_wait_result (&slot), NULL);
  g_clear_object (&slot);
  g_assert_cmpint (undo->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  sj_test_spin_until (sj_test_swap_applied, &event, "the undo to land");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, base_code);

  g_signal_handlers_disconnect_by_func (repl, sj_test_swap_changed_cb, &event);
  g_free (event.state);
  sj_test_close_window (window);
}

static void
test_read_code (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autoptr(JsonObject) evaluated = sj_test_evaluate (repl, "setcpm(30)\n$: s(\"sine\").lpf(400)\n$: note(\"c2\").s(\"sawtooth\")\n");
  g_autoptr(JsonNode) input = json_from_string ("{\"query\": \"sawtooth\"}", NULL);
  g_autoptr(JsonObject) result = NULL;
  GAsyncResult *slot = NULL;
  JsonObject *match;

  sj_change_applier_read_code_async (applier, input, NULL, sj_test_store_result_cb, &slot);
  result = sj_change_applier_read_code_finish (applier, sj_test_wait_result (&slot), NULL);
  g_clear_object (&slot);

  g_assert_cmpint (json_object_get_int_member (result, "lineCount"), ==, 3);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "matches")), ==, 1);
  match = json_array_get_object_element (json_object_get_array_member (result, "matches"), 0);
  g_assert_cmpint (json_object_get_int_member (match, "startLine"), ==, 3);

  sj_test_close_window (window);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int status;

  /* Private user directories: the test never sees the user's own code. */
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/apply/pipeline", test_apply_pipeline);
  g_test_add_func ("/apply/read-code", test_read_code);

  status = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);
  return status;
}
