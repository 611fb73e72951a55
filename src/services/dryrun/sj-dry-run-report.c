/* sj-dry-run-report.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Turns a dry-run's raw answer (SjDryRun) into what the apply pipeline and
 * the agent read: the same object, with the sounds that are not registered
 * (unknownSounds) and, for every unknown symbol and sound, real names that
 * are close (from SjKnowledge, so that no suggestion is ever invented).
 * A sound that a sample map the code loads from the network registers is
 * known once that map has been fetched (SjRemoteSamples remembers it);
 * until then it is "loading" (loadingSounds), not unknown: the page
 * fetches the map before the code plays.
 *
 *   {"ok":true, "events", "cycles", "cps", "sounds", "tempo", "samples",
 *    "sampleUses", "unknownSounds":[{"name","suggestions"}],
 *    "loadingSounds":["name", …], …}
 *   {"ok":false, "phase", "message", "line", "column",
 *    "unknownSymbols":[{"name","kind","line","column","suggestions"}],
 *    "unknownSounds":[…], …}
 *
 * Unknown sounds do not make "ok" false: the code runs, and superdough only
 * fails when such a note plays.  _sj_dry_run_report_is_playable() is the
 * pipeline's verdict, which counts them.
 */

#include "config.h"

#include "sj-dry-run-report-private.h"
#include "sj-dry-run.h"
#include "sj-json.h"

#define MAX_SUGGESTIONS 5

/* The array member @name, or NULL when missing or of another type. */

/* json_node_copy() shares objects and arrays; the report must not change
 * the caller's answer. */
static JsonNode *
deep_copy (JsonNode *node)
{
  JsonNode *copy;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        json_object_set_member (object, name, deep_copy (member));
      copy = json_node_init_object (json_node_alloc (), object);
      json_object_unref (object);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *source = json_node_get_array (node);
      JsonArray *array = json_array_sized_new (json_array_get_length (source));

      for (guint i = 0; i < json_array_get_length (source); i++)
        json_array_add_element (array, deep_copy (json_array_get_element (source, i)));
      copy = json_node_init_array (json_node_alloc (), array);
      json_array_unref (array);
    }
  else
    copy = json_node_copy (node);

  return copy;
}

static JsonArray *
suggestions_array (SjKnowledge       *knowledge,
                   const char        *name,
                   SjKnowledgeDomain  domain)
{
  g_auto(GStrv) names = sj_knowledge_suggest (knowledge, name, domain, MAX_SUGGESTIONS);
  JsonArray *array = json_array_new ();

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    json_array_add_string_element (array, names[i]);
  return array;
}

/* The names that the code's own samples({...}) maps register. */
static GHashTable *
inline_sample_names (JsonObject *raw)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonArray *samples = sj_json_object_get_array (raw, "samples");

  for (guint i = 0; samples != NULL && i < json_array_get_length (samples); i++)
    {
      JsonNode *node = json_array_get_element (samples, i);
      JsonArray *map_names;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      map_names = sj_json_object_get_array (json_node_get_object (node), "names");
      for (guint n = 0; map_names != NULL && n < json_array_get_length (map_names); n++)
        {
          const char *name = json_array_get_string_element (map_names, n);

          if (name != NULL)
            g_hash_table_add (names, g_ascii_strdown (name, -1));
        }
    }
  return names;
}

/* The sample maps the code loads from the network (samples('github:…'),
 * whose address the helper resolved as the page does): the names of those
 * fetched before go into @names; whether any has not been. Without
 * SjRemoteSamples to ask, none is known. */
static gboolean
remote_sample_names (JsonObject      *raw,
                     SjRemoteSamples *remote,
                     GHashTable      *names)
{
  JsonArray *samples = sj_json_object_get_array (raw, "samples");
  gboolean pending = FALSE;

  for (guint i = 0; samples != NULL && i < json_array_get_length (samples); i++)
    {
      JsonNode *node = json_array_get_element (samples, i);
      JsonNode *member;
      const SjRemoteMap *map;
      const char *url;

      if (!JSON_NODE_HOLDS_OBJECT (node) ||
          (member = json_object_get_member (json_node_get_object (node), "url")) == NULL ||
          !JSON_NODE_HOLDS_VALUE (member) || (url = json_node_get_string (member)) == NULL)
        continue;
      if (remote == NULL || (map = sj_remote_samples_lookup_map (remote, url)) == NULL)
        {
          pending = TRUE;
          continue;
        }
      for (guint n = 0; n < map->sounds->len; n++)
        g_hash_table_add (names, g_strdup (((const SjRemoteSound *) g_ptr_array_index (map->sounds, n))->name));
    }
  return pending;
}

