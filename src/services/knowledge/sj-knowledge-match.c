/* sj-knowledge-match.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The matching behind strudel_knowledge and the Reference and Sounds
 * pages: query terms against the reference's names and synonyms, the
 * sounds and their banks, the phrases of the concept vocabulary and the
 * descriptions; ranked exact name, exact synonym, concept, prefix,
 * spelling mistake, part of a name, description (BM25).  A phrase of the
 * vocabulary hides the names of its own words: "low pass filter" is lpf,
 * not filter.  Every name ranked comes from the indexes.
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-private.h"

static const char *
hit_name (SjKnowledge          *self,
          const SjKnowledgeHit *hit)
{
  switch (hit->kind)
    {
    case SJ_KNOWLEDGE_HIT_FUNCTION:
      return sj_reference_index_get_entry (sj_knowledge_get_reference (self), hit->index)->name;
    case SJ_KNOWLEDGE_HIT_SOUND:
      return sj_sounds_index_get_sound (sj_knowledge_get_sounds (self), hit->index)->name;
    case SJ_KNOWLEDGE_HIT_BANK:
    default:
      return sj_sounds_index_get_bank (sj_knowledge_get_sounds (self), hit->index)->name;
    }
}

static gboolean
hit_is_alias (SjKnowledge          *self,
              const SjKnowledgeHit *hit)
{
  switch (hit->kind)
    {
    case SJ_KNOWLEDGE_HIT_SOUND:
      return sj_sounds_index_get_sound (sj_knowledge_get_sounds (self), hit->index)->alias;
    case SJ_KNOWLEDGE_HIT_BANK:
      return sj_sounds_index_get_bank (sj_knowledge_get_sounds (self), hit->index)->alias;
    case SJ_KNOWLEDGE_HIT_FUNCTION:
    default:
      return FALSE;
    }
}

static int
compare_hits (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  SjKnowledge *self = user_data;
  const SjKnowledgeHit *ha = a;
  const SjKnowledgeHit *hb = b;
  const char *na, *nb;
  gsize la, lb;

  if (ha->match != hb->match)
    return (int)ha->match - (int)hb->match;
  /* Descriptions rank by relevance; names by their typos, then by how
   * much of the whole query their documentation is about. */
  if (ha->match == SJ_MATCH_TEXT && ha->score != hb->score)
    return ha->score > hb->score ? -1 : 1;
  if (ha->distance != hb->distance)
    return ha->distance < hb->distance ? -1 : 1;
  if (ha->score != hb->score)
    return ha->score > hb->score ? -1 : 1;
  /* A bank groups its sounds: it comes before them on a tie. */
  if ((ha->kind == SJ_KNOWLEDGE_HIT_BANK) != (hb->kind == SJ_KNOWLEDGE_HIT_BANK))
    return ha->kind == SJ_KNOWLEDGE_HIT_BANK ? -1 : 1;

  /* A drum machine's own name before its alias ("rolandtr808" before
   * "tr808"): they are the same sounds. */
  if (hit_is_alias (self, ha) != hit_is_alias (self, hb))
    return hit_is_alias (self, ha) ? 1 : -1;

  na = hit_name (self, ha);
  nb = hit_name (self, hb);
  la = strlen (na);
  lb = strlen (nb);
  if (la != lb)
    return la < lb ? -1 : 1;
  return strcmp (na, nb);
}

void
_sj_knowledge_sort_hits (SjKnowledge *self,
                         GArray      *hits)
{
  g_array_sort_with_data (hits, compare_hits, self);
}

gboolean
_sj_knowledge_better (const SjKnowledgeHit *a,
        const SjKnowledgeHit *b)
{
  if (a->match != b->match)
    return a->match < b->match;
  return a->distance < b->distance;
}

void
_sj_knowledge_match_dispose (SjKnowledge *self)
{
  self->bm25 = NULL;  /* the reference's */
  g_clear_pointer (&self->entry_positions, g_hash_table_unref);
  g_clear_object (&self->concepts);
}

