/* sj-knowledge-answer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Writes strudel_knowledge answers in the contract's JSON shapes: items
 * carry only what the indexes hold, examples are capped (two for a detail,
 * one for a list item), and the short "answer" sentence is built from the
 * same data so it can never say more than the items.
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-private.h"

static const char * const match_names[] = {
  "exact", "synonym", "concept", "prefix", "fuzzy", "partial", "description", "none",
};

static void
add_string_array (JsonBuilder        *builder,
                  const char         *member,
                  const char * const *strings,
                  guint               max)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; strings != NULL && strings[i] != NULL && i < max; i++)
    json_builder_add_string_value (builder, strings[i]);
  json_builder_end_array (builder);
}

static void
add_string (JsonBuilder *builder,
            const char  *member,
            const char  *value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_string_value (builder, value);
}

/* The first sentence of a description, for the one-line answer. */
static char *
first_sentence (const char *text)
{
  const char *end = text;

  while (*end != '\0' && *end != '\n' && !(end[0] == '.' && (end[1] == ' ' || end[1] == '\0')))
    end++;
  if (*end == '.')
    end++;

  if (end - text > 200)
    {
      const char *cut = g_utf8_find_prev_char (text, text + 200);

      return g_strdup_printf ("%.*s…", (int)(cut - text), text);
    }

  return g_strndup (text, end - text);
}

static char *
usage_of (SjReferenceIndex       *reference,
          const char             *name,
          const SjReferenceEntry *entry)
{
  g_autoptr(GString) usage = g_string_new (NULL);

  /* A name that exists only on patterns reads as a method. */
  if (sj_reference_index_is_method (reference, name) && !sj_reference_index_is_global (reference, name))
    g_string_append_c (usage, '.');

  g_string_append_printf (usage, "%s(", name);
  for (guint i = 0, n = 0; entry != NULL && i < entry->params->len; i++)
    {
      const SjReferenceParam *param = g_ptr_array_index (entry->params, i);

      if (param->name != NULL)
        g_string_append_printf (usage, "%s%s", n++ > 0 ? ", " : "", param->name);
    }
  g_string_append_c (usage, ')');

  return g_string_free (g_steal_pointer (&usage), FALSE);
}

