/* sj-knowledge-cli.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The knowledge services on the command line, for scripts and tests: no
 * window opens, the answer is JSON on stdout, problems with the command
 * line itself exit with status 2 and a message on stderr. Sounds say how
 * they would play in the app: the app's sound cache directory is read
 * (never written, nothing is downloaded) with the app's download setting.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "sj-drum-kit.h"
#include "sj-knowledge.h"
#include "sj-knowledge-base.h"
#include "sj-knowledge-cli.h"
#include "sj-json.h"

gboolean
sj_knowledge_cli_wanted (const SjKnowledgeCliOptions *options)
{
  return options->knowledge != NULL || options->knowledge_json != NULL ||
         options->search != NULL || options->category != NULL ||
         options->context >= 0 || options->max >= 0 || options->sounds != NULL;
}

static int
usage_error (const char *message)
{
  g_printerr ("strudel-jam: %s\n", message);
  g_printerr ("%s\n", _("Usage: strudel-jam --knowledge QUERY | --knowledge-json JSON | "
                        "--search-knowledge REGEX [--category C] [--context N] [--max N] [--sounds FILE]"));
  return SJ_CLI_EXIT_USAGE;
}

static GBytes *
drum_kit_fallback (const char  *voice,
                   guint        variant,
                   GError     **error)
{
  return sj_drum_kit_lookup (voice, (int)MIN (variant, (guint)G_MAXINT), error);
}

/* The app's cache, as the app would use it: downloads as its setting says
 * (when its settings are installed), the drum kit for standard drums.
 * Availability is only ever read from it here. */
static SjSoundCache *
open_sound_cache (void)
{
  SjSoundCache *cache = sj_sound_cache_new (sj_sound_library_get_default (), NULL);
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL && (schema = g_settings_schema_source_lookup (source, APP_ID, TRUE)) != NULL &&
      g_settings_schema_has_key (schema, "download-sounds"))
    {
      g_autoptr(GSettings) settings = g_settings_new (APP_ID);

      sj_sound_cache_set_allow_downloads (cache, g_settings_get_boolean (settings, "download-sounds"));
      if (g_settings_schema_has_key (schema, "allow-local-sample-hosts"))
        g_object_set (cache, "allow-local-hosts", g_settings_get_boolean (settings, "allow-local-sample-hosts"), NULL);
    }
  sj_sound_cache_set_fallback (cache, drum_kit_fallback);

  return cache;
}

/**
 * sj_knowledge_cli_run:
 *
 * Returns: the exit status
 */
int
sj_knowledge_cli_run (const SjKnowledgeCliOptions *options)
{
  g_autoptr(SjSoundsIndex) sounds = NULL;
  g_autoptr(SjKnowledge) knowledge = NULL;
  g_autoptr(SjSoundCache) sound_cache = NULL;
  g_autoptr(SjRemoteSamples) remote_samples = NULL;
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  int commands = (options->knowledge != NULL) + (options->knowledge_json != NULL) + (options->search != NULL);

  if (commands != 1)
    return usage_error (commands == 0 ? _("Nothing to look up.")
                                      : _("Give only one of --knowledge, --knowledge-json and --search-knowledge."));

  if (options->search == NULL && (options->category != NULL || options->context >= 0 || options->max >= 0))
    return usage_error (_("--category, --context and --max go with --search-knowledge."));
  if (options->search != NULL && options->sounds != NULL)
    return usage_error (_("--sounds goes with --knowledge or --knowledge-json."));
  if (options->context > 20 || options->max == 0 || options->max > 50)
    return usage_error (_("--context must be 0–20 and --max 1–50."));

  if (options->search != NULL)
    {
      answer = sj_knowledge_base_search (sj_knowledge_base_get_bundled (), options->search,
                                         options->category,
                                         options->context >= 0 ? options->context : 3,
                                         options->max > 0 ? options->max : 10);
      sj_json_print_pretty (answer);
      return SJ_CLI_EXIT_OK;
    }

  if ((sounds = sj_sounds_index_new_for_lookup (options->sounds, &error)) == NULL)
    {
      g_printerr ("strudel-jam: %s\n", error->message);
      return options->sounds != NULL ? SJ_CLI_EXIT_USAGE : SJ_CLI_EXIT_ERROR;
    }

  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  sound_cache = open_sound_cache ();
  sj_knowledge_set_sound_cache (knowledge, sound_cache);
  /* The sample maps the code fetched in the app (nothing is downloaded here). */
  remote_samples = sj_remote_samples_new (sound_cache, NULL);
  sj_knowledge_set_remote_samples (knowledge, remote_samples);

  if (options->knowledge_json != NULL)
    {
      g_autoptr(JsonNode) query = sj_json_parse (options->knowledge_json, -1, NULL, &error);

      if (query == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("--knowledge-json is not JSON: %s"), error->message);

          return usage_error (message);
        }
      answer = sj_knowledge_query_json (knowledge, query);
    }
  else
    answer = sj_knowledge_query (knowledge, options->knowledge);

  sj_json_print_pretty (answer);
  return SJ_CLI_EXIT_OK;
}
