/* test-change.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The pure parts of apply_strudel_change and read_code: strict input
 * reading with named fields, search/replace that must hit exactly once,
 * the hash, the read_code blocks, the undo timeline, and the typed result
 * with the JSON the model reads from it.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-change.h"
#include "sj-change-result.h"
#include "sj-timeline.h"

static const SjSwapPolicy defaults = { SJ_QUANTIZE_NEXT_CYCLE, 1, 4, FALSE, 1 };

static const char code[] =
  "setcpm(30)\n"
  "\n"
  "$: note(\"c3 e3 g3\")\n"
  "  .s(\"sawtooth\")\n"
  "  .lpf(800)\n"
  "\n"
  "$: s(\"bd*4\").bank(\"RolandTR909\")\n";

static JsonNode *
json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static char *
input_with (const char *change,
            const char *policy)
{
  g_autofree char *hash = sj_code_hash (code);

  return g_strdup_printf ("{\"baseHash\": \"%s\", \"change\": %s%s%s}", hash, change,
                          policy != NULL ? ", \"policy\": " : "", policy != NULL ? policy : "");
}

static void
assert_rejected (const char        *input,
                 SjChangeRejection  expected_rejection,
                 const char        *expected_field)
{
  g_autoptr(JsonNode) node = json (input);
  g_autoptr(SjChangeResult) rejection = NULL;
  g_autoptr(SjChangeRequest) request = sj_change_request_parse (node, &defaults, &rejection);
  SjChangeDiagnostic *diagnostic;

  g_assert_null (request);
  g_assert_nonnull (rejection);
  g_assert_cmpint (rejection->status, ==, SJ_CHANGE_STATUS_REJECTED);
  g_assert_cmpint (rejection->phase, ==, SJ_CHANGE_PHASE_INPUT);
  g_assert_cmpint (rejection->rejection, ==, expected_rejection);
  g_assert_cmpuint (rejection->diagnostics->len, ==, 1);
  diagnostic = g_ptr_array_index (rejection->diagnostics, 0);
  g_assert_cmpstr (diagnostic->field, ==, expected_field);
  g_assert_cmpstr (diagnostic->message, !=, "");
  g_assert_cmpstr (sj_change_result_get_message (rejection), ==, diagnostic->message);
  g_assert_cmpuint (rejection->unknown_symbols->len, ==, 0);
  g_assert_null (rejection->latest_code);
}

static void
test_input_validation (void)
{
  g_autofree char *no_kind = input_with ("{\"code\": \"x\"}", NULL);
  g_autofree char *no_code = input_with ("{\"kind\": \"full_code\"}", NULL);
  g_autofree char *no_edits = input_with ("{\"kind\": \"search_replace\", \"edits\": []}", NULL);
  g_autofree char *bad_edit = input_with ("{\"kind\": \"search_replace\", \"edits\": [{\"search\": \"\", \"replace\": \"x\"}]}", NULL);
  g_autofree char *bad_quantize = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", "{\"quantize\": \"now\"}");
  g_autofree char *bars_missing = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", "{\"quantize\": \"bars\"}");
  g_autofree char *bad_bars = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", "{\"quantize\": \"bars\", \"bars\": 0}");
  g_autofree char *bad_start = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", "{\"autoStartIfStopped\": \"yes\"}");
  g_autofree char *bad_dry = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", "{\"dryRunBars\": 9}");
  g_autofree char *huge_code = g_strnfill (SJ_CHANGE_MAX_CODE + 1, 'x');
  g_autofree char *huge_change = g_strdup_printf ("{\"kind\": \"full_code\", \"code\": \"%s\"}", huge_code);
  g_autofree char *huge = input_with (huge_change, NULL);

  assert_rejected ("[]", SJ_CHANGE_REJECTION_INVALID_INPUT, NULL);
  assert_rejected ("{\"change\": {\"kind\": \"full_code\", \"code\": \"x\"}}", SJ_CHANGE_REJECTION_INVALID_INPUT, "baseHash");
  assert_rejected ("{\"baseHash\": \"abc\", \"change\": {\"kind\": \"full_code\", \"code\": \"x\"}}", SJ_CHANGE_REJECTION_INVALID_INPUT, "baseHash");
  assert_rejected (no_kind, SJ_CHANGE_REJECTION_INVALID_INPUT, "change.kind");
  assert_rejected (no_code, SJ_CHANGE_REJECTION_INVALID_INPUT, "change.code");
  assert_rejected (no_edits, SJ_CHANGE_REJECTION_INVALID_INPUT, "change.edits");
  assert_rejected (bad_edit, SJ_CHANGE_REJECTION_INVALID_INPUT, "change.edits[0]");
  assert_rejected (bad_quantize, SJ_CHANGE_REJECTION_INVALID_INPUT, "policy.quantize");
  assert_rejected (bars_missing, SJ_CHANGE_REJECTION_INVALID_INPUT, "policy.bars");
  assert_rejected (bad_bars, SJ_CHANGE_REJECTION_INVALID_INPUT, "policy.bars");
  assert_rejected (bad_start, SJ_CHANGE_REJECTION_INVALID_INPUT, "policy.autoStartIfStopped");
  assert_rejected (bad_dry, SJ_CHANGE_REJECTION_INVALID_INPUT, "policy.dryRunBars");
  assert_rejected (huge, SJ_CHANGE_REJECTION_CODE_TOO_LARGE, "change.code");
}

static void
test_policy_and_defaults (void)
{
  g_autofree char *text = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}",
                                      "{\"quantize\": \"bars\", \"bars\": 2, \"autoStartIfStopped\": true, \"dryRunBars\": 2}");
  g_autofree char *plain = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", NULL);
  g_autoptr(JsonNode) node = json (text);
  g_autoptr(JsonNode) plain_node = json (plain);
  g_autoptr(SjChangeResult) rejection = NULL;
  g_autoptr(SjChangeRequest) request = sj_change_request_parse (node, &defaults, &rejection);
  g_autoptr(SjChangeRequest) request2 = sj_change_request_parse (plain_node, &defaults, &rejection);

  g_assert_nonnull (request);
  g_assert_cmpint (request->policy.quantize, ==, SJ_QUANTIZE_BARS);
  g_assert_cmpuint (request->policy.bars, ==, 2);
  g_assert_true (request->policy.auto_start);
  g_assert_cmpuint (request->policy.dry_run_bars, ==, 2);
  g_assert_cmpuint (request->policy.bar_cycles, ==, 4);

  g_assert_nonnull (request2);
  g_assert_cmpint (request2->policy.quantize, ==, SJ_QUANTIZE_NEXT_CYCLE);
  g_assert_false (request2->policy.auto_start);

  /* The next beat (issue 32), by name both ways. */
  {
    g_autofree char *beat = input_with ("{\"kind\": \"full_code\", \"code\": \"x\"}", "{\"quantize\": \"next_beat\"}");
    g_autoptr(JsonNode) beat_node = json (beat);
    g_autoptr(SjChangeRequest) request3 = sj_change_request_parse (beat_node, &defaults, &rejection);

    g_assert_nonnull (request3);
    g_assert_cmpint (request3->policy.quantize, ==, SJ_QUANTIZE_NEXT_BEAT);
    g_assert_cmpstr (sj_quantize_to_string (SJ_QUANTIZE_NEXT_BEAT), ==, "next_beat");
  }
}

