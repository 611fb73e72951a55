/* sj-knowledge-suggest.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Suggestions for a name that does not exist, and only ever real names:
 * first what it means (the concept vocabulary, over the name and the words
 * hidden in it: "superreverb" holds "reverb", so room), then what is
 * spelled like it (a few typos, a real name inside it, a longer name
 * starting with it), then the functions whose documentation is most about
 * the words hidden in it (BM25).
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-private.h"

void
_sj_knowledge_add_suggestion (GPtrArray  *suggestions,
                const char *name,
                guint       max)
{
  if (suggestions->len >= max)
    return;
  for (guint i = 0; i < suggestions->len; i++)
    if (g_str_equal (g_ptr_array_index (suggestions, i), name))
      return;
  g_ptr_array_add (suggestions, g_strdup (name));
}

typedef struct
{
  const char *name;
  guint       score;
} Candidate;

static int
compare_candidates (gconstpointer a,
                    gconstpointer b)
{
  const Candidate *ca = a;
  const Candidate *cb = b;

  if (ca->score != cb->score)
    return ca->score < cb->score ? -1 : 1;
  return strcmp (ca->name, cb->name);
}

static void
consider (GArray     *candidates,
          const char *term_lower,
          gsize       term_len,
          const char *name,
          const char *name_lower,
          gsize       name_len)
{
  guint limit = MAX (2, term_len / 3);
  Candidate candidate = { name, G_MAXUINT };
  guint distance = sj_fuzzy_distance (term_lower, term_len, name_lower, name_len, limit);

  if (distance <= limit)
    candidate.score = distance * 10;
  else if (name_len >= 3 && term_len > name_len && strstr (term_lower, name_lower) != NULL)
    /* A real name inside the term: "gate" in "trancegate". */
    candidate.score = 15 + (term_len - name_len);
  else if (term_len >= 3 && name_len > term_len && strncmp (name_lower, term_lower, term_len) == 0)
    candidate.score = 12 + (name_len - term_len);

  if (candidate.score != G_MAXUINT)
    g_array_append_val (candidates, candidate);
}

/* The callable functions whose documentation is most about @word, best
 * two. */
static void
suggest_described (SjKnowledge *self,
                   const char  *word,
                   GPtrArray   *suggestions,
                   guint        max)
{
  g_autoptr(GPtrArray) words = g_ptr_array_new ();
  guint n_entries = sj_reference_index_get_n_entries (self->reference);
  g_autofree float *scores = g_new0 (float, n_entries + 1);
  SjReferenceBm25 *bm25 = _sj_knowledge_get_bm25 (self);

  g_ptr_array_add (words, (gpointer)word);
  if (!sj_reference_bm25_score (bm25, words, scores))
    return;

  for (guint round = 0; round < 2; round++)
    {
      int best = -1;

      for (guint i = 0; i < n_entries; i++)
        {
          const SjReferenceEntry *entry = sj_reference_index_get_entry (self->reference, i);

          if (scores[i] > 0 && entry->callable && g_ascii_islower (entry->name[0]) &&
              (best < 0 || scores[i] > scores[best]))
            best = i;
        }
      if (best < 0)
        return;
      _sj_knowledge_add_suggestion (suggestions, sj_reference_index_get_entry (self->reference, best)->name, max);
      scores[best] = 0;
    }
}

/* Whether @name is real in @domain: a callable documented function, a
 * sound or a bank. */
static gboolean
is_real (SjKnowledge       *self,
         const char        *name,
         SjKnowledgeDomain  domain)
{
  if (domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS)
    {
      const SjReferenceEntry *entry = sj_reference_index_lookup (self->reference, name, NULL);

      if (entry != NULL && entry->callable && g_str_equal (entry->name, name))
        return TRUE;
    }
  if (domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE)
    return sj_sounds_index_lookup (self->sounds, name) != NULL ||
           sj_sounds_index_lookup_bank (self->sounds, name) != NULL;
  return FALSE;
}

static void
add_concept (SjKnowledge              *self,
             const SjKnowledgeConcept *concept,
             SjKnowledgeDomain         domain,
             GPtrArray                *suggestions,
             guint                     max)
{
  for (guint n = 0; concept != NULL && concept->names[n] != NULL; n++)
    if (is_real (self, concept->names[n], domain))
      _sj_knowledge_add_suggestion (suggestions, concept->names[n], max);
}