SjKnowledgeConcepts *
_sj_knowledge_get_concepts (SjKnowledge *self)
{
  if (self->concepts == NULL)
    self->concepts = g_object_ref (sj_knowledge_concepts_get_bundled ());
  return self->concepts;
}

/* The index belongs with the reference it is built from (4 to 8 ms): every
 * SjKnowledge over the same reference shares it. */
SjReferenceBm25 *
_sj_knowledge_get_bm25 (SjKnowledge *self)
{
  if (self->bm25 == NULL)
    {
      self->bm25 = g_object_get_data (G_OBJECT (self->reference), "sj-knowledge-bm25");
      if (self->bm25 == NULL)
        {
          self->bm25 = sj_reference_bm25_new (self->reference);
          g_object_set_data_full (G_OBJECT (self->reference), "sj-knowledge-bm25", self->bm25,
                                  (GDestroyNotify)sj_reference_bm25_free);
        }
    }
  return self->bm25;
}

/* The position of the entry named exactly @name, or -1. */
static int
entry_position (SjKnowledge *self,
                const char  *name)
{
  if (self->entry_positions == NULL)
    {
      self->entry_positions = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < sj_reference_index_get_n_entries (self->reference); i++)
        g_hash_table_insert (self->entry_positions,
                             sj_reference_index_get_entry (self->reference, i)->name,
                             GUINT_TO_POINTER (i + 1));
    }

  return (int)GPOINTER_TO_UINT (g_hash_table_lookup (self->entry_positions, name)) - 1;
}

/**
 * _sj_knowledge_find_concepts:
 *
 * Returns: (transfer full): the #SjKnowledgeConceptMatch of the query's
 *   words
 */
GArray *
_sj_knowledge_find_concepts (SjKnowledge      *self,
                             SjKnowledgeQuery *query)
{
  return sj_knowledge_concepts_find (_sj_knowledge_get_concepts (self), query->words);
}

/* Finds @term_lower as the start of a word of @text; returns its offset
 * or -1. */
static gssize
find_word (const char *text,
           const char *term_lower)
{
  for (const char *p = strstr (text, term_lower); p != NULL; p = strstr (p + 1, term_lower))
    if (p == text || !g_ascii_isalnum (p[-1]))
      return p - text;
  return -1;
}

/* The IDF of a word no entry uses: BM25 knows nothing of it. */
#define MAX_IDF 6.0

/* The distance of the @n-th name of @concept: longer phrases say more
 * ("pitch shift" before "sample"), then the vocabulary's order. */
guint
_sj_knowledge_concept_rank (const SjKnowledgeConcept *concept,
              guint                     n)
{
  return n + 10 * (SJ_KNOWLEDGE_CONCEPTS_MAX_WORDS - MIN (concept->n_words, SJ_KNOWLEDGE_CONCEPTS_MAX_WORDS));
}

gboolean
_sj_knowledge_has_phrase (GArray *concepts)
{
  for (guint c = 0; c < concepts->len; c++)
    if (g_array_index (concepts, SjKnowledgeConceptMatch, c).concept->n_words >= 2)
      return TRUE;
  return FALSE;
}

/* Offers @hit for an item already found as @existing: the better stays,
 * and a concept naming an exact name is remembered. */
void
_sj_knowledge_offer_again (SjKnowledgeHit       *existing,
                           const SjKnowledgeHit *hit)
{
  gboolean in_phrase = existing->in_phrase || hit->in_phrase ||
                       existing->match == SJ_MATCH_CONCEPT || hit->match == SJ_MATCH_CONCEPT;

  if (_sj_knowledge_better (hit, existing))
    *existing = *hit;
  existing->in_phrase = in_phrase;
}

/* Exact names and synonyms rank as concepts: first when a phrase of the
 * query names them too ("sometimes apply a function"), else after every
 * phrase's names (whose distances stay under 40). */
