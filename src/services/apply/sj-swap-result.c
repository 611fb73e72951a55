/* sj-swap-result.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The page's answer to a swap (scheduleSwap() in app.mjs), read once
 * where it comes from the page into a typed SjSwapResult, so that the apply
 * pipeline, the window and the tests read fields rather than JSON members.
 * The four answers, each with what its readers need:
 *
 *   {status: "scheduled", applyAtCycle, inSeconds, cps, cpsAtApply?, sounds?}
 *   {status: "applied", applyAtCycle: 0, inSeconds: 0, cps, sounds?}
 *   {status: "error", message}
 *   {status: "unavailable", message, sounds: {failed, failures: [{name, reason}]}}
 *
 * where sounds is {ready, loaded, failed, late, ms, failures} (preload.mjs).
 * Anything else is refused with G_IO_ERROR_INVALID_DATA and a message that
 * names the member at fault; lists longer than SJ_SWAP_RESULT_MAX_SOUNDS
 * are refused too, since no swap loads that many sounds.
 */

#include "config.h"

#include <math.h>

#include "sj-json.h"
#include "sj-swap-result.h"

static void
failure_free (SjSwapFailure *failure)
{
  g_free (failure->name);
  g_free (failure->reason);
  g_free (failure);
}

/**
 * sj_swap_result_new:
 *
 * Returns: (transfer full): a result with @status, no sounds and no
 *   numbers (for targets that are not a page, such as the tests')
 */
SjSwapResult *
sj_swap_result_new (SjSwapStatus status)
{
  SjSwapResult *self = g_new0 (SjSwapResult, 1);

  self->status = status;
  self->cps_at_apply = NAN;
  self->load_ms = NAN;
  self->failed = g_new0 (char *, 1);
  self->late = g_new0 (char *, 1);
  self->failures = g_ptr_array_new_with_free_func ((GDestroyNotify) failure_free);
  return self;
}

void
sj_swap_result_free (SjSwapResult *self)
{
  if (self == NULL)
    return;

  g_free (self->message);
  g_strfreev (self->failed);
  g_strfreev (self->late);
  g_ptr_array_unref (self->failures);
  g_free (self);
}

static gboolean
invalid (GError    **error,
         const char *format,
         ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError    **error,
         const char *format,
         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, message);
  return FALSE;
}

/* The number @name of @object into @out; absent is fine unless @required. */
static gboolean
read_number (JsonObject  *object,
             const char  *name,
             gboolean     required,
             double      *out,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return !required || invalid (error, "the swap result has no number “%s”", name);
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_DOUBLE && json_node_get_value_type (node) != G_TYPE_INT64))
    return invalid (error, "the swap result's “%s” is not a number", name);
  *out = json_node_get_double (node);
  return TRUE;
}

/* The strings of the array @name of @sounds, each once (the page may list
 * a file twice). */
static gboolean
read_labels (JsonObject  *sounds,
             const char  *name,
             GStrv       *out,
             GError     **error)
{
  JsonNode *node = json_object_get_member (sounds, name);
  g_autoptr(GStrvBuilder) builder = NULL;
  g_autoptr(GHashTable) seen = NULL;
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, "the swap result's sounds.%s is not a list", name);
  array = json_node_get_array (node);
  if (json_array_get_length (array) > SJ_SWAP_RESULT_MAX_SOUNDS)
    return invalid (error, "the swap result's sounds.%s has %u entries, more than %u",
                    name, json_array_get_length (array), SJ_SWAP_RESULT_MAX_SOUNDS);

  builder = g_strv_builder_new ();
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        return invalid (error, "the swap result's sounds.%s holds something other than a name", name);
      if (g_hash_table_add (seen, (gpointer) json_node_get_string (element)))
        g_strv_builder_add (builder, json_node_get_string (element));
    }

  g_strfreev (*out);
  *out = g_strv_builder_end (builder);
  return TRUE;
}