static JsonArray *
unknown_sounds (JsonObject  *raw,
                SjKnowledge *knowledge,
                JsonArray   *loading)
{
  g_autoptr(GHashTable) inline_names = inline_sample_names (raw);
  SjSoundsIndex *sounds = sj_knowledge_get_sounds (knowledge);
  gboolean pending = remote_sample_names (raw, sj_knowledge_get_remote_samples (knowledge), inline_names);
  JsonArray *used = sj_json_object_get_array (raw, "sounds");
  JsonArray *unknown = json_array_new ();

  for (guint i = 0; used != NULL && i < json_array_get_length (used); i++)
    {
      const char *name = json_array_get_string_element (used, i);
      JsonObject *entry;

      if (name == NULL || sj_sounds_index_lookup (sounds, name) != NULL ||
          g_hash_table_contains (inline_names, name))
        continue;
      if (pending)
        {
          json_array_add_string_element (loading, name);
          continue;
        }

      entry = json_object_new ();
      json_object_set_string_member (entry, "name", name);
      json_object_set_array_member (entry, "suggestions",
                                    suggestions_array (knowledge, name, SJ_KNOWLEDGE_DOMAIN_SOUNDS));
      json_array_add_object_element (unknown, entry);
    }
  return unknown;
}

/**
 * sj_dry_run_report:
 * @raw: an answer of sj_dry_run_run_finish()
 *
 * Returns: (transfer full): a new object: @raw with unknownSounds,
 *   loadingSounds and suggestions added
 */
JsonObject *
sj_dry_run_report (JsonObject  *raw,
                   SjKnowledge *knowledge)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) copy = NULL;
  JsonObject *report;
  JsonArray *symbols;
  JsonArray *loading;

  g_return_val_if_fail (raw != NULL, NULL);
  g_return_val_if_fail (SJ_IS_KNOWLEDGE (knowledge), NULL);

  node = json_node_init_object (json_node_alloc (), raw);
  copy = deep_copy (node);
  report = json_object_ref (json_node_get_object (copy));

  symbols = sj_json_object_get_array (report, "unknownSymbols");
  for (guint i = 0; symbols != NULL && i < json_array_get_length (symbols); i++)
    {
      JsonObject *symbol = json_array_get_object_element (symbols, i);
      const char *name = symbol != NULL ? json_object_get_string_member_with_default (symbol, "name", NULL) : NULL;

      if (name != NULL)
        json_object_set_array_member (symbol, "suggestions",
                                      suggestions_array (knowledge, name, SJ_KNOWLEDGE_DOMAIN_REFERENCE));
    }
  if (!json_object_has_member (report, "unknownSymbols"))
    json_object_set_array_member (report, "unknownSymbols", json_array_new ());

  loading = json_array_new ();
  json_object_set_array_member (report, "unknownSounds", unknown_sounds (report, knowledge, loading));
  json_object_set_array_member (report, "loadingSounds", loading);
  return report;
}

/**
 * sj_dry_run_report_error:
 * @error: an error of sj_dry_run_run_finish() (a refused request, a helper
 *   that cannot start)
 *
 * Returns: (transfer full): the report of a dry-run that could not run:
 *   {"ok":false,"phase":"input"|"unavailable","message"}
 */
JsonObject *
sj_dry_run_report_error (const GError *error)
{
  JsonObject *report = json_object_new ();
  gboolean input = g_error_matches (error, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT);

  json_object_set_boolean_member (report, "ok", FALSE);
  json_object_set_string_member (report, "phase", input ? "input" : "unavailable");
  json_object_set_string_member (report, "message", error->message);
  json_object_set_array_member (report, "unknownSymbols", json_array_new ());
  json_object_set_array_member (report, "unknownSounds", json_array_new ());
  json_object_set_array_member (report, "loadingSounds", json_array_new ());
  return report;
}

/**
 * _sj_dry_run_report_is_playable:
 *
 * Whether a report lets code through: it ran, and every sound it plays is
 * registered.
 */
gboolean
_sj_dry_run_report_is_playable (JsonObject *report)
{
  JsonArray *unknown;

  g_return_val_if_fail (report != NULL, FALSE);

  unknown = sj_json_object_get_array (report, "unknownSounds");
  return json_object_get_boolean_member_with_default (report, "ok", FALSE) &&
         (unknown == NULL || json_array_get_length (unknown) == 0);
}
