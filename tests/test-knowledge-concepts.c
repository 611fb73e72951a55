/* test-knowledge-concepts.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The concept vocabulary (knowledge/concepts.tsv) against the reference and
 * the sounds it names, its parser's limits, and the phrase set of issue 19
 * (tests/data/knowledge-queries.tsv): questions as musicians and models ask
 * them, at least 95 % answered right first, only real names, fast.
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-concepts.h"
#include "sj-knowledge.h"

/* A guard against a runaway ranking, not the speed target: the p99
 * figure (under 1 ms) is measured by bench/knowledge, beside Fuse.js,
 * where a busy machine cannot fail the suite. */
#define P99_BUDGET (50 * G_TIME_SPAN_MILLISECOND)

static SjKnowledge *knowledge;
static SjSoundsIndex *sounds;

static gboolean
is_function (const char *name)
{
  const SjReferenceEntry *entry = sj_reference_index_lookup (sj_knowledge_get_reference (knowledge), name, NULL);

  return entry != NULL && entry->callable && g_str_equal (entry->name, name);
}

static gboolean
is_sound (const char *name)
{
  return sj_sounds_index_lookup (sounds, name) != NULL || sj_sounds_index_lookup_bank (sounds, name) != NULL;
}

static gboolean
is_real (const char *name)
{
  SjReferenceIndex *reference = sj_knowledge_get_reference (knowledge);

  return sj_reference_index_lookup (reference, name, NULL) != NULL ||
         sj_reference_index_is_callable (reference, name) || is_sound (name);
}

static void
test_concepts_real (void)
{
  SjKnowledgeConcepts *concepts = sj_knowledge_concepts_get_bundled ();
  const char * const *internal = sj_knowledge_concepts_get_internal (concepts);
  guint n = sj_knowledge_concepts_get_n (concepts);
  g_autoptr(GString) problems = g_string_new (NULL);

  g_assert_cmpuint (n, >=, 300);
  for (guint i = 0; i < n; i++)
    {
      const SjKnowledgeConcept *concept = sj_knowledge_concepts_get (concepts, i);

      for (guint j = 0; concept->names[j] != NULL; j++)
        if (!is_function (concept->names[j]) && !is_sound (concept->names[j]))
          g_string_append_printf (problems, "concepts.tsv line %u: “%s” is neither a documented callable function nor a sound\n",
                                  concept->line, concept->names[j]);

      /* A single word that is a name answers itself. */
      if (concept->n_words == 1 &&
          (sj_reference_index_lookup (sj_knowledge_get_reference (knowledge), concept->phrase, NULL) != NULL ||
           is_sound (concept->phrase)))
        g_string_append_printf (problems, "concepts.tsv line %u: “%s” is already a name\n", concept->line, concept->phrase);
    }

  g_assert_nonnull (internal[0]);
  for (guint i = 0; internal[i] != NULL; i++)
    if (sj_reference_index_lookup (sj_knowledge_get_reference (knowledge), internal[i], NULL) == NULL)
      g_string_append_printf (problems, "concepts.tsv: @internal “%s” is not in the reference\n", internal[i]);

  if (problems->len > 0)
    g_error ("%s", problems->str);

  g_assert_cmpstr (sj_knowledge_concepts_lookup (concepts, "Low Pass Filters")->names[0], ==, "lpf");
}

static void
assert_refused (const char *text,
                const char *expected)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr(GError) error = NULL;
  g_autoptr(SjKnowledgeConcepts) concepts = sj_knowledge_concepts_new (bytes, &error);

  g_assert_null (concepts);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  if (strstr (error->message, expected) == NULL)
    g_error ("“%s” not in “%s”", expected, error->message);
}

