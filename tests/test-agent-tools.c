/* test-agent-tools.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjAgentTools on its own, without a model: the real apply pipeline (the
 * dry-run helper, the bundled knowledge) over music in memory
 * (sj-test-target.c). What the model reads back is part of its contract
 * (the system prompt and its repairs depend on it), so every shape of an
 * apply_strudel_change result is compared byte for byte, as the agent
 * serialises it, along with what the agent loop learns from the outcome.
 * The refusals (unknown tool, broken, non-object and oversized arguments)
 * and cancellation are covered too.
 *
 * The expected texts hold names suggested from the bundled reference and
 * sounds: a new Strudel release may change those suggestions, and then
 * these texts, on purpose.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-agent-tools.h"
#include "sj-test-target.h"

#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"

typedef struct
{
  SjTestTarget    *target;
  SjDryRun        *dry_run;
  SjKnowledge     *knowledge;
  SjChangeApplier *applier;
  SjAgentTools    *tools;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();
  SjSwapPolicy policy = { SJ_QUANTIZE_NEXT_CYCLE, 1, 4, FALSE, 1 };

  sj_sounds_index_load_bundled (sounds);
  fixture->target = sj_test_target_new (CODE);
  fixture->knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  fixture->dry_run = sj_dry_run_new ();
  fixture->applier = sj_change_applier_new (SJ_LIVE_TARGET (fixture->target), fixture->dry_run,
                                            fixture->knowledge, timeline);
  sj_change_applier_set_defaults (fixture->applier, &policy);
  fixture->tools = sj_agent_tools_new (fixture->applier, fixture->knowledge, sj_knowledge_base_get_bundled ());
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->tools);
  g_clear_object (&fixture->applier);
  g_clear_object (&fixture->dry_run);
  g_clear_object (&fixture->knowledge);
  g_clear_object (&fixture->target);
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static SjToolOutcome *
call_with (Fixture      *fixture,
           const char   *name,
           const char   *arguments,
           GCancellable *cancellable)
{
  g_autoptr(GAsyncResult) result = NULL;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  SjToolOutcome *outcome;

  sj_agent_tools_call_async (fixture->tools, name, "call_1", arguments, cancellable, store_result_cb, &result);
  while (result == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  outcome = sj_agent_tools_call_finish (fixture->tools, result);
  g_assert_nonnull (outcome);
  g_assert_nonnull (outcome->result);
  g_assert_cmpstr (outcome->name, ==, name ? name : "");
  g_assert_cmpstr (outcome->call_id, ==, "call_1");
  g_assert_cmpstr (outcome->arguments, ==, arguments ? arguments : "");

  return outcome;
}

static SjToolOutcome *
call (Fixture    *fixture,
      const char *name,
      const char *arguments)
{
  return call_with (fixture, name, arguments, NULL);
}

/* The result exactly as the agent sends it to the model (before it adds
 * the budget). */
static char *
result_text (SjToolOutcome *outcome)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), outcome->result);

  return json_to_string (node, FALSE);
}

static char *
change_arguments (const char *base_hash,
                  const char *code)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "baseHash");
  json_builder_add_string_value (builder, base_hash);
  json_builder_set_member_name (builder, "change");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "kind");
  json_builder_add_string_value (builder, "full_code");
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, code);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

/* Applies @code in place of CODE and checks the result the model gets. */
static SjToolOutcome *
assert_apply (Fixture    *fixture,
              const char *code,
              const char *expected)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *arguments = change_arguments (hash, code);
  SjToolOutcome *outcome = call (fixture, "apply_strudel_change", arguments);
  g_autofree char *text = result_text (outcome);

  g_assert_cmpstr (text, ==, expected);
  return outcome;
}

static void
assert_rejected (SjToolOutcome *outcome)
{
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_FAILED);
  g_assert_true (outcome->apply_rejected);
  g_assert_true (isnan (outcome->apply_cycle));
}