void
_sj_knowledge_after_phrases (GArray *hits)
{
  for (guint i = 0; i < hits->len; i++)
    {
      SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i);

      if (hit->match <= SJ_MATCH_SYNONYM)
        {
          hit->distance = (hit->in_phrase ? 0 : 50) + hit->distance + (hit->match == SJ_MATCH_SYNONYM);
          hit->match = SJ_MATCH_CONCEPT;
        }
    }
}

/* Below this IDF a word is used by more than about one entry in fifty. */
#define COMMON_WORD_IDF 3.9

/* In a phrase, a plain word that many descriptions use ("apply", "time",
 * "sound") is English before it is a name. */
gboolean
_sj_knowledge_is_common_word (SjKnowledge *self,
                const char  *term)
{
  return sj_reference_bm25_idf (_sj_knowledge_get_bm25 (self), term) < COMMON_WORD_IDF;
}

/* Whether the documentation uses @term as a word at all. */
gboolean
_sj_knowledge_is_known_word (SjKnowledge *self,
                             const char  *term)
{
  return sj_reference_bm25_idf (_sj_knowledge_get_bm25 (self), term) < MAX_IDF;
}

/* Whether @term is one of the words of a phrase of two words or more that
 * the vocabulary knows: its own name matches then say nothing. */
gboolean
_sj_knowledge_covered (SjKnowledgeQuery *query,
         GArray           *concepts,
         const char       *term)
{
  for (guint c = 0; c < concepts->len; c++)
    {
      const SjKnowledgeConceptMatch *match = &g_array_index (concepts, SjKnowledgeConceptMatch, c);

      if (match->n_words < 2)
        continue;
      for (guint w = match->first; w < match->first + match->n_words && w < query->words->len; w++)
        if (g_ascii_strcasecmp (g_ptr_array_index (query->words, w), term) == 0)
          return TRUE;
    }
  return FALSE;
}

/* Keeps the best hit per item: @slots maps an item to its position in
 * @hits plus one. */
void
_sj_knowledge_offer (GArray               *hits,
                     guint                *slots,
                     const SjKnowledgeHit *hit)
{
  guint slot = slots[hit->index];

  if (slot == 0)
    {
      g_array_append_val (hits, *hit);
      slots[hit->index] = hits->len;
    }
  else
    _sj_knowledge_offer_again (&g_array_index (hits, SjKnowledgeHit, slot - 1), hit);
}

static void
match_reference_term (SjKnowledge *self,
                      const char  *term,
                      gboolean     include_uncallable,
                      gboolean     phrase,
                      GArray      *hits,
                      guint       *slots)
{
  gboolean common = phrase && _sj_knowledge_is_common_word (self, term);
  gboolean word = phrase && _sj_knowledge_is_known_word (self, term);

  g_autofree char *lower = g_ascii_strdown (term, -1);
  gsize len = strlen (lower);
  guint64 mask = sj_fuzzy_mask (lower, len);
  const SjReferenceKey *keys;
  guint n_keys;

  keys = sj_reference_index_get_keys (sj_knowledge_get_reference (self), &n_keys);

  for (guint i = 0; i < n_keys; i++)
    {
      const SjReferenceEntry *entry = sj_reference_index_get_entry (sj_knowledge_get_reference (self), keys[i].entry);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, keys[i].entry, SJ_MATCH_NONE, 0, 0, term, NULL, 0 };

      if (!include_uncallable && !keys[i].callable)
        continue;

      hit.match = sj_fuzzy_match_name (lower, len, mask, keys[i].lower, keys[i].len, keys[i].mask, &hit.distance);
      if (hit.match == SJ_MATCH_NONE)
        continue;
      /* In a phrase, a word the documentation uses ("long") is that word,
       * not a typo of a name ("log"). */
      if (word && hit.match == SJ_MATCH_FUZZY && g_ascii_strcasecmp (keys[i].lower, lower) != 0)
        continue;

      if (keys[i].is_synonym)
        {
          for (guint s = 0; entry->synonyms[s] != NULL && hit.matched == NULL; s++)
            if (g_ascii_strcasecmp (entry->synonyms[s], keys[i].lower) == 0)
              hit.matched = entry->synonyms[s];
        }
      else
        hit.matched = entry->name;

      if (hit.match == SJ_MATCH_EXACT)
        {
          /* JavaScript names are case-sensitive: "euclidrot" is not
           * "euclidRot", however close. */
          if (hit.matched != NULL && strcmp (hit.matched, term) != 0)
            {
              hit.match = SJ_MATCH_FUZZY;
              hit.case_only = TRUE;
            }
          else if (keys[i].is_synonym)
            hit.match = SJ_MATCH_SYNONYM;
        }
      else if (keys[i].is_synonym && hit.match > SJ_MATCH_PREFIX)
        /* A fuzzy synonym ranks after a fuzzy name with the same typos. */
        hit.distance++;

      /* Its name then ranks by relevance, with the descriptions. */
      if (common)
        {
          hit.match = SJ_MATCH_TEXT;
          hit.term = NULL;
        }

      _sj_knowledge_offer (hits, slots, &hit);
    }

}

