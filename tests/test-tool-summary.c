/* test-tool-summary.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What a tool call did, in words (sj-tool-summary.c), for each tool the
 * agent has, without a display: the widgets only show these lines.
 */

#include "config.h"

#include <math.h>

#include "sj-tool-summary.h"

static char *
line (const char          *name,
      const char          *arguments,
      const char          *result,
      SjHistoryToolStatus  status,
      double               apply_cycle)
{
  SjHistoryToolCall call = {
    .name = (char *) name,
    .arguments = (char *) arguments,
    .result = (char *) result,
    .status = status,
    .apply_cycle = apply_cycle,
  };

  return sj_tool_summary_line (&call);
}

#define ASSERT_LINE(expected, ...) \
  G_STMT_START { g_autofree char *got = line (__VA_ARGS__); g_assert_cmpstr (got, ==, expected); } G_STMT_END

static void
test_per_tool (void)
{
  ASSERT_LINE ("scheduled for cycle 13", "apply_strudel_change", "{}",
               "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":13}}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("applied at cycle 4", "apply_strudel_change", "{}", "{\"status\":\"applied\"}",
               SJ_HISTORY_TOOL_SUCCEEDED, 4);
  ASSERT_LINE ("rejected: DRY_RUN_FAILED", "apply_strudel_change", "{}",
               "{\"status\":\"rejected\",\"code\":\"DRY_RUN_FAILED\"}", SJ_HISTORY_TOOL_FAILED, NAN);
  ASSERT_LINE ("scheduled for cycle 2 · heard", "apply_strudel_change", "{}",
               "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":2},\"verification\":{\"status\":\"heard\"}}",
               SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("silent", "listen", "{}", "{\"silent\":true}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("-14.2 dBFS, 4.0 onsets a cycle", "listen", "{}", "{\"rmsDb\":-14.2,\"onsetsPerCycle\":4}",
               SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("nothing measured", "listen", "{}", "{\"status\":\"no-data\"}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("read 12 lines", "read_code", "{}", "{\"lineCount\":12}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("2 matches for “bd”", "read_code", "{\"query\":\"bd\"}", "{\"query\":\"bd\",\"matches\":[{},{}]}",
               SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("“lpf”", "strudel_knowledge", "{\"query\":\"lpf\"}", "{}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("“room”", "strudel_knowledge", "{\"q\":\"room\"}", "{}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("“swing”", "search_knowledge", "{\"query\":\"swing\"}", NULL, SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("Jazz, Dub", "activate_skills", "{}", "{\"skills\":[{\"title\":\"Jazz\"},{\"title\":\"Dub\"}]}",
               SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("3 skills", "skills_list", "{}", "{\"skills\":[{},{},{}]}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
}

static void
test_any_tool (void)
{
  ASSERT_LINE ("canceled before it finished", "read_code", "{}", NULL, SJ_HISTORY_TOOL_CANCELED, NAN);
  ASSERT_LINE ("failed: TOOL_BUDGET", "listen", "{}", "{\"error\":{\"code\":\"TOOL_BUDGET\"}}",
               SJ_HISTORY_TOOL_FAILED, NAN);
  ASSERT_LINE ("", "play_louder", "{}", "{}", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
  ASSERT_LINE ("", "read_code", "not json", "[1,2]", SJ_HISTORY_TOOL_SUCCEEDED, NAN);
}

static void
test_duration_and_json (void)
{
  g_autofree char *ms = sj_tool_summary_duration (120);
  g_autofree char *s = sj_tool_summary_duration (2500);
  g_autofree char *pretty = sj_tool_summary_pretty_json ("{\"a\":7.4000000000000004}");
  g_autofree char *text = sj_tool_summary_pretty_json ("plain");

  g_assert_cmpstr (ms, ==, "120 ms");
  g_assert_cmpstr (s, ==, "2.5 s");
  g_assert_cmpstr (pretty, ==, "{\n  \"a\" : 7.4\n}");
  g_assert_cmpstr (text, ==, "plain");
  g_assert_null (sj_tool_summary_pretty_json (NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tool-summary/per-tool", test_per_tool);
  g_test_add_func ("/tool-summary/any-tool", test_any_tool);
  g_test_add_func ("/tool-summary/duration-and-json", test_duration_and_json);

  return g_test_run ();
}