static void
add_function (SjKnowledge          *self,
              JsonBuilder          *builder,
              const SjKnowledgeHit *hit,
              guint                 max_examples,
              GPtrArray            *notes)
{
  SjReferenceIndex *reference = sj_knowledge_get_reference (self);
  const SjReferenceEntry *entry = NULL;
  const char *name = hit->matched;
  g_autofree char *usage = NULL;

  if (hit->index != G_MAXUINT)
    {
      entry = sj_reference_index_get_entry (reference, hit->index);
      name = entry->name;
    }

  json_builder_begin_object (builder);
  add_string (builder, "kind", "function");
  add_string (builder, "domain", "reference");
  add_string (builder, "name", name);
  add_string (builder, "match", match_names[hit->match]);
  if (hit->match == SJ_MATCH_SYNONYM && hit->matched != NULL)
    add_string (builder, "matched", hit->matched);
  add_string_array (builder, "synonyms", entry != NULL ? (const char * const *)entry->synonyms : NULL, G_MAXUINT);
  add_string (builder, "description",
              entry != NULL ? entry->description
                            : "Available in the bundled Strudel runtime, but the bundled reference does not document it.");
  usage = usage_of (reference, name, entry);
  add_string (builder, "usage", usage);

  json_builder_set_member_name (builder, "params");
  json_builder_begin_array (builder);
  for (guint i = 0; entry != NULL && i < entry->params->len; i++)
    {
      const SjReferenceParam *param = g_ptr_array_index (entry->params, i);

      json_builder_begin_object (builder);
      add_string (builder, "name", param->name != NULL ? param->name : "");
      add_string (builder, "type", param->types != NULL ? param->types : "");
      add_string (builder, "description", param->description);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  add_string_array (builder, "examples", entry != NULL ? (const char * const *)entry->examples : NULL, max_examples);
  add_string_array (builder, "tags", entry != NULL ? (const char * const *)entry->tags : NULL, G_MAXUINT);
  json_builder_set_member_name (builder, "documented");
  json_builder_add_boolean_value (builder, entry != NULL);
  json_builder_end_object (builder);

  if (entry == NULL || entry->examples[0] == NULL)
    g_ptr_array_add (notes, g_strdup_printf ("“%s” has no example in the bundled Strudel reference.", name));
}

/* How a sound would play now, and with no network in an answer about
 * playing offline: "availability", the files and what of them is cached
 * (the size of what is not cached is not known before it is downloaded). */
static void
add_availability (SjKnowledge   *self,
                  JsonBuilder   *builder,
                  const SjSound *sound,
                  guint          position,
                  gboolean       offline)
{
  SjSoundAvailability availability;
  SjSoundAvailability how = SJ_SOUND_AVAILABILITY_UNAVAILABLE;
  SjSoundFiles files;

  if (!sj_knowledge_get_sound_availability (self, sound, &availability, &files))
    return;

  add_string (builder, "availability", sj_sound_availability_to_string (availability));
  if (availability != SJ_SOUND_AVAILABILITY_BUILT_IN)
    {
      json_builder_set_member_name (builder, "files");
      json_builder_add_int_value (builder, files.n_files);
      json_builder_set_member_name (builder, "cachedFiles");
      json_builder_add_int_value (builder, files.n_cached);
      if (files.cached_bytes > 0)
        {
          json_builder_set_member_name (builder, "cachedBytes");
          json_builder_add_int_value (builder, files.cached_bytes);
        }
    }
  if (availability == SJ_SOUND_AVAILABILITY_KIT && files.fallback_voice != NULL)
    add_string (builder, "kitVoice", files.fallback_voice);

  if (offline)
    {
      _sj_knowledge_get_offline (self, position, &how);
      add_string (builder, "offline", sj_sound_availability_to_string (how));
    }
}

static void
add_sound (SjKnowledge             *self,
           JsonBuilder             *builder,
           const SjKnowledgeResult *result,
           guint                    position,
           const char              *match)
{
  const SjSound *sound = sj_sounds_index_get_sound (sj_knowledge_get_sounds (self), position);
  g_autofree char *usage = sj_sound_usage (sound);

  json_builder_begin_object (builder);
  add_string (builder, "kind", "sound");
  add_string (builder, "domain", "sounds");
  add_string (builder, "name", sound->name);
  add_string (builder, "match", match);
  add_string (builder, "type", sound->type);
  if (sound->tag != NULL)
    add_string (builder, "tag", sound->tag);
  json_builder_set_member_name (builder, "prebake");
  json_builder_add_boolean_value (builder, sound->prebake);
  if (sound->count >= 0)
    {
      json_builder_set_member_name (builder, "count");
      json_builder_add_int_value (builder, sound->count);
    }
  if (sound->bank != NULL)
    add_string (builder, "bank", sound->bank);

  json_builder_set_member_name (builder, "categories");
  json_builder_begin_array (builder);
  for (SjSoundCategory c = SJ_SOUND_CATEGORY_USER; c < SJ_N_SOUND_CATEGORIES; c++)
    if (sj_sound_in_category (sound, c))
      json_builder_add_string_value (builder, sj_sound_category_to_string (c));
  json_builder_end_array (builder);

  add_string (builder, "usage", usage);
  add_availability (self, builder, sound, position, result->offline);
  json_builder_end_object (builder);
}

static void
add_bank (JsonBuilder       *builder,
          const SjSoundBank *bank,
          const char        *match)
{
  const SjSound *first = g_ptr_array_index (bank->sounds, 0);
  g_autofree char *usage = g_strdup_printf ("s(\"%s\").bank(\"%s\")", first->bank_sound, bank->name);

  json_builder_begin_object (builder);
  add_string (builder, "kind", "bank");
  add_string (builder, "domain", "sounds");
  add_string (builder, "name", bank->name);
  add_string (builder, "match", match);
  json_builder_set_member_name (builder, "count");
  json_builder_add_int_value (builder, bank->sounds->len);
  json_builder_set_member_name (builder, "sounds");
  json_builder_begin_array (builder);
  for (guint i = 0; i < bank->sounds->len; i++)
    json_builder_add_string_value (builder, ((const SjSound *)g_ptr_array_index (bank->sounds, i))->bank_sound);
  json_builder_end_array (builder);
  add_string (builder, "usage", usage);
  json_builder_end_object (builder);
}

static const char *
hit_name (SjKnowledge          *self,
          const SjKnowledgeHit *hit)
{
  if (hit->kind == SJ_KNOWLEDGE_HIT_FUNCTION)
    return hit->index == G_MAXUINT ? hit->matched
                                   : sj_reference_index_get_entry (sj_knowledge_get_reference (self), hit->index)->name;
  if (hit->kind == SJ_KNOWLEDGE_HIT_SOUND)
    return sj_sounds_index_get_sound (sj_knowledge_get_sounds (self), hit->index)->name;
  return sj_sounds_index_get_bank (sj_knowledge_get_sounds (self), hit->index)->name;
}

static void
append_names (SjKnowledge *self,
              GString     *answer,
              GArray      *hits,
              guint        limit)
{
  for (guint i = 0; i < MIN (hits->len, limit); i++)
    g_string_append_printf (answer, "%s%s", i > 0 ? ", " : "",
                            hit_name (self, &g_array_index (hits, SjKnowledgeHit, i)));
}

/* One sentence on how a sound would play now, or NULL when not known. */
static char *
describe_availability (SjKnowledge   *self,
                       const SjSound *sound)
{
  SjSoundAvailability availability;
  SjSoundFiles files;

  if (!sj_knowledge_get_sound_availability (self, sound, &availability, &files))
    return NULL;

  switch (availability)
    {
    case SJ_SOUND_AVAILABILITY_BUILT_IN:
      return g_strdup ("Built in: it plays offline.");
    case SJ_SOUND_AVAILABILITY_CACHED:
      if (files.n_cached < files.n_files)
        return g_strdup_printf ("Cached: %u of its %u files, which play offline; the others cannot be downloaded now.",
                                files.n_cached, files.n_files);
      return g_strdup ("Cached: it plays offline.");
    case SJ_SOUND_AVAILABILITY_DOWNLOAD:
      if (files.n_cached > 0)
        return g_strdup_printf ("Cached: %u of its %u files; the others are downloaded when first played.",
                                files.n_cached, files.n_files);
      return g_strdup ("Not cached: it is downloaded when first played, and a change that uses it waits for that.");
    case SJ_SOUND_AVAILABILITY_KIT:
      return g_strdup_printf ("Not cached and cannot be downloaded now: the built-in drum kit's %s plays instead.",
                              files.fallback_voice != NULL ? files.fallback_voice : "voice");
    case SJ_SOUND_AVAILABILITY_UNAVAILABLE:
    default:
      return g_strdup ("Not cached and cannot be downloaded now: it would not play.");
    }
}

static char *
describe_sound (SjKnowledge          *self,
                const SjKnowledgeHit *hit)
{
  SjSoundsIndex *sounds = sj_knowledge_get_sounds (self);
  const SjSound *sound;
  g_autofree char *kind = NULL;
  g_autofree char *availability = NULL;

  if (hit->kind == SJ_KNOWLEDGE_HIT_BANK)
    {
      const SjSoundBank *bank = sj_sounds_index_get_bank (sounds, hit->index);

      return g_strdup_printf ("“%s” is a sound bank with %u sounds: use .bank(\"%s\").",
                              bank->name, bank->sounds->len, bank->name);
    }

  sound = sj_sounds_index_get_sound (sounds, hit->index);
  if (sound->count >= 0)
    kind = g_strdup_printf ("%s, %d variation%s%s%s", sound->type, sound->count, sound->count == 1 ? "" : "s",
                            sound->tag != NULL ? ", " : "", sound->tag != NULL ? sound->tag : "");
  else
    kind = g_strdup (sound->type);

  if ((availability = describe_availability (self, sound)) == NULL)
    return g_strdup_printf ("“%s” is available: %s.", sound->name, kind);
  return g_strdup_printf ("“%s” is a registered sound: %s. %s", sound->name, kind, availability);
}

/* "2 cached, 13 on the built-in drum kit and 26 built in" */
static char *
count_offline (SjKnowledge *self,
               GArray      *hits)
{
  guint counts[SJ_SOUND_AVAILABILITY_UNAVAILABLE + 1] = { 0 };
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < hits->len; i++)
    {
      SjSoundAvailability offline;

      if (_sj_knowledge_get_offline (self, g_array_index (hits, SjKnowledgeHit, i).index, &offline))
        counts[offline]++;
    }

  if (counts[SJ_SOUND_AVAILABILITY_CACHED] > 0)
    g_ptr_array_add (parts, g_strdup_printf ("%u cached", counts[SJ_SOUND_AVAILABILITY_CACHED]));
  if (counts[SJ_SOUND_AVAILABILITY_KIT] > 0)
    g_ptr_array_add (parts, g_strdup_printf ("%u on the built-in drum kit", counts[SJ_SOUND_AVAILABILITY_KIT]));
  if (counts[SJ_SOUND_AVAILABILITY_BUILT_IN] > 0)
    g_ptr_array_add (parts, g_strdup_printf ("%u built in", counts[SJ_SOUND_AVAILABILITY_BUILT_IN]));

  for (guint i = 0; i < parts->len; i++)
    g_string_append_printf (text, "%s%s", i == 0 ? "" : i + 1 == parts->len ? " and " : ", ",
                            (const char *)g_ptr_array_index (parts, i));

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static char *
write_answer (SjKnowledge             *self,
              const SjKnowledgeResult *result)
{
  g_autoptr(GString) answer = g_string_new (NULL);
  SjReferenceIndex *reference = sj_knowledge_get_reference (self);

  if (result->offline && result->mode == SJ_KNOWLEDGE_MODE_LIST)
    {
      g_autofree char *counts = count_offline (self, result->sounds);

      if (result->sounds_total == 0)
        g_string_append (answer, "No sound is known to play with no network.");
      else
        {
          g_string_append_printf (answer, "%u sound%s with no network (%s)", result->sounds_total,
                                  result->sounds_total == 1 ? " plays" : "s play", counts);
          g_string_append_printf (answer, result->sounds_total > result->limit ? "; the first %u: " : ": ",
                                  MIN (result->limit, result->sounds_total));
          append_names (self, answer, result->sounds, result->limit);
          g_string_append_c (answer, '.');
        }
    }
  else if (result->offline && result->sounds->len == 0 && result->reference->len == 0)
    g_string_append (answer, "Sounds match, but none of them plays with no network: none is cached, built in or a drum the built-in kit plays.");
  else if (result->mode == SJ_KNOWLEDGE_MODE_LIST)
    {
      const char *category = sj_sound_category_to_string (result->parsed->category);

      if (result->sounds_total == 0)
        g_string_append_printf (answer, "No sounds in the “%s” category are registered.", category);
      else
        {
          g_string_append_printf (answer, "%u sound%s in the “%s” category", result->sounds_total,
                                  result->sounds_total == 1 ? "" : "s", category);
          g_string_append_printf (answer, result->sounds_total > result->limit ? "; the first %u: " : ": ",
                                  MIN (result->limit, result->sounds_total));
          append_names (self, answer, result->sounds, result->limit);
          g_string_append_c (answer, '.');
        }
    }
  else if (result->mode == SJ_KNOWLEDGE_MODE_DETAIL)
    {
      for (guint i = 0; i < MIN (result->reference->len, result->limit); i++)
        {
          const SjKnowledgeHit *hit = &g_array_index (result->reference, SjKnowledgeHit, i);
          const char *name = hit_name (self, hit);

          if (answer->len > 0)
            g_string_append_c (answer, ' ');

          if (hit->index == G_MAXUINT)
            g_string_append_printf (answer, "“%s” exists in the bundled Strudel runtime (undocumented).", name);
          else
            {
              const SjReferenceEntry *entry = sj_reference_index_get_entry (reference, hit->index);
              g_autofree char *sentence = first_sentence (entry->description);
              g_autofree char *usage = usage_of (reference, name, entry);

              if (hit->match == SJ_MATCH_SYNONYM)
                g_string_append_printf (answer, "“%s” is a synonym of %s. ", hit->matched, name);
              g_string_append_printf (answer, "%s: %s Usage: %s.", name, sentence, usage);
            }
        }
      for (guint i = 0; i < MIN (result->sounds->len, result->limit); i++)
        {
          g_autofree char *text = describe_sound (self, &g_array_index (result->sounds, SjKnowledgeHit, i));

          g_string_append_printf (answer, "%s%s", answer->len > 0 ? " " : "", text);
        }
    }
  else
    {
      if (result->reference->len > 0)
        {
          g_string_append_printf (answer, "Reference: %u match%s (", result->reference_total,
                                  result->reference_total == 1 ? "" : "es");
          append_names (self, answer, result->reference, result->limit);
          g_string_append (answer, ").");
        }
      if (result->sounds->len > 0)
        {
          g_string_append_printf (answer, "%sSounds: %u match%s (", answer->len > 0 ? " " : "",
                                  result->sounds_total, result->sounds_total == 1 ? "" : "es");
          append_names (self, answer, result->sounds, result->limit);
          g_string_append (answer, ").");
        }
    }

  return g_string_free (g_steal_pointer (&answer), FALSE);
}

/**
 * _sj_knowledge_answer_success:
 *
 * The success shape: ok, query, domain, mode, answer, items, sources and
 * notes.  When both domains answer, the reference items come first and
 * then the sounds, each item naming its domain.
 */
JsonNode *
_sj_knowledge_answer_success (SjKnowledge             *self,
                              const SjKnowledgeResult *result)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();
  g_autofree char *answer = write_answer (self, result);
  guint max_examples = result->mode == SJ_KNOWLEDGE_MODE_DETAIL ? 2 : 1;
  GPtrArray *notes = result->notes;
  const char *sources[] = { "doc.json", "soundMap", NULL };

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_boolean_value (builder, TRUE);
  add_string (builder, "query", result->query);
  add_string (builder, "domain", sj_knowledge_domain_to_string (result->domain));
  add_string (builder, "mode", sj_knowledge_mode_to_string (result->mode));
  add_string (builder, "answer", answer);

  json_builder_set_member_name (builder, "items");
  json_builder_begin_array (builder);
  for (guint i = 0; i < MIN (result->reference->len, result->limit); i++)
    add_function (self, builder, &g_array_index (result->reference, SjKnowledgeHit, i), max_examples, notes);
  for (guint i = 0; i < MIN (result->sounds->len, result->limit); i++)
    {
      const SjKnowledgeHit *hit = &g_array_index (result->sounds, SjKnowledgeHit, i);
      SjSoundsIndex *sounds = sj_knowledge_get_sounds (self);

      if (hit->kind == SJ_KNOWLEDGE_HIT_BANK)
        add_bank (builder, sj_sounds_index_get_bank (sounds, hit->index), match_names[hit->match]);
      else
        add_sound (self, builder, result, hit->index, match_names[hit->match]);
    }
  json_builder_end_array (builder);

  if (result->domain == SJ_KNOWLEDGE_DOMAIN_AUTO && result->reference->len > 0 && result->sounds->len > 0)
    g_ptr_array_add (notes, g_strdup ("The query matches both a function and a sound: the items are grouped by domain, reference first."));
  if (result->reference_total > result->limit || result->sounds_total > result->limit)
    g_ptr_array_add (notes, g_strdup_printf ("Showing at most %u per domain of %u; pass a larger \"limit\" to see more.",
                                             result->limit, MAX (result->reference_total, result->sounds_total)));

  add_string_array (builder, "sources", sources, G_MAXUINT);
  g_ptr_array_add (notes, NULL);
  add_string_array (builder, "notes", (const char * const *)notes->pdata, G_MAXUINT);
  g_ptr_array_remove_index (notes, notes->len - 1);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/**
 * _sj_knowledge_answer_failure:
 *
 * The failure shape: ok false, query, reason, answer, suggestions (real
 * names only) and sources.
 */
JsonNode *
_sj_knowledge_answer_failure (const char         *query,
                              const char         *reason,
                              const char         *answer,
                              const char * const *suggestions)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();
  const char *sources[] = { "doc.json", "soundMap", NULL };

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_boolean_value (builder, FALSE);
  add_string (builder, "query", query);
  add_string (builder, "reason", reason);
  add_string (builder, "answer", answer);
  add_string_array (builder, "suggestions", suggestions, G_MAXUINT);
  add_string_array (builder, "sources", sources, G_MAXUINT);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
