/* test-levels.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the app hears of its own output (issue 29), without a page: SjLevels
 * keeps a bounded ring of cycles and sums them up for the listen tool, and
 * SjChangeVerifier listens to a change landed by the real apply pipeline
 * (the dry-run helper, music in memory: sj-test-target.c). The page's side
 * is played here by hand: level reports as levels.mjs sends them, the
 * swap landing, the Console's errors. A change that goes silent where the
 * previous code sounded, or that makes the page report errors, is put
 * back; "warn" keeps it; a change that asks for silence is fine; and the
 * agent's apply_strudel_change answers with the verdict.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-agent-tools.h"
#include "sj-change-verify.h"
#include "sj-json.h"
#include "sj-levels.h"
#include "sj-test-target.h"

#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"
/* sj-test-target.c lands every swap at cycle 13 and plays at 1 cps. */
#define BOUNDARY 13

typedef struct
{
  SjTestTarget     *target;
  SjDryRun         *dry_run;
  SjKnowledge      *knowledge;
  SjChangeApplier  *applier;
  SjAgentTools     *tools;
  SjLevels         *levels;
  SjChangeVerifier *verifier;
  guint             feeder;
  GPtrArray        *states;    /* what the verifier said, in order */
} Fixture;

static SjCycleLevels
cycle_of (double cycle,
          double rms_db,
          guint  onsets)
{
  SjCycleLevels levels = { 0 };

  levels.cycle = cycle;
  levels.cps = 1;
  levels.rms_db = rms_db;
  levels.peak_db = rms_db > SJ_LEVELS_FLOOR_DB ? rms_db + 6 : SJ_LEVELS_FLOOR_DB;
  levels.low_db = rms_db - 10;
  levels.mid_db = rms_db - 1;
  levels.high_db = rms_db - 20;
  levels.onsets = onsets;
  levels.n_layers = 1;
  levels.layers[0].orbit = 1;
  levels.layers[0].rms_db = rms_db;
  levels.layers[0].peak_db = levels.peak_db;

  return levels;
}

static void
feed (SjLevels *levels,
      double    cycle,
      double    rms_db,
      guint     onsets)
{
  SjLevelReport report = { 0 };

  report.rms_db = rms_db;
  report.peak_db = rms_db + 6;
  report.n_cycles = 1;
  report.cycles[0] = cycle_of (cycle, rms_db, onsets);
  sj_levels_add_report (levels, &report);
}

/* The page reports four times a second while it plays. */
static gboolean
feeder_cb (gpointer data)
{
  SjLevelReport report = { -20, -14, 0, 0 };

  sj_levels_add_report (data, &report);
  return G_SOURCE_CONTINUE;
}

