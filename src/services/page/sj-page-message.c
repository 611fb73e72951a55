/* sj-page-message.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Messages from the Strudel page are data from a web process that also runs
 * the user's arbitrary JavaScript, so none of them is trusted: each one is
 * parsed, type-checked field by field and size-limited here before anything
 * in the app acts on it. A message that fails comes back as a GError that
 * the caller logs; it is never a crash.
 */

#include "config.h"

#include <math.h>

#include "sj-json.h"
#include "sj-page-message.h"

G_DEFINE_QUARK (sj-page-message-error-quark, sj_page_message_error)

static const struct {
  const char        *name;
  SjPageMessageType  type;
} message_types[] = {
  { "hello", SJ_PAGE_MESSAGE_HELLO },
  { "ready", SJ_PAGE_MESSAGE_READY },
  { "state", SJ_PAGE_MESSAGE_STATE },
  { "log", SJ_PAGE_MESSAGE_LOG },
  { "eval-error", SJ_PAGE_MESSAGE_EVAL_ERROR },
  { "sounds", SJ_PAGE_MESSAGE_SOUNDS },
  { "code", SJ_PAGE_MESSAGE_CODE },
  { "swap", SJ_PAGE_MESSAGE_SWAP },
  { "output", SJ_PAGE_MESSAGE_OUTPUT },
  { "midi-in", SJ_PAGE_MESSAGE_MIDI_IN },
  { "levels", SJ_PAGE_MESSAGE_LEVELS },
  { "nothing-to-play", SJ_PAGE_MESSAGE_NOTHING_TO_PLAY },
  { "countdown", SJ_PAGE_MESSAGE_COUNTDOWN },
  { "action", SJ_PAGE_MESSAGE_ACTION },
};

/* What the page's own controls may ask the app to do (the pending change's
 * Cancel button in the editor, swap.mjs). */
static const char * const page_actions[] = { "cancel-change", NULL };

/* What can happen to a quantized swap (data/web/src/swap.mjs). */
static const char * const swap_states[] = { "scheduled", "applied", "superseded", "canceled", NULL };

/* Where .osc() and .midi() haps go (data/web/src/outputs.mjs). */
static const char * const output_kinds[] = { "osc", "midi", NULL };

void
sj_page_message_free (SjPageMessage *message)
{
  if (message == NULL)
    return;

  g_clear_pointer (&message->text, g_free);
  g_clear_pointer (&message->object, json_object_unref);
  g_clear_pointer (&message->levels, g_free);
  g_free (message);
}

static gboolean
invalid (GError     **error,
         const char  *field,
         const char  *expected)
{
  g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD,
               "field “%s” must be %s", field, expected);
  return FALSE;
}

static JsonNode *
member_of_type (JsonObject *object,
                const char *name,
                GType       value_type)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  /* JSON numbers arrive as gint64 or double depending on their spelling. */
  if (value_type == G_TYPE_DOUBLE)
    {
      GType held = json_node_get_value_type (node);
      return (held == G_TYPE_DOUBLE || held == G_TYPE_INT64) ? node : NULL;
    }

  return json_node_get_value_type (node) == value_type ? node : NULL;
}

static gboolean
get_number (JsonObject *object,
            const char *name,
            double      min,
            double      max,
            double     *out,
            GError    **error)
{
  JsonNode *node = member_of_type (object, name, G_TYPE_DOUBLE);
  double value;

  if (node == NULL)
    return invalid (error, name, "a number");

  value = json_node_get_double (node);
  if (!isfinite (value) || value < min || value > max)
    return invalid (error, name, "a finite number in range");

  *out = value;
  return TRUE;
}

static gboolean
get_boolean (JsonObject *object,
             const char *name,
             gboolean   *out,
             GError    **error)
{
  JsonNode *node = member_of_type (object, name, G_TYPE_BOOLEAN);

  if (node == NULL)
    return invalid (error, name, "a boolean");

  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
get_string (JsonObject  *object,
            const char  *name,
            gsize        max_bytes,
            char       **out,
            GError     **error)
{
  JsonNode *node = member_of_type (object, name, G_TYPE_STRING);
  const char *value;

  if (node == NULL)
    return invalid (error, name, "a string");

  value = json_node_get_string (node);
  if (strlen (value) > max_bytes)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
                   "field “%s” is larger than %" G_GSIZE_FORMAT " bytes", name, max_bytes);
      return FALSE;
    }

  *out = g_strdup (value);
  return TRUE;
}