/**
 * sj_knowledge_search_reference:
 * @text: words to look for, as typed in a search entry
 *
 * Returns: (transfer full): the matching entries as ranked
 *   #SjKnowledgeHit, best first
 */
GArray *
sj_knowledge_search_reference (SjKnowledge *self,
                               const char  *text,
                               gboolean     include_uncallable)
{
  g_autoptr(SjKnowledgeQuery) query = NULL;
  g_autoptr(GArray) concepts = NULL;
  GArray *hits;

  g_assert (SJ_IS_KNOWLEDGE (self));

  query = sj_knowledge_query_parse (text, SJ_KNOWLEDGE_DOMAIN_REFERENCE, SJ_KNOWLEDGE_MODE_SEARCH);
  concepts = _sj_knowledge_find_concepts (self, query);
  hits = _sj_knowledge_match_reference (self, query, concepts, include_uncallable);

  /* The terms die with the query: the hits must not point at them. */
  for (guint i = 0; i < hits->len; i++)
    g_array_index (hits, SjKnowledgeHit, i).term = NULL;

  return hits;
}

/* Among functions found only through their descriptions, the head of a
 * family comes before its members: "reverb" finds room, roomlp, roomdim
 * and roomfade, and room is the one to start with. */
static void
demote_family_members (SjKnowledge *self,
                       GArray      *hits,
                       guint       *slots)
{
  for (guint i = 0; i < hits->len; i++)
    {
      SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i);
      const char *name;
      gsize len;

      if (hit->match != SJ_MATCH_TEXT)
        continue;
      name = sj_reference_index_get_entry (self->reference, hit->index)->name;
      len = strlen (name);

      for (gsize head_len = 2; head_len < len && head_len <= 32; head_len++)
        {
          char head[33];
          int head_position;

          memcpy (head, name, head_len);
          head[head_len] = '\0';
          head_position = entry_position (self, head);
          if (head_position >= 0 && slots[head_position] != 0 &&
              g_array_index (hits, SjKnowledgeHit, slots[head_position] - 1).match == SJ_MATCH_TEXT)
            {
              hit->score *= 0.8f;
              break;
            }
        }
    }
}

/* Classes, pattern internals and names written like classes are real, but
 * never what a phrase asks for: they go to the end unless named exactly. */
static gboolean
is_internal (SjKnowledge            *self,
             const SjReferenceEntry *entry)
{
  return g_ascii_isupper (entry->name[0]) ||
         sj_knowledge_concepts_is_internal (_sj_knowledge_get_concepts (self), entry->name);
}

/**
 * _sj_knowledge_match_reference:
 * @concepts: the query's #SjKnowledgeConceptMatch
 * @include_uncallable: also what the bundled runtime lacks (the Reference
 *   page shows it, marked)
 *
 * Returns: (transfer full): ranked #SjKnowledgeHit of reference entries
 */