static void
changed_cb (SjChangeVerifier *verifier,
            double            cycle,
            const char       *state,
            const char       *message,
            GPtrArray        *states)
{
  g_ptr_array_add (states, g_strdup (state));
}

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
  fixture->levels = sj_levels_new ();
  fixture->verifier = sj_change_verifier_new (fixture->applier, fixture->levels);
  fixture->tools = sj_agent_tools_new (fixture->applier, fixture->knowledge, sj_knowledge_base_get_bundled ());
  sj_agent_tools_set_levels (fixture->tools, fixture->levels);
  sj_agent_tools_set_verifier (fixture->tools, fixture->verifier);
  fixture->feeder = g_timeout_add (250, feeder_cb, fixture->levels);
  fixture->states = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (fixture->verifier, "changed", G_CALLBACK (changed_cb), fixture->states);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_handle_id (&fixture->feeder, g_source_remove);
  g_signal_handlers_disconnect_by_data (fixture->verifier, fixture->states);
  g_clear_object (&fixture->tools);
  g_clear_object (&fixture->verifier);
  g_clear_object (&fixture->levels);
  g_clear_object (&fixture->applier);
  g_clear_object (&fixture->dry_run);
  g_clear_object (&fixture->knowledge);
  g_clear_object (&fixture->target);
  g_clear_pointer (&fixture->states, g_ptr_array_unref);
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
spin_until (gboolean  (*done) (gpointer),
            gpointer    data)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!done (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

static gboolean
result_is_in (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

static gboolean
checking (gpointer data)
{
  return sj_change_verifier_is_checking (((Fixture *) data)->verifier, BOUNDARY);
}

static char *
full_code_arguments (const char *code)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "baseHash");
  json_builder_add_string_value (builder, hash);
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

/* What the page does around a change: the previous code sounded, the
 * change lands at its boundary, then @page plays its two cycles. */
typedef void (*PagePlays) (Fixture *fixture);

static SjToolOutcome *
apply_and_play (Fixture    *fixture,
                const char *code,
                PagePlays   page)
{
  g_autofree char *arguments = full_code_arguments (code);
  g_autoptr(GAsyncResult) result = NULL;

  for (int cycle = 9; cycle < BOUNDARY; cycle++)
    feed (fixture->levels, cycle, -15, 4);

  sj_agent_tools_call_async (fixture->tools, "apply_strudel_change", "call_1", arguments, NULL,
                             store_result_cb, &result);
  spin_until (checking, fixture);
  g_assert_null (result);

  g_signal_emit_by_name (fixture->target, "swap-changed", "applied", (double) BOUNDARY);
  page (fixture);

  spin_until (result_is_in, &result);
  return sj_agent_tools_call_finish (fixture->tools, result);
}

static void
plays_silence (Fixture *fixture)
{
  feed (fixture->levels, BOUNDARY, -120, 0);
  feed (fixture->levels, BOUNDARY + 1, -120, 0);
}

/* The previous code's reverb in the boundary's cycle, then nothing. */
static void
plays_a_tail (Fixture *fixture)
{
  feed (fixture->levels, BOUNDARY, -30, 0);
  feed (fixture->levels, BOUNDARY + 1, -120, 0);
}

static void
plays_music (Fixture *fixture)
{
  feed (fixture->levels, BOUNDARY, -14, 4);
  feed (fixture->levels, BOUNDARY + 1, -14, 4);
}

static void
plays_with_errors (Fixture *fixture)
{
  g_signal_emit_by_name (fixture->target, "page-error", "[getTrigger] error: Decoding failed");
  plays_music (fixture);
}

static JsonObject *
verification_of (SjToolOutcome *outcome)
{
  g_assert_true (json_object_has_member (outcome->result, "verification"));
  return json_object_get_object_member (outcome->result, "verification");
}

static gboolean
code_is_back (gpointer data)
{
  return g_strcmp0 (sj_test_target_get_code (data), CODE) == 0;
}

static void
test_silent_change_reverted (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\").gain(.0001)",
                                                     plays_silence);
  JsonObject *verification = verification_of (outcome);

  g_assert_cmpstr (json_object_get_string_member (outcome->result, "status"), ==, "scheduled");
  g_assert_cmpstr (json_object_get_string_member (verification, "status"), ==, "reverted");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (verification, "message"),
                                   "reverted: the new code made no sound"));
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_FAILED);
  /* The previous code went back through the pipeline. */
  spin_until (code_is_back, fixture->target);
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->target), ==, 2);
  g_assert_cmpuint (fixture->states->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (fixture->states, 0), ==, "listening");
  g_assert_cmpstr (g_ptr_array_index (fixture->states, 1), ==, "reverted");
}

/* What rings on from the previous code is not the new code's sound. */
static void
test_tail_is_not_heard (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\").gain(.0001)",
                                                     plays_a_tail);

  g_assert_cmpstr (json_object_get_string_member (verification_of (outcome), "status"), ==, "reverted");
}

static void
test_page_errors_reverted (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\")", plays_with_errors);
  JsonObject *verification = verification_of (outcome);
  const char *message = json_object_get_string_member (verification, "message");

  g_assert_cmpstr (json_object_get_string_member (verification, "status"), ==, "reverted");
  g_assert_nonnull (strstr (message, "the page reported an error from the new code"));
  g_assert_nonnull (strstr (message, "Decoding failed"));
  spin_until (code_is_back, fixture->target);
}

/* An error the page reported before the change is the previous code's. */
static void
test_old_errors_ignored (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = NULL;

  g_signal_emit_by_name (fixture->target, "page-error", "[getTrigger] error: Decoding failed");
  outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\")", plays_with_errors);

  g_assert_cmpstr (json_object_get_string_member (verification_of (outcome), "status"), ==, "heard");
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
}

static void
test_heard (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\")", plays_music);
  JsonObject *verification = verification_of (outcome);

  g_assert_cmpstr (json_object_get_string_member (verification, "status"), ==, "heard");
  g_assert_cmpfloat (json_object_get_double_member (verification, "cycle"), ==, BOUNDARY);
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_cmpstr (sj_test_target_get_code (fixture->target), ==, "note(\"c3 e3\").s(\"sawtooth\")");
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->target), ==, 1);
}

static void
test_warn_keeps (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = NULL;
  JsonObject *verification;

  sj_change_verifier_set_mode (fixture->verifier, "warn");
  outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\").gain(.0001)", plays_silence);
  verification = verification_of (outcome);

  g_assert_cmpstr (json_object_get_string_member (verification, "status"), ==, "kept");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (verification, "message"),
                                   "kept (verify-landed-changes is warn): the new code made no sound"));
  g_assert_cmpstr (sj_test_target_get_code (fixture->target), ==, "note(\"c3 e3\").s(\"sawtooth\").gain(.0001)");
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->target), ==, 1);
}

