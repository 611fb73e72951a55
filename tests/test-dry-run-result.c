/* test-dry-run-result.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The dry-run's report read into SjDryRunResult where it comes in: a good
 * report field by field, a failed one with its unknown names, members of
 * the wrong type read as absent, and lists past the limit cut. What the
 * apply pipeline then makes of it (sj-change-report.c) from the struct.
 */

#include "config.h"

#include <math.h>

#include "sj-change-report.h"
#include "sj-dry-run-result.h"
#include "sj-json.h"

static JsonObject *
object_of (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = sj_json_parse (json, -1, NULL, &error);

  g_assert_no_error (error);
  return json_node_dup_object (node);
}

static void
test_good (void)
{
  g_autoptr(JsonObject) report = object_of (
    "{\"ok\":true,\"events\":12,\"sounds\":[\"bd\",\"sd\",\"bd\"],\"loadingSounds\":[\"casio\"],"
    "\"tempo\":[{\"cps\":0.5,\"cycle\":null}],"
    "\"samples\":[{\"source\":\"github:tidalcycles/dirt-samples\",\"names\":[\"casio\"],\"base\":\"https://x/\"},"
    "{\"source\":\"https://x/y.wav\"}],"
    "\"sampleUses\":[{\"pack\":\"dirt\",\"path\":\"bd/BT0A0A7.wav\",\"sound\":\"bd\"},{\"sound\":\"url\"}],"
    "\"unknownSounds\":[]}");
  g_autoptr(SjDryRunResult) result = sj_dry_run_result_new_from_report (report);
  g_autoptr(SjChangeResult) change = sj_change_result_new_landing (SJ_CHANGE_STATUS_APPLIED, 0, 0, "hash");
  const SjDryRunSamples *map, *url;
  const SjDryRunSampleUse *use;

  g_assert_true (result->ok);
  g_assert_cmpint (result->events, ==, 12);
  g_assert_cmpuint (g_strv_length (result->sounds), ==, 3);
  g_assert_cmpstr (result->loading_sounds[0], ==, "casio");
  g_assert_cmpuint (result->tempo->len, ==, 1);
  g_assert_cmpfloat (g_array_index (result->tempo, SjDryRunTempo, 0).cps, ==, 0.5);
  g_assert_true (isnan (g_array_index (result->tempo, SjDryRunTempo, 0).cycle));
  g_assert_cmpuint (result->samples->len, ==, 2);
  map = g_ptr_array_index (result->samples, 0);
  url = g_ptr_array_index (result->samples, 1);
  g_assert_cmpstr (map->names[0], ==, "casio");
  g_assert_cmpstr (map->base, ==, "https://x/");
  /* A file is not a map: it has no names, which is not "none". */
  g_assert_null (url->names);
  g_assert_null (url->base);
  /* A use outside the library (no pack and path) is the page's. */
  g_assert_cmpuint (result->sample_uses->len, ==, 1);
  use = g_ptr_array_index (result->sample_uses, 0);
  g_assert_cmpstr (use->pack, ==, "dirt");
  g_assert_cmpstr (use->path, ==, "bd/BT0A0A7.wav");
  g_assert_true (sj_dry_run_result_lets_through (result));
  g_assert_true (sj_change_report_lets_through (result));

  sj_change_report_read_dry_run (result, &change->dry_run);
  g_assert_cmpint (change->dry_run.events, ==, 12);
  g_assert_cmpstr (change->dry_run.sounds[1], ==, "sd");
  g_assert_cmpuint (change->dry_run.samples->len, ==, 2);
  g_assert_cmpstr (change->dry_run.loading_sounds[0], ==, "casio");
}

