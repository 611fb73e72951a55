/* bench-dryrun.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The C side of bench/dryrun (run that script): dry-run latency against
 * evaluating the same code in the live page, side by side in one run.
 *
 *   bench-dryrun <doc.json> <patterns dir> <passes> <output.json>
 *
 * For every code (each documented example, each pattern file), in every
 * timed pass, one after the other:
 *   dry-run        sj_dry_run_run_async() to its callback (4 cycles): what
 *                  the apply pipeline waits for, IPC and JSON included
 *   engine         the helper's own "ms" for it (check, evaluate, query)
 *   page evaluate  sj_repl_evaluate_async() to its answer: the page's REPL
 *                  evaluating it (what Ctrl+Enter does), bridge included
 *   page + query   that, plus querying the same 4 cycles in the page
 * The page is stopped after each code, so that its scheduler does not run
 * while the next code is measured.  One untimed pass warms both up.
 * SJ_BENCH_SETTLE_MS=N leaves the page idle for N ms before each dry-run.
 */

#include "config.h"

#include <stdlib.h>

#include "sj-dry-run-private.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

/* Upstream's examples test skips these (motion sensors, gamepad, MIDI);
 * the fidelity test too. */
static const char * const hardware[] = {
  "absoluteOrientationGamma", "absoluteOrientationBeta", "absoluteOrientationAlpha",
  "orientationGamma", "orientationBeta", "orientationAlpha", "rotationGamma", "rotationBeta",
  "rotationAlpha", "gravityZ", "gravityY", "gravityX", "accelerationZ", "accelerationY",
  "accelerationX", "vibrate", "vibGamepadIndex", "vibGamepadId", "vibEnable", "vibWeak",
  "vibStrong", "vibDuration", "vibIntensity", "defaultmidimap", "midimaps", "bmod", NULL,
};

typedef struct
{
  char *label;
  char *kind;   /* "doc" or "pattern" */
  char *code;
} Code;

static void
code_free (Code *code)
{
  g_free (code->label);
  g_free (code->kind);
  g_free (code->code);
  g_free (code);
}

static GPtrArray *
load_codes (const char *doc_json,
            const char *patterns_dir)
{
  GPtrArray *codes = g_ptr_array_new_with_free_func ((GDestroyNotify) code_free);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  JsonArray *docs;
  const char *name;

  if (!json_parser_load_from_file (parser, doc_json, &error))
    g_error ("%s: %s", doc_json, error->message);
  docs = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "docs");
  for (guint i = 0; i < json_array_get_length (docs); i++)
    {
      JsonObject *doc = json_array_get_object_element (docs, i);
      const char *doc_name = json_object_get_string_member_with_default (doc, "name", "");
      const char *description = json_object_get_string_member_with_default (doc, "description", "");
      JsonArray *examples;

      /* The reference tab's entries, as in the fidelity test. */
      if (doc_name[0] == '\0' || doc_name[0] == '_' || description[0] == '\0' ||
          g_strv_contains (hardware, doc_name) || !json_object_has_member (doc, "examples"))
        continue;
      examples = json_object_get_array_member (doc, "examples");
      for (guint e = 0; e < json_array_get_length (examples); e++)
        {
          Code *code = g_new0 (Code, 1);

          code->label = g_strdup_printf ("%s#%u", doc_name, e);
          code->kind = g_strdup ("doc");
          code->code = g_strdup (json_array_get_string_element (examples, e));
          g_ptr_array_add (codes, code);
        }
    }

  if ((dir = g_dir_open (patterns_dir, 0, &error)) == NULL)
    g_error ("%s: %s", patterns_dir, error->message);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".strudel.js"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (patterns_dir, names->pdata[i], NULL);
      Code *code = g_new0 (Code, 1);

      if (!g_file_get_contents (path, &code->code, NULL, &error))
        g_error ("%s: %s", path, error->message);
      code->label = g_strdup (names->pdata[i]);
      code->kind = g_strdup ("pattern");
      g_ptr_array_add (codes, code);
    }

  return codes;
}

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static JsonObject *
time_dry_run (SjDryRun   *dry_run,
              const char *code,
              double     *wall_ms)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  double start = now_ms ();
  JsonObject *answer;

  sj_dry_run_run_async (dry_run, code, 4, 2000, NULL, sj_test_store_result_cb, &result);
  sj_test_wait_result (&result);
  *wall_ms = now_ms () - start;
  answer = sj_dry_run_run_finish (dry_run, result, &error);
  g_assert_no_error (error);
  return answer;
}