gboolean
sj_repl_state_parse (JsonObject   *object,
                     SjReplState  *state,
                     GError      **error)
{
  double triggered = 0, late = 0;

  g_return_val_if_fail (object != NULL, FALSE);
  g_return_val_if_fail (state != NULL, FALSE);

  memset (state, 0, sizeof *state);

  if (!get_boolean (object, "playing", &state->playing, error) ||
      !get_number (object, "cps", 1e-6, 1e6, &state->cps, error) ||
      !get_number (object, "cycle", -1e12, 1e12, &state->cycle, error) ||
      !get_number (object, "horizon", -1e12, 1e12, &state->horizon, error))
    return FALSE;

  /* Counters are optional: older pages or other hosts may not keep them. */
  if (json_object_has_member (object, "pending") &&
      !get_boolean (object, "pending", &state->pending, error))
    return FALSE;
  if (json_object_has_member (object, "triggered") &&
      !get_number (object, "triggered", 0, 1e15, &triggered, error))
    return FALSE;
  if (json_object_has_member (object, "late") &&
      !get_number (object, "late", 0, 1e15, &late, error))
    return FALSE;
  if (json_object_has_member (object, "maxLateMs") &&
      !get_number (object, "maxLateMs", 0, 1e12, &state->max_late_ms, error))
    return FALSE;

  state->triggered = (gint64)triggered;
  state->late = (gint64)late;

  return TRUE;
}

static gboolean
validate_sound (const char  *name,
                JsonNode    *node,
                GError     **error)
{
  JsonObject *sound;
  JsonNode *member;

  if (*name == '\0' || strlen (name) > 256 || !g_utf8_validate (name, -1, NULL))
    return invalid (error, "sounds", "keyed by non-empty names of at most 256 bytes");

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, name, "an object");

  sound = json_node_get_object (node);

  if (member_of_type (sound, "type", G_TYPE_STRING) == NULL)
    return invalid (error, "type", "a string");
  if (member_of_type (sound, "prebake", G_TYPE_BOOLEAN) == NULL)
    return invalid (error, "prebake", "a boolean");
  if (json_object_has_member (sound, "tag") && member_of_type (sound, "tag", G_TYPE_STRING) == NULL)
    return invalid (error, "tag", "a string");
  if ((member = json_object_get_member (sound, "count")) != NULL &&
      (member_of_type (sound, "count", G_TYPE_INT64) == NULL || json_node_get_int (member) < 0))
    return invalid (error, "count", "a non-negative integer");

  return TRUE;
}

/**
 * sj_sound_snapshot_validate:
 *
 * Checks a sound snapshot: an object mapping each sound name to
 * `{type, tag?, prebake, count?}`, as Strudel's sounds tab reads them.
 */
/* An output message: the hap's time on the audio clock, an (audio clock,
 * epoch) pair sampled with it, and flat controls (numbers, strings,
 * booleans). What the values mean is the outputs service's business; here
 * only the shape and the sizes are checked. */
static gboolean
parse_output (SjPageMessage  *message,
              JsonObject     *object,
              GError        **error)
{
  g_autoptr(GList) members = NULL;
  JsonObject *clock;
  JsonObject *controls;
  JsonNode *node;
  double number;

  if (!get_string (object, "kind", 16, &message->text, error))
    return FALSE;
  if (!g_strv_contains (output_kinds, message->text))
    return invalid (error, "kind", "osc or midi");
  if (!get_number (object, "time", 0, 1e9, &number, error))
    return FALSE;

  node = json_object_get_member (object, "clock");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "clock", "an object");
  clock = json_node_get_object (node);
  if (!get_number (clock, "audio", 0, 1e9, &number, error) ||
      !get_number (clock, "epochMs", 0, 1e15, &number, error))
    return FALSE;

  node = json_object_get_member (object, "controls");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "controls", "an object");
  controls = json_node_get_object (node);
  if (json_object_get_size (controls) > SJ_PAGE_MESSAGE_MAX_CONTROLS)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
                   "more than %d controls", SJ_PAGE_MESSAGE_MAX_CONTROLS);
      return FALSE;
    }

  members = json_object_get_members (controls);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      GType type;

      node = json_object_get_member (controls, name);
      if (strlen (name) > 64 || !JSON_NODE_HOLDS_VALUE (node))
        return invalid (error, "controls", "an object of numbers, strings and booleans");
      type = json_node_get_value_type (node);
      if (type == G_TYPE_STRING && strlen (json_node_get_string (node)) > SJ_PAGE_MESSAGE_MAX_CONTROL)
        {
          g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
                       "control “%.64s” is too long", name);
          return FALSE;
        }
      if (type == G_TYPE_DOUBLE && !isfinite (json_node_get_double (node)))
        return invalid (error, name, "a finite number");
    }

  message->object = json_object_ref (object);
  return TRUE;
}