static void
test_apply_scheduled (Fixture       *fixture,
                      gconstpointer  data)
{
  const char *code = "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(1200)";
  g_autofree char *hash = sj_code_hash (code);
  g_autoptr(SjToolOutcome) outcome = NULL;
  g_autofree char *expected = g_strdup_printf (
    "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":13.0,\"inSeconds\":0.5},\"newHash\":\"%s\","
    "\"activeUnchangedUntilApply\":true,\"dryRun\":{\"events\":16,\"sounds\":[\"sawtooth\"],"
    "\"tempo\":[],\"samples\":[]}}",
    hash);

  outcome = assert_apply (fixture, code, expected);
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_false (outcome->apply_rejected);
  g_assert_cmpfloat (outcome->apply_cycle, ==, 13);
  /* The model wrote that code: it knows its hash now. */
  g_assert_cmpstr (outcome->known_hash, ==, hash);
  g_assert_cmpstr (sj_test_target_get_code (fixture->target), ==, code);
}

/* Tempo changes of both kinds (setcpm, and a cps control on events at
 * whole and fractional cycles: whole numbers are written without a
 * fraction), a sample map and a pack, and a sound that the pack's map,
 * not fetched yet, may register (loading, not rejected, but reported). */
static void
test_apply_dry_run_summary (Fixture       *fixture,
                            gconstpointer  data)
{
  const char *code = "setcpm(90)\n"
                     "samples({ mybd: 'bd.wav', _base: 'x' }, 'https://example.invalid/')\n"
                     "samples('github:tidalcycles/dirt-samples')\n"
                     "$: s(\"mybd ~ ~ mybd\").cps(1)\n"
                     "$: s(\"sine nosuchsound\")\n";
  g_autofree char *hash = sj_code_hash (code);
  g_autoptr(SjToolOutcome) outcome = NULL;
  g_autofree char *expected = g_strdup_printf (
    "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":13.0,\"inSeconds\":0.5},\"newHash\":\"%s\","
    "\"activeUnchangedUntilApply\":true,\"dryRun\":{\"events\":16,\"sounds\":[\"mybd\",\"nosuchsound\","
    "\"sine\"],\"tempo\":[{\"cps\":1.5},{\"cps\":1,\"cycle\":0},{\"cps\":1,\"cycle\":1},{\"cps\":1,"
    "\"cycle\":2},{\"cps\":1,\"cycle\":3},{\"cps\":1,\"cycle\":0.75},{\"cps\":1,"
    "\"cycle\":1.75},{\"cps\":1,\"cycle\":2.75},{\"cps\":1,\"cycle\":3.75}],"
    "\"samples\":[{\"source\":\"map\",\"names\":[\"mybd\"],"
    "\"base\":\"https://example.invalid/\"},{\"source\":\"github:tidalcycles/dirt-samples\"}],"
    "\"loadingSounds\":[\"nosuchsound\"]}}",
    hash);

  outcome = assert_apply (fixture, code, expected);
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
}

