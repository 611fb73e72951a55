/* bench-knowledge.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Our side of bench/knowledge: times strudel_knowledge (sj_knowledge_query)
 * over a list of queries and search_knowledge (sj_knowledge_base_search)
 * over a list of regular expressions, and writes the raw figures as JSON
 * for bench/knowledge/report.py.  Not installed, not a test.
 *
 *   bench-knowledge --queries FILE [--sounds FILE] [--passes N]
 *                   [--regexes FILE] [--repeat N] [--output FILE]
 *                   [--dump-knowledge DIR]
 *
 * --queries  {"queries": [string, ...]} (make_queries.py)
 * --sounds   a sound map snapshot; without it, the bundled sounds
 * --passes   timed passes over the queries after one warm-up pass (3)
 * --regexes  {"regexes": [string, ...]}
 * --repeat   calls per regular expression after one warm-up call (50)
 * --phrases  the phrase set (query, expected first answer): accuracy and
 *            latency of the questions musicians and models ask
 * --held-out the same for questions never used to tune the vocabulary
 * --dump-knowledge  write the bundled notes as DIR/<category>.md, so that
 *            the Python side searches exactly the text compiled in here
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sj-knowledge-base-private.h"
#include "sj-knowledge.h"

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64)ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The strings of member @member of the JSON object in @path. */
static GPtrArray *
read_strings (const char  *path,
              const char  *member,
              GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  JsonNode *root;
  JsonArray *array;

  if (!json_parser_load_from_file (parser, path, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !json_object_has_member (json_node_get_object (root), member) ||
      (array = json_object_get_array_member (json_node_get_object (root), member)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s has no array “%s”", path, member);
      return NULL;
    }

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      const char *s = json_array_get_string_element (array, i);

      if (s == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: “%s”[%u] is not a string", path, member, i);
          return NULL;
        }
      g_ptr_array_add (strings, g_strdup (s));
    }

  return g_steal_pointer (&strings);
}

static void
add_int_array (JsonBuilder  *builder,
               const char   *name,
               const gint64 *values,
               guint         n)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, values[i]);
  json_builder_end_array (builder);
}

static gboolean
answer_ok (JsonNode *answer)
{
  JsonObject *object;

  if (answer == NULL || !JSON_NODE_HOLDS_OBJECT (answer))
    return FALSE;
  object = json_node_get_object (answer);
  return json_object_get_boolean_member_with_default (object, "ok", FALSE);
}

static void
bench_queries (JsonBuilder *builder,
               SjKnowledge *knowledge,
               GPtrArray   *queries,
               guint        passes)
{
  guint n = queries->len;
  g_autofree gint64 *samples = g_new (gint64, (gsize)n * passes);
  g_autofree gint64 *with_text = g_new (gint64, n);
  guint ok = 0;

  /* Warm-up: every code path and every lazily built table once. */
  for (guint i = 0; i < n; i++)
    {
      JsonNode *answer = sj_knowledge_query (knowledge, g_ptr_array_index (queries, i));

      if (answer_ok (answer))
        ok++;
      json_node_unref (answer);
    }

  for (guint p = 0; p < passes; p++)
    for (guint i = 0; i < n; i++)
      {
        const char *query = g_ptr_array_index (queries, i);
        gint64 start = now_ns ();
        JsonNode *answer = sj_knowledge_query (knowledge, query);

        samples[(gsize)p * n + i] = now_ns () - start;
        json_node_unref (answer);
      }

  /* What the tool really does: answer, then write the JSON text the
   * model reads. */
  for (guint i = 0; i < n; i++)
    {
      const char *query = g_ptr_array_index (queries, i);
      gint64 start = now_ns ();
      JsonNode *answer = sj_knowledge_query (knowledge, query);
      g_autofree char *text = json_to_string (answer, FALSE);

      with_text[i] = now_ns () - start;
      json_node_unref (answer);
    }

  json_builder_set_member_name (builder, "queries");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "n");
  json_builder_add_int_value (builder, n);
  json_builder_set_member_name (builder, "passes");
  json_builder_add_int_value (builder, passes);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_int_value (builder, ok);
  add_int_array (builder, "samples_ns", samples, n * passes);
  add_int_array (builder, "with_text_ns", with_text, n);
  json_builder_end_object (builder);
}

/* The phrase set (tests/data/knowledge-queries.tsv): how many are right
 * first, and how long each takes. */