/* What the term means: its own concept, else the concepts of the longest
 * words hidden in it ("wobble" in "wobblebass"). */
static void
suggest_meanings (SjKnowledge       *self,
                  const char        *lower,
                  SjKnowledgeDomain  domain,
                  GPtrArray         *suggestions,
                  guint              max)
{
  SjKnowledgeConcepts *concepts = _sj_knowledge_get_concepts (self);
  const SjKnowledgeConcept *concept;
  gsize len = strlen (lower);

  if ((concept = sj_knowledge_concepts_lookup (concepts, lower)) != NULL)
    {
      add_concept (self, concept, domain, suggestions, max);
      return;
    }

  for (gsize width = len > 0 ? len - 1 : 0; width >= 4; width--)
    {
      gboolean found = FALSE;

      for (gsize start = 0; start + width <= len; start++)
        {
          g_autofree char *word = g_strndup (lower + start, width);

          if ((concept = sj_knowledge_concepts_lookup (concepts, word)) != NULL && concept->n_words == 1)
            {
              add_concept (self, concept, domain, suggestions, max);
              found = TRUE;
            }
        }
      if (found)
        return;
    }
}

/**
 * sj_knowledge_suggest:
 * @term: an unknown name
 *
 * Returns: (transfer full): up to @max real names close to @term: within
 *   a few typos, contained in it, or starting with it; callable names only
 *   for the reference.
 */
char **
sj_knowledge_suggest (SjKnowledge       *self,
                      const char        *term,
                      SjKnowledgeDomain  domain,
                      guint              max)
{
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_autoptr(GPtrArray) suggestions = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *lower = g_ascii_strdown (term, MIN (strlen (term), SJ_FUZZY_MAX_TERM));
  gsize len = strlen (lower);

  g_assert (SJ_IS_KNOWLEDGE (self));

  suggest_meanings (self, lower, domain, suggestions, max);

  if (domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS)
    {
      const SjReferenceKey *keys;
      guint n_keys;

      keys = sj_reference_index_get_keys (sj_knowledge_get_reference (self), &n_keys);
      for (guint i = 0; i < n_keys; i++)
        {
          const SjReferenceEntry *entry = sj_reference_index_get_entry (sj_knowledge_get_reference (self), keys[i].entry);
          const char *name = entry->name;

          if (!keys[i].callable)
            continue;
          for (guint s = 0; keys[i].is_synonym && entry->synonyms[s] != NULL; s++)
            if (g_ascii_strcasecmp (entry->synonyms[s], keys[i].lower) == 0)
              name = entry->synonyms[s];
          consider (candidates, lower, len, name, keys[i].lower, keys[i].len);
        }
    }

  if (domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE)
    {
      for (guint i = 0; i < sj_sounds_index_get_n_sounds (sj_knowledge_get_sounds (self)); i++)
        {
          const SjSound *sound = sj_sounds_index_get_sound (sj_knowledge_get_sounds (self), i);

          if (sound->name[0] != '_')
            consider (candidates, lower, len, sound->name, sound->lower, sound->len);
        }
      for (guint i = 0; i < sj_sounds_index_get_n_banks (sj_knowledge_get_sounds (self)); i++)
        {
          const SjSoundBank *bank = sj_sounds_index_get_bank (sj_knowledge_get_sounds (self), i);

          consider (candidates, lower, len, bank->name, bank->lower, bank->len);
        }
    }

  g_array_sort (candidates, compare_candidates);
  for (guint i = 0; i < candidates->len; i++)
    {
      const Candidate *candidate = &g_array_index (candidates, Candidate, i);

      /* The term itself, spelled the same way, is no suggestion. */
      if (strcmp (candidate->name, term) != 0)
        _sj_knowledge_add_suggestion (suggestions, candidate->name, max);
    }

  /* Still short of ideas: the functions whose documentation is most about
   * the words hidden in the term, longest words first ("gate" in
   * "trancegate"). */
  for (gsize width = len; domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS && width >= 4 &&
                          suggestions->len < max; width--)
    for (gsize start = 0; start + width <= len && suggestions->len < max; start++)
      {
        g_autofree char *word = g_strndup (lower + start, width);

        if (sj_reference_index_lookup_word (sj_knowledge_get_reference (self), word) != NULL)
          suggest_described (self, word, suggestions, max);
      }

  g_ptr_array_add (suggestions, NULL);
  return (char **)g_ptr_array_free (g_steal_pointer (&suggestions), FALSE);
}