static void
test_apply_rejections (Fixture       *fixture,
                       gconstpointer  data)
{
  struct {
    const char *code;
    const char *expected;
  } cases[] = {
    /* Nothing changes. */
    {
      CODE,
      "{\"status\":\"rejected\",\"phase\":\"input\",\"code\":\"NO_CHANGE\","
      "\"diagnostics\":[{\"message\":\"The change leaves the code exactly as it is.\","
      "\"field\":\"change\"}],\"unknownSymbols\":[],\"unknownSounds\":[],"
      "\"suggestedNext\":{\"action\":\"fix_the_input\"}}",
    },
    /* Invented names, all at once, with the queries that settle them (after
     * the spelling, the function whose documentation is most about "room"). */
    {
      "note(\"c3\").fastt(2).roomy(.3)",
      "{\"status\":\"rejected\",\"phase\":\"compile\",\"code\":\"DRY_RUN_FAILED\","
      "\"diagnostics\":[{\"message\":\"unknown method .fastt() at 1:12; unknown method .roomy() at 1:21\","
      "\"line\":1,\"column\":12}],\"unknownSymbols\":[{\"name\":\"fastt\",\"kind\":\"method\",\"line\":1,"
      "\"column\":12,\"suggestions\":[\"fast\",\"att\",\"fastcat\",\"fmatt\","
      "\"patt\"]},{\"name\":\"roomy\",\"kind\":\"method\",\"line\":1,\"column\":21,"
      "\"suggestions\":[\"room\",\"roomlp\",\"zoom\",\"roomsize\"]}],\"unknownSounds\":[],"
      "\"suggestedNext\":{\"action\":\"consult_strudel_knowledge\",\"queries\":[\"symbol:fastt\","
      "\"symbol:roomy\"]}}",
    },
    /* Broken JavaScript, placed. */
    {
      "note(\"c3\"",
      "{\"status\":\"rejected\",\"phase\":\"syntax\",\"code\":\"DRY_RUN_FAILED\","
      "\"diagnostics\":[{\"message\":\"Unexpected token (1:9)\",\"line\":1,\"column\":10}],"
      "\"unknownSymbols\":[],\"unknownSounds\":[],\"suggestedNext\":{\"action\":\"repair_and_retry\"}}",
    },
    /* Code that throws when evaluated. */
    {
      "note(\"c3\").s(\"sine\")\nnull.x",
      "{\"status\":\"rejected\",\"phase\":\"runtime\",\"code\":\"DRY_RUN_FAILED\","
      "\"diagnostics\":[{\"message\":\"null is not an object (evaluating 'null.x')\",\"line\":2,"
      "\"column\":1}],\"unknownSymbols\":[],\"unknownSounds\":[],"
      "\"suggestedNext\":{\"action\":\"repair_and_retry\"}}",
    },
    /* A sound that is not registered. */
    {
      "s(\"sawtoth*4\")",
      "{\"status\":\"rejected\",\"phase\":\"sounds\",\"code\":\"UNKNOWN_SOUNDS\","
      "\"diagnostics\":[{\"message\":\"The code plays sounds that are not loaded.\"}],"
      "\"unknownSymbols\":[],\"unknownSounds\":[{\"name\":\"sawtoth\",\"suggestions\":[\"sawtooth\","
      "\"saw\"]}],\"suggestedNext\":{\"action\":\"consult_strudel_knowledge\","
      "\"queries\":[\"sounds:sawtoth\"]}}",
    },
    /* Code that never returns: stopped at the timeout. */
    {
      "let i = 0\nwhile (true) { i++ }\ns(\"sine\")",
      "{\"status\":\"rejected\",\"phase\":\"timeout\",\"code\":\"DRY_RUN_FAILED\","
      "\"diagnostics\":[{\"message\":\"The code did not finish within 500 ms (an endless loop,"
      " or far too many events); the dry-run was stopped.\"}],\"unknownSymbols\":[],\"unknownSounds\":[],"
      "\"suggestedNext\":{\"action\":\"repair_and_retry\"}}",
    },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SjToolOutcome) outcome = assert_apply (fixture, cases[i].code, cases[i].expected);

      assert_rejected (outcome);
      g_assert_null (outcome->known_hash);
    }
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->target), ==, 0);
}

