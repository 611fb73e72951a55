/* sj-knowledge-match-sounds.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sounds side of the matching (sj-knowledge-match.c has the ranking
 * and the reference): query terms against the sounds and their banks, a
 * bank's own sound names ("bd" in "RolandTR808_bd"), and the sounds the
 * concept vocabulary names ("kick drum" is bd, "pink noise" the pink
 * synth).
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-private.h"

static void
match_sounds_term (SjKnowledge     *self,
                   const char      *term,
                   gboolean         any_category,
                   SjSoundCategory  category,
                   GArray          *hits,
                   guint           *slots,
                   guint           *bank_slots)
{
  g_autofree char *lower = g_ascii_strdown (term, -1);
  gsize len = strlen (lower);
  guint64 mask = sj_fuzzy_mask (lower, len);
  guint n_sounds = sj_sounds_index_get_n_sounds (sj_knowledge_get_sounds (self));
  guint n_banks = sj_sounds_index_get_n_banks (sj_knowledge_get_sounds (self));

  for (guint i = 0; i < n_sounds; i++)
    {
      const SjSound *sound = sj_sounds_index_get_sound (sj_knowledge_get_sounds (self), i);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_SOUND, i, SJ_MATCH_NONE, 0, 0, term, sound->name, 0 };

      if ((sound->categories & (1u << (any_category ? SJ_SOUND_CATEGORY_ALL : category))) == 0)
        continue;

      /* Sound names ignore case (superdough lower-cases them). */
      hit.match = sj_fuzzy_match_name (lower, len, mask, sound->lower, sound->len, sound->mask, &hit.distance);

      /* "bd" in a bank ("RolandTR808_bd") is what s("bd").bank(…) plays. */
      if (hit.match > SJ_MATCH_SUBSTRING && sound->bank_sound != NULL &&
          strcmp (sound->lower + sound->len - strlen (sound->bank_sound), lower) == 0)
        hit.match = SJ_MATCH_SUBSTRING;

      if (hit.match != SJ_MATCH_NONE)
        _sj_knowledge_offer (hits, slots, &hit);
    }

  for (guint i = 0; i < n_banks; i++)
    {
      const SjSoundBank *bank = sj_sounds_index_get_bank (sj_knowledge_get_sounds (self), i);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_BANK, i, SJ_MATCH_NONE, 0, 0, term, bank->name, 0 };
      gboolean member_in_category = any_category;

      for (guint s = 0; s < bank->sounds->len && !member_in_category; s++)
        member_in_category = sj_sound_in_category (g_ptr_array_index (bank->sounds, s), category);
      if (!member_in_category)
        continue;

      hit.match = sj_fuzzy_match_name (lower, len, mask, bank->lower, bank->len, bank->mask, &hit.distance);
      if (hit.match == SJ_MATCH_NONE)
        continue;

      /* Banks and sounds share the result list; their slots are apart. */
      if (bank_slots[i] == 0)
        {
          g_array_append_val (hits, hit);
          bank_slots[i] = hits->len;
        }
      else if (_sj_knowledge_better (&hit, &g_array_index (hits, SjKnowledgeHit, bank_slots[i] - 1)))
        g_array_index (hits, SjKnowledgeHit, bank_slots[i] - 1) = hit;
    }
}

/* Offers sound @name (or the bank of that name) as the @rank-th meaning of
 * a concept. */
static void
offer_concept_sound (SjKnowledge     *self,
                     const char      *name,
                     guint            rank,
                     GArray          *hits,
                     guint           *slots,
                     guint           *bank_slots)
{
  const SjSound *sound = sj_sounds_index_lookup (self->sounds, name);
  const SjSoundBank *bank = sound == NULL ? sj_sounds_index_lookup_bank (self->sounds, name) : NULL;

  for (guint i = 0; sound != NULL && i < sj_sounds_index_get_n_sounds (self->sounds); i++)
    if (sj_sounds_index_get_sound (self->sounds, i) == sound)
      {
        SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_SOUND, i, SJ_MATCH_CONCEPT, rank, 0, NULL, sound->name, 0 };

        /* The phrase knows what it means: "steel drums" is the steel drums
         * even though "drums" asked for the drum machines. */
        _sj_knowledge_offer (hits, slots, &hit);
        return;
      }

  for (guint i = 0; bank != NULL && i < sj_sounds_index_get_n_banks (self->sounds); i++)
    if (sj_sounds_index_get_bank (self->sounds, i) == bank)
      {
        SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_BANK, i, SJ_MATCH_CONCEPT, rank, 0, NULL, bank->name, 0 };

        if (bank_slots[i] == 0)
          {
            g_array_append_val (hits, hit);
            bank_slots[i] = hits->len;
          }
        else
          _sj_knowledge_offer_again (&g_array_index (hits, SjKnowledgeHit, bank_slots[i] - 1), &hit);
        return;
      }
}