gboolean
sj_sound_snapshot_validate (JsonObject  *sounds,
                            GError     **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  if (json_object_get_size (sounds) > SJ_PAGE_MESSAGE_MAX_SOUNDS)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
                   "more than %d sounds", SJ_PAGE_MESSAGE_MAX_SOUNDS);
      return FALSE;
    }

  json_object_iter_init (&iter, sounds);
  while (json_object_iter_next (&iter, &name, &node))
    {
      if (!validate_sound (name, node, error))
        return FALSE;
    }

  return TRUE;
}

/* Levels (data/web/src/levels.mjs) ---------------------------------------- */

#define DB_MIN (-200.0)
#define DB_MAX 100.0

static gboolean
too_many (GError     **error,
          const char  *field,
          guint        max)
{
  g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
               "field “%s” holds more than %u items", field, max);
  return FALSE;
}

static gboolean
get_count (JsonObject *object,
           const char *name,
           double      max,
           guint      *out,
           GError    **error)
{
  double value;

  if (!get_number (object, name, 0, max, &value, error))
    return FALSE;
  if (value != floor (value))
    return invalid (error, name, "a whole number");

  *out = (guint) value;
  return TRUE;
}

static JsonArray *
get_array (JsonObject  *object,
           const char  *name,
           guint        max,
           GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      invalid (error, name, "an array");
      return NULL;
    }

  array = json_node_get_array (node);
  if (json_array_get_length (array) > max)
    {
      too_many (error, name, max);
      return NULL;
    }

  return array;
}

static JsonObject *
get_object_element (JsonArray   *array,
                    guint        i,
                    const char  *name,
                    GError     **error)
{
  JsonNode *node = json_array_get_element (array, i);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, name, "an array of objects");
      return NULL;
    }

  return json_node_get_object (node);
}

static gboolean
parse_cycle_levels (SjCycleLevels  *cycle,
                    JsonObject     *object,
                    GError        **error)
{
  JsonArray *layers;
  double orbit;

  if (!get_number (object, "cycle", -1e12, 1e12, &cycle->cycle, error) ||
      !get_number (object, "cps", 1e-6, 1e6, &cycle->cps, error) ||
      !get_number (object, "rmsDb", DB_MIN, DB_MAX, &cycle->rms_db, error) ||
      !get_number (object, "peakDb", DB_MIN, DB_MAX, &cycle->peak_db, error) ||
      !get_number (object, "low", DB_MIN, DB_MAX, &cycle->low_db, error) ||
      !get_number (object, "mid", DB_MIN, DB_MAX, &cycle->mid_db, error) ||
      !get_number (object, "high", DB_MIN, DB_MAX, &cycle->high_db, error) ||
      !get_count (object, "clipped", 1e9, &cycle->clipped, error) ||
      !get_count (object, "onsets", 1e6, &cycle->onsets, error))
    return FALSE;
  if (cycle->cycle != floor (cycle->cycle))
    return invalid (error, "cycle", "a whole number");

  if ((layers = get_array (object, "layers", SJ_LEVELS_MAX_LAYERS, error)) == NULL)
    return FALSE;

  cycle->n_layers = json_array_get_length (layers);
  for (guint i = 0; i < cycle->n_layers; i++)
    {
      SjLayerLevels *layer = &cycle->layers[i];
      JsonObject *element = get_object_element (layers, i, "layers", error);

      if (element == NULL ||
          !get_number (element, "orbit", 0, 1024, &orbit, error) ||
          !get_number (element, "rmsDb", DB_MIN, DB_MAX, &layer->rms_db, error) ||
          !get_number (element, "peakDb", DB_MIN, DB_MAX, &layer->peak_db, error) ||
          !get_count (element, "clipped", 1e9, &layer->clipped, error))
        return FALSE;
      if (orbit != floor (orbit))
        return invalid (error, "orbit", "a whole number");
      layer->orbit = (int) orbit;
    }

  return TRUE;
}

