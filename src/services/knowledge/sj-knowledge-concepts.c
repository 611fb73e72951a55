/* sj-knowledge-concepts.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The concept vocabulary of strudel_knowledge (knowledge/concepts.tsv,
 * compiled in): what a musician or a model says ("low pass filter",
 * "bitcrush", "random integer", "pink noise") mapped to the Strudel names
 * it means, so that a phrase finds lpf, crush, irand or the pink sound
 * instead of whichever function happens to share one of its words.  Some
 * phrases name what Strudel does not have ("sidechain", "granular"): their
 * names are what to use instead.  The file is data and is read with
 * limits; a malformed line is an error naming the line.
 */

#include "config.h"

#include <string.h>

#include "sj-bundled-data.h"
#include "sj-knowledge-concepts.h"

struct _SjKnowledgeConcepts
{
  GObject       parent_instance;

  GArray       *concepts;   /* of SjKnowledgeConcept */
  GStringChunk *strings;
  GHashTable   *by_key;     /* stemmed key → concept position + 1 */
  GPtrArray    *internal;   /* NULL-terminated names */
  GHashTable   *internal_set;
};

G_DEFINE_FINAL_TYPE (SjKnowledgeConcepts, sj_knowledge_concepts, G_TYPE_OBJECT)

static void
sj_knowledge_concepts_finalize (GObject *object)
{
  SjKnowledgeConcepts *self = (SjKnowledgeConcepts *)object;

  for (guint i = 0; i < self->concepts->len; i++)
    g_free (g_array_index (self->concepts, SjKnowledgeConcept, i).names);
  g_clear_pointer (&self->concepts, g_array_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);
  g_clear_pointer (&self->by_key, g_hash_table_unref);
  g_clear_pointer (&self->internal, g_ptr_array_unref);
  g_clear_pointer (&self->internal_set, g_hash_table_unref);

  G_OBJECT_CLASS (sj_knowledge_concepts_parent_class)->finalize (object);
}

static void
sj_knowledge_concepts_class_init (SjKnowledgeConceptsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_knowledge_concepts_finalize;
}

static void
sj_knowledge_concepts_init (SjKnowledgeConcepts *self)
{
  self->concepts = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeConcept));
  self->strings = g_string_chunk_new (8192);
  self->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  self->internal = g_ptr_array_new ();
  self->internal_set = g_hash_table_new (g_str_hash, g_str_equal);
}

/**
 * sj_knowledge_concepts_stem:
 * @word: one word, any case
 *
 * The crude stemming both the vocabulary and the queries go through, so
 * that plurals meet their singular ("filters", "melodies") and past
 * participles their verb ("bitcrushed").  Words ending
 * in "ss" or "us" ("bass", "chorus") are left alone.
 *
 * Returns: (transfer full): the lower-cased stem
 */
char *
sj_knowledge_concepts_stem (const char *word)
{
  char *stem = g_ascii_strdown (word, -1);
  gsize len = strlen (stem);

  if (len > 4 && g_str_has_suffix (stem, "ies"))
    strcpy (stem + len - 3, "y");
  else if (len > 6 && g_str_has_suffix (stem, "ed"))
    stem[len - 2] = '\0';
  else if (len > 3 && stem[len - 1] == 's' && stem[len - 2] != 's' && stem[len - 2] != 'u')
    stem[len - 1] = '\0';

  return stem;
}

/* Glue that phrases are matched without: "reverse a pattern" is the
 * phrase "reverse pattern", "fade in each note" the phrase "fade in each
 * note". */
static const char * const glue[] = { "a", "an", "the", "my", "it", "its", "this", "that", "of", "to", "on", "for", "with" };

static gboolean
is_glue (const char *word)
{
  for (guint i = 0; i < G_N_ELEMENTS (glue); i++)
    if (g_str_equal (word, glue[i]))
      return TRUE;
  return FALSE;
}

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$';
}

