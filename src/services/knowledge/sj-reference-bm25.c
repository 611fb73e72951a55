/* sj-reference-bm25.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Okapi BM25 over the reference: each entry is a document made of its name
 * (split at capitals: "euclidLegatoRot" also says euclid, legato, rot),
 * synonyms, tags, description and parameter docs, the names weighing more
 * than the prose.  A word that many entries use ("pattern", "value") counts
 * little, a rare one ("resonance", "integer") a lot: that is what lets a
 * phrase find the entry that is about it rather than the first entry that
 * mentions one of its words.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-knowledge-concepts.h"
#include "sj-reference-bm25.h"

#define K1 1.2
#define B  0.75

#define WEIGHT_NAME        3.0f
#define WEIGHT_SYNONYM     2.0f
#define WEIGHT_TAG         2.0f
#define WEIGHT_DESCRIPTION 1.0f
#define WEIGHT_PARAM       0.5f

typedef struct
{
  guint doc;
  float tf;   /* weighted count */
} Posting;

struct _SjReferenceBm25
{
  guint       n_docs;
  float      *lengths;   /* weighted length per document */
  double      average;
  GHashTable *postings;  /* stem → GArray of Posting, by document */
};

/* Words too common in any text to say anything. */
static const char * const stop_words[] = {
  "a", "an", "the", "of", "to", "and", "or", "is", "in", "on", "for", "with",
  "by", "it", "be", "as", "at", "this", "that", "from", "are", "will", "can",
  "if", "its", "e", "g", "i", "you", "your", "which", "when", "then", "than",
  "so", "not", "but", "also", "all", "any", "some", "one", "use", "used",
};

static gboolean
is_stop_word (const char *word)
{
  for (guint i = 0; i < G_N_ELEMENTS (stop_words); i++)
    if (g_str_equal (word, stop_words[i]))
      return TRUE;
  return FALSE;
}

static void
add_token (SjReferenceBm25 *self,
           GHashTable      *counts,
           const char      *start,
           gsize            len,
           float            weight,
           guint            doc)
{
  g_autofree char *word = NULL;
  g_autofree char *stem = NULL;
  float *count;

  if (len < 2 || len > 32)
    return;
  word = g_strndup (start, len);
  stem = sj_knowledge_concepts_stem (word);
  if (is_stop_word (stem))
    return;

  count = g_hash_table_lookup (counts, stem);
  if (count == NULL)
    {
      count = g_new0 (float, 1);
      g_hash_table_insert (counts, g_steal_pointer (&stem), count);
    }
  *count += weight;
  self->lengths[doc] += weight;
}

/* Adds the words of @text; with @split_camel, a name's parts as well as
 * the name itself. */
static void
add_text (SjReferenceBm25 *self,
          GHashTable      *counts,
          const char      *text,
          float            weight,
          gboolean         split_camel,
          guint            doc)
{
  const char *p = text;

  if (text == NULL)
    return;

  while (*p != '\0')
    {
      const char *start;

      while (*p != '\0' && !g_ascii_isalnum (*p))
        p++;
      start = p;
      while (g_ascii_isalnum (*p))
        p++;
      if (p == start)
        continue;

      add_token (self, counts, start, p - start, weight, doc);

      if (split_camel)
        {
          const char *part = start;

          for (const char *q = start + 1; q <= p; q++)
            if (q == p || g_ascii_isupper (*q) || (g_ascii_isdigit (*q) && !g_ascii_isdigit (q[-1])))
              {
                if (part != start || q != p)
                  add_token (self, counts, part, q - part, weight * 0.5f, doc);
                part = q;
              }
        }
    }
}

SjReferenceBm25 *
sj_reference_bm25_new (SjReferenceIndex *index)
{
  SjReferenceBm25 *self = g_new0 (SjReferenceBm25, 1);
  double total = 0;

  g_assert (SJ_IS_REFERENCE_INDEX (index));

  self->n_docs = sj_reference_index_get_n_entries (index);
  self->lengths = g_new0 (float, self->n_docs + 1);
  self->postings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);

  for (guint d = 0; d < self->n_docs; d++)
    {
      const SjReferenceEntry *entry = sj_reference_index_get_entry (index, d);
      g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      GHashTableIter iter;
      gpointer key, value;

      add_text (self, counts, entry->name, WEIGHT_NAME, TRUE, d);
      for (guint i = 0; entry->synonyms[i] != NULL; i++)
        add_text (self, counts, entry->synonyms[i], WEIGHT_SYNONYM, TRUE, d);
      for (guint i = 0; entry->tags[i] != NULL; i++)
        add_text (self, counts, entry->tags[i], WEIGHT_TAG, FALSE, d);
      add_text (self, counts, entry->description, WEIGHT_DESCRIPTION, FALSE, d);
      for (guint i = 0; i < entry->params->len; i++)
        {
          const SjReferenceParam *param = g_ptr_array_index (entry->params, i);

          add_text (self, counts, param->description, WEIGHT_PARAM, FALSE, d);
        }

      g_hash_table_iter_init (&iter, counts);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          GArray *list = g_hash_table_lookup (self->postings, key);
          Posting posting = { d, *(float *)value };

          if (list == NULL)
            {
              list = g_array_new (FALSE, FALSE, sizeof (Posting));
              g_hash_table_insert (self->postings, g_strdup (key), list);
            }
          g_array_append_val (list, posting);
        }

      total += self->lengths[d];
    }

  self->average = self->n_docs > 0 ? MAX (total / self->n_docs, 1.0) : 1.0;
  return self;
}

void
sj_reference_bm25_free (SjReferenceBm25 *self)
{
  if (self == NULL)
    return;

  g_hash_table_unref (self->postings);
  g_free (self->lengths);
  g_free (self);
}

static double
idf_of (SjReferenceBm25 *self,
        GArray          *list)
{
  double df = list != NULL ? list->len : 0;

  return log (1.0 + (self->n_docs - df + 0.5) / (df + 0.5));
}

/**
 * sj_reference_bm25_idf:
 *
 * How rare @word is in the reference: high for a word few entries use.
 */
double
sj_reference_bm25_idf (SjReferenceBm25 *self,
                       const char      *word)
{
  g_autofree char *stem = sj_knowledge_concepts_stem (word);

  return idf_of (self, g_hash_table_lookup (self->postings, stem));
}

/**
 * sj_reference_bm25_score:
 * @words: (element-type utf8): the query's content words
 * @scores: (out caller-allocates): one score per entry
 *
 * Returns: whether any entry scored above zero
 */
gboolean
sj_reference_bm25_score (SjReferenceBm25 *self,
                         GPtrArray       *words,
                         float           *scores)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean any = FALSE;

  memset (scores, 0, sizeof (float) * self->n_docs);

  for (guint w = 0; w < words->len; w++)
    {
      char *stem = sj_knowledge_concepts_stem (g_ptr_array_index (words, w));
      GArray *list;
      double idf;

      if (!g_hash_table_add (seen, stem) || is_stop_word (stem) ||
          (list = g_hash_table_lookup (self->postings, stem)) == NULL)
        continue;

      idf = idf_of (self, list);
      for (guint i = 0; i < list->len; i++)
        {
          const Posting *posting = &g_array_index (list, Posting, i);
          double norm = K1 * (1.0 - B + B * self->lengths[posting->doc] / self->average);

          scores[posting->doc] += idf * posting->tf * (K1 + 1.0) / (posting->tf + norm);
          any = TRUE;
        }
    }

  return any;
}