static void
test_failed (void)
{
  g_autoptr(JsonObject) report = object_of (
    "{\"ok\":false,\"phase\":\"runtime\",\"message\":\"sn is not defined\",\"line\":2,\"column\":5,"
    "\"unknownSymbols\":[{\"name\":\"sn\",\"kind\":\"global\",\"line\":2,\"column\":5,\"suggestions\":[\"s\",\"n\"]},"
    "{\"kind\":\"global\"}],"
    "\"unknownSounds\":[{\"name\":\"bdd\",\"suggestions\":[\"bd\"]}]}");
  g_autoptr(SjDryRunResult) result = sj_dry_run_result_new_from_report (report);
  g_autoptr(SjChangeResult) rejection = NULL;
  const SjDryRunUnknown *unknown;
  SjChangeUnknownName *name;

  g_assert_false (result->ok);
  g_assert_cmpstr (result->phase, ==, "runtime");
  g_assert_cmpint (result->line, ==, 2);
  g_assert_cmpint (result->column, ==, 5);
  /* Without a name there is nothing to say. */
  g_assert_cmpuint (result->unknown_symbols->len, ==, 1);
  unknown = g_ptr_array_index (result->unknown_symbols, 0);
  g_assert_cmpstr (unknown->kind, ==, "global");
  g_assert_cmpstr (unknown->suggestions[1], ==, "n");
  g_assert_false (sj_dry_run_result_lets_through (result));

  rejection = sj_change_report_rejection (result);
  g_assert_cmpint (rejection->rejection, ==, SJ_CHANGE_REJECTION_DRY_RUN_FAILED);
  g_assert_cmpint (rejection->phase, ==, SJ_CHANGE_PHASE_RUNTIME);
  g_assert_cmpuint (rejection->unknown_symbols->len, ==, 1);
  g_assert_cmpuint (rejection->unknown_sounds->len, ==, 1);
  name = g_ptr_array_index (rejection->unknown_sounds, 0);
  g_assert_cmpstr (name->name, ==, "bdd");
  g_assert_cmpstr (name->suggestions[0], ==, "bd");
}

/* The code ran, but plays a sound nobody has: not let through. */
static void
test_unknown_sounds (void)
{
  g_autoptr(JsonObject) report = object_of ("{\"ok\":true,\"unknownSounds\":[{\"name\":\"bdd\"}]}");
  g_autoptr(SjDryRunResult) result = sj_dry_run_result_new_from_report (report);
  g_autoptr(SjChangeResult) rejection = NULL;

  g_assert_false (sj_change_report_lets_through (result));
  rejection = sj_change_report_rejection (result);
  g_assert_cmpint (rejection->rejection, ==, SJ_CHANGE_REJECTION_UNKNOWN_SOUNDS);
  g_assert_null (((SjChangeUnknownName *) g_ptr_array_index (rejection->unknown_sounds, 0))->suggestions);
}

static void
test_malformed (void)
{
  const char *reports[] = {
    "{}",
    "{\"ok\":\"yes\",\"events\":\"many\",\"sounds\":{},\"tempo\":[1,\"x\",null],\"samples\":[{\"names\":[1]}],"
    "\"sampleUses\":[[],{\"pack\":1,\"path\":\"p\"}],\"unknownSymbols\":{},\"unknownSounds\":[null,7],"
    "\"line\":-3,\"column\":1e300,\"phase\":7,\"message\":[]}",
    "{\"ok\":true,\"sounds\":[1,null,\"bd\",{}],\"loadingSounds\":\"casio\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (reports); i++)
    {
      g_autoptr(JsonObject) report = object_of (reports[i]);
      g_autoptr(SjDryRunResult) result = sj_dry_run_result_new_from_report (report);

      g_assert_nonnull (result->sounds);
      g_assert_nonnull (result->loading_sounds);
      g_assert_cmpuint (result->samples->len, ==, 0);
      g_assert_cmpuint (result->sample_uses->len, ==, 0);
      g_assert_cmpuint (result->unknown_symbols->len, ==, 0);
      g_assert_cmpuint (result->unknown_sounds->len, ==, 0);
      g_assert_cmpint (result->line, ==, 0);
      g_assert_cmpint (result->column, ==, 0);
      g_assert_null (result->phase);
      g_assert_null (result->message);
      g_assert_cmpuint (result->tempo->len, ==, 0);
      if (i == 2)
        {
          g_assert_cmpuint (g_strv_length (result->sounds), ==, 1);
          g_assert_cmpstr (result->sounds[0], ==, "bd");
        }
    }
}

/* A helper that answers a million sounds: the lists stop at the limit. */
static void
test_huge (void)
{
  g_autoptr(GString) json = g_string_new ("{\"ok\":true,\"sounds\":[");
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(SjDryRunResult) result = NULL;

  for (guint i = 0; i < 3 * SJ_DRY_RUN_RESULT_MAX_ITEMS; i++)
    g_string_append_printf (json, "%s\"s%u\"", i ? "," : "", i);
  g_string_append (json, "]}");
  report = object_of (json->str);
  result = sj_dry_run_result_new_from_report (report);
  g_assert_cmpuint (g_strv_length (result->sounds), ==, SJ_DRY_RUN_RESULT_MAX_ITEMS);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/dry-run-result/good", test_good);
  g_test_add_func ("/dry-run-result/failed", test_failed);
  g_test_add_func ("/dry-run-result/unknown-sounds", test_unknown_sounds);
  g_test_add_func ("/dry-run-result/malformed", test_malformed);
  g_test_add_func ("/dry-run-result/huge", test_huge);

  return g_test_run ();
}