static void
bench_phrases (JsonBuilder *builder,
               SjKnowledge *knowledge,
               const char  *member,
               const char  *path,
               guint        passes)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n = 0, right = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    g_error ("cannot read %s", path);
  lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      g_autoptr(JsonNode) answer = NULL;
      JsonObject *object;
      gboolean not_found, ok;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      fields = g_strsplit (lines[i], "\t", 3);
      if (g_strv_length (fields) != 3)
        continue;
      not_found = fields[2][0] == '!';
      n++;

      answer = sj_knowledge_query (knowledge, fields[1]);
      for (guint p = 0; p < passes; p++)
        {
          gint64 start = now_ns ();
          JsonNode *again = sj_knowledge_query (knowledge, fields[1]);
          gint64 spent = now_ns () - start;

          g_array_append_val (samples, spent);
          json_node_unref (again);
        }

      object = json_node_get_object (answer);
      ok = json_object_get_boolean_member (object, "ok");
      if (ok && !not_found)
        {
          JsonArray *items = json_object_get_array_member (object, "items");
          g_auto(GStrv) expected = g_strsplit (fields[2], "|", -1);

          if (json_array_get_length (items) > 0 &&
              g_strv_contains ((const char * const *)expected,
                               json_object_get_string_member (json_array_get_object_element (items, 0), "name")))
            right++;
        }
      else if (!ok && not_found)
        {
          JsonArray *suggestions = json_object_get_array_member (object, "suggestions");
          g_auto(GStrv) expected = g_strsplit (fields[2] + 1, " ", -1);
          gboolean found = expected[0] == NULL || expected[0][0] == '\0';

          for (guint s = 0; !found && s < json_array_get_length (suggestions); s++)
            found = g_strv_contains ((const char * const *)expected, json_array_get_string_element (suggestions, s));
          right += found;
        }
    }

  json_builder_set_member_name (builder, member);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "n");
  json_builder_add_int_value (builder, n);
  json_builder_set_member_name (builder, "right");
  json_builder_add_int_value (builder, right);
  add_int_array (builder, "samples_ns", (const gint64 *)(gpointer)samples->data, samples->len);
  json_builder_end_object (builder);
}

