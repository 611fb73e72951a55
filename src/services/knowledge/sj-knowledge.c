/* sj-knowledge.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * strudel_knowledge(query): one authoritative lookup over the bundled
 * reference and the registered sounds, so that the agent (and the user)
 * never have to guess a function, a parameter or a sound.  This file reads
 * the query and decides the kind of answer (a listing, a detail, a
 * validity check, a search, or not found with suggestions);
 * sj-knowledge-match.c finds and ranks, sj-knowledge-answer.c writes the
 * JSON, sj-knowledge-availability.c says how each sound would play.  Every
 * name in an answer comes from the indexes.
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-private.h"

G_DEFINE_FINAL_TYPE (SjKnowledge, sj_knowledge, G_TYPE_OBJECT)

enum {
  AVAILABILITY_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
sj_knowledge_dispose (GObject *object)
{
  SjKnowledge *self = (SjKnowledge *)object;

  _sj_knowledge_availability_dispose (self);

  G_OBJECT_CLASS (sj_knowledge_parent_class)->dispose (object);
}

static void
sj_knowledge_finalize (GObject *object)
{
  SjKnowledge *self = (SjKnowledge *)object;

  g_clear_object (&self->reference);
  g_clear_object (&self->sounds);
  _sj_knowledge_match_dispose (self);

  G_OBJECT_CLASS (sj_knowledge_parent_class)->finalize (object);
}

static void
sj_knowledge_class_init (SjKnowledgeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_knowledge_dispose;
  object_class->finalize = sj_knowledge_finalize;

  /**
   * SjKnowledge::availability-changed:
   *
   * How sounds would play may have changed: a file was cached, a sound
   * could not be had, downloads were switched, or another sound cache was
   * set. Ask sj_knowledge_get_sound_availability() again.
   */
  signals[AVAILABILITY_CHANGED] =
    g_signal_new ("availability-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

void
_sj_knowledge_emit_availability_changed (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  g_signal_emit (self, signals[AVAILABILITY_CHANGED], 0);
}

/* The index's positions mean other sounds after a snapshot. */
static void
sounds_changed_cb (SjKnowledge   *self,
                   SjSoundsIndex *sounds)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  _sj_knowledge_forget_index (self);
}

static void
sj_knowledge_init (SjKnowledge *self)
{
}

SjKnowledge *
sj_knowledge_new (SjReferenceIndex *reference,
                  SjSoundsIndex    *sounds)
{
  SjKnowledge *self;

  g_return_val_if_fail (SJ_IS_REFERENCE_INDEX (reference), NULL);
  g_return_val_if_fail (SJ_IS_SOUNDS_INDEX (sounds), NULL);

  self = g_object_new (SJ_TYPE_KNOWLEDGE, NULL);
  self->reference = g_object_ref (reference);
  self->sounds = g_object_ref (sounds);
  g_signal_connect_object (sounds, "changed", G_CALLBACK (sounds_changed_cb), self, G_CONNECT_SWAPPED);

  /* The phrase indexes now (a few ms, once per reference), not in the
   * first query, so that every query stays fast. */
  _sj_knowledge_get_concepts (self);
  _sj_knowledge_get_bm25 (self);

  return self;
}

SjReferenceIndex *
sj_knowledge_get_reference (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));
  return self->reference;
}

SjSoundsIndex *
sj_knowledge_get_sounds (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));
  return self->sounds;
}

static GArray *
list_category (SjKnowledge     *self,
               SjSoundCategory  category)
{
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));

  for (guint i = 0; i < sj_sounds_index_get_n_sounds (self->sounds); i++)
    {
      const SjSound *sound = sj_sounds_index_get_sound (self->sounds, i);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_SOUND, i, SJ_MATCH_EXACT, 0, 0, NULL, sound->name, 0 };

      if (sj_sound_in_category (sound, category))
        g_array_append_val (hits, hit);
    }

  return hits;
}

static SjMatchKind
best_match (GArray *hits)
{
  return hits->len > 0 ? g_array_index (hits, SjKnowledgeHit, 0).match : SJ_MATCH_NONE;
}

/* In detail mode only the exact answers stay: a detail about "fast" is
 * about fast, not about fastGap. */
static void
keep_best_group (GArray *hits)
{
  guint keep = 0;

  if (hits->len == 0)
    return;

  while (keep < hits->len &&
         g_array_index (hits, SjKnowledgeHit, keep).match <= SJ_MATCH_SYNONYM)
    keep++;

  if (keep > 0)
    g_array_set_size (hits, keep);
}