static gboolean
fail (GError    **error,
      guint       line,
      const char *message)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "concepts line %u: %s", line, message);
  return FALSE;
}

/* The phrase's words, checked: lower-case letters and digits, single
 * spaces. */
static gboolean
parse_phrase (const char  *phrase,
              guint        line,
              GString     *key,
              guint       *n_words,
              GError     **error)
{
  g_auto(GStrv) words = NULL;

  if (*phrase == '\0' || strlen (phrase) > SJ_KNOWLEDGE_CONCEPTS_MAX_NAME)
    return fail (error, line, "the phrase is empty or too long");
  for (const char *p = phrase; *p != '\0'; p++)
    if (!(g_ascii_islower (*p) || g_ascii_isdigit (*p) || *p == ' '))
      return fail (error, line, "a phrase is lower-case letters, digits and spaces");

  words = g_strsplit (phrase, " ", -1);
  *n_words = g_strv_length (words);
  if (*n_words > SJ_KNOWLEDGE_CONCEPTS_MAX_WORDS)
    return fail (error, line, "a phrase has at most four words");

  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *stem = NULL;

      if (*words[i] == '\0')
        return fail (error, line, "words are separated by single spaces");
      if (is_glue (words[i]) && words[1] != NULL)
        continue;
      stem = sj_knowledge_concepts_stem (words[i]);
      g_string_append_printf (key, "%s%s", key->len > 0 ? " " : "", stem);
    }

  return TRUE;
}

static char **
parse_names (SjKnowledgeConcepts *self,
             const char          *field,
             guint                line,
             GError             **error)
{
  g_auto(GStrv) split = g_strsplit (field, " ", -1);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; split[i] != NULL; i++)
    {
      gsize len = strlen (split[i]);

      if (len == 0 || len > SJ_KNOWLEDGE_CONCEPTS_MAX_NAME)
        {
          fail (error, line, "names are separated by single spaces and at most 64 bytes long");
          return NULL;
        }
      for (gsize c = 0; c < len; c++)
        if (!is_name_char (split[i][c]))
          {
            fail (error, line, "a name is letters, digits, “_” and “$”");
            return NULL;
          }
      g_ptr_array_add (names, g_string_chunk_insert_const (self->strings, split[i]));
    }

  if (names->len == 0 || names->len > SJ_KNOWLEDGE_CONCEPTS_MAX_NAMES)
    {
      fail (error, line, "a concept names one to eight names");
      return NULL;
    }

  g_ptr_array_add (names, NULL);
  return (char **)g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

static gboolean
parse_line (SjKnowledgeConcepts *self,
            char                *text,
            guint                line,
            GError             **error)
{
  g_auto(GStrv) fields = g_strsplit (text, "\t", -1);
  guint n_fields = g_strv_length (fields);
  g_autoptr(GString) key = g_string_new (NULL);
  SjKnowledgeConcept concept = { 0 };

  if (g_str_equal (fields[0], "@internal"))
    {
      g_auto(GStrv) names = NULL;

      if (n_fields != 2)
        return fail (error, line, "@internal takes one field of names");
      names = g_strsplit (fields[1], " ", -1);
      for (guint i = 0; names[i] != NULL; i++)
        {
          const char *name;

          if (*names[i] == '\0' || strlen (names[i]) > SJ_KNOWLEDGE_CONCEPTS_MAX_NAME)
            return fail (error, line, "names are separated by single spaces and at most 64 bytes long");
          name = g_string_chunk_insert_const (self->strings, names[i]);
          if (g_hash_table_add (self->internal_set, (gpointer)name))
            g_ptr_array_add (self->internal, (gpointer)name);
        }
      return TRUE;
    }

  if (n_fields < 2 || n_fields > 3)
    return fail (error, line, "expected “phrase<TAB>names” or “phrase<TAB>names<TAB>instead”");
  if (n_fields == 3 && !g_str_equal (fields[2], "instead"))
    return fail (error, line, "the third field can only be “instead”");

  if (!parse_phrase (fields[0], line, key, &concept.n_words, error))
    return FALSE;
  if (g_hash_table_contains (self->by_key, key->str))
    return fail (error, line, "the phrase is already listed (plurals count as the singular)");
  if ((concept.names = parse_names (self, fields[1], line, error)) == NULL)
    return FALSE;

  concept.phrase = g_string_chunk_insert_const (self->strings, fields[0]);
  concept.key = g_string_chunk_insert_const (self->strings, key->str);
  concept.instead = n_fields == 3;
  concept.line = line;
  g_array_append_val (self->concepts, concept);
  g_hash_table_insert (self->by_key, (gpointer)concept.key, GUINT_TO_POINTER (self->concepts->len));

  return TRUE;
}