static void
test_concepts_limits (void)
{
  g_autofree char *big = g_strnfill (SJ_KNOWLEDGE_CONCEPTS_MAX_BYTES + 1, '#');
  static const char text[] = "# c\n\nlow pass\tlpf lpq\r\nsidechain\tduckorbit\tinstead\n";
  g_autoptr(GBytes) ok = g_bytes_new_static (text, strlen (text));
  g_autoptr(SjKnowledgeConcepts) concepts = sj_knowledge_concepts_new (ok, NULL);
  g_autoptr(GArray) found = NULL;
  g_autoptr(GPtrArray) words = g_ptr_array_new ();

  g_assert_nonnull (concepts);
  g_assert_cmpuint (sj_knowledge_concepts_get_n (concepts), ==, 2);
  g_assert_true (sj_knowledge_concepts_get (concepts, 1)->instead);
  g_ptr_array_add (words, "a");
  g_ptr_array_add (words, "LOW");
  g_ptr_array_add (words, "pass");
  found = sj_knowledge_concepts_find (concepts, words);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_cmpuint (g_array_index (found, SjKnowledgeConceptMatch, 0).first, ==, 1);

  assert_refused (big, "256 KiB");
  assert_refused ("low pass\n", "line 1");
  assert_refused ("# x\nLow\tlpf\n", "line 2: a phrase is lower-case");
  assert_refused ("a b c d e\tlpf\n", "four words");
  assert_refused ("a  b\tlpf\n", "single spaces");
  assert_refused ("low\tlpf\tmaybe\n", "instead");
  assert_refused ("low\tlpf(1)\n", "a name is");
  assert_refused ("low\ta b c d e f g h i\n", "one to eight");
  assert_refused ("filter\tlpf\nfilters\thpf\n", "line 2: the phrase is already listed");
  assert_refused ("low\tlpf\n\xff\n", "UTF-8");
}

typedef struct
{
  char  *category;
  char  *query;
  char **expected;
  gboolean not_found;
} Question;

static void
question_free (gpointer data)
{
  Question *question = data;

  g_free (question->category);
  g_free (question->query);
  g_strfreev (question->expected);
  g_free (question);
}

static GPtrArray *
read_questions (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *questions = g_ptr_array_new_with_free_func (question_free);

  if (!g_file_get_contents (SJ_TEST_DATA "/knowledge-queries.tsv", &text, NULL, &error))
    g_error ("%s", error->message);

  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      Question *question;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      fields = g_strsplit (lines[i], "\t", -1);
      if (g_strv_length (fields) != 3)
        g_error ("knowledge-queries.tsv line %u: expected three fields", i + 1);

      question = g_new0 (Question, 1);
      question->category = g_strdup (fields[0]);
      question->query = g_strdup (fields[1]);
      question->not_found = fields[2][0] == '!';
      question->expected = question->not_found
        ? g_strsplit_set (fields[2] + 1, " ", -1)
        : g_strsplit (fields[2], "|", -1);
      g_ptr_array_add (questions, question);
    }

  return questions;
}

/* Classes, pattern internals and uncallable names are never first for a
 * phrase. */
static void
assert_not_internal_first (const char *query,
                           JsonObject *answer)
{
  const SjReferenceEntry *entry;
  const char *first;

  if (!json_object_get_boolean_member (answer, "ok") || strchr (query, ' ') == NULL ||
      json_array_get_length (json_object_get_array_member (answer, "items")) == 0)
    return;

  first = json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (answer, "items"), 0),
                                         "name");
  entry = sj_reference_index_lookup (sj_knowledge_get_reference (knowledge), first, NULL);
  if (entry != NULL &&
      (!entry->callable || g_ascii_isupper (first[0]) ||
       sj_knowledge_concepts_is_internal (sj_knowledge_concepts_get_bundled (), first)))
    g_error ("“%s” answered the internal or uncallable “%s” first", query, first);
}

/* Invented names are not found, and what to use instead comes first. */
static void
test_instead (void)
{
  const struct { const char *query; const char *first; } cases[] = {
    { "trancegate", "struct" }, { "sidechain", "duckorbit" }, { "granular", "chop" },
    { "is granular valid", "chop" }, { "symbol:sidechain", "duckorbit" }, { "superreverb", "room" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = sj_knowledge_query (knowledge, cases[i].query);
      JsonObject *answer = json_node_get_object (node);
      JsonArray *suggestions = json_object_get_array_member (answer, "suggestions");

      g_assert_false (json_object_get_boolean_member (answer, "ok"));
      g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "not_found");
      g_assert_cmpuint (json_array_get_length (suggestions), >=, 2);
      g_assert_cmpstr (json_array_get_string_element (suggestions, 0), ==, cases[i].first);
      for (guint s = 0; s < json_array_get_length (suggestions); s++)
        g_assert_true (is_real (json_array_get_string_element (suggestions, s)));
    }

  /* Inside a longer question the same word ranks what to use. */
  {
    g_autoptr(JsonNode) node = sj_knowledge_query (knowledge, "how do I sidechain the pad to the kick");
    JsonObject *answer = json_node_get_object (node);

    g_assert_true (json_object_get_boolean_member (answer, "ok"));
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (answer, "items"), 0), "name"),
                     ==, "duckorbit");
  }
}