static void
test_asked_silence (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(SjToolOutcome) outcome = apply_and_play (fixture, "note(\"c3 e3\").s(\"sawtooth\").gain(0)",
                                                     plays_silence);
  JsonObject *verification = verification_of (outcome);

  g_assert_cmpstr (json_object_get_string_member (verification, "status"), ==, "heard");
  g_assert_cmpstr (json_object_get_string_member (verification, "message"), ==, "the new code is silent, as it asks");

  g_assert_true (sj_change_verifier_asks_silence ("silence"));
  g_assert_true (sj_change_verifier_asks_silence ("// nothing\n"));
  g_assert_true (sj_change_verifier_asks_silence ("s(\"bd*4\").gain(0)"));
  g_assert_true (sj_change_verifier_asks_silence ("_$: s(\"bd*4\")\n_$: note(\"c3\")"));
  g_assert_false (sj_change_verifier_asks_silence ("s(\"bd*4\").gain(.5)"));
  g_assert_false (sj_change_verifier_asks_silence ("_$: s(\"bd*4\")\n$: note(\"c3\")"));
  g_assert_false (sj_change_verifier_asks_silence ("s(\"bd*4\") // silence"));
}

/* Without reports from the page (the analysis off), nothing is judged. */
static void
test_not_measuring (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *arguments = full_code_arguments ("note(\"c3 e3\").s(\"sawtooth\").gain(.0001)");
  g_autoptr(SjLevels) unheard = sj_levels_new ();
  g_autoptr(SjChangeVerifier) verifier = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(SjToolOutcome) outcome = NULL;

  g_clear_handle_id (&fixture->feeder, g_source_remove);
  verifier = sj_change_verifier_new (fixture->applier, unheard);
  sj_agent_tools_set_levels (fixture->tools, unheard);
  sj_agent_tools_set_verifier (fixture->tools, verifier);

  sj_agent_tools_call_async (fixture->tools, "apply_strudel_change", "call_1", arguments, NULL,
                             store_result_cb, &result);
  spin_until (result_is_in, &result);
  outcome = sj_agent_tools_call_finish (fixture->tools, result);
  g_assert_cmpstr (json_object_get_string_member (outcome->result, "status"), ==, "scheduled");
  g_assert_false (json_object_has_member (outcome->result, "verification"));
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
}

/* SjLevels -------------------------------------------------------------- */

static void
test_ring (void)
{
  g_autoptr(SjLevels) levels = sj_levels_new ();
  const SjCycleLevels *latest;

  g_assert_cmpuint (sj_levels_get_n_cycles (levels), ==, 0);
  g_assert_null (sj_levels_get_latest (levels));
  g_assert_false (sj_levels_is_measuring (levels));

  for (int i = 0; i < SJ_LEVELS_RING + 10; i++)
    feed (levels, i, -20, 2);
  g_assert_true (sj_levels_is_measuring (levels));
  g_assert_cmpuint (sj_levels_get_n_cycles (levels), ==, SJ_LEVELS_RING);
  latest = sj_levels_get_latest (levels);
  g_assert_cmpfloat (latest->cycle, ==, SJ_LEVELS_RING + 9);
  /* The oldest went; the ring holds the last SJ_LEVELS_RING. */
  g_assert_null (sj_levels_get_cycle (levels, 9));
  g_assert_nonnull (sj_levels_get_cycle (levels, 10));
  g_assert_nonnull (sj_levels_get_cycle (levels, 40.5));

  /* A cycle that does not follow is another music: what was kept goes. */
  feed (levels, 3, -20, 2);
  g_assert_cmpuint (sj_levels_get_n_cycles (levels), ==, 1);

  sj_levels_clear (levels);
  g_assert_cmpuint (sj_levels_get_n_cycles (levels), ==, 0);
}