/**
 * sj_knowledge_concepts_new:
 * @data: the concept file (see knowledge/concepts.tsv)
 *
 * Returns: (transfer full) (nullable): the vocabulary, or %NULL with
 *   @error set naming the first bad line
 */
SjKnowledgeConcepts *
sj_knowledge_concepts_new (GBytes  *data,
                           GError **error)
{
  g_autoptr(SjKnowledgeConcepts) self = g_object_new (SJ_TYPE_KNOWLEDGE_CONCEPTS, NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  const char *bytes;
  gsize size;

  g_return_val_if_fail (data != NULL, NULL);

  bytes = g_bytes_get_data (data, &size);
  if (size > SJ_KNOWLEDGE_CONCEPTS_MAX_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the concept file is larger than 256 KiB");
      return NULL;
    }
  if (!g_utf8_validate_len (bytes, size, NULL) || memchr (bytes, '\0', size) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the concept file is not UTF-8 text");
      return NULL;
    }

  text = g_strndup (bytes, size);
  lines = g_strsplit (text, "\n", -1);
  if (g_strv_length (lines) > SJ_KNOWLEDGE_CONCEPTS_MAX_LINES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the concept file has more than 4000 lines");
      return NULL;
    }

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      gsize len = strlen (line);

      if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
      if (len == 0 || line[0] == '#')
        continue;
      if (!parse_line (self, line, i + 1, error))
        return NULL;
    }

  g_ptr_array_add (self->internal, NULL);
  return g_steal_pointer (&self);
}

static gpointer
load_bundled (gpointer data)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjKnowledgeConcepts *self;

  if ((bytes = sj_bundled_data_lookup ("concepts.tsv", &error)) == NULL ||
      (self = sj_knowledge_concepts_new (bytes, &error)) == NULL)
    g_error ("The bundled concept vocabulary cannot be read: %s", error->message);

  return self;
}

/**
 * sj_knowledge_concepts_get_bundled:
 *
 * Returns: (transfer none): the vocabulary compiled into the program
 */
SjKnowledgeConcepts *
sj_knowledge_concepts_get_bundled (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load_bundled, NULL);
  return once.retval;
}

guint
sj_knowledge_concepts_get_n (SjKnowledgeConcepts *self)
{
  g_assert (SJ_IS_KNOWLEDGE_CONCEPTS (self));

  return self->concepts->len;
}

const SjKnowledgeConcept *
sj_knowledge_concepts_get (SjKnowledgeConcepts *self,
                           guint                position)
{
  g_assert (SJ_IS_KNOWLEDGE_CONCEPTS (self));
  g_return_val_if_fail (position < self->concepts->len, NULL);

  return &g_array_index (self->concepts, SjKnowledgeConcept, position);
}

/**
 * sj_knowledge_concepts_get_internal:
 *
 * Returns: (transfer none): the names listed by “@internal”
 */
const char * const *
sj_knowledge_concepts_get_internal (SjKnowledgeConcepts *self)
{
  g_assert (SJ_IS_KNOWLEDGE_CONCEPTS (self));

  return (const char * const *)self->internal->pdata;
}