static char *
build (const char      *edits,
       SjChangeResult **out_rejection)
{
  g_autofree char *change = g_strdup_printf ("{\"kind\": \"search_replace\", \"edits\": %s}", edits);
  g_autofree char *text = input_with (change, NULL);
  g_autoptr(JsonNode) node = json (text);
  g_autoptr(SjChangeResult) rejection = NULL;
  g_autoptr(SjChangeRequest) request = sj_change_request_parse (node, &defaults, &rejection);

  g_assert_nonnull (request);
  return sj_change_request_build (request, code, out_rejection);
}

static void
test_search_replace (void)
{
  g_autoptr(SjChangeResult) rejection = NULL;
  g_autofree char *ok = build ("[{\"search\": \".lpf(800)\", \"replace\": \".lpf(400)\"},"
                               " {\"search\": \"RolandTR909\", \"replace\": \"RolandTR808\"}]", &rejection);
  g_autofree char *missing = NULL;
  g_autofree char *ambiguous = NULL;

  g_assert_null (rejection);
  g_assert_nonnull (strstr (ok, ".lpf(400)"));
  g_assert_nonnull (strstr (ok, "RolandTR808"));
  g_assert_null (strstr (ok, "lpf(800)"));

  missing = build ("[{\"search\": \".room(0.5)\", \"replace\": \"\"}]", &rejection);
  g_assert_null (missing);
  g_assert_cmpint (rejection->rejection, ==, SJ_CHANGE_REJECTION_SEARCH_NOT_FOUND);
  g_assert_cmpstr (((SjChangeDiagnostic *) g_ptr_array_index (rejection->diagnostics, 0))->field, ==, "change.edits[0].search");
  g_clear_pointer (&rejection, sj_change_result_unref);

  ambiguous = build ("[{\"search\": \"$: \", \"replace\": \"_$: \"}]", &rejection);
  g_assert_null (ambiguous);
  g_assert_cmpint (rejection->rejection, ==, SJ_CHANGE_REJECTION_SEARCH_AMBIGUOUS);
  g_assert_nonnull (strstr (sj_change_result_get_message (rejection), "2 times"));
}