/* A single word that the vocabulary knows as something Strudel does not
 * have ("sidechain", "granular"), with no real name spelled like it: not
 * found, and the suggestions say what to use instead. */
static gboolean
names_what_is_not (SjKnowledgeQuery *parsed,
                   GArray           *concepts,
                   GArray           *reference,
                   GArray           *sounds)
{
  if (parsed->terms->len != 1 || concepts->len == 0 ||
      MIN (best_match (reference), best_match (sounds)) < SJ_MATCH_CONCEPT)
    return FALSE;

  for (guint c = 0; c < concepts->len; c++)
    if (!g_array_index (concepts, SjKnowledgeConceptMatch, c).concept->instead)
      return FALSE;
  return TRUE;
}

/* A sound the page has not registered, but a sample map the code fetched
 * before has: how to have it. */
static void
describe_remote_sound (SjKnowledge *self,
                       GString     *answer,
                       GPtrArray   *suggestions,
                       const char  *term)
{
  const SjRemoteMap *map = NULL;
  const SjRemoteSound *sound;
  SjSoundAvailability availability;
  const char *how;

  if (self->remote_samples == NULL ||
      (sound = sj_remote_samples_lookup_sound (self->remote_samples, term, &map)) == NULL ||
      !sj_remote_samples_get_sound_availability (self->remote_samples, term, &availability, NULL))
    return;

  if (availability == SJ_SOUND_AVAILABILITY_CACHED)
    how = "it is cached and plays offline";
  else if (availability == SJ_SOUND_AVAILABILITY_DOWNLOAD)
    how = "it is downloaded when first played";
  else
    how = "it is not cached and cannot be downloaded now";
  g_string_append_printf (answer,
                          " “%s” is a sound of the sample map %s, which the page has not loaded: load it first with "
                          "samples('%s'); %s.", sound->name, map->url, map->url, how);
  _sj_knowledge_add_suggestion (suggestions, sound->name, 5);
}

static JsonNode *
not_found (SjKnowledge       *self,
           const char        *query,
           GPtrArray         *terms,
           SjKnowledgeDomain  domain)
{
  g_autoptr(GPtrArray) suggestions = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) answer = g_string_new ("No authoritative match in the bundled Strudel reference or sounds.");

  for (guint i = 0; i < terms->len; i++)
    {
      const char *term = g_ptr_array_index (terms, i);
      const SjReferenceEntry *entry = sj_reference_index_lookup (self->reference, term, NULL);
      g_auto(GStrv) names = sj_knowledge_suggest (self, term, domain, 5);
      const SjKnowledgeConcept *concept = sj_knowledge_concepts_lookup (sj_knowledge_concepts_get_bundled (), term);

      if (entry != NULL && !entry->callable && domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS)
        g_string_append_printf (answer,
                                " “%s” is documented upstream (%s) but is not available in the Strudel bundled with this app.",
                                entry->name, entry->source != NULL ? entry->source : "another package");

      if (concept != NULL && concept->instead && names[0] != NULL)
        g_string_append_printf (answer, " Strudel has no “%s”; the suggestions are what to use instead, best first.",
                                term);

      if (domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE)
        describe_remote_sound (self, answer, suggestions, term);
      for (guint n = 0; names[n] != NULL; n++)
        _sj_knowledge_add_suggestion (suggestions, names[n], 5);
    }

  if (suggestions->len > 0)
    g_string_append (answer, " See the suggestions for real names that are close.");

  g_ptr_array_add (suggestions, NULL);
  return _sj_knowledge_answer_failure (query, "not_found", answer->str,
                                       (const char * const *)suggestions->pdata);
}