static void
bench_regexes (JsonBuilder     *builder,
               SjKnowledgeBase *base,
               GPtrArray       *regexes,
               guint            repeat)
{
  json_builder_set_member_name (builder, "search");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "repeat");
  json_builder_add_int_value (builder, repeat);
  json_builder_set_member_name (builder, "regexes");
  json_builder_begin_array (builder);

  for (guint r = 0; r < regexes->len; r++)
    {
      const char *regex = g_ptr_array_index (regexes, r);
      JsonNode *result = sj_knowledge_base_search (base, regex, NULL, 3, 10);
      JsonObject *object = json_node_get_object (result);
      gint64 start, elapsed;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "regex");
      json_builder_add_string_value (builder, regex);
      json_builder_set_member_name (builder, "error");
      if (json_object_has_member (object, "error"))
        json_builder_add_string_value (builder, json_object_get_string_member (object, "error"));
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "total_matches");
      json_builder_add_int_value (builder, json_object_get_int_member (object, "total_matches"));

      /* Which lines were returned, to compare with the Python side. */
      json_builder_set_member_name (builder, "matches");
      json_builder_begin_array (builder);
      if (json_object_has_member (object, "matches"))
        {
          JsonArray *matches = json_object_get_array_member (object, "matches");

          for (guint m = 0; m < json_array_get_length (matches); m++)
            {
              JsonObject *match = json_array_get_object_element (matches, m);

              json_builder_begin_array (builder);
              json_builder_add_string_value (builder, json_object_get_string_member (match, "file"));
              json_builder_add_int_value (builder, json_object_get_int_member (match, "line_number"));
              json_builder_end_array (builder);
            }
        }
      json_builder_end_array (builder);
      json_node_unref (result);

      start = now_ns ();
      for (guint i = 0; i < repeat; i++)
        json_node_unref (sj_knowledge_base_search (base, regex, NULL, 3, 10));
      elapsed = now_ns () - start;

      json_builder_set_member_name (builder, "total_ns");
      json_builder_add_int_value (builder, elapsed);
      json_builder_end_object (builder);
    }

  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *queries_path = NULL;
  g_autofree char *sounds_path = NULL;
  g_autofree char *regexes_path = NULL;
  g_autofree char *output_path = NULL;
  g_autofree char *dump_path = NULL;
  g_autofree char *phrases_path = NULL;
  g_autofree char *held_out_path = NULL;
  int passes = 3;
  int repeat = 50;
  GOptionEntry entries[] = {
    { "queries", 0, 0, G_OPTION_ARG_FILENAME, &queries_path, "strudel_knowledge queries (JSON)", "FILE" },
    { "sounds", 0, 0, G_OPTION_ARG_FILENAME, &sounds_path, "Sound map snapshot (default: the bundled sounds)", "FILE" },
    { "passes", 0, 0, G_OPTION_ARG_INT, &passes, "Timed passes over the queries (3)", "N" },
    { "regexes", 0, 0, G_OPTION_ARG_FILENAME, &regexes_path, "search_knowledge patterns (JSON)", "FILE" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Calls per pattern (50)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output_path, "Write the JSON here (default: stdout)", "FILE" },
    { "dump-knowledge", 0, 0, G_OPTION_ARG_FILENAME, &dump_path, "Write the bundled notes into DIR", "DIR" },
    { "phrases", 0, 0, G_OPTION_ARG_FILENAME, &phrases_path, "The phrase set (tests/data/knowledge-queries.tsv)", "FILE" },
    { "held-out", 0, 0, G_OPTION_ARG_FILENAME, &held_out_path, "Phrases never used to tune (bench/knowledge/held-out.tsv)", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- time the knowledge services");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  gint64 start;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-knowledge: %s\n", error->message);
      return 2;
    }
  if (dump_path != NULL)
    {
      SjKnowledgeBase *base = sj_knowledge_base_get_bundled ();

      if (g_mkdir_with_parents (dump_path, 0755) != 0)
        {
          g_printerr ("bench-knowledge: cannot create %s\n", dump_path);
          return 1;
        }
      for (const char * const *c = _sj_knowledge_base_get_categories (); *c != NULL; c++)
        {
          g_autofree char *name = g_strconcat (*c, ".md", NULL);
          g_autofree char *path = g_build_filename (dump_path, name, NULL);
          const char *text = _sj_knowledge_base_get_text (base, *c);

          if (!g_file_set_contents (path, text, -1, &error))
            {
              g_printerr ("bench-knowledge: %s\n", error->message);
              return 1;
            }
        }
    }
  if (queries_path == NULL && regexes_path == NULL)
    {
      if (dump_path != NULL)
        return 0;
      g_printerr ("bench-knowledge: nothing to do; pass --queries and/or --regexes\n");
      return 2;
    }
  passes = MAX (passes, 1);
  repeat = MAX (repeat, 1);

  json_builder_begin_object (builder);

  if (queries_path != NULL)
    {
      g_autoptr(GPtrArray) queries = read_strings (queries_path, "queries", &error);
      g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
      g_autoptr(SjKnowledge) knowledge = NULL;
      SjReferenceIndex *reference;
      gint64 load_ns;

      if (queries == NULL)
        {
          g_printerr ("bench-knowledge: %s\n", error->message);
          return 1;
        }

      start = now_ns ();
      reference = sj_reference_index_get_bundled ();
      if (sounds_path != NULL)
        {
          g_autoptr(GFile) file = g_file_new_for_commandline_arg (sounds_path);

          if (!sj_sounds_index_load_file (sounds, file, &error))
            {
              g_printerr ("bench-knowledge: %s: %s\n", sounds_path, error->message);
              return 1;
            }
        }
      else
        sj_sounds_index_load_bundled (sounds);
      knowledge = sj_knowledge_new (reference, sounds);
      load_ns = now_ns () - start;

      json_builder_set_member_name (builder, "reference_entries");
      json_builder_add_int_value (builder, sj_reference_index_get_n_entries (reference));
      json_builder_set_member_name (builder, "sounds");
      json_builder_add_int_value (builder, sj_sounds_index_get_n_sounds (sounds));
      json_builder_set_member_name (builder, "sounds_source");
      json_builder_add_string_value (builder, sounds_path != NULL ? sounds_path : "bundled");
      json_builder_set_member_name (builder, "load_ns");
      json_builder_add_int_value (builder, load_ns);

      bench_queries (builder, knowledge, queries, passes);
      if (phrases_path != NULL)
        bench_phrases (builder, knowledge, "phrases", phrases_path, passes);
      if (held_out_path != NULL)
        bench_phrases (builder, knowledge, "held_out", held_out_path, passes);
    }

  if (regexes_path != NULL)
    {
      g_autoptr(GPtrArray) regexes = read_strings (regexes_path, "regexes", &error);
      SjKnowledgeBase *base;
      guint lines = 0;

      if (regexes == NULL)
        {
          g_printerr ("bench-knowledge: %s\n", error->message);
          return 1;
        }

      start = now_ns ();
      base = sj_knowledge_base_get_bundled ();
      json_builder_set_member_name (builder, "knowledge_load_ns");
      json_builder_add_int_value (builder, now_ns () - start);

      for (const char * const *c = _sj_knowledge_base_get_categories (); *c != NULL; c++)
        {
          const char *text = _sj_knowledge_base_get_text (base, *c);

          gsize len = text != NULL ? strlen (text) : 0;

          for (gsize i = 0; i < len; i++)
            if (text[i] == '\n')
              lines++;
          if (len > 0 && text[len - 1] != '\n')
            lines++;
        }
      json_builder_set_member_name (builder, "knowledge_lines");
      json_builder_add_int_value (builder, lines);

      bench_regexes (builder, base, regexes, repeat);
    }

  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);

  if (output_path != NULL)
    {
      if (!json_generator_to_file (generator, output_path, &error))
        {
          g_printerr ("bench-knowledge: %s\n", error->message);
          return 1;
        }
    }
  else
    {
      g_autofree char *text = json_generator_to_data (generator, NULL);

      puts (text);
    }

  return 0;
}