static void
test_listen_sums (void)
{
  g_autoptr(SjLevels) levels = sj_levels_new ();
  g_autoptr(JsonObject) empty = sj_levels_listen (levels, 2);
  g_autoptr(JsonObject) two = NULL;
  g_autoptr(JsonObject) many = NULL;
  JsonObject *bands;
  JsonArray *layers;
  SjLevelReport report = { -30, 0.1, 5, 2 };

  g_assert_cmpstr (json_object_get_string_member (empty, "status"), ==, "no-data");

  report.cycles[0] = cycle_of (1, -10, 4);
  report.cycles[1] = cycle_of (2, -20, 2);
  report.cycles[1].clipped = 7;
  sj_levels_add_report (levels, &report);
  g_assert_true (sj_levels_get_clipping (levels));
  g_assert_cmpfloat (sj_levels_get_peak_db (levels), ==, 0.1);

  two = sj_levels_listen (levels, 2);
  /* Power means: (0.1 + 0.01) / 2 is -12.6 dB. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (two, "rmsDb"), -12.6, 0.05);
  g_assert_cmpfloat (json_object_get_double_member (two, "peakDb"), ==, -4);
  g_assert_cmpfloat (json_object_get_double_member (two, "onsetsPerCycle"), ==, 3);
  g_assert_true (json_object_get_boolean_member (two, "clipping"));
  g_assert_cmpint (json_object_get_int_member (two, "clippedSamples"), ==, 7);
  g_assert_false (json_object_get_boolean_member (two, "silent"));
  bands = json_object_get_object_member (two, "bands");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (bands, "low"), -22.6, 0.05);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (bands, "mid"), -13.6, 0.05);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (bands, "high"), -32.6, 0.05);
  layers = json_object_get_array_member (two, "layers");
  g_assert_cmpuint (json_array_get_length (layers), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (layers, 0), "orbit"), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (two, "perCycle")), ==, 2);

  /* More than was measured, and more than allowed: what there is. */
  for (int i = 3; i < 40; i++)
    feed (levels, i, -120, 0);
  many = sj_levels_listen (levels, 1000);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (many, "cycles"), "measured"), ==,
                   SJ_LEVELS_MAX_LISTEN);
  g_assert_true (json_object_get_boolean_member (many, "silent"));
  g_assert_cmpfloat (json_object_get_double_member (many, "rmsDb"), ==, SJ_LEVELS_FLOOR_DB);
}

/* The listen tool: its arguments checked, its answer the summary. */
static void
test_listen_tool (Fixture       *fixture,
                  gconstpointer  data)
{
  const char *bad[] = { "{\"cycles\": 0}", "{\"cycles\": 17}", "{\"cycles\": 1.5}", "{\"cycles\": \"two\"}" };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(SjToolOutcome) outcome = NULL;

  feed (fixture->levels, 1, -12, 4);
  feed (fixture->levels, 2, -12, 4);
  sj_agent_tools_call_async (fixture->tools, "listen", "call_1", "{}", NULL, store_result_cb, &result);
  spin_until (result_is_in, &result);
  outcome = sj_agent_tools_call_finish (fixture->tools, result);
  g_assert_cmpint (outcome->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_cmpfloat (json_object_get_double_member (outcome->result, "rmsDb"), ==, -12);
  g_assert_cmpfloat (json_object_get_double_member (outcome->result, "onsetsPerCycle"), ==, 4);
  g_assert_true (json_object_has_member (outcome->result, "bands"));
  g_assert_true (json_object_has_member (outcome->result, "layers"));
  g_assert_false (json_object_get_boolean_member (outcome->result, "silent"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (outcome->result, "cycles"), "measured"),
                   ==, 2);
  /* What the model reads: figures as a person writes them. */
  {
    g_autoptr(SjLevels) levels = sj_levels_new ();
    g_autoptr(JsonObject) heard = NULL;
    g_autoptr(JsonNode) node = NULL;
    g_autofree char *text = NULL;

    feed (levels, 1, -2.9, 3);
    heard = sj_levels_listen (levels, 1);
    node = json_node_init_object (json_node_alloc (), heard);
    text = sj_json_to_string (node, FALSE);
    g_assert_nonnull (strstr (text, "\"rmsDb\":-2.9,"));
    g_assert_null (strstr (text, "99999"));
  }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GAsyncResult) refused = NULL;
      g_autoptr(SjToolOutcome) answer = NULL;

      sj_agent_tools_call_async (fixture->tools, "listen", "call_1", bad[i], NULL, store_result_cb, &refused);
      spin_until (result_is_in, &refused);
      answer = sj_agent_tools_call_finish (fixture->tools, refused);
      g_assert_cmpint (answer->status, ==, SJ_HISTORY_TOOL_FAILED);
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (answer->result, "error"), "code"),
                       ==, "INVALID_ARGUMENTS");
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  g_test_add_func ("/levels/ring", test_ring);
  g_test_add_func ("/levels/listen-sums", test_listen_sums);
  ADD ("/levels/listen-tool", test_listen_tool);
  ADD ("/verify/heard", test_heard);
  ADD ("/verify/silent-change-reverted", test_silent_change_reverted);
  ADD ("/verify/tail-is-not-heard", test_tail_is_not_heard);
  ADD ("/verify/page-errors-reverted", test_page_errors_reverted);
  ADD ("/verify/old-errors-ignored", test_old_errors_ignored);
  ADD ("/verify/warn-keeps", test_warn_keeps);
  ADD ("/verify/asked-silence", test_asked_silence);
  ADD ("/verify/not-measuring", test_not_measuring);
#undef ADD

  return g_test_run ();
}