static JsonNode *
check_validity (SjKnowledge       *self,
                SjKnowledgeResult *result)
{
  const char *term = g_ptr_array_index (result->parsed->terms, 0);
  gboolean is_synonym = FALSE;

  if (result->domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS)
    {
      const SjReferenceEntry *entry = sj_reference_index_lookup (self->reference, term, &is_synonym);
      gboolean exact = entry != NULL && sj_reference_index_is_callable (self->reference, term);

      if (exact)
        {
          SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, 0, is_synonym ? SJ_MATCH_SYNONYM : SJ_MATCH_EXACT, 0, 0, term, term, 0 };

          for (guint i = 0; i < sj_reference_index_get_n_entries (self->reference); i++)
            if (sj_reference_index_get_entry (self->reference, i) == entry)
              hit.index = i;
          g_array_append_val (result->reference, hit);
        }
      else if (entry == NULL && sj_reference_index_is_callable (self->reference, term))
        {
          /* Real in the runtime but undocumented: G_MAXUINT marks it. */
          SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_FUNCTION, G_MAXUINT, SJ_MATCH_EXACT, 0, 0, term, term, 0 };

          g_array_append_val (result->reference, hit);
        }
    }

  if (result->domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE)
    {
      const SjSound *sound = sj_sounds_index_lookup (self->sounds, term);
      const SjSoundBank *bank = sj_sounds_index_lookup_bank (self->sounds, term);

      for (guint i = 0; sound != NULL && i < sj_sounds_index_get_n_sounds (self->sounds); i++)
        if (sj_sounds_index_get_sound (self->sounds, i) == sound)
          {
            SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_SOUND, i, SJ_MATCH_EXACT, 0, 0, term, sound->name, 0 };

            g_array_append_val (result->sounds, hit);
          }

      for (guint i = 0; bank != NULL && i < sj_sounds_index_get_n_banks (self->sounds); i++)
        if (sj_sounds_index_get_bank (self->sounds, i) == bank)
          {
            SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_BANK, i, SJ_MATCH_EXACT, 0, 0, term, bank->name, 0 };

            g_array_append_val (result->sounds, hit);
          }
    }

  if (result->reference->len == 0 && result->sounds->len == 0)
    return not_found (self, result->query, result->parsed->terms, result->domain);

  result->reference_total = result->reference->len;
  result->sounds_total = result->sounds->len;
  if (result->domain == SJ_KNOWLEDGE_DOMAIN_AUTO)
    {
      if (result->sounds->len == 0)
        result->domain = SJ_KNOWLEDGE_DOMAIN_REFERENCE;
      else if (result->reference->len == 0)
        result->domain = SJ_KNOWLEDGE_DOMAIN_SOUNDS;
    }
  result->mode = SJ_KNOWLEDGE_MODE_DETAIL;

  return _sj_knowledge_answer_success (self, result);
}

static void
note_corrections (SjKnowledgeResult *result,
                  GArray            *hits)
{
  g_autoptr(GHashTable) noted = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < MIN (hits->len, result->limit); i++)
    {
      const SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i);

      /* One note per misspelt term: its best correction. */
      if (hit->term == NULL || hit->matched == NULL || !g_hash_table_add (noted, (gpointer)hit->term))
        continue;
      if (hit->case_only)
        g_ptr_array_add (result->notes,
                         g_strdup_printf ("Names are case-sensitive: write “%s”, not “%s”.",
                                          hit->matched, hit->term));
      else if (hit->match == SJ_MATCH_FUZZY)
        g_ptr_array_add (result->notes,
                         g_strdup_printf ("“%s” is not a name; “%s” is the closest spelling.",
                                          hit->term, hit->matched));
    }
}

/* A query that names no term but a category, or "offline": the sounds of
 * the category, or every sound that plays with no network. */
static JsonNode *
answer_list (SjKnowledge       *self,
             SjKnowledgeResult *result)
{
  const SjKnowledgeQuery *parsed = result->parsed;
  g_autoptr(GArray) reference = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));
  g_autoptr(GArray) sounds = NULL;

  if (parsed->offline && result->domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE)
    {
      sounds = _sj_knowledge_list_offline (self, !parsed->has_category, parsed->category);
      if (self->sound_cache == NULL)
        g_ptr_array_add (result->notes, g_strdup ("Which samples are cached is not known here (no sound cache): only the built-in synthesizers are listed."));
    }
  else
    sounds = list_category (self, parsed->category);

  result->reference = reference;
  result->sounds = sounds;
  result->sounds_total = sounds->len;
  result->domain = SJ_KNOWLEDGE_DOMAIN_SOUNDS;
  result->mode = SJ_KNOWLEDGE_MODE_LIST;

  return _sj_knowledge_answer_success (self, result);
}

/* In auto mode the domain with the better match answers; a tie is an
 * ambiguous query and both answer, grouped. */
static void
pick_domain (const SjKnowledgeQuery *parsed,
             SjKnowledgeResult      *result)
{
  GArray *reference = result->reference;
  GArray *sounds = result->sounds;
  SjMatchKind r = best_match (reference);
  SjMatchKind s = best_match (sounds);

  /* Two meanings of one phrase: the one the vocabulary lists first. */
  if (r == s && r == SJ_MATCH_CONCEPT)
    {
      guint rd = g_array_index (reference, SjKnowledgeHit, 0).distance;
      guint sd = g_array_index (sounds, SjKnowledgeHit, 0).distance;

      if (rd < sd)
        s = SJ_MATCH_NONE;
      else if (sd < rd)
        r = SJ_MATCH_NONE;
    }

  if (r == s && parsed->domain_from_words)
    r = SJ_MATCH_NONE;

  if (r < s)
    g_array_set_size (sounds, 0);
  else if (s < r)
    g_array_set_size (reference, 0);

  if (sounds->len == 0)
    result->domain = SJ_KNOWLEDGE_DOMAIN_REFERENCE;
  else if (reference->len == 0)
    result->domain = SJ_KNOWLEDGE_DOMAIN_SOUNDS;
}