gboolean
sj_knowledge_concepts_is_internal (SjKnowledgeConcepts *self,
                                   const char          *name)
{
  g_assert (SJ_IS_KNOWLEDGE_CONCEPTS (self));

  return g_hash_table_contains (self->internal_set, name);
}

/**
 * sj_knowledge_concepts_lookup:
 * @phrase: words separated by spaces, any case, plurals allowed
 *
 * Returns: (nullable): the concept of exactly @phrase
 */
const SjKnowledgeConcept *
sj_knowledge_concepts_lookup (SjKnowledgeConcepts *self,
                              const char          *phrase)
{
  g_auto(GStrv) words = NULL;
  g_autoptr(GString) key = g_string_new (NULL);
  guint position;

  g_assert (SJ_IS_KNOWLEDGE_CONCEPTS (self));

  words = g_strsplit (phrase, " ", SJ_KNOWLEDGE_CONCEPTS_MAX_WORDS + 1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *stem = sj_knowledge_concepts_stem (words[i]);

      if (is_glue (stem) && words[1] != NULL)
        continue;
      g_string_append_printf (key, "%s%s", key->len > 0 ? " " : "", stem);
    }

  position = GPOINTER_TO_UINT (g_hash_table_lookup (self->by_key, key->str));
  return position > 0 ? &g_array_index (self->concepts, SjKnowledgeConcept, position - 1) : NULL;
}

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const SjKnowledgeConceptMatch *ma = a;
  const SjKnowledgeConceptMatch *mb = b;

  return ma->first < mb->first ? -1 : ma->first > mb->first;
}

/**
 * sj_knowledge_concepts_find:
 * @words: (element-type utf8): the words of a query in order, any case
 *
 * Finds the concepts among @words, longest phrase first: "low pass
 * filter" is one concept, not "low pass" and "filter".
 *
 * Returns: (transfer full): #SjKnowledgeConceptMatch in query order
 */
GArray *
sj_knowledge_concepts_find (SjKnowledgeConcepts *self,
                            GPtrArray           *words)
{
  GArray *matches = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeConceptMatch));
  g_autoptr(GPtrArray) stems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) positions = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *taken = NULL;

  g_assert (SJ_IS_KNOWLEDGE_CONCEPTS (self));

  for (guint i = 0; i < words->len; i++)
    {
      char *stem = sj_knowledge_concepts_stem (g_ptr_array_index (words, i));

      if (is_glue (stem))
        {
          g_free (stem);
          continue;
        }
      g_ptr_array_add (stems, stem);
      g_array_append_val (positions, i);
    }

  /* Longest phrases first wherever they start, then left to right: in
   * "pick random pattern each cycle", "random pattern each cycle" wins
   * over "pick random". */
  taken = g_new0 (gboolean, stems->len + 1);
  for (guint n = MIN (SJ_KNOWLEDGE_CONCEPTS_MAX_WORDS, stems->len); n > 0; n--)
    for (guint i = 0; i + n <= stems->len; i++)
      {
        g_autoptr(GString) key = g_string_new (NULL);
        gboolean free_span = TRUE;
        guint position;

        for (guint w = 0; w < n && free_span; w++)
          free_span = !taken[i + w];
        if (!free_span)
          continue;

        for (guint w = 0; w < n; w++)
          g_string_append_printf (key, "%s%s", w > 0 ? " " : "", (char *)g_ptr_array_index (stems, i + w));

        position = GPOINTER_TO_UINT (g_hash_table_lookup (self->by_key, key->str));
        if (position > 0)
          {
            guint first = g_array_index (positions, guint, i);
            guint last = g_array_index (positions, guint, i + n - 1);
            SjKnowledgeConceptMatch match = {
              &g_array_index (self->concepts, SjKnowledgeConcept, position - 1), first, last - first + 1,
            };

            g_array_append_val (matches, match);
            for (guint w = 0; w < n; w++)
              taken[i + w] = TRUE;
          }
      }

  g_array_sort (matches, compare_matches);
  return matches;
}