/* A levels message: `{now: {rmsDb, peakDb, clipped}, cycles: [{cycle,
 * cps, rmsDb, peakDb, low, mid, high, clipped, onsets, layers: [{orbit,
 * rmsDb, peakDb, clipped}]}]}`, at most SJ_LEVELS_MAX_CYCLES cycles of
 * SJ_LEVELS_MAX_LAYERS layers, every figure finite and in range. */
static gboolean
parse_levels (SjLevelReport  *report,
              JsonObject     *object,
              GError        **error)
{
  JsonNode *node = json_object_get_member (object, "now");
  JsonObject *now;
  JsonArray *cycles;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "now", "an object");
  now = json_node_get_object (node);
  if (!get_number (now, "rmsDb", DB_MIN, DB_MAX, &report->rms_db, error) ||
      !get_number (now, "peakDb", DB_MIN, DB_MAX, &report->peak_db, error) ||
      !get_count (now, "clipped", 1e9, &report->clipped, error))
    return FALSE;

  if ((cycles = get_array (object, "cycles", SJ_LEVELS_MAX_CYCLES, error)) == NULL)
    return FALSE;

  report->n_cycles = json_array_get_length (cycles);
  for (guint i = 0; i < report->n_cycles; i++)
    {
      JsonObject *element = get_object_element (cycles, i, "cycles", error);

      if (element == NULL || !parse_cycle_levels (&report->cycles[i], element, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
parse_body (SjPageMessage  *message,
            JsonObject     *object,
            GError        **error)
{
  g_autofree char *level = NULL;
  JsonNode *node;
  double number;

  switch (message->type)
    {
    case SJ_PAGE_MESSAGE_HELLO:
    case SJ_PAGE_MESSAGE_NOTHING_TO_PLAY:
      return TRUE;

    case SJ_PAGE_MESSAGE_READY:
      if ((node = json_object_get_member (object, "strudel")) != NULL)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            return invalid (error, "strudel", "an object");
          message->object = json_object_ref (json_node_get_object (node));
        }
      return TRUE;

    case SJ_PAGE_MESSAGE_STATE:
      return sj_repl_state_parse (object, &message->state, error);

    case SJ_PAGE_MESSAGE_LOG:
      if (!get_string (object, "message", SJ_PAGE_MESSAGE_MAX_LOG, &message->text, error))
        return FALSE;
      if (json_object_has_member (object, "level") &&
          !get_string (object, "level", 32, &level, error))
        return FALSE;
      message->level = sj_log_level_from_string (level);
      return TRUE;

    case SJ_PAGE_MESSAGE_EVAL_ERROR:
      if (!get_string (object, "message", SJ_PAGE_MESSAGE_MAX_LOG, &message->text, error))
        return FALSE;
      if (json_object_has_member (object, "line"))
        {
          if (!get_number (object, "line", 1, G_MAXINT, &number, error))
            return FALSE;
          message->line = (int)number;
        }
      if (json_object_has_member (object, "column"))
        {
          if (!get_number (object, "column", 1, G_MAXINT, &number, error))
            return FALSE;
          message->column = (int)number;
        }
      return TRUE;

    case SJ_PAGE_MESSAGE_SOUNDS:
      node = json_object_get_member (object, "sounds");
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        return invalid (error, "sounds", "an object");
      if (!sj_sound_snapshot_validate (json_node_get_object (node), error))
        return FALSE;
      message->object = json_object_ref (json_node_get_object (node));
      return TRUE;

    case SJ_PAGE_MESSAGE_CODE:
      return get_string (object, "code", SJ_PAGE_MESSAGE_MAX_CODE, &message->text, error);

    case SJ_PAGE_MESSAGE_SWAP:
      if (!get_string (object, "state", 32, &message->text, error))
        return FALSE;
      if (!g_strv_contains (swap_states, message->text))
        return invalid (error, "state", "scheduled, applied, superseded or canceled");
      return get_number (object, "cycle", 0, 1e12, &message->cycle, error);

    case SJ_PAGE_MESSAGE_COUNTDOWN:
      if (!get_number (object, "cycle", 0, 1e12, &message->cycle, error) ||
          !get_number (object, "beats", 0, 1e9, &number, error) ||
          !get_number (object, "seconds", 0, 1e9, &message->seconds, error))
        return FALSE;
      if (number != floor (number))
        return invalid (error, "beats", "a whole number");
      message->beats = (int)number;
      return TRUE;

    case SJ_PAGE_MESSAGE_ACTION:
      if (!get_string (object, "name", 64, &message->text, error))
        return FALSE;
      if (!g_strv_contains (page_actions, message->text))
        return invalid (error, "name", "cancel-change");
      return TRUE;

    case SJ_PAGE_MESSAGE_OUTPUT:
      return parse_output (message, object, error);

    case SJ_PAGE_MESSAGE_MIDI_IN:
      return get_string (object, "port", 256, &message->text, error);

    case SJ_PAGE_MESSAGE_LEVELS:
      message->levels = g_new0 (SjLevelReport, 1);
      return parse_levels (message->levels, object, error);

    default:
      g_assert_not_reached ();
    }
}

/**
 * sj_page_message_parse:
 * @json: the JSON text the page posted
 * @length: its length, or -1 when nul-terminated
 *
 * Returns: (transfer full) (nullable): the validated message, or %NULL with
 * @error set.
 */
SjPageMessage *
sj_page_message_parse (const char  *json,
                       gssize       length,
                       GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(SjPageMessage) message = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonObject *object;
  JsonNode *node;
  const char *type;

  if (json == NULL)
    {
      g_set_error_literal (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_MALFORMED,
                           "message is not a string");
      return NULL;
    }

  if (length < 0)
    length = strlen (json);

  if ((gsize)length > SJ_PAGE_MESSAGE_MAX_BYTES)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
                   "message of %" G_GSSIZE_FORMAT " bytes exceeds the limit", length);
      return NULL;
    }

  if ((root = sj_json_parse (json, length, NULL, &local_error)) == NULL)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_MALFORMED,
                   "message is not JSON: %s", local_error->message);
      return NULL;
    }

  json_node_seal (root);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_MALFORMED,
                           "message is not a JSON object");
      return NULL;
    }

  object = json_node_get_object (root);
  if (member_of_type (object, "type", G_TYPE_STRING) == NULL)
    {
      g_set_error_literal (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_MALFORMED,
                           "message has no string “type”");
      return NULL;
    }

  type = json_object_get_string_member (object, "type");
  message = g_new0 (SjPageMessage, 1);
  message->id = -1;
  message->type = G_MAXINT;

  for (guint i = 0; i < G_N_ELEMENTS (message_types); i++)
    {
      if (g_strcmp0 (type, message_types[i].name) == 0)
        message->type = message_types[i].type;
    }

  if (message->type == (SjPageMessageType)G_MAXINT)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_UNKNOWN_TYPE,
                   "unknown message type “%.64s”", type);
      return NULL;
    }

  if ((node = json_object_get_member (object, "id")) != NULL)
    {
      if (member_of_type (object, "id", G_TYPE_INT64) == NULL || json_node_get_int (node) < 0)
        {
          invalid (error, "id", "a non-negative integer");
          return NULL;
        }
      message->id = json_node_get_int (node);
    }

  /* Levels come four times a second: a large one is not a levels report. */
  if (message->type == SJ_PAGE_MESSAGE_LEVELS && (gsize)length > SJ_LEVELS_MAX_MESSAGE_BYTES)
    {
      g_set_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
                   "levels message of %" G_GSSIZE_FORMAT " bytes exceeds the limit", length);
      return NULL;
    }

  if (!parse_body (message, object, error))
    return NULL;

  return g_steal_pointer (&message);
}
