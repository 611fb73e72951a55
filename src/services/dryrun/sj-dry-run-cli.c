/* sj-dry-run-cli.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * `strudel-jam --dry-run FILE|- [--cycles N] [--sounds FILE]`: dry-runs the
 * code in FILE (or stdin) and prints the report as JSON, with no window.
 * Code that is rejected is an answer, not a failure: the status is 0 and
 * the JSON says why.  A bad command line exits with 2, like the knowledge
 * options; a dry-run helper that cannot start exits with 1.
 */

#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "sj-code-file.h"
#include "sj-dry-run-cli.h"
#include "sj-dry-run-report.h"
#include "sj-dry-run.h"
#include "sj-json.h"
#include "sj-knowledge-cli.h"
#include "sj-knowledge.h"

gboolean
sj_dry_run_cli_wanted (const SjDryRunCliOptions *options)
{
  return options->file != NULL || options->cycles >= 0;
}

static int
usage_error (const char *message)
{
  g_printerr ("strudel-jam: %s\n", message);
  g_printerr ("%s\n", _("Usage: strudel-jam --dry-run FILE|- [--cycles N] [--sounds FILE]"));
  return SJ_CLI_EXIT_USAGE;
}

static void
print_json (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  sj_json_print_pretty (node);
}

/**
 * sj_dry_run_cli_run:
 * @sounds_path: --sounds, or %NULL
 * @other_commands: whether knowledge options were given too
 *
 * Returns: the exit status
 */
int
sj_dry_run_cli_run (const SjDryRunCliOptions *options,
                    const char               *sounds_path,
                    gboolean                  other_commands)
{
  g_autoptr(SjSoundsIndex) sounds = NULL;
  g_autoptr(SjKnowledge) knowledge = NULL;
  g_autoptr(SjSoundCache) cache = NULL;
  g_autoptr(SjRemoteSamples) remote_samples = NULL;
  g_autoptr(SjDryRun) dry_run = NULL;
  g_autoptr(JsonObject) raw = NULL;
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  guint cycles = SJ_DRY_RUN_DEFAULT_CYCLES;

  if (options->file == NULL)
    return usage_error (_("--cycles goes with --dry-run."));
  if (other_commands)
    return usage_error (_("--dry-run cannot be combined with the knowledge options."));
  if (options->cycles >= 0)
    {
      if (options->cycles < SJ_DRY_RUN_MIN_CYCLES || options->cycles > SJ_DRY_RUN_MAX_CYCLES)
        return usage_error (_("--cycles must be 1–8."));
      cycles = options->cycles;
    }

  if ((code = sj_code_file_read_command_line (options->file, &error)) == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Cannot read %s: %s"), options->file, error->message);

      return usage_error (message);
    }
  if ((sounds = sj_sounds_index_new_for_lookup (sounds_path, &error)) == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Cannot read the sounds %s: %s"),
                                                  sounds_path != NULL ? sounds_path : "cache", error->message);

      return sounds_path != NULL ? usage_error (message) : (g_printerr ("strudel-jam: %s\n", message), SJ_CLI_EXIT_ERROR);
    }

  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  /* What the sample maps the app fetched register (from their cache; nothing
   * is downloaded here). */
  cache = sj_sound_cache_new (sj_sound_library_get_default (), NULL);
  remote_samples = sj_remote_samples_new (cache, NULL);
  sj_knowledge_set_remote_samples (knowledge, remote_samples);
  dry_run = sj_dry_run_new ();
  raw = sj_dry_run_run_sync (dry_run, code, cycles, 0, SJ_DRY_RUN_FLAGS_NONE, NULL, &error);
  if (raw == NULL)
    {
      report = sj_dry_run_report_error (error);
      print_json (report);
      return g_error_matches (error, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT) ? SJ_CLI_EXIT_OK
                                                                                        : SJ_CLI_EXIT_ERROR;
    }

  report = sj_dry_run_report (raw, knowledge);
  print_json (report);
  return SJ_CLI_EXIT_OK;
}
