/* test-swap-result.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The page's answer to a swap read into SjSwapResult at the boundary:
 * each of the four answers, and what is refused (no status, missing
 * numbers, wrong types, lists too long).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-json.h"
#include "sj-swap-result.h"

static SjSwapResult *
read_answer (const char  *json,
             GError     **error)
{
  g_autoptr(JsonNode) node = sj_json_parse (json, -1, NULL, NULL);

  g_assert_nonnull (node);
  return sj_swap_result_new_from_json (json_node_get_object (node), error);
}

static void
test_scheduled (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSwapResult) swap = read_answer ("{\"status\":\"scheduled\",\"applyAtCycle\":13,\"inSeconds\":0.5,"
                                              "\"cps\":0.5,\"cpsAtApply\":0.75,\"id\":3,\"sounds\":{\"ready\":[],"
                                              "\"failed\":[\"bd:1\",\"bd:1\",\"sd:0\"],\"late\":[\"hh:2\"],"
                                              "\"failures\":[{\"name\":\"bd:1\",\"reason\":\"404\"}],\"ms\":120}}",
                                              &error);

  g_assert_no_error (error);
  g_assert_cmpint (swap->status, ==, SJ_SWAP_SCHEDULED);
  g_assert_cmpfloat (swap->apply_at_cycle, ==, 13);
  g_assert_cmpfloat (swap->in_seconds, ==, 0.5);
  g_assert_cmpfloat (swap->cps, ==, 0.5);
  g_assert_cmpfloat (swap->cps_at_apply, ==, 0.75);
  g_assert_true (swap->has_sounds);
  g_assert_cmpuint (g_strv_length (swap->failed), ==, 2);
  g_assert_cmpstr (swap->failed[0], ==, "bd:1");
  g_assert_cmpstr (swap->failed[1], ==, "sd:0");
  g_assert_cmpstr (swap->late[0], ==, "hh:2");
  g_assert_cmpfloat (swap->load_ms, ==, 120);
  g_assert_cmpstr (sj_swap_result_get_reason (swap, "bd:1"), ==, "404");
  g_assert_null (sj_swap_result_get_reason (swap, "sd:0"));
  g_assert_null (swap->message);
}

static void
test_other_answers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSwapResult) applied = read_answer ("{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0,\"cps\":1.5}", &error);
  g_autoptr(SjSwapResult) failed = NULL;
  g_autoptr(SjSwapResult) unavailable = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (applied->status, ==, SJ_SWAP_APPLIED);
  g_assert_cmpfloat (applied->cps, ==, 1.5);
  g_assert_true (isnan (applied->cps_at_apply));
  g_assert_false (applied->has_sounds);
  g_assert_true (isnan (applied->load_ms));
  g_assert_cmpuint (g_strv_length (applied->failed), ==, 0);

  failed = read_answer ("{\"status\":\"error\",\"message\":\"s is not defined\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (failed->status, ==, SJ_SWAP_ERROR);
  g_assert_cmpstr (failed->message, ==, "s is not defined");

  unavailable = read_answer ("{\"status\":\"unavailable\",\"message\":\"could not load piano:0\","
                             "\"sounds\":{\"failed\":[\"piano:0\"],\"failures\":[{\"name\":\"piano:0\",\"reason\":\"offline\"},{\"reason\":\"x\"}]}}",
                             &error);
  g_assert_no_error (error);
  g_assert_cmpint (unavailable->status, ==, SJ_SWAP_UNAVAILABLE);
  g_assert_cmpstr (unavailable->failed[0], ==, "piano:0");
  g_assert_cmpuint (unavailable->failures->len, ==, 1);
  g_assert_cmpstr (sj_swap_result_get_reason (unavailable, "piano:0"), ==, "offline");
}

static void
test_malformed (void)
{
  static const struct { const char *json; const char *names; } bad[] = {
    { "{}", "no status" },
    { "{\"status\":7}", "no status" },
    { "{\"status\":\"landed\"}", "landed" },
    { "{\"status\":\"error\"}", "no message" },
    { "{\"status\":\"unavailable\",\"message\":\"m\"}", "not which" },
    { "{\"status\":\"scheduled\",\"inSeconds\":0,\"cps\":1}", "applyAtCycle" },
    { "{\"status\":\"scheduled\",\"applyAtCycle\":\"13\",\"inSeconds\":0,\"cps\":1}", "applyAtCycle" },
    { "{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0}", "cps" },
    { "{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0,\"cps\":1,\"sounds\":[]}", "sounds" },
    { "{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0,\"cps\":1,\"sounds\":{\"failed\":[1]}}", "sounds.failed" },
    { "{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0,\"cps\":1,\"sounds\":{\"late\":\"bd\"}}", "sounds.late" },
    { "{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0,\"cps\":1,\"sounds\":{\"failures\":[\"bd\"]}}", "sounds.failures" },
    { "{\"status\":\"applied\",\"applyAtCycle\":0,\"inSeconds\":0,\"cps\":1,\"sounds\":{\"ms\":\"fast\"}}", "ms" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SjSwapResult) swap = read_answer (bad[i].json, &error);

      g_assert_null (swap);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_test_message ("%s: %s", bad[i].json, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].names));
    }
}

static void
test_huge (void)
{
  g_autoptr(GString) json = g_string_new ("{\"status\":\"scheduled\",\"applyAtCycle\":1,\"inSeconds\":0,\"cps\":1,"
                                          "\"sounds\":{\"failed\":[");
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSwapResult) swap = NULL;

  for (guint i = 0; i <= SJ_SWAP_RESULT_MAX_SOUNDS; i++)
    g_string_append_printf (json, "%s\"s%u\"", i > 0 ? "," : "", i);
  g_string_append (json, "]}}");

  swap = read_answer (json->str, &error);
  g_assert_null (swap);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "more than"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/swap-result/scheduled", test_scheduled);
  g_test_add_func ("/swap-result/other-answers", test_other_answers);
  g_test_add_func ("/swap-result/malformed", test_malformed);
  g_test_add_func ("/swap-result/huge", test_huge);

  return g_test_run ();
}
