/* sj-change-report.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The apply pipeline's reading of a dry-run report (sj_dry_run_report(),
 * JSON from the helper process): whether it lets the change through, and
 * the typed rejection or dry-run summary of the change's result. This is
 * the one place the pipeline reads the helper's JSON; what it passes on is
 * typed.
 */

#include "config.h"

#include <math.h>

#include "sj-change-report.h"
#include "sj-json.h"

/* The array member @name, or NULL when missing or of another type. */

/* A number, or NAN when it is null (JavaScript's NaN) or not one. */
static double
get_number (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NAN;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
    case G_TYPE_DOUBLE:
      return json_node_get_double (node);
    default:
      return NAN;
    }
}

/* 1-based line or column; 0 when absent. */
static int
get_position (JsonObject *object,
              const char *name)
{
  return json_object_has_member (object, name) ? (int) json_object_get_int_member (object, name) : 0;
}

/* The strings of an array member, or NULL when there is no such array. */
static GStrv
get_strv (JsonObject *object,
          const char *name)
{
  JsonArray *array = sj_json_object_get_array (object, name);
  g_autoptr(GStrvBuilder) builder = NULL;

  if (array == NULL)
    return NULL;

  builder = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }
  return g_strv_builder_end (builder);
}

/* unknownSymbols or unknownSounds: [{name, kind?, line?, column?, suggestions}] */
static void
read_unknown_names (JsonObject *report,
                    const char *member,
                    GPtrArray  *out)
{
  JsonArray *array = sj_json_object_get_array (report, member);

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *object;
      g_auto(GStrv) suggestions = NULL;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      object = json_node_get_object (node);
      /* A name is what the model would look up; without one there is
       * nothing to say about it. */
      name = sj_json_object_get_string (object, "name");
      if (name == NULL)
        continue;

      suggestions = get_strv (object, "suggestions");
      g_ptr_array_add (out, sj_change_unknown_name_new (name, sj_json_object_get_string (object, "kind"),
                                                        get_position (object, "line"),
                                                        get_position (object, "column"),
                                                        (const char * const *) suggestions));
    }
}

static gboolean
has_unknown_sounds (JsonObject *report)
{
  JsonArray *unknown = sj_json_object_get_array (report, "unknownSounds");

  return unknown != NULL && json_array_get_length (unknown) > 0;
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
sj_change_report_lets_through (JsonObject *report)
{
  g_return_val_if_fail (report != NULL, FALSE);

  return json_object_get_boolean_member_with_default (report, "ok", FALSE) && !has_unknown_sounds (report);
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
sj_change_report_rejection (JsonObject *report)
{
  gboolean ok;
  const char *message;
  SjChangeResult *result;
  SjChangeDiagnostic *diagnostic;

  g_return_val_if_fail (report != NULL, NULL);

  ok = json_object_get_boolean_member_with_default (report, "ok", FALSE);
  message = sj_json_object_get_string (report, "message");
  if (message == NULL)
    message = ok ? "The code plays sounds that are not loaded." : "The dry-run failed.";

  result = sj_change_result_new_rejected (ok ? SJ_CHANGE_PHASE_SOUNDS : sj_change_phase_from_string (sj_json_object_get_string (report, "phase")),
                                          ok ? SJ_CHANGE_REJECTION_UNKNOWN_SOUNDS : SJ_CHANGE_REJECTION_DRY_RUN_FAILED,
                                          message, NULL);
  diagnostic = g_ptr_array_index (result->diagnostics, 0);
  diagnostic->line = get_position (report, "line");
  diagnostic->column = get_position (report, "column");

  read_unknown_names (report, "unknownSymbols", result->unknown_symbols);
  read_unknown_names (report, "unknownSounds", result->unknown_sounds);

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
sj_change_report_read_dry_run (JsonObject     *report,
                               SjChangeDryRun *dry_run)
{
  JsonArray *tempo = sj_json_object_get_array (report, "tempo");
  JsonArray *samples = sj_json_object_get_array (report, "samples");
  GStrv sounds;

  g_return_if_fail (report != NULL);
  g_return_if_fail (dry_run != NULL);

  dry_run->events = json_object_get_int_member_with_default (report, "events", 0);
  sounds = get_strv (report, "sounds");
  if (sounds != NULL)
    {
      g_strfreev (dry_run->sounds);
      dry_run->sounds = sounds;
    }

  for (guint i = 0; tempo != NULL && i < json_array_get_length (tempo); i++)
    {
      JsonNode *node = json_array_get_element (tempo, i);
      SjChangeTempo change;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      change.cps = get_number (json_node_get_object (node), "cps");
      change.cycle = get_number (json_node_get_object (node), "cycle");
      g_array_append_val (dry_run->tempo, change);
    }

  for (guint i = 0; samples != NULL && i < json_array_get_length (samples); i++)
    {
      JsonNode *node = json_array_get_element (samples, i);
      g_auto(GStrv) names = NULL;
      const char *source;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      source = sj_json_object_get_string (json_node_get_object (node), "source");
      if (source == NULL)
        continue;
      names = get_strv (json_node_get_object (node), "names");
      g_ptr_array_add (dry_run->samples, sj_change_samples_new (source, (const char * const *) names,
                                                                sj_json_object_get_string (json_node_get_object (node), "base")));
    }

  sounds = get_strv (report, "loadingSounds");
  if (sounds != NULL)
    {
      g_strfreev (dry_run->loading_sounds);
      dry_run->loading_sounds = sounds;
    }
}