GArray *
_sj_knowledge_match_reference (SjKnowledge      *self,
                               SjKnowledgeQuery *query,
                               GArray           *concepts,
                               gboolean          include_uncallable)
{
  guint n_entries = sj_reference_index_get_n_entries (self->reference);
  g_autofree guint *slots = g_new0 (guint, n_entries + 1);
  g_autofree float *scores = g_new0 (float, n_entries + 1);
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

  for (guint i = 0; i < query->terms->len; i++)
    if (!_sj_knowledge_covered (query, concepts, g_ptr_array_index (query->terms, i)))
      match_reference_term (self, g_ptr_array_index (query->terms, i), include_uncallable,
                            query->terms->len >= 2, hits, slots);

  for (guint c = 0; c < concepts->len; c++)
    {
      const SjKnowledgeConcept *concept = g_array_index (concepts, SjKnowledgeConceptMatch, c).concept;

      for (guint n = 0; concept->names[n] != NULL; n++)
        {
          int position = entry_position (self, concept->names[n]);
          SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, 0, SJ_MATCH_CONCEPT, _sj_knowledge_concept_rank (concept, n), 0, NULL, NULL, 0 };

          if (position < 0)
            continue;
          hit.index = position;
          hit.matched = sj_reference_index_get_entry (self->reference, position)->name;
          if (include_uncallable || sj_reference_index_get_entry (self->reference, position)->callable)
            _sj_knowledge_offer (hits, slots, &hit);
        }
    }

  /* The descriptions, by relevance to all the content words at once. */
  if (sj_reference_bm25_score (_sj_knowledge_get_bm25 (self), query->terms, scores))
    for (guint i = 0; i < n_entries; i++)
      {
        const SjReferenceEntry *entry = sj_reference_index_get_entry (self->reference, i);
        SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, i, SJ_MATCH_TEXT, 0, 0, NULL, entry->name, 0 };

        if (scores[i] <= 0 || slots[i] != 0 || (!include_uncallable && !entry->callable))
          continue;
        _sj_knowledge_offer (hits, slots, &hit);
      }

  /* A phrase of several words says more than a name among other words:
   * in "register a sound alias", soundAlias before register. */
  if (query->terms->len >= 2 && _sj_knowledge_has_phrase (concepts))
    _sj_knowledge_after_phrases (hits);

  /* A word the descriptions only start ("gen" for "generates"): where it
   * starts a word, the earlier the better, after every BM25 hit. */
  for (guint t = 0; t < query->terms->len; t++)
    {
      const char *term = g_ptr_array_index (query->terms, t);
      g_autofree char *lower = g_ascii_strdown (term, -1);

      if (strlen (lower) < 3 || sj_reference_bm25_idf (_sj_knowledge_get_bm25 (self), lower) < MAX_IDF)
        continue;
      for (guint i = 0; i < n_entries; i++)
        {
          const SjReferenceEntry *entry = sj_reference_index_get_entry (self->reference, i);
          SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, i, SJ_MATCH_TEXT, 0, 0, NULL, entry->name, 0 };
          gssize offset;

          if (slots[i] != 0 || (!include_uncallable && !entry->callable))
            continue;
          offset = find_word (sj_reference_index_get_text (self->reference, i), lower);
          if (offset < 0)
            continue;
          scores[i] = 0.01f / (1.0f + offset);
          _sj_knowledge_offer (hits, slots, &hit);
        }
    }

  for (guint i = 0; i < hits->len; i++)
    {
      SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i);

      hit->score = scores[hit->index];

      /* Alone, a prefix or a typo of an internal name is still that name
       * ("Patte", "withHp"); in a phrase it never comes first. */
      if (hit->match > SJ_MATCH_SYNONYM &&
          (query->terms->len >= 2 || hit->match == SJ_MATCH_CONCEPT || hit->match == SJ_MATCH_TEXT) &&
          is_internal (self, sj_reference_index_get_entry (self->reference, hit->index)))
        {
          hit->match = SJ_MATCH_TEXT;
          hit->score = -1;
        }
    }

  demote_family_members (self, hits, slots);
  _sj_knowledge_sort_hits (self, hits);
  return hits;
}