static void
test_apply_input_and_stale (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *stale_hash = g_strnfill (64, 'a');
  g_autofree char *stale_arguments = change_arguments (stale_hash, "s(\"sine\")");
  g_autofree char *missing_arguments = g_strdup_printf ("{\"baseHash\": \"%s\", \"change\": {\"kind\": \"search_replace\", "
                                                        "\"edits\": [{\"search\": \"lpf(900)\", \"replace\": \"lpf(1200)\"}]}}",
                                                        hash);
  g_autoptr(SjToolOutcome) invalid = NULL;
  g_autoptr(SjToolOutcome) missing = NULL;
  g_autoptr(SjToolOutcome) stale = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;

  invalid = call (fixture, "apply_strudel_change", "{\"change\": {\"kind\": \"full_code\", \"code\": \"s(\\\"sine\\\")\"}}");
  text = result_text (invalid);
  g_assert_cmpstr (text, ==,
                   "{\"status\":\"rejected\",\"phase\":\"input\",\"code\":\"INVALID_INPUT\","
                   "\"diagnostics\":[{\"message\":\"“baseHash” is required: the 64-hex-digit hash of the code you read "
                   "(read_code gives it).\",\"field\":\"baseHash\"}],\"unknownSymbols\":[],\"unknownSounds\":[],"
                   "\"suggestedNext\":{\"action\":\"fix_the_input\"}}");
  assert_rejected (invalid);
  g_clear_pointer (&text, g_free);

  missing = call (fixture, "apply_strudel_change", missing_arguments);
  text = result_text (missing);
  g_assert_cmpstr (text, ==,
                   "{\"status\":\"rejected\",\"phase\":\"input\",\"code\":\"SEARCH_NOT_FOUND\","
                   "\"diagnostics\":[{\"message\":\"The search text of edit 0 does not occur in the code; "
                   "read_code gives the exact text.\",\"field\":\"change.edits[0].search\"}],\"unknownSymbols\":[],"
                   "\"unknownSounds\":[],\"suggestedNext\":{\"action\":\"fix_the_input\"}}");
  assert_rejected (missing);
  g_clear_pointer (&text, g_free);

  /* The latest code comes back: the model knows it, and its hash. */
  stale = call (fixture, "apply_strudel_change", stale_arguments);
  text = result_text (stale);
  expected = g_strdup_printf ("{\"status\":\"rejected\",\"phase\":\"stale\",\"code\":\"STALE_BASE_HASH\","
                              "\"diagnostics\":[{\"message\":\"The code changed since it was read: rebase the change on "
                              "latestCode and send latestHash as baseHash.\",\"field\":\"baseHash\"}],"
                              "\"unknownSymbols\":[],\"unknownSounds\":[],"
                              "\"suggestedNext\":{\"action\":\"rebase_on_latest_code\"},"
                              "\"latestCode\":\"note(\\\"c3 e3 g3 b3\\\").s(\\\"sawtooth\\\").lpf(800)\",\"latestHash\":\"%s\"}",
                              hash);
  g_assert_cmpstr (text, ==, expected);
  assert_rejected (stale);
  g_assert_cmpstr (stale->known_hash, ==, hash);
}

/* Issue 29: a sound the page could not load refuses the agent's change
 * before its swap, naming it once with the page's reason; the musician's
 * own change lands and says the sound failed. */
static void
test_apply_sound_failed (Fixture       *fixture,
                         gconstpointer  data)
{
  const char *code = "note(\"c e g\").s(\"piano\")";
  g_autoptr(SjToolOutcome) refused = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(SjChangeResult) landed = NULL;
  g_autoptr(JsonNode) input = NULL;
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *arguments = change_arguments (hash, code);
  g_autoptr(GError) error = NULL;

  sj_test_target_fail_sound (fixture->target, "piano:0", "the server sent an HTML page (63 bytes), not a sound");
  refused = assert_apply (fixture, code,
                          "{\"status\":\"rejected\",\"phase\":\"sounds\",\"code\":\"SOUND_UNAVAILABLE\","
                          "\"diagnostics\":[{\"message\":\"Not applied: the page could not load piano:0 (the server "
                          "sent an HTML page (63 bytes), not a sound), so the change would have been silent there. "
                          "Nothing changed; use sounds that play now (the alternatives, or strudel_knowledge "
                          "\\\"sounds available offline\\\").\"}],\"unknownSymbols\":[],\"unknownSounds\":[],"
                          "\"unavailableSounds\":[{\"name\":\"piano:0\",\"reason\":\"the server sent an HTML page "
                          "(63 bytes), not a sound\",\"alternatives\":[]}],"
                          "\"suggestedNext\":{\"action\":\"use_available_sounds\"}}");
  assert_rejected (refused);
  g_assert_cmpstr (sj_test_target_get_code (fixture->target), ==, CODE);
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->target), ==, 0);

  input = json_from_string (arguments, NULL);
  sj_change_applier_apply_async (fixture->applier, input, "user", NULL, store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  landed = sj_change_applier_apply_finish (fixture->applier, result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (landed->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_nonnull (landed->sounds.failed);
  g_assert_cmpstr (landed->sounds.failed[0], ==, "piano:0");
  g_assert_null (landed->sounds.failed[1]);
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->target), ==, 1);
}

