/* test-json.c
 *
 * sj_json_parse(), the one JSON parser of the app: nesting and size are
 * bounded before json-glib sees the text, and escapes a C string cannot
 * hold come back as U+FFFD with the rest of the text kept.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "sj-json.h"

static char *
nested (guint       depth,
        const char *open,
        const char *inner,
        const char *close)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (text, open);
  g_string_append (text, inner);
  for (guint i = 0; i < depth; i++)
    g_string_append (text, close);

  return g_string_free (text, FALSE);
}

static void
test_deep (void)
{
  /* 100,000 levels crashed json-glib's recursive parser. */
  g_autofree char *deep = nested (100000, "[", "1", "]");
  g_autofree char *objects = nested (100000, "{\"a\":", "1", "}");
  g_autofree char *unclosed = nested (100000, "[", "", "");
  g_autofree char *limit = nested (SJ_JSON_DEFAULT_MAX_DEPTH, "[", "1", "]");
  g_autofree char *past = nested (SJ_JSON_DEFAULT_MAX_DEPTH + 1, "[", "1", "]");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_assert_null (sj_json_parse (deep, -1, NULL, &error));
  g_assert_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP);
  g_clear_error (&error);
  g_assert_null (sj_json_parse (objects, -1, NULL, &error));
  g_assert_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP);
  g_clear_error (&error);
  g_assert_null (sj_json_parse (unclosed, -1, NULL, &error));
  g_assert_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP);
  g_clear_error (&error);
  g_assert_null (sj_json_parse (past, -1, NULL, &error));
  g_assert_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP);
  g_clear_error (&error);

  node = sj_json_parse (limit, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
}

static void
test_strings_do_not_nest (void)
{
  /* Brackets inside strings, behind escaped quotes and backslashes. */
  const char *text = "{\"a\": \"[[[[{{{{\\\"[[[[\\\\\", \"b\": [\"]]]]\"]}";
  const SjJsonLimits two = { 2, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = sj_json_parse (text, -1, &two, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "a"), ==, "[[[[{{{{\"[[[[\\");
}

static void
test_large (void)
{
  const SjJsonLimits small = { 0, 16 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_assert_null (sj_json_parse ("{\"text\": \"more than sixteen\"}", -1, &small, &error));
  g_assert_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_LARGE);
  g_clear_error (&error);

  node = sj_json_parse ("[1, 2]", -1, &small, &error);
  g_assert_no_error (error);
}