static void
time_page (SjRepl     *repl,
           const char *code,
           double     *evaluate_ms,
           double     *query_ms)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) query_result = NULL;
  g_autoptr(GAsyncResult) stop_result = NULL;
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(JsonArray) haps = NULL;
  double start = now_ms ();

  sj_repl_evaluate_async (repl, code, NULL, sj_test_store_result_cb, &result);
  outcome = sj_repl_evaluate_finish (repl, sj_test_wait_result (&result), NULL);
  *evaluate_ms = now_ms () - start;

  start = now_ms ();
  _sj_repl_query_haps_async (repl, 0, 4, 100000, NULL, sj_test_store_result_cb, &query_result);
  haps = _sj_repl_query_haps_finish (repl, sj_test_wait_result (&query_result), NULL);
  *query_ms = now_ms () - start;

  sj_repl_stop_async (repl, NULL, sj_test_store_result_cb, &stop_result);
  sj_repl_stop_finish (repl, sj_test_wait_result (&stop_result), NULL);
}

static gboolean
settle_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
add_sample (JsonObject *sample,
            const char *name,
            double      value)
{
  json_object_set_double_member (sample, name, value);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(GPtrArray) codes = NULL;
  g_autoptr(SjDryRun) dry_run = NULL;
  g_autoptr(JsonArray) samples = json_array_new ();
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) error = NULL;
  SjRepl *repl;
  guint passes;

  if (argc != 5)
    {
      g_printerr ("Usage: bench-dryrun <doc.json> <patterns dir> <passes> <output.json>\n");
      return 2;
    }
  passes = MAX (1, atoi (argv[3]));
  codes = load_codes (argv[1], argv[2]);

  home = sj_test_app_init ();
  sj_test_app_start ();
  repl = _sj_window_get_repl (sj_test_open_window ());
  dry_run = sj_dry_run_new ();

  for (guint pass = 0; pass <= passes; pass++)
    {
      g_printerr ("%s pass %u/%u over %u codes\n", pass == 0 ? "untimed" : "timed", pass, passes, codes->len);
      for (guint i = 0; i < codes->len; i++)
        {
          Code *code = codes->pdata[i];
          g_autoptr(JsonObject) answer = NULL;
          double wall_ms, evaluate_ms, query_ms;
          JsonObject *sample;

          if (g_getenv ("SJ_BENCH_SETTLE_MS") != NULL)
            {
              gboolean settled = FALSE;

              g_timeout_add (atoi (g_getenv ("SJ_BENCH_SETTLE_MS")), settle_cb, &settled);
              while (!settled)
                g_main_context_iteration (NULL, TRUE);
            }
          answer = time_dry_run (dry_run, code->code, &wall_ms);
          time_page (repl, code->code, &evaluate_ms, &query_ms);
          if (pass == 0)
            continue;

          sample = json_object_new ();
          json_object_set_string_member (sample, "label", code->label);
          json_object_set_string_member (sample, "kind", code->kind);
          json_object_set_int_member (sample, "pass", pass);
          json_object_set_boolean_member (sample, "ok", json_object_get_boolean_member (answer, "ok"));
          json_object_set_string_member (sample, "phase", json_object_get_string_member_with_default (answer, "phase", ""));
          json_object_set_int_member (sample, "events", json_object_get_int_member_with_default (answer, "events", 0));
          add_sample (sample, "dryRun", wall_ms);
          add_sample (sample, "engine", json_object_get_double_member_with_default (answer, "ms", 0));
          add_sample (sample, "pageEvaluate", evaluate_ms);
          add_sample (sample, "pageEvaluateQuery", evaluate_ms + query_ms);
          json_array_add_object_element (samples, sample);
        }
    }

  json_object_set_int_member (root, "passes", passes);
  json_object_set_int_member (root, "helperStarts", _sj_dry_run_get_n_starts (dry_run));
  json_object_set_array_member (root, "samples", json_array_ref (samples));
  node = json_node_init_object (json_node_alloc (), root);
  json_generator_set_root (generator, node);
  if (!json_generator_to_file (generator, argv[4], &error))
    g_error ("%s: %s", argv[4], error->message);

  g_clear_object (&dry_run);
  sj_test_app_stop ();
  sj_test_remove_tree (home);
  return 0;
}