/* sounds.failures: [{name, reason}]; an entry without a name says nothing. */
static gboolean
read_failures (JsonObject  *sounds,
               GPtrArray   *out,
               GError     **error)
{
  JsonNode *node = json_object_get_member (sounds, "failures");
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, "the swap result's sounds.failures is not a list");
  array = json_node_get_array (node);
  if (json_array_get_length (array) > SJ_SWAP_RESULT_MAX_SOUNDS)
    return invalid (error, "the swap result's sounds.failures has %u entries, more than %u",
                    json_array_get_length (array), SJ_SWAP_RESULT_MAX_SOUNDS);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      SjSwapFailure *failure;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return invalid (error, "the swap result's sounds.failures holds something other than an object");
      name = sj_json_object_get_string (json_node_get_object (element), "name");
      if (name == NULL)
        continue;
      failure = g_new0 (SjSwapFailure, 1);
      failure->name = g_strdup (name);
      failure->reason = g_strdup (sj_json_object_get_string (json_node_get_object (element), "reason"));
      g_ptr_array_add (out, failure);
    }
  return TRUE;
}

static gboolean
read_sounds (JsonObject    *answer,
             SjSwapResult  *self,
             GError       **error)
{
  JsonNode *node = json_object_get_member (answer, "sounds");
  JsonObject *sounds;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return self->status != SJ_SWAP_UNAVAILABLE || invalid (error, "the swap result says a sound is unavailable but not which");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "the swap result's sounds is not an object");

  sounds = json_node_get_object (node);
  self->has_sounds = TRUE;
  return read_labels (sounds, "failed", &self->failed, error) &&
         read_labels (sounds, "late", &self->late, error) &&
         read_failures (sounds, self->failures, error) &&
         read_number (sounds, "ms", FALSE, &self->load_ms, error);
}

/**
 * sj_swap_result_new_from_json:
 * @answer: what the page answered to a swap
 *
 * Reads and checks the page's answer (see the top of this file).
 *
 * Returns: (transfer full) (nullable): the result, or %NULL with @error
 *   (G_IO_ERROR_INVALID_DATA) naming what is wrong with @answer
 */
SjSwapResult *
sj_swap_result_new_from_json (JsonObject  *answer,
                              GError     **error)
{
  g_autoptr(SjSwapResult) self = NULL;
  const char *status;

  g_return_val_if_fail (answer != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  status = sj_json_object_get_string (answer, "status");
  if (status == NULL)
    {
      invalid (error, "the swap result has no status");
      return NULL;
    }

  if (g_str_equal (status, "scheduled"))
    self = sj_swap_result_new (SJ_SWAP_SCHEDULED);
  else if (g_str_equal (status, "applied"))
    self = sj_swap_result_new (SJ_SWAP_APPLIED);
  else if (g_str_equal (status, "error"))
    self = sj_swap_result_new (SJ_SWAP_ERROR);
  else if (g_str_equal (status, "unavailable"))
    self = sj_swap_result_new (SJ_SWAP_UNAVAILABLE);
  else
    {
      invalid (error, "the swap result's status “%.40s” is none of scheduled, applied, error, unavailable", status);
      return NULL;
    }

  if (self->status == SJ_SWAP_ERROR || self->status == SJ_SWAP_UNAVAILABLE)
    {
      const char *message = sj_json_object_get_string (answer, "message");

      if (message == NULL)
        {
          invalid (error, "the swap result of status “%s” has no message", status);
          return NULL;
        }
      self->message = g_strdup (message);
    }
  else if (!read_number (answer, "applyAtCycle", TRUE, &self->apply_at_cycle, error) ||
           !read_number (answer, "inSeconds", TRUE, &self->in_seconds, error) ||
           !read_number (answer, "cps", TRUE, &self->cps, error) ||
           !read_number (answer, "cpsAtApply", FALSE, &self->cps_at_apply, error))
    return NULL;

  if (!read_sounds (answer, self, error))
    return NULL;

  return g_steal_pointer (&self);
}

/**
 * sj_swap_result_get_reason:
 *
 * Returns: (nullable): why the page could not load the sound @name, as it
 *   said, or %NULL
 */
const char *
sj_swap_result_get_reason (const SjSwapResult *self,
                           const char         *name)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->failures->len; i++)
    {
      const SjSwapFailure *failure = g_ptr_array_index (self->failures, i);

      if (g_str_equal (failure->name, name))
        return failure->reason;
    }
  return NULL;
}

const char *
sj_swap_status_to_string (SjSwapStatus status)
{
  switch (status)
    {
    case SJ_SWAP_SCHEDULED:
      return "scheduled";
    case SJ_SWAP_APPLIED:
      return "applied";
    case SJ_SWAP_ERROR:
      return "error";
    case SJ_SWAP_UNAVAILABLE:
      return "unavailable";
    default:
      g_return_val_if_reached ("error");
    }
}