static void
test_invalid (void)
{
  const char *bad[] = { "", "   ", "{", "[1,", "{\"a\" 1}", "nul\xff", "\"\\u12\"",
                        /* A short \u escape, found by fuzz-llm-response: json-glib
                         * made text that was not UTF-8 of it. */
                        "{\"s\":\"\\ud80) rest\"}", "{\"s\":\"nul \\u0000 \\ud80) rest\"}",
                        "[\"\\u\"]", "[\"\\u00e\"]",
                        /* An octal escape, found by fuzz-llm-response:
                         * json-glib made the byte 0x80 of it. */
                        "{\"s\":\"nul \\20000\"}", "[\"\\x41\"]", "[\"\\a\"]", "[\"\\'\"]", NULL };

  for (guint i = 0; bad[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (sj_json_parse (bad[i], -1, NULL, &error));
      g_assert_error (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INVALID);
    }
  g_assert_null (sj_json_parse (NULL, 0, NULL, NULL));
}

static const char *
string_of (JsonNode *node)
{
  return json_object_get_string_member (json_node_get_object (node), "s");
}

static void
test_nul_and_surrogates (void)
{
  struct { const char *json; const char *text; } cases[] = {
    { "{\"s\": \"nul \\u0000 rest\"}", "nul \xef\xbf\xbd rest" },
    { "{\"s\": \"lone \\ud800 high\"}", "lone \xef\xbf\xbd high" },
    { "{\"s\": \"lone \\uDC00 low\"}", "lone \xef\xbf\xbd low" },
    { "{\"s\": \"end \\ud83d\"}", "end \xef\xbf\xbd" },
    { "{\"s\": \"pair \\ud83c\\udfb5 kept\"}", "pair \xf0\x9f\x8e\xb5 kept" },
    { "{\"s\": \"escaped \\\\u0000 stays\"}", "escaped \\u0000 stays" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = sj_json_parse (cases[i].json, -1, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (string_of (node), ==, cases[i].text);
      g_assert_true (g_utf8_validate (string_of (node), -1, NULL));
    }
}

/* The first crash fuzzing found: repairing an escape copied one byte past
 * text that is not nul-terminated (ASan sees it; tests/fuzz keeps the
 * input). */
static void
test_unterminated (void)
{
  const char text[] = "\"\\u0000 and more\"";
  g_autofree char *exact = g_memdup2 (text, sizeof text - 1);
  g_autoptr(JsonNode) node = sj_json_parse (exact, sizeof text - 1, NULL, NULL);

  g_assert_cmpstr (json_node_get_string (node), ==, "\xef\xbf\xbd and more");
}

static void
test_bytes (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("{\"s\": \"x\"}", 10);
  g_autoptr(JsonNode) node = sj_json_parse_bytes (bytes, NULL, NULL);

  g_assert_cmpstr (string_of (node), ==, "x");
}

/* Doubles as a person writes them (issue 31): json-glib's 17 digits turn a
 * cycle at 7.4 into 7.4000000000000004 in tool results and the CLIs. */
static void
test_shorten_numbers (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *text = NULL;
  g_autofree char *same = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "cycle");
  json_builder_add_double_value (builder, 7.4);
  json_builder_set_member_name (builder, "third");
  json_builder_add_double_value (builder, 1.0 / 3.0);
  json_builder_set_member_name (builder, "tiny");
  json_builder_add_double_value (builder, -1.5e-300);
  json_builder_set_member_name (builder, "count");
  json_builder_add_int_value (builder, 12345678901234);
  json_builder_set_member_name (builder, "text 0.1000000000000000055");
  json_builder_add_string_value (builder, "7.4000000000000004 \"1.10000000000000009\"");
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  text = sj_json_to_string (root, FALSE);
  g_assert_cmpstr (text, ==, "{\"cycle\":7.4,\"third\":0.3333333333333333,\"tiny\":-1.5e-300,"
                             "\"count\":12345678901234,\"text 0.1000000000000000055\":"
                             "\"7.4000000000000004 \\\"1.10000000000000009\\\"\"}");
  /* Exactly the same values read back. */
  back = sj_json_parse (text, -1, NULL, NULL);
  g_assert_true (json_node_equal (root, back));
  same = sj_json_shorten_numbers ("[1e400, -0.0, 2, \"\\\\\"]");
  g_assert_cmpstr (same, ==, "[1e400, -0, 2, \"\\\\\"]");
}

/* Members of one type or NULL: missing, another type, null, or no object. */
static void
test_object_getters (void)
{
  g_autoptr(JsonNode) root = sj_json_parse ("{\"s\": \"text\", \"n\": 5, \"a\": [1], \"o\": {\"k\": 1}, \"z\": null}",
                                            -1, NULL, NULL);
  JsonObject *object = json_node_get_object (root);

  g_assert_cmpstr (sj_json_object_get_string (object, "s"), ==, "text");
  g_assert_null (sj_json_object_get_string (object, "n"));
  g_assert_null (sj_json_object_get_string (object, "a"));
  g_assert_null (sj_json_object_get_string (object, "o"));
  g_assert_null (sj_json_object_get_string (object, "z"));
  g_assert_null (sj_json_object_get_string (object, "missing"));
  g_assert_null (sj_json_object_get_string (NULL, "s"));

  g_assert_cmpuint (json_array_get_length (sj_json_object_get_array (object, "a")), ==, 1);
  g_assert_null (sj_json_object_get_array (object, "s"));
  g_assert_null (sj_json_object_get_array (object, "o"));
  g_assert_null (sj_json_object_get_array (object, "z"));
  g_assert_null (sj_json_object_get_array (NULL, "a"));

  g_assert_true (json_object_has_member (sj_json_object_get_object (object, "o"), "k"));
  g_assert_null (sj_json_object_get_object (object, "a"));
  g_assert_null (sj_json_object_get_object (object, "s"));
  g_assert_null (sj_json_object_get_object (object, "z"));
  g_assert_null (sj_json_object_get_object (NULL, "o"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/deep", test_deep);
  g_test_add_func ("/json/strings-do-not-nest", test_strings_do_not_nest);
  g_test_add_func ("/json/large", test_large);
  g_test_add_func ("/json/invalid", test_invalid);
  g_test_add_func ("/json/nul-and-surrogates", test_nul_and_surrogates);
  g_test_add_func ("/json/bytes", test_bytes);
  g_test_add_func ("/json/unterminated", test_unterminated);
  g_test_add_func ("/json/shorten-numbers", test_shorten_numbers);
  g_test_add_func ("/json/object-getters", test_object_getters);

  return g_test_run ();
}
