/* sj-knowledge-match.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The matching behind strudel_knowledge and the Reference and Sounds
 * pages: query terms against the reference's names and synonyms, the
 * sounds and their banks, and the descriptions; ranked exact name, exact
 * synonym, prefix, spelling mistake, part of a name, description word.
 * Suggestions for unknown names come from here too, and only ever name
 * what the indexes hold.
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
  if (ha->distance != hb->distance)
    return ha->distance < hb->distance ? -1 : 1;
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

static gboolean
better (const SjKnowledgeHit *a,
        const SjKnowledgeHit *b)
{
  if (a->match != b->match)
    return a->match < b->match;
  return a->distance < b->distance;
}

/* Keeps the best hit per item: @slots maps an item to its position in
 * @hits plus one. */
static void
offer (GArray               *hits,
       guint                *slots,
       const SjKnowledgeHit *hit)
{
  guint slot = slots[hit->index];

  if (slot == 0)
    {
      g_array_append_val (hits, *hit);
      slots[hit->index] = hits->len;
    }
  else if (better (hit, &g_array_index (hits, SjKnowledgeHit, slot - 1)))
    g_array_index (hits, SjKnowledgeHit, slot - 1) = *hit;
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

static void
match_reference_term (SjKnowledge *self,
                      const char  *term,
                      gboolean     include_uncallable,
                      GArray      *hits,
                      guint       *slots)
{
  g_autofree char *lower = g_ascii_strdown (term, -1);
  gsize len = strlen (lower);
  guint64 mask = sj_fuzzy_mask (lower, len);
  const SjReferenceKey *keys;
  guint n_keys;
  guint n_entries = sj_reference_index_get_n_entries (sj_knowledge_get_reference (self));

  keys = sj_reference_index_get_keys (sj_knowledge_get_reference (self), &n_keys);

  for (guint i = 0; i < n_keys; i++)
    {
      const SjReferenceEntry *entry = sj_reference_index_get_entry (sj_knowledge_get_reference (self), keys[i].entry);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, keys[i].entry, SJ_MATCH_NONE, 0, 0, term, NULL };

      if (!include_uncallable && !keys[i].callable)
        continue;

      hit.match = sj_fuzzy_match_name (lower, len, mask, keys[i].lower, keys[i].len, keys[i].mask, &hit.distance);
      if (hit.match == SJ_MATCH_NONE)
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

      offer (hits, slots, &hit);
    }

  if (len < 3)
    return;

  for (guint i = 0; i < n_entries; i++)
    {
      const SjReferenceEntry *entry = sj_reference_index_get_entry (sj_knowledge_get_reference (self), i);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, i, SJ_MATCH_TEXT, 0, 0, term, NULL };
      gssize offset;

      if (slots[i] != 0 || (!include_uncallable && !entry->callable))
        continue;

      offset = find_word (sj_reference_index_get_text (sj_knowledge_get_reference (self), i), lower);
      if (offset < 0)
        continue;

      hit.distance = offset;
      hit.matched = entry->name;
      offer (hits, slots, &hit);
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
  g_autofree guint *slots = NULL;
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

  g_assert (SJ_IS_KNOWLEDGE (self));

  query = sj_knowledge_query_parse (text, SJ_KNOWLEDGE_DOMAIN_REFERENCE, SJ_KNOWLEDGE_MODE_SEARCH);
  slots = g_new0 (guint, sj_reference_index_get_n_entries (sj_knowledge_get_reference (self)) + 1);

  for (guint i = 0; i < query->terms->len; i++)
    match_reference_term (self, g_ptr_array_index (query->terms, i), include_uncallable, hits, slots);

  /* The terms die with the query: the hits must not point at them. */
  for (guint i = 0; i < hits->len; i++)
    g_array_index (hits, SjKnowledgeHit, i).term = NULL;

  _sj_knowledge_sort_hits (self, hits);
  return hits;
}

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
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_SOUND, i, SJ_MATCH_NONE, 0, 0, term, sound->name };

      if ((sound->categories & (1u << (any_category ? SJ_SOUND_CATEGORY_ALL : category))) == 0)
        continue;

      /* Sound names ignore case (superdough lower-cases them). */
      hit.match = sj_fuzzy_match_name (lower, len, mask, sound->lower, sound->len, sound->mask, &hit.distance);

      /* "bd" in a bank ("RolandTR808_bd") is what s("bd").bank(…) plays. */
      if (hit.match > SJ_MATCH_SUBSTRING && sound->bank_sound != NULL &&
          strcmp (sound->lower + sound->len - strlen (sound->bank_sound), lower) == 0)
        hit.match = SJ_MATCH_SUBSTRING;

      if (hit.match != SJ_MATCH_NONE)
        offer (hits, slots, &hit);
    }

  for (guint i = 0; i < n_banks; i++)
    {
      const SjSoundBank *bank = sj_sounds_index_get_bank (sj_knowledge_get_sounds (self), i);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_BANK, i, SJ_MATCH_NONE, 0, 0, term, bank->name };
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
      else if (better (&hit, &g_array_index (hits, SjKnowledgeHit, bank_slots[i] - 1)))
        g_array_index (hits, SjKnowledgeHit, bank_slots[i] - 1) = hit;
    }
}