/* One term matched by name or synonym is told in detail (its best group
 * only); anything else is a search. */
static void
pick_mode (const SjKnowledgeQuery *parsed,
           SjKnowledgeResult      *result)
{
  SjMatchKind best;

  if (result->mode == SJ_KNOWLEDGE_MODE_LIST)
    result->mode = SJ_KNOWLEDGE_MODE_SEARCH;
  if (result->mode == SJ_KNOWLEDGE_MODE_SEARCH)
    return;

  best = MIN (best_match (result->reference), best_match (result->sounds));
  if (best <= SJ_MATCH_SYNONYM && parsed->terms->len == 1)
    {
      keep_best_group (result->reference);
      keep_best_group (result->sounds);
      result->mode = SJ_KNOWLEDGE_MODE_DETAIL;
    }
  else
    result->mode = SJ_KNOWLEDGE_MODE_SEARCH;
}

/**
 * sj_knowledge_query_full:
 * @query: a free-form question
 * @domain: where to look, or %SJ_KNOWLEDGE_DOMAIN_AUTO
 * @mode: the kind of answer, or %SJ_KNOWLEDGE_MODE_AUTO
 * @limit: the most items per domain, 0 for the default of 5
 *
 * Returns: (transfer full): the answer in the contract's success or
 *   failure shape
 */
JsonNode *
sj_knowledge_query_full (SjKnowledge       *self,
                         const char        *query,
                         SjKnowledgeDomain  domain,
                         SjKnowledgeMode    mode,
                         guint              limit)
{
  g_autoptr(SjKnowledgeQuery) parsed = NULL;
  g_autoptr(GArray) reference = NULL;
  g_autoptr(GArray) sounds = NULL;
  g_autoptr(GArray) concepts = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *trimmed = NULL;
  SjKnowledgeResult result = { 0 };

  g_assert (SJ_IS_KNOWLEDGE (self));

  if (query == NULL || strlen (query) > SJ_KNOWLEDGE_MAX_QUERY)
    return _sj_knowledge_answer_failure (query == NULL ? "" : "(too long)", "invalid_query",
                                         "The query must be a string of at most 1024 bytes: ask about one function or sound at a time.",
                                         NULL);

  trimmed = g_strstrip (g_strdup (query));
  if (!g_utf8_validate (trimmed, -1, NULL))
    return _sj_knowledge_answer_failure ("", "invalid_query", "The query is not valid UTF-8.", NULL);

  parsed = sj_knowledge_query_parse (trimmed, domain, mode);

  result.query = trimmed;
  result.parsed = parsed;
  result.domain = parsed->domain;
  result.mode = parsed->mode;
  result.limit = limit == 0 ? SJ_KNOWLEDGE_DEFAULT_LIMIT : MIN (limit, SJ_KNOWLEDGE_MAX_LIMIT);
  result.notes = notes;
  result.offline = parsed->offline;

  if (result.domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE && !sj_sounds_index_get_loaded (self->sounds))
    g_ptr_array_add (notes, g_strdup ("The sounds are not known yet: the Strudel page has not reported its registry."));

  if (parsed->terms->len == 0 &&
      ((parsed->offline && result.domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE) || parsed->has_category))
    return answer_list (self, &result);

  if (parsed->terms->len == 0)
    return _sj_knowledge_answer_failure (trimmed, "invalid_query",
                                         "The query names nothing to look up: ask about a function (“what does fast do”) or a sound (“is bd available”).",
                                         NULL);

  reference = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));
  sounds = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));
  result.reference = reference;
  result.sounds = sounds;

  if (parsed->validity && parsed->terms->len == 1)
    return check_validity (self, &result);

  g_clear_pointer (&reference, g_array_unref);
  g_clear_pointer (&sounds, g_array_unref);

  concepts = _sj_knowledge_find_concepts (self, parsed);

  /* "lowpass the synth", "load samples": a word hinted at sounds, but the
   * phrase may mean a function; both domains answer, the better wins and
   * a tie goes to the sounds. */
  if (parsed->domain_from_words && concepts->len > 0 && !parsed->offline)
    result.domain = SJ_KNOWLEDGE_DOMAIN_AUTO;
  reference = result.domain != SJ_KNOWLEDGE_DOMAIN_SOUNDS
    ? _sj_knowledge_match_reference (self, parsed, concepts, FALSE)
    : g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));
  sounds = result.domain != SJ_KNOWLEDGE_DOMAIN_REFERENCE
    ? _sj_knowledge_match_sounds (self, parsed, concepts, !parsed->has_category, parsed->category)
    : g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));
  result.reference = reference;
  result.sounds = sounds;

  /* "offline 808": only what plays with no network; sounds that exist but
   * do not play offline are an answer, not a failure. */
  if (parsed->offline && sounds->len > 0)
    {
      _sj_knowledge_keep_offline (self, sounds);
      if (sounds->len == 0 && reference->len == 0)
        {
          result.domain = SJ_KNOWLEDGE_DOMAIN_SOUNDS;
          result.mode = SJ_KNOWLEDGE_MODE_SEARCH;
          return _sj_knowledge_answer_success (self, &result);
        }
    }

  if ((reference->len == 0 && sounds->len == 0) ||
      names_what_is_not (parsed, concepts, reference, sounds))
    return not_found (self, trimmed, parsed->terms, result.domain);

  if (result.domain == SJ_KNOWLEDGE_DOMAIN_AUTO)
    pick_domain (parsed, &result);
  pick_mode (parsed, &result);

  result.reference_total = reference->len;
  result.sounds_total = sounds->len;
  note_corrections (&result, reference);
  note_corrections (&result, sounds);

  return _sj_knowledge_answer_success (self, &result);
}