static int
compare_spans (gconstpointer a,
               gconstpointer b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return x < y ? -1 : x > y;
}

/* Whether @answer is right: its first item one of the expected names, or
 * not found with one of them among the suggestions.  Every name in it must
 * be real either way. */
static gboolean
judge (const Question *question,
       JsonObject     *answer,
       char          **got)
{
  gboolean ok = json_object_get_boolean_member (answer, "ok");
  JsonArray *names = json_object_get_array_member (answer, ok ? "items" : "suggestions");

  for (guint i = 0; i < json_array_get_length (names); i++)
    {
      const char *name = ok
        ? json_object_get_string_member (json_array_get_object_element (names, i), "name")
        : json_array_get_string_element (names, i);

      if (!is_real (name))
        g_error ("“%s” answered the invented name “%s”", question->query, name);
    }

  if (ok != !question->not_found)
    {
      *got = g_strdup (ok ? "ok:true" : "not found");
      return FALSE;
    }

  if (ok)
    {
      const char *first = json_array_get_length (names) > 0
        ? json_object_get_string_member (json_array_get_object_element (names, 0), "name") : "";

      *got = g_strdup (first);
      return g_strv_contains ((const char * const *)question->expected, first);
    }

  *got = g_strdup ("not found");
  if (question->expected[0] == NULL || question->expected[0][0] == '\0')
    return TRUE;
  for (guint i = 0; i < json_array_get_length (names); i++)
    if (g_strv_contains ((const char * const *)question->expected, json_array_get_string_element (names, i)))
      return TRUE;
  return FALSE;
}

static void
test_phrases (void)
{
  g_autoptr(GPtrArray) questions = read_questions ();
  g_autoptr(GHashTable) categories = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree gint64 *spans = g_new (gint64, questions->len);
  guint right = 0;
  gint64 p99;

  g_assert_cmpuint (questions->len, >=, 300);

  for (guint i = 0; i < questions->len; i++)
    {
      const Question *question = g_ptr_array_index (questions, i);
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *got = NULL;

      /* The best of three runs: the query's own cost, not the time another
       * process took the CPU away. */
      spans[i] = G_MAXINT64;
      for (guint run = 0; run < 3; run++)
        {
          gint64 start = g_get_monotonic_time ();

          g_clear_pointer (&node, json_node_unref);
          node = sj_knowledge_query (knowledge, question->query);
          spans[i] = MIN (spans[i], g_get_monotonic_time () - start);
        }
      g_hash_table_add (categories, question->category);

      assert_not_internal_first (question->query, json_node_get_object (node));
      if (judge (question, json_node_get_object (node), &got))
        right++;
      else
        g_test_message ("wrong: [%s] “%s” → %s, expected %s", question->category, question->query, got,
                        question->expected[0] != NULL ? question->expected[0] : "");
    }

  qsort (spans, questions->len, sizeof (gint64), compare_spans);
  p99 = spans[MIN (questions->len - 1, (questions->len * 99 + 99) / 100 - 1)];
  g_test_message ("%u of %u right first (%.1f %%), %u categories, p50 %" G_GINT64_FORMAT " µs, p99 %" G_GINT64_FORMAT " µs",
                  right, questions->len, 100.0 * right / questions->len, g_hash_table_size (categories),
                  spans[questions->len / 2], p99);

  g_assert_cmpuint (g_hash_table_size (categories), >=, 20);
  g_assert_cmpfloat (100.0 * right / questions->len, >=, 95.0);
  g_assert_cmpint (p99, <, P99_BUDGET);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  sounds = sj_sounds_index_new ();
  sj_sounds_index_load_bundled (sounds);
  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);

  g_test_add_func ("/knowledge/concepts/real", test_concepts_real);
  g_test_add_func ("/knowledge/concepts/limits", test_concepts_limits);
  g_test_add_func ("/knowledge/concepts/instead", test_instead);
  g_test_add_func ("/knowledge/concepts/phrases", test_phrases);

  status = g_test_run ();

  g_clear_object (&knowledge);
  g_clear_object (&sounds);
  return status;
}