/**
 * _sj_knowledge_match_sounds:
 * @concepts: the query's #SjKnowledgeConceptMatch
 *
 * Returns: (transfer full): ranked #SjKnowledgeHit of sounds and banks
 */
GArray *
_sj_knowledge_match_sounds (SjKnowledge      *self,
                            SjKnowledgeQuery *query,
                            GArray           *concepts,
                            gboolean          any_category,
                            SjSoundCategory   category)
{
  g_autofree guint *slots = g_new0 (guint, sj_sounds_index_get_n_sounds (self->sounds) + 1);
  g_autofree guint *bank_slots = g_new0 (guint, sj_sounds_index_get_n_banks (self->sounds) + 1);
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

  for (guint i = 0; i < query->terms->len; i++)
    if (!_sj_knowledge_covered (query, concepts, g_ptr_array_index (query->terms, i)))
      match_sounds_term (self, g_ptr_array_index (query->terms, i), any_category, category,
                         hits, slots, bank_slots);

  /* In a phrase, a sound merely spelled like a plain word ("percysyn" for
   * "per", "pink" for "pick") is no answer. */
  for (guint i = hits->len; query->terms->len >= 2 && i > 0; i--)
    {
      SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i - 1);

      if (hit->term != NULL &&
          ((hit->match >= SJ_MATCH_PREFIX && _sj_knowledge_is_common_word (self, hit->term)) ||
           (hit->match == SJ_MATCH_FUZZY && _sj_knowledge_is_known_word (self, hit->term))))
        g_array_remove_index (hits, i - 1);
    }

  for (guint c = 0; c < concepts->len; c++)
    {
      const SjKnowledgeConcept *concept = g_array_index (concepts, SjKnowledgeConceptMatch, c).concept;

      for (guint n = 0; concept->names[n] != NULL; n++)
        offer_concept_sound (self, concept->names[n], _sj_knowledge_concept_rank (concept, n),
                             hits, slots, bank_slots);
    }

  /* A sound named exactly ("bd sd hh") stays first; a word that is also a
   * sound ("numbers") comes after the phrase's meaning. */
  if (query->terms->len >= 2 && _sj_knowledge_has_phrase (concepts))
    {
      g_autoptr(GArray) words = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

      for (guint i = hits->len; i > 0; i--)
        {
          const SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i - 1);

          if (hit->match <= SJ_MATCH_SYNONYM && hit->term != NULL && _sj_knowledge_is_common_word (self, hit->term))
            {
              g_array_append_val (words, *hit);
              g_array_remove_index (hits, i - 1);
            }
        }
      _sj_knowledge_after_phrases (words);
      g_array_append_vals (hits, words->data, words->len);
    }

  _sj_knowledge_sort_hits (self, hits);
  return hits;
}

/**
 * sj_knowledge_search_sounds:
 * @text: words to look for; empty lists the whole category, "offline"
 *   what of it plays with no network
 *
 * Returns: (transfer full): ranked #SjKnowledgeHit of sounds and banks
 */
GArray *
sj_knowledge_search_sounds (SjKnowledge     *self,
                            const char      *text,
                            SjSoundCategory  category)
{
  g_autoptr(SjKnowledgeQuery) query = NULL;
  GArray *hits;

  g_assert (SJ_IS_KNOWLEDGE (self));

  query = sj_knowledge_query_parse (text, SJ_KNOWLEDGE_DOMAIN_SOUNDS, SJ_KNOWLEDGE_MODE_SEARCH);
  /* "offline" alone lists what plays with no network; with other words,
   * keeps what does among their matches. */
  if (query->offline && query->terms->len == 0)
    return _sj_knowledge_list_offline (self, FALSE, category);
  {
    g_autoptr(GArray) concepts = _sj_knowledge_find_concepts (self, query);

    hits = _sj_knowledge_match_sounds (self, query, concepts, FALSE, category);
  }
  if (query->offline)
    _sj_knowledge_keep_offline (self, hits);
  for (guint i = 0; i < hits->len; i++)
    g_array_index (hits, SjKnowledgeHit, i).term = NULL;

  return hits;
}
