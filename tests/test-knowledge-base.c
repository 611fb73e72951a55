/* test-knowledge-base.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * search_knowledge: sections, code examples paired by real fences, the
 * result and error shapes, and hostile input (bad and catastrophic
 * regexes, a 1 MB pattern, unknown categories, wrong argument types).
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-base-private.h"

static SjKnowledgeBase *fixture;

static JsonObject *
search (SjKnowledgeBase *base,
        const char      *query,
        const char      *category,
        int              context,
        int              max)
{
  g_autoptr(JsonNode) node = sj_knowledge_base_search (base, query, category, context, max);

  return json_object_ref (json_node_get_object (node));
}

static JsonObject *
first_match (JsonObject *result)
{
  JsonArray *matches = json_object_get_array_member (result, "matches");

  g_assert_cmpuint (json_array_get_length (matches), >=, 1);
  return json_array_get_object_element (matches, 0);
}

static void
test_code_examples (void)
{
  g_autoptr(JsonObject) inside = search (fixture, "alpha inside", "notation", 0, 10);
  g_autoptr(JsonObject) later = search (fixture, "bravo", "notation", 1, 10);
  g_autoptr(JsonObject) none = search (fixture, "charlie", "notation", 3, 10);
  g_autoptr(JsonObject) nested = search (fixture, "delta", NULL, 0, 10);
  g_autoptr(JsonObject) unclosed = search (fixture, "foxtrot", NULL, 0, 10);
  g_autoptr(JsonObject) before = search (fixture, "before any block", NULL, 0, 10);
  JsonObject *match;

  match = first_match (inside);
  g_assert_cmpstr (json_object_get_string_member (match, "file"), ==, "notation.md");
  g_assert_cmpstr (json_object_get_string_member (match, "section"), ==, "Inside");
  g_assert_cmpint (json_object_get_int_member (match, "line_number"), ==, 8);
  g_assert_cmpstr (json_object_get_string_member (match, "content"), ==, "// alpha inside the first block");
  g_assert_cmpstr (json_object_get_string_member (match, "code_example"), ==,
                   "// alpha inside the first block\ns(\"bd\")");

  /* The next block of the same section, even past blank lines. */
  match = first_match (later);
  g_assert_cmpstr (json_object_get_string_member (match, "section"), ==, "Next block in the section");
  g_assert_cmpstr (json_object_get_string_member (match, "code_example"), ==, "note(\"c e g\")");
  g_assert_cmpstr (json_object_get_string_member (match, "content"), ==,
                   "\nThe word bravo is here, the block comes later.\n");

  /* No block in the section: null, although a block follows later. */
  match = first_match (none);
  g_assert_true (json_object_get_null_member (match, "code_example"));

  /* A longer fence holds a shorter one: the whole inner text is the
   * example, and the inner fence does not close the outer one. */
  match = first_match (nested);
  g_assert_cmpstr (json_object_get_string_member (match, "section"), ==, "Tricky fences");
  g_assert_cmpstr (json_object_get_string_member (match, "code_example"), ==,
                   "```javascript\ndelta in a nested fence\n```");

  match = first_match (unclosed);
  g_assert_cmpstr (json_object_get_string_member (match, "code_example"), ==, "foxtrot never closes");

  /* Above the first block of the file, in the title's section. */
  match = first_match (before);
  g_assert_cmpstr (json_object_get_string_member (match, "section"), ==, "Notation fixture");
  g_assert_true (json_object_get_null_member (match, "code_example"));
}

static void
test_counts_and_messages (void)
{
  g_autoptr(JsonObject) many = search (fixture, "nothing|a", NULL, 0, 2);
  g_autoptr(JsonObject) empty = search (fixture, "zebra", "effects", 3, 10);

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (many, "matches")), ==, 2);
  g_assert_cmpint (json_object_get_int_member (many, "returned"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (many, "total_matches"), >, 2);
  g_assert_true (json_object_get_null_member (many, "category_searched"));

  g_assert_cmpint (json_object_get_int_member (empty, "total_matches"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (empty, "category_searched"), ==, "effects");
  g_assert_nonnull (strstr (json_object_get_string_member (empty, "message"), "No line matches"));
}

static void
test_case_insensitive (void)
{
  g_autoptr(JsonObject) upper = search (fixture, "ALPHA INSIDE", NULL, 0, 10);

  g_assert_cmpint (json_object_get_int_member (upper, "total_matches"), ==, 1);
}

static void
assert_error (JsonObject *result,
              const char *code)
{
  g_assert_cmpstr (json_object_get_string_member (result, "error"), ==, code);
  g_assert_cmpstr (json_object_get_string_member (result, "message"), !=, "");
  g_assert_cmpint (json_object_get_int_member (result, "total_matches"), ==, 0);
}

static void
test_bad_input (void)
{
  g_autoptr(JsonObject) category = search (fixture, "a", "drums", 3, 10);
  g_autoptr(JsonObject) regex = search (fixture, "lpf(", NULL, 3, 10);
  g_autoptr(JsonObject) empty = search (fixture, "", NULL, 3, 10);
  g_autofree char *huge = g_strnfill (1024 * 1024, 'x');
  g_autoptr(JsonObject) too_long = NULL;
  gint64 start;

  assert_error (category, "invalid_category");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (category, "valid_categories")), ==, 8);

  assert_error (regex, "invalid_regex");
  g_assert_nonnull (strstr (json_object_get_string_member (regex, "help"), "backslash"));
  g_assert_null (strstr (json_object_get_string_member (regex, "message"), "LIMIT_MATCH"));

  assert_error (empty, "invalid_query");

  start = g_get_monotonic_time ();
  too_long = search (fixture, huge, NULL, 3, 10);
  assert_error (too_long, "query_too_long");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 50 * G_TIME_SPAN_MILLISECOND);
}