/* The page fails at the last step: nothing was applied, and it says so. */
static void
test_apply_page_failures (Fixture       *fixture,
                          gconstpointer  data)
{
  const char *code = "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(1200)";
  g_autoptr(SjToolOutcome) gone = NULL;
  g_autoptr(SjToolOutcome) refused = NULL;

  sj_test_target_fail_swaps (fixture->target, "The page is restarting", NULL);
  gone = assert_apply (fixture, code,
                       "{\"status\":\"rejected\",\"phase\":\"schedule\",\"code\":\"PAGE_UNAVAILABLE\","
                       "\"diagnostics\":[{\"message\":\"The page is restarting\"}],\"unknownSymbols\":[],"
                       "\"unknownSounds\":[],\"suggestedNext\":{\"action\":\"repair_and_retry\"}}");
  assert_rejected (gone);

  sj_test_target_fail_swaps (fixture->target, NULL, "ReferenceError: Can't find variable: x");
  refused = assert_apply (fixture, code,
                          "{\"status\":\"rejected\",\"phase\":\"runtime\",\"code\":\"LIVE_EVALUATION_FAILED\","
                          "\"diagnostics\":[{\"message\":\"ReferenceError: Can't find variable: x\"}],\"unknownSymbols\":[],"
                          "\"unknownSounds\":[],\"suggestedNext\":{\"action\":\"repair_and_retry\"}}");
  assert_rejected (refused);

  g_assert_cmpstr (sj_test_target_get_code (fixture->target), ==, CODE);
}

