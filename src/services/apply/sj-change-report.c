/* sj-change-report.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The apply pipeline's reading of a dry-run's result (SjDryRunResult, read
 * from the helper's JSON where it comes in): whether it lets the change
 * through, and the typed rejection or dry-run summary of the change's
 * result.
 */

#include "config.h"

#include "sj-change-report.h"

static void
copy_unknown_names (GPtrArray *names,
                    GPtrArray *out)
{
  for (guint i = 0; i < names->len; i++)
    {
      const SjDryRunUnknown *unknown = g_ptr_array_index (names, i);

      g_ptr_array_add (out, sj_change_unknown_name_new (unknown->name, unknown->kind, unknown->line, unknown->column,
                                                        (const char * const *) unknown->suggestions));
    }
}

/**
 * sj_change_report_lets_through:
 * @report: a report of sj_dry_run_report()
 *
 * Whether the change may go on to the page: the code ran, and every sound
 * it plays is registered, or may come from a sample map it loads from the
 * network that has not been fetched yet (the report's loadingSounds).
 */
gboolean
sj_change_report_lets_through (const SjDryRunResult *report)
{
  g_return_val_if_fail (report != NULL, FALSE);

  return sj_dry_run_result_lets_through (report);
}

/**
 * sj_change_report_rejection:
 * @report: a report that does not let the change through
 *
 * The contract's rejection for a failed dry-run, keeping its diagnostic
 * (placed in the code) and the unknown names with their suggestions.
 *
 * Returns: (transfer full): a rejected result
 */
SjChangeResult *
sj_change_report_rejection (const SjDryRunResult *report)
{
  gboolean ok;
  const char *message;
  SjChangeResult *result;
  SjChangeDiagnostic *diagnostic;

  g_return_val_if_fail (report != NULL, NULL);

  ok = report->ok;
  message = report->message;
  if (message == NULL)
    message = ok ? "The code plays sounds that are not loaded." : "The dry-run failed.";

  result = sj_change_result_new_rejected (ok ? SJ_CHANGE_PHASE_SOUNDS : sj_change_phase_from_string (report->phase),
                                          ok ? SJ_CHANGE_REJECTION_UNKNOWN_SOUNDS : SJ_CHANGE_REJECTION_DRY_RUN_FAILED,
                                          message, NULL);
  diagnostic = g_ptr_array_index (result->diagnostics, 0);
  diagnostic->line = report->line;
  diagnostic->column = report->column;

  copy_unknown_names (report->unknown_symbols, result->unknown_symbols);
  copy_unknown_names (report->unknown_sounds, result->unknown_sounds);

  return result;
}

/**
 * sj_change_report_read_dry_run:
 * @report: a report that lets the change through
 * @dry_run: (out caller-allocates): the summary of a result, as
 *   sj_change_result_new_landing() made it
 *
 * What the dry-run saw: events, sounds, tempo changes and sample sources,
 * and the sounds that only a sample map not fetched yet may provide.
 */
void
sj_change_report_read_dry_run (const SjDryRunResult *report,
                               SjChangeDryRun       *dry_run)
{
  g_return_if_fail (report != NULL);
  g_return_if_fail (dry_run != NULL);

  dry_run->events = report->events;
  g_strfreev (dry_run->sounds);
  dry_run->sounds = g_strdupv (report->sounds);

  for (guint i = 0; i < report->tempo->len; i++)
    {
      const SjDryRunTempo *tempo = &g_array_index (report->tempo, SjDryRunTempo, i);
      SjChangeTempo change = { .cps = tempo->cps, .cycle = tempo->cycle };

      g_array_append_val (dry_run->tempo, change);
    }

  for (guint i = 0; i < report->samples->len; i++)
    {
      const SjDryRunSamples *samples = g_ptr_array_index (report->samples, i);

      g_ptr_array_add (dry_run->samples, sj_change_samples_new (samples->source, (const char * const *) samples->names,
                                                                samples->base));
    }

  g_strfreev (dry_run->loading_sounds);
  dry_run->loading_sounds = g_strdupv (report->loading_sounds);
}
