/* sj-dry-run-result.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The dry-run's report (JSON from the helper process, enriched by
 * sj_dry_run_report()) read into a typed result, once, with limits: the
 * apply pipeline then reads fields, never JSON members. A member that is
 * missing or of another type reads as absent; the lists stop at
 * SJ_DRY_RUN_RESULT_MAX_ITEMS entries. The JSON itself stays what the
 * command line prints and the agent's tools are given.
 */

#include "config.h"

#include <math.h>

#include "sj-dry-run-result.h"
#include "sj-json.h"

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

/* A 1-based line or column; 0 when absent, not a number or out of range. */
static int
get_position (JsonObject *object,
              const char *name)
{
  double value = get_number (object, name);

  return isfinite (value) && value >= 1 && value <= G_MAXINT ? (int) value : 0;
}

static char *
dup_string (JsonObject *object,
            const char *name)
{
  return g_strdup (sj_json_object_get_string (object, name));
}

/* The strings of an array member; empty when there is no such array. */
static GStrv
get_strv (JsonObject *object,
          const char *name)
{
  JsonArray *array = sj_json_object_get_array (object, name);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint length = array != NULL ? MIN (json_array_get_length (array), SJ_DRY_RUN_RESULT_MAX_ITEMS) : 0;

  for (guint i = 0; i < length; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }
  return g_strv_builder_end (builder);
}

/* The same, or NULL when the member is not an array (a sample source that
 * is not a map has no names, which is not the same as none). */
static GStrv
get_strv_or_null (JsonObject *object,
                  const char *name)
{
  return sj_json_object_get_array (object, name) != NULL ? get_strv (object, name) : NULL;
}

/* The objects of an array member, each read by @read (NULL: skipped). */
static GPtrArray *
get_objects (JsonObject      *report,
             const char      *name,
             gpointer       (*read) (JsonObject *object),
             GDestroyNotify   free_func)
{
  JsonArray *array = sj_json_object_get_array (report, name);
  GPtrArray *out = g_ptr_array_new_with_free_func (free_func);
  guint length = array != NULL ? MIN (json_array_get_length (array), SJ_DRY_RUN_RESULT_MAX_ITEMS) : 0;

  for (guint i = 0; i < length; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      gpointer item;

      if (JSON_NODE_HOLDS_OBJECT (element) && (item = read (json_node_get_object (element))) != NULL)
        g_ptr_array_add (out, item);
    }
  return out;
}

static void
unknown_free (SjDryRunUnknown *unknown)
{
  g_free (unknown->name);
  g_free (unknown->kind);
  g_strfreev (unknown->suggestions);
  g_free (unknown);
}

/* {name, kind?, line?, column?, suggestions}: without a name there is
 * nothing to say about it. */
static gpointer
read_unknown (JsonObject *object)
{
  SjDryRunUnknown *unknown;

  if (sj_json_object_get_string (object, "name") == NULL)
    return NULL;
  unknown = g_new0 (SjDryRunUnknown, 1);
  unknown->name = dup_string (object, "name");
  unknown->kind = dup_string (object, "kind");
  unknown->line = get_position (object, "line");
  unknown->column = get_position (object, "column");
  unknown->suggestions = get_strv_or_null (object, "suggestions");
  return unknown;
}

static void
samples_free (SjDryRunSamples *samples)
{
  g_free (samples->source);
  g_free (samples->base);
  g_strfreev (samples->names);
  g_free (samples);
}

static gpointer
read_samples (JsonObject *object)
{
  SjDryRunSamples *samples;

  if (sj_json_object_get_string (object, "source") == NULL)
    return NULL;
  samples = g_new0 (SjDryRunSamples, 1);
  samples->source = dup_string (object, "source");
  samples->base = dup_string (object, "base");
  samples->names = get_strv_or_null (object, "names");
  return samples;
}

static void
sample_use_free (SjDryRunSampleUse *use)
{
  g_free (use->pack);
  g_free (use->path);
  g_free (use->sound);
  g_free (use);
}

/* A file outside the library (no pack or path) is the page's business. */
static gpointer
read_sample_use (JsonObject *object)
{
  SjDryRunSampleUse *use;

  if (sj_json_object_get_string (object, "pack") == NULL || sj_json_object_get_string (object, "path") == NULL)
    return NULL;
  use = g_new0 (SjDryRunSampleUse, 1);
  use->pack = dup_string (object, "pack");
  use->path = dup_string (object, "path");
  use->sound = dup_string (object, "sound");
  return use;
}

/**
 * sj_dry_run_result_new_from_report:
 * @report: a report of sj_dry_run_report()
 *
 * Returns: (transfer full): what the report says, typed
 */
SjDryRunResult *
sj_dry_run_result_new_from_report (JsonObject *report)
{
  SjDryRunResult *result;
  JsonArray *tempo;
  guint length;

  g_return_val_if_fail (report != NULL, NULL);

  result = g_new0 (SjDryRunResult, 1);
  result->ok = json_object_get_boolean_member_with_default (report, "ok", FALSE);
  result->phase = dup_string (report, "phase");
  result->message = dup_string (report, "message");
  result->line = get_position (report, "line");
  result->column = get_position (report, "column");
  result->events = json_object_get_int_member_with_default (report, "events", 0);
  result->sounds = get_strv (report, "sounds");
  result->loading_sounds = get_strv (report, "loadingSounds");

  result->tempo = g_array_new (FALSE, FALSE, sizeof (SjDryRunTempo));
  tempo = sj_json_object_get_array (report, "tempo");
  length = tempo != NULL ? MIN (json_array_get_length (tempo), SJ_DRY_RUN_RESULT_MAX_ITEMS) : 0;
  for (guint i = 0; i < length; i++)
    {
      JsonNode *node = json_array_get_element (tempo, i);
      SjDryRunTempo change;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      change.cps = get_number (json_node_get_object (node), "cps");
      change.cycle = get_number (json_node_get_object (node), "cycle");
      g_array_append_val (result->tempo, change);
    }

  result->samples = get_objects (report, "samples", read_samples, (GDestroyNotify) samples_free);
  result->sample_uses = get_objects (report, "sampleUses", read_sample_use, (GDestroyNotify) sample_use_free);
  result->unknown_symbols = get_objects (report, "unknownSymbols", read_unknown, (GDestroyNotify) unknown_free);
  result->unknown_sounds = get_objects (report, "unknownSounds", read_unknown, (GDestroyNotify) unknown_free);

  return result;
}

void
sj_dry_run_result_free (SjDryRunResult *result)
{
  if (result == NULL)
    return;

  g_free (result->phase);
  g_free (result->message);
  g_strfreev (result->sounds);
  g_strfreev (result->loading_sounds);
  g_array_unref (result->tempo);
  g_ptr_array_unref (result->samples);
  g_ptr_array_unref (result->sample_uses);
  g_ptr_array_unref (result->unknown_symbols);
  g_ptr_array_unref (result->unknown_sounds);
  g_free (result);
}

/**
 * sj_dry_run_result_lets_through:
 *
 * Whether the change may go on to the page: the code ran, and every sound
 * it plays is registered, or may come from a sample map it loads from the
 * network that has not been fetched yet (loading_sounds).
 */
gboolean
sj_dry_run_result_lets_through (const SjDryRunResult *result)
{
  g_return_val_if_fail (result != NULL, FALSE);

  return result->ok && result->unknown_sounds->len == 0;
}