static void
test_read_code (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autoptr(SjToolOutcome) whole = NULL;
  g_autoptr(SjToolOutcome) query = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;

  /* Models send "" for a call without arguments. */
  whole = call (fixture, "read_code", "");
  text = result_text (whole);
  expected = g_strdup_printf ("{\"hash\":\"%s\",\"lineCount\":1,"
                              "\"code\":\"note(\\\"c3 e3 g3 b3\\\").s(\\\"sawtooth\\\").lpf(800)\","
                              "\"numbered\":\"   1 | note(\\\"c3 e3 g3 b3\\\").s(\\\"sawtooth\\\").lpf(800)\\n\"}",
                              hash);
  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpint (whole->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_cmpstr (whole->known_hash, ==, hash);
  g_assert_true (isnan (whole->apply_cycle));

  query = call (fixture, "read_code", "{\"query\": \"sawtooth\"}");
  g_clear_pointer (&text, g_free);
  text = result_text (query);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("{\"hash\":\"%s\",\"lineCount\":1,\"query\":\"sawtooth\","
                              "\"matches\":[{\"startLine\":1,\"endLine\":1,"
                              "\"text\":\"note(\\\"c3 e3 g3 b3\\\").s(\\\"sawtooth\\\").lpf(800)\"}]}",
                              hash);
  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpint (query->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
}

static void
test_knowledge (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(SjToolOutcome) found = call (fixture, "strudel_knowledge", "{\"query\": \"lpf\"}");
  g_autoptr(SjToolOutcome) object_form = call (fixture, "strudel_knowledge", "{\"q\": \"room\", \"domain\": \"reference\"}");
  g_autoptr(SjToolOutcome) search = call (fixture, "search_knowledge", "{\"query\": \"swing|shuffle\", \"max_results\": 1}");
  g_autoptr(SjToolOutcome) bad_regex = call (fixture, "search_knowledge", "{\"query\": \"(\"}");
  g_autofree char *found_text = result_text (found);
  g_autofree char *object_text = result_text (object_form);
  g_autofree char *search_text = result_text (search);
  g_autofree char *bad_text = result_text (bad_regex);

  g_assert_cmpint (found->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_true (g_str_has_prefix (found_text, "{\"ok\":true,"));
  g_assert_nonnull (strstr (found_text, "\"lpf\""));
  g_assert_cmpint (object_form->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_nonnull (strstr (object_text, "\"room\""));
  g_assert_cmpint (search->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_nonnull (strstr (search_text, "\"matches\""));
  g_assert_cmpint (bad_regex->status, ==, SJ_HISTORY_TOOL_FAILED);
  g_assert_nonnull (strstr (bad_text, "\"error\""));
  g_assert_null (found->known_hash);
}

static void
test_refusals (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SjToolOutcome) unknown = call (fixture, "play_louder", "{}");
  g_autoptr(SjToolOutcome) nameless = call (fixture, NULL, "{}");
  g_autoptr(SjToolOutcome) broken = call (fixture, "apply_strudel_change", "{\"baseHash\": \"abc\", \"change\": {\"kind\": \"full_co");
  g_autoptr(SjToolOutcome) array = call (fixture, "read_code", "[1, 2]");
  g_autoptr(SjToolOutcome) oversized = NULL;
  g_autofree char *big = g_strnfill (SJ_AGENT_TOOLS_MAX_ARGUMENTS + 1, ' ');
  SjToolOutcome *refused[] = { unknown, nameless, broken, array };
  const char *expected[] = {
    "{\"status\":\"error\",\"error\":{\"code\":\"UNKNOWN_TOOL\","
    "\"message\":\"There is no tool “play_louder”. The tools are read_code, apply_strudel_change,"
    " strudel_knowledge, search_knowledge, skills_list and activate_skills.\",\"tool\":\"play_louder\"}}",
    "{\"status\":\"error\",\"error\":{\"code\":\"UNKNOWN_TOOL\","
    "\"message\":\"There is no tool “”. The tools are read_code, apply_strudel_change,"
    " strudel_knowledge, search_knowledge, skills_list and activate_skills.\",\"tool\":\"\"}}",
    /* json-glib's own words are in the middle. */
    "{\"status\":\"error\",\"error\":{\"code\":\"INVALID_ARGUMENTS\","
    "\"message\":\"The arguments are not valid JSON (*). Send one JSON object that matches the tool's parameters.\","
    "\"tool\":\"apply_strudel_change\"}}",
    "{\"status\":\"error\",\"error\":{\"code\":\"INVALID_ARGUMENTS\","
    "\"message\":\"The arguments must be one JSON object that matches the tool's parameters.\","
    "\"tool\":\"read_code\"}}",
  };

  /* Valid JSON, one byte over the limit: refused before it is parsed. */
  big[0] = '{';
  big[SJ_AGENT_TOOLS_MAX_ARGUMENTS] = '}';
  oversized = call (fixture, "search_knowledge", big);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *text = result_text (refused[i]);

      if (!g_pattern_match_simple (expected[i], text))
        g_error ("Refusal %u is\n%s\nnot\n%s", i, text, expected[i]);
      g_assert_cmpint (refused[i]->status, ==, SJ_HISTORY_TOOL_FAILED);
      g_assert_false (refused[i]->apply_rejected);
    }

  {
    g_autofree char *text = result_text (oversized);

    g_assert_cmpstr (text, ==,
                 "{\"status\":\"error\",\"error\":{\"code\":\"INVALID_ARGUMENTS\",\"message\":\"The arguments are "
                 "524289 bytes, more than the 524288 allowed.\",\"tool\":\"search_knowledge\"}}");
    g_assert_cmpint (oversized->status, ==, SJ_HISTORY_TOOL_FAILED);
  }
  g_assert_cmpstr (sj_test_target_get_code (fixture->target), ==, CODE);
}

static void
test_canceled (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(SjToolOutcome) outcome = NULL;
  g_autofree char *text = NULL;

  g_cancellable_cancel (cancellable);
  outcome = call_with (fixture, "read_code", "{}", cancellable);
  text = result_text (outcome);
  g_assert_cmpstr (text, ==,
               "{\"status\":\"canceled\",\"message\":\"The musician stopped the agent before this call finished;"
               " nothing was changed by it.\"}");
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_CANCELED);
}

/* Every tool the model is told about has a handler, and a name it is not
 * told about is refused with the list of those it is. */
static void
test_definitions (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(JsonArray) definitions = sj_agent_tools_get_definitions ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(SjToolOutcome) unknown = call (fixture, "read_codes", "{}");
  g_autofree char *listed = NULL;

  g_assert_cmpuint (json_array_get_length (definitions), ==, 6);
  for (guint i = 0; i < json_array_get_length (definitions); i++)
    {
      JsonObject *function = json_object_get_object_member (json_array_get_object_element (definitions, i), "function");
      const char *name = json_object_get_string_member (function, "name");
      /* Arguments no tool accepts: each answers in its own way, none
       * with UNKNOWN_TOOL. */
      g_autoptr(SjToolOutcome) outcome = call (fixture, name, "{\"query\": 1, \"baseHash\": 2}");
      g_autofree char *text = result_text (outcome);

      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (definitions, i), "type"), ==, "function");
      g_assert_true (json_object_has_member (function, "parameters"));
      g_assert_null (strstr (text, "UNKNOWN_TOOL"));
      /* Only a successful apply changes the music; only activate_skills
       * brings skills into the session. */
      g_assert_cmpint (sj_agent_tools_get_flags (name), ==,
                       g_str_equal (name, "apply_strudel_change") ? SJ_AGENT_TOOL_CHANGES_MUSIC :
                       g_str_equal (name, "activate_skills") ? SJ_AGENT_TOOL_ACTIVATES_SKILLS : SJ_AGENT_TOOL_NONE);
      g_ptr_array_add (names, (gpointer) name);
    }
  g_assert_cmpint (sj_agent_tools_get_flags ("read_codes"), ==, SJ_AGENT_TOOL_NONE);

  listed = g_strdup_printf ("The tools are %s, %s, %s, %s, %s and %s.", (char *) names->pdata[0], (char *) names->pdata[1],
                            (char *) names->pdata[2], (char *) names->pdata[3], (char *) names->pdata[4],
                            (char *) names->pdata[5]);
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (unknown->result, "error"), "message"),
                            listed));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/agent-tools/apply/scheduled", test_apply_scheduled);
  ADD ("/agent-tools/apply/dry-run-summary", test_apply_dry_run_summary);
  ADD ("/agent-tools/apply/rejections", test_apply_rejections);
  ADD ("/agent-tools/apply/input-and-stale", test_apply_input_and_stale);
  ADD ("/agent-tools/apply/page-failures", test_apply_page_failures);
  ADD ("/agent-tools/apply/sound-failed", test_apply_sound_failed);
  ADD ("/agent-tools/read-code", test_read_code);
  ADD ("/agent-tools/knowledge", test_knowledge);
  ADD ("/agent-tools/refusals", test_refusals);
  ADD ("/agent-tools/canceled", test_canceled);
  ADD ("/agent-tools/definitions", test_definitions);
#undef ADD

  return g_test_run ();
}