JsonNode *
sj_knowledge_query (SjKnowledge *self,
                    const char  *query)
{
  return sj_knowledge_query_full (self, query, SJ_KNOWLEDGE_DOMAIN_AUTO, SJ_KNOWLEDGE_MODE_AUTO, 0);
}

/**
 * sj_knowledge_query_json:
 * @input: a string, or the object form `{q, domain?, mode?, limit?}`
 *
 * The tool's entry point for the agent: whatever the model sent, the
 * answer is one of the contract's shapes.
 */
JsonNode *
sj_knowledge_query_json (SjKnowledge *self,
                         JsonNode    *input)
{
  SjKnowledgeDomain domain = SJ_KNOWLEDGE_DOMAIN_AUTO;
  SjKnowledgeMode mode = SJ_KNOWLEDGE_MODE_AUTO;
  JsonObject *object;
  JsonNode *member;
  gint64 limit = 0;
  const char *q;

  g_assert (SJ_IS_KNOWLEDGE (self));

  if (input != NULL && JSON_NODE_HOLDS_VALUE (input) &&
      json_node_get_value_type (input) == G_TYPE_STRING)
    return sj_knowledge_query (self, json_node_get_string (input));

  if (input == NULL || !JSON_NODE_HOLDS_OBJECT (input))
    return _sj_knowledge_answer_failure ("", "invalid_query",
                                         "Pass a string, or an object {\"q\": string, \"domain\": \"auto|reference|sounds\", \"mode\": \"auto|search|detail|list\", \"limit\": 1-100}.",
                                         NULL);

  object = json_node_get_object (input);
  member = json_object_get_member (object, "q");
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_STRING)
    return _sj_knowledge_answer_failure ("", "invalid_query", "“q” is required and must be a string.", NULL);
  q = json_node_get_string (member);

  if ((member = json_object_get_member (object, "domain")) != NULL &&
      (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING ||
       !sj_knowledge_domain_from_string (json_node_get_string (member), &domain)))
    return _sj_knowledge_answer_failure (q, "invalid_query", "“domain” must be one of auto, reference, sounds.", NULL);

  if ((member = json_object_get_member (object, "mode")) != NULL &&
      (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING ||
       !sj_knowledge_mode_from_string (json_node_get_string (member), &mode)))
    return _sj_knowledge_answer_failure (q, "invalid_query", "“mode” must be one of auto, search, detail, list.", NULL);

  if ((member = json_object_get_member (object, "limit")) != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_INT64 ||
          (limit = json_node_get_int (member)) < 1 || limit > SJ_KNOWLEDGE_MAX_LIMIT)
        return _sj_knowledge_answer_failure (q, "invalid_query", "“limit” must be a whole number from 1 to 100.", NULL);
    }

  return sj_knowledge_query_full (self, q, domain, mode, limit);
}