static void
test_hash (void)
{
  g_autofree char *hash = sj_code_hash ("abc");

  /* SHA-256 of "abc", the standard test vector. */
  g_assert_cmpstr (hash, ==, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void
test_read_code (void)
{
  g_autoptr(JsonObject) whole = sj_read_code (code, NULL);
  g_autoptr(JsonObject) lpf = sj_read_code (code, "LPF");
  g_autoptr(JsonObject) none = sj_read_code (code, "room");
  g_autofree char *hash = sj_code_hash (code);
  JsonObject *match;

  g_assert_cmpstr (json_object_get_string_member (whole, "hash"), ==, hash);
  g_assert_cmpint (json_object_get_int_member (whole, "lineCount"), ==, 7);
  g_assert_cmpstr (json_object_get_string_member (whole, "code"), ==, code);
  g_assert_nonnull (strstr (json_object_get_string_member (whole, "numbered"), "   3 | $: note(\"c3 e3 g3\")\n"));

  /* The whole $: voice, with its chained lines. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (lpf, "matches")), ==, 1);
  match = json_array_get_object_element (json_object_get_array_member (lpf, "matches"), 0);
  g_assert_cmpint (json_object_get_int_member (match, "startLine"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (match, "endLine"), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (match, "text"), ==,
                   "$: note(\"c3 e3 g3\")\n  .s(\"sawtooth\")\n  .lpf(800)");

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (none, "matches")), ==, 0);
}

static void
test_timeline (void)
{
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();

  g_assert_null (sj_timeline_get_undo_target (timeline));

  sj_timeline_push (timeline, "a", 0, "user");
  sj_timeline_push (timeline, "a", 1, "user");   /* the same code: no entry */
  sj_timeline_push (timeline, "b", 2, "agent");
  sj_timeline_push (timeline, "c", 3, "agent");
  g_assert_cmpuint (sj_timeline_get_n_items (timeline), ==, 3);
  g_assert_cmpstr (sj_timeline_get_undo_target (timeline)->code, ==, "b");

  sj_timeline_step_back (timeline);
  g_assert_cmpstr (sj_timeline_get_undo_target (timeline)->code, ==, "a");
  sj_timeline_step_back (timeline);
  g_assert_null (sj_timeline_get_undo_target (timeline));

  /* A new change after undoing is appended; undoing it goes back to the
   * code it replaced, not to the undone one. */
  sj_timeline_push (timeline, "d", 4, "agent");
  g_assert_cmpuint (sj_timeline_get_n_items (timeline), ==, 4);
  g_assert_cmpstr (sj_timeline_get_undo_target (timeline)->code, ==, "a");
  g_assert_cmpstr (sj_timeline_get (timeline, 3)->source, ==, "agent");

  /* A change canceled before its boundary is forgotten (issue 32): only
   * the newest, current one, scheduled for that cycle. */
  sj_timeline_push (timeline, "e", 8, "agent");
  g_assert_false (sj_timeline_forget (timeline, 7));
  g_assert_true (sj_timeline_forget (timeline, 8));
  g_assert_cmpuint (sj_timeline_get_n_items (timeline), ==, 4);
  g_assert_cmpstr (sj_timeline_get_undo_target (timeline)->code, ==, "a");
  g_assert_false (sj_timeline_forget (timeline, 8));
  sj_timeline_step_back (timeline);
  g_assert_false (sj_timeline_forget (timeline, 4));
  g_assert_cmpuint (sj_timeline_get_n_items (timeline), ==, 4);
}

static char *
to_json_text (const SjChangeResult *result)
{
  g_autoptr(JsonObject) object = sj_change_result_to_json (result);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return json_to_string (node, FALSE);
}

/* A change that goes ahead: the JSON says when it lands and what the
 * dry-run saw, numbers written as JavaScript wrote them. */
static void
test_result_landing (void)
{
  const char * const sounds[] = { "bd", "sd", NULL };
  const char * const names[] = { "kick", "snare", NULL };
  const char * const loading[] = { "rbd", NULL };
  g_autoptr(SjChangeResult) result = sj_change_result_new_landing (SJ_CHANGE_STATUS_SCHEDULED, 13, 0.5, "abc");
  g_autoptr(SjChangeResult) applied = sj_change_result_new_landing (SJ_CHANGE_STATUS_APPLIED, 0, 0, "def");
  SjChangeTempo tempo[] = { { 1.5, NAN }, { 1, 0 }, { 1, 0.75 }, { NAN, 2 } };
  g_autofree char *text = NULL;
  g_autofree char *applied_text = NULL;

  g_assert_cmpint (result->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_cmpint (result->phase, ==, SJ_CHANGE_PHASE_NONE);
  g_assert_cmpint (result->rejection, ==, SJ_CHANGE_REJECTION_NONE);
  g_assert_null (sj_change_result_get_message (result));
  g_assert_cmpuint (g_strv_length (result->dry_run.sounds), ==, 0);

  result->dry_run.events = 8;
  g_strfreev (result->dry_run.sounds);
  result->dry_run.sounds = g_strdupv ((char **) sounds);
  g_array_append_vals (result->dry_run.tempo, tempo, G_N_ELEMENTS (tempo));
  g_ptr_array_add (result->dry_run.samples, sj_change_samples_new ("map", names, "https://example.invalid/"));
  g_ptr_array_add (result->dry_run.samples, sj_change_samples_new ("github:someone/pack", NULL, NULL));
  g_strfreev (result->dry_run.loading_sounds);
  result->dry_run.loading_sounds = g_strdupv ((char **) loading);

  text = to_json_text (result);
  g_assert_cmpstr (text, ==,
                   "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":13.0,\"inSeconds\":0.5},\"newHash\":\"abc\","
                   "\"activeUnchangedUntilApply\":true,\"dryRun\":{\"events\":8,\"sounds\":[\"bd\",\"sd\"],"
                   "\"tempo\":[{\"cps\":1.5},{\"cps\":1,\"cycle\":0},{\"cps\":1,\"cycle\":0.75},{\"cps\":null,\"cycle\":2}],"
                   "\"samples\":[{\"source\":\"map\",\"names\":[\"kick\",\"snare\"],\"base\":\"https://example.invalid/\"},"
                   "{\"source\":\"github:someone/pack\"}],"
                   "\"loadingSounds\":[\"rbd\"]}}");

  /* Applied at once, with nothing to report but the summary's shape. */
  applied_text = to_json_text (applied);
  g_assert_cmpstr (applied_text, ==,
                   "{\"status\":\"applied\",\"applyAt\":{\"cycle\":0.0,\"inSeconds\":0.0},\"newHash\":\"def\","
                   "\"activeUnchangedUntilApply\":true,\"dryRun\":{\"events\":0,\"sounds\":[],\"tempo\":[],\"samples\":[]}}");
}

/* Rejections: the diagnostic in place, the unknown names, and what to do
 * next, derived from them or from the phase. */
static void
test_result_rejected (void)
{
  const char * const fast[] = { "fast", "fastcat", NULL };
  const char * const saw[] = { "sawtooth", NULL };
  g_autoptr(SjChangeResult) compile = sj_change_result_new_rejected (SJ_CHANGE_PHASE_COMPILE, SJ_CHANGE_REJECTION_DRY_RUN_FAILED,
                                                                     "unknown method .fastt() at 1:12", NULL);
  g_autoptr(SjChangeResult) stale = sj_change_result_new_rejected (SJ_CHANGE_PHASE_STALE, SJ_CHANGE_REJECTION_STALE_BASE_HASH,
                                                                   "Rebase.", "baseHash");
  g_autoptr(SjChangeResult) input = sj_change_result_new_rejected (SJ_CHANGE_PHASE_INPUT, SJ_CHANGE_REJECTION_NO_CHANGE,
                                                                   "Same code.", "change");
  g_autoptr(SjChangeResult) page = sj_change_result_new_rejected (SJ_CHANGE_PHASE_SCHEDULE, SJ_CHANGE_REJECTION_PAGE_UNAVAILABLE,
                                                                  "Gone.", NULL);
  SjChangeDiagnostic *diagnostic = g_ptr_array_index (compile->diagnostics, 0);
  g_autofree char *compile_text = NULL;
  g_autofree char *stale_text = NULL;
  g_autofree char *input_text = NULL;
  g_autofree char *page_text = NULL;

  diagnostic->line = 1;
  diagnostic->column = 12;
  g_ptr_array_add (compile->unknown_symbols, sj_change_unknown_name_new ("fastt", "method", 1, 12, fast));
  g_ptr_array_add (compile->unknown_sounds, sj_change_unknown_name_new ("sawtoth", NULL, 0, 0, saw));
  g_assert_cmpstr (sj_change_result_get_message (compile), ==, "unknown method .fastt() at 1:12");
  g_assert_true (isnan (compile->apply_at_cycle));
  g_assert_null (compile->new_hash);

  compile_text = to_json_text (compile);
  g_assert_cmpstr (compile_text, ==,
                   "{\"status\":\"rejected\",\"phase\":\"compile\",\"code\":\"DRY_RUN_FAILED\","
                   "\"diagnostics\":[{\"message\":\"unknown method .fastt() at 1:12\",\"line\":1,\"column\":12}],"
                   "\"unknownSymbols\":[{\"name\":\"fastt\",\"kind\":\"method\",\"line\":1,\"column\":12,"
                   "\"suggestions\":[\"fast\",\"fastcat\"]}],"
                   "\"unknownSounds\":[{\"name\":\"sawtoth\",\"suggestions\":[\"sawtooth\"]}],"
                   "\"suggestedNext\":{\"action\":\"consult_strudel_knowledge\",\"queries\":[\"symbol:fastt\",\"sounds:sawtoth\"]}}");

  stale->latest_code = g_strdup ("s(\"bd\")");
  stale->latest_hash = g_strdup ("123");
  stale_text = to_json_text (stale);
  g_assert_cmpstr (stale_text, ==,
                   "{\"status\":\"rejected\",\"phase\":\"stale\",\"code\":\"STALE_BASE_HASH\","
                   "\"diagnostics\":[{\"message\":\"Rebase.\",\"field\":\"baseHash\"}],\"unknownSymbols\":[],\"unknownSounds\":[],"
                   "\"suggestedNext\":{\"action\":\"rebase_on_latest_code\"},\"latestCode\":\"s(\\\"bd\\\")\",\"latestHash\":\"123\"}");

  input_text = to_json_text (input);
  g_assert_nonnull (strstr (input_text, "\"code\":\"NO_CHANGE\""));
  g_assert_nonnull (strstr (input_text, "\"suggestedNext\":{\"action\":\"fix_the_input\"}}"));
  page_text = to_json_text (page);
  g_assert_nonnull (strstr (page_text, "\"phase\":\"schedule\",\"code\":\"PAGE_UNAVAILABLE\""));
  g_assert_nonnull (strstr (page_text, "\"suggestedNext\":{\"action\":\"repair_and_retry\"}}"));
}

static void
test_result_names (void)
{
  g_autoptr(SjChangeResult) result = sj_change_result_new_landing (SJ_CHANGE_STATUS_SCHEDULED, 1, 1, "abc");
  SjChangeResult *copy;

  for (SjChangePhase phase = SJ_CHANGE_PHASE_INPUT; phase <= SJ_CHANGE_PHASE_SCHEDULE; phase++)
    g_assert_cmpint (sj_change_phase_from_string (sj_change_phase_to_string (phase)), ==, phase);
  /* The dry-run's own answers count a missing or unknown phase as runtime. */
  g_assert_cmpint (sj_change_phase_from_string (NULL), ==, SJ_CHANGE_PHASE_RUNTIME);
  g_assert_cmpint (sj_change_phase_from_string ("unavailable"), ==, SJ_CHANGE_PHASE_RUNTIME);
  g_assert_null (sj_change_phase_to_string (SJ_CHANGE_PHASE_NONE));

  for (SjChangeRejection rejection = SJ_CHANGE_REJECTION_INVALID_INPUT; rejection <= SJ_CHANGE_REJECTION_PAGE_UNAVAILABLE; rejection++)
    g_assert_nonnull (sj_change_rejection_to_string (rejection));
  g_assert_cmpstr (sj_change_rejection_to_string (SJ_CHANGE_REJECTION_SEARCH_AMBIGUOUS), ==, "SEARCH_AMBIGUOUS");
  g_assert_cmpstr (sj_change_status_to_string (SJ_CHANGE_STATUS_APPLIED), ==, "applied");

  /* A boxed type, shared by reference. */
  g_assert_true (G_TYPE_IS_BOXED (SJ_TYPE_CHANGE_RESULT));
  copy = g_boxed_copy (SJ_TYPE_CHANGE_RESULT, result);
  g_assert_true (copy == result);
  g_boxed_free (SJ_TYPE_CHANGE_RESULT, copy);
  g_assert_cmpstr (result->new_hash, ==, "abc");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/change/input-validation", test_input_validation);
  g_test_add_func ("/change/policy-and-defaults", test_policy_and_defaults);
  g_test_add_func ("/change/search-replace", test_search_replace);
  g_test_add_func ("/change/hash", test_hash);
  g_test_add_func ("/change/read-code", test_read_code);
  g_test_add_func ("/change/timeline", test_timeline);
  g_test_add_func ("/change/result/landing", test_result_landing);
  g_test_add_func ("/change/result/rejected", test_result_rejected);
  g_test_add_func ("/change/result/names", test_result_names);

  return g_test_run ();
}