/* Classic catastrophic patterns run against every bundled line: each
 * search ends quickly, with matches or with a structured error. */
static void
test_catastrophic_backtracking (void)
{
  const char *patterns[] = { "(a+)+$", "(\\w+\\s?)+$x", "(.*a){25}", "((a|aa)+)+b", "(x+x+)+y", "^(([a-z])+.)+[A-Z]([a-z])+$" };

  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      gint64 start = g_get_monotonic_time ();
      g_autoptr(JsonObject) result = search (sj_knowledge_base_get_bundled (), patterns[i], NULL, 3, 10);
      gint64 spent = g_get_monotonic_time () - start;

      g_test_message ("%s: %.1f ms, %s", patterns[i], spent / 1000.0,
                      json_object_has_member (result, "error") ? json_object_get_string_member (result, "error") : "ok");
      g_assert_cmpint (spent, <, 500 * G_TIME_SPAN_MILLISECOND);
      if (json_object_has_member (result, "error"))
        assert_error (result, "regex_too_complex");
    }
}

static JsonObject *
search_json (const char *json)
{
  g_autoptr(JsonNode) arguments = json_from_string (json, NULL);
  g_autoptr(JsonNode) node = sj_knowledge_base_search_json (fixture, json_node_get_object (arguments));

  return json_object_ref (json_node_get_object (node));
}

static void
test_json_arguments (void)
{
  g_autoptr(JsonObject) ok = search_json ("{\"query\": \"alpha\", \"category\": null, \"context_lines\": 0, \"max_results\": 1}");
  g_autoptr(JsonObject) no_query = search_json ("{\"category\": \"notation\"}");
  g_autoptr(JsonObject) bad_max = search_json ("{\"query\": \"a\", \"max_results\": \"ten\"}");
  g_autoptr(JsonObject) bad_context = search_json ("{\"query\": \"a\", \"context_lines\": -1}");
  g_autoptr(JsonObject) bad_category = search_json ("{\"query\": \"a\", \"category\": 7}");

  g_assert_cmpint (json_object_get_int_member (ok, "returned"), ==, 1);
  assert_error (no_query, "invalid_arguments");
  assert_error (bad_max, "invalid_arguments");
  assert_error (bad_context, "invalid_arguments");
  assert_error (bad_category, "invalid_category");
}

static void
test_bundled_categories (void)
{
  SjKnowledgeBase *bundled = sj_knowledge_base_get_bundled ();
  const char * const *categories = _sj_knowledge_base_get_categories ();

  g_assert_cmpuint (g_strv_length ((char **)categories), ==, 8);
  for (guint i = 0; categories[i] != NULL; i++)
    {
      g_autoptr(JsonObject) result = search (bundled, ".", categories[i], 0, 1);

      g_assert_cmpint (json_object_get_int_member (result, "total_matches"), >, 100);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GFile) directory = g_file_new_for_path (SJ_TEST_DATA "/knowledge");
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  if ((fixture = _sj_knowledge_base_new_from_directory (directory, &error)) == NULL)
    g_error ("%s", error->message);

  g_test_add_func ("/knowledge-base/code-examples", test_code_examples);
  g_test_add_func ("/knowledge-base/counts-and-messages", test_counts_and_messages);
  g_test_add_func ("/knowledge-base/case-insensitive", test_case_insensitive);
  g_test_add_func ("/knowledge-base/bad-input", test_bad_input);
  g_test_add_func ("/knowledge-base/catastrophic-backtracking", test_catastrophic_backtracking);
  g_test_add_func ("/knowledge-base/json-arguments", test_json_arguments);
  g_test_add_func ("/knowledge-base/bundled-categories", test_bundled_categories);

  status = g_test_run ();
  g_clear_object (&fixture);
  return status;
}