GArray *
_sj_knowledge_match_sounds (SjKnowledge     *self,
                     GPtrArray       *terms,
                     gboolean         any_category,
                     SjSoundCategory  category)
{
  g_autofree guint *slots = g_new0 (guint, sj_sounds_index_get_n_sounds (sj_knowledge_get_sounds (self)) + 1);
  g_autofree guint *bank_slots = g_new0 (guint, sj_sounds_index_get_n_banks (sj_knowledge_get_sounds (self)) + 1);
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

  for (guint i = 0; i < terms->len; i++)
    match_sounds_term (self, g_ptr_array_index (terms, i), any_category, category,
                       hits, slots, bank_slots);

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
  hits = _sj_knowledge_match_sounds (self, query->terms, FALSE, category);
  if (query->offline)
    _sj_knowledge_keep_offline (self, hits);
  for (guint i = 0; i < hits->len; i++)
    g_array_index (hits, SjKnowledgeHit, i).term = NULL;

  return hits;
}

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

  /* Still short of ideas: the functions whose documentation uses a word
   * hidden in the term, longest words first ("gate" in "trancegate"). */
  for (gsize width = len; domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS && width >= 4 &&
                          suggestions->len < max; width--)
    for (gsize start = 0; start + width <= len && suggestions->len < max; start++)
      {
        g_autofree char *word = g_strndup (lower + start, width);
        GArray *entries = sj_reference_index_lookup_word (sj_knowledge_get_reference (self), word);

        for (guint e = 0; entries != NULL && e < entries->len && e < 2; e++)
          {
            const SjReferenceEntry *entry =
              sj_reference_index_get_entry (sj_knowledge_get_reference (self), g_array_index (entries, guint, e));

            if (entry->callable)
              _sj_knowledge_add_suggestion (suggestions, entry->name, max);
          }
      }

  g_ptr_array_add (suggestions, NULL);
  return (char **)g_ptr_array_free (g_steal_pointer (&suggestions), FALSE);
}

/* Among functions found only through their descriptions, the head of a
 * family comes before its members: "reverb" finds room, roomlp, roomdim
 * and roomfade, and room is the one to start with. */
static void
demote_family_members (SjKnowledge *self,
                       GArray      *hits)
{
  for (guint i = 0; i < hits->len; i++)
    {
      SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i);
      const char *name;

      if (hit->match != SJ_MATCH_TEXT)
        continue;
      name = sj_reference_index_get_entry (sj_knowledge_get_reference (self), hit->index)->name;

      for (guint j = 0; j < hits->len; j++)
        {
          const SjKnowledgeHit *other = &g_array_index (hits, SjKnowledgeHit, j);
          const char *head;

          if (j == i || other->match != SJ_MATCH_TEXT)
            continue;
          head = sj_reference_index_get_entry (sj_knowledge_get_reference (self), other->index)->name;
          if (strlen (head) < strlen (name) && g_str_has_prefix (name, head))
            {
              hit->distance += 1000;
              break;
            }
        }
    }
}

GArray *
_sj_knowledge_match_reference (SjKnowledge *self,
                        GPtrArray   *terms)
{
  g_autofree guint *slots = g_new0 (guint, sj_reference_index_get_n_entries (sj_knowledge_get_reference (self)) + 1);
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

  for (guint i = 0; i < terms->len; i++)
    match_reference_term (self, g_ptr_array_index (terms, i), FALSE, hits, slots);

  demote_family_members (self, hits);
  _sj_knowledge_sort_hits (self, hits);
  return hits;
}

