/* sj-change-result.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What a change came to, typed: the window reads its fields, the agent's
 * tools turn it into the JSON the model reads (sj_change_result_to_json),
 * and nothing parses that JSON back. The JSON is the contract the system
 * prompt and the model's repairs rely on, member for member and in this
 * order:
 *
 *   {status: "scheduled"|"applied", applyAt: {cycle, inSeconds}, newHash,
 *    activeUnchangedUntilApply: true,
 *    dryRun: {events, sounds, tempo, samples, loadingSounds?}}
 *
 *   {status: "rejected", phase, code,
 *    diagnostics: [{message, field?, line?, column?}],
 *    unknownSymbols: [{name, kind, line, column, suggestions}],
 *    unknownSounds: [{name, suggestions}],
 *    unavailableSounds?: [{name, reason?, alternatives}],
 *    suggestedNext: {action, queries?}, latestCode?, latestHash?}
 */

#include "config.h"

#include <math.h>

#include "sj-change-result.h"

G_DEFINE_BOXED_TYPE (SjChangeResult, sj_change_result, sj_change_result_ref, sj_change_result_unref)

static const char * const status_names[] = { "scheduled", "applied", "rejected" };

static const char * const phase_names[] = {
  NULL, "input", "stale", "syntax", "compile", "runtime", "timeout", "sounds", "schedule",
};

static const char * const rejection_names[] = {
  NULL,
  "INVALID_INPUT",
  "CODE_TOO_LARGE",
  "SEARCH_NOT_FOUND",
  "SEARCH_AMBIGUOUS",
  "NO_CHANGE",
  "NOTHING_TO_UNDO",
  "STALE_BASE_HASH",
  "DRY_RUN_FAILED",
  "DRY_RUN_UNAVAILABLE",
  "UNKNOWN_SOUNDS",
  "LIVE_EVALUATION_FAILED",
  "PAGE_UNAVAILABLE",
  "SOUND_UNAVAILABLE",
};

G_STATIC_ASSERT (G_N_ELEMENTS (status_names) == SJ_CHANGE_STATUS_REJECTED + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (phase_names) == SJ_CHANGE_PHASE_SCHEDULE + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (rejection_names) == SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE + 1);

const char *
sj_change_status_to_string (SjChangeStatus status)
{
  g_return_val_if_fail (status < G_N_ELEMENTS (status_names), NULL);

  return status_names[status];
}

/* Returns: the contract's name of @phase, %NULL for SJ_CHANGE_PHASE_NONE */
const char *
sj_change_phase_to_string (SjChangePhase phase)
{
  g_return_val_if_fail (phase < G_N_ELEMENTS (phase_names), NULL);

  return phase_names[phase];
}

/**
 * sj_change_phase_from_string:
 * @phase: (nullable): a phase as the dry-run reports it
 *
 * Returns: the phase; a missing or unknown one is a runtime failure, as
 *   the dry-run's own answers treat it
 */
SjChangePhase
sj_change_phase_from_string (const char *phase)
{
  for (guint i = SJ_CHANGE_PHASE_INPUT; phase != NULL && i < G_N_ELEMENTS (phase_names); i++)
    if (g_str_equal (phase, phase_names[i]))
      return i;

  return SJ_CHANGE_PHASE_RUNTIME;
}

/* Returns: the contract's code for @rejection, %NULL for SJ_CHANGE_REJECTION_NONE */
const char *
sj_change_rejection_to_string (SjChangeRejection rejection)
{
  g_return_val_if_fail (rejection < G_N_ELEMENTS (rejection_names), NULL);

  return rejection_names[rejection];
}

static void
diagnostic_free (gpointer data)
{
  SjChangeDiagnostic *diagnostic = data;

  g_free (diagnostic->message);
  g_free (diagnostic->field);
  g_free (diagnostic);
}

/**
 * sj_change_unknown_name_new:
 * @kind: (nullable): "global" or "method" for a symbol, %NULL for a sound
 * @line: 1-based, 0 when unknown
 * @suggestions: (nullable): real names close to @name
 */
SjChangeUnknownName *
sj_change_unknown_name_new (const char         *name,
                            const char         *kind,
                            int                 line,
                            int                 column,
                            const char * const *suggestions)
{
  SjChangeUnknownName *unknown;

  g_return_val_if_fail (name != NULL, NULL);

  unknown = g_new0 (SjChangeUnknownName, 1);
  unknown->name = g_strdup (name);
  unknown->kind = g_strdup (kind);
  unknown->line = line;
  unknown->column = column;
  unknown->suggestions = g_strdupv ((char **) suggestions);

  return unknown;
}

void
sj_change_unknown_name_free (SjChangeUnknownName *unknown)
{
  if (unknown == NULL)
    return;

  g_free (unknown->name);
  g_free (unknown->kind);
  g_strfreev (unknown->suggestions);
  g_free (unknown->reason);
  g_free (unknown);
}

/**
 * sj_change_samples_new:
 * @names: (nullable): for a map, the sound names it registers
 * @base: (nullable): for a map, its base URL
 */
SjChangeSamples *
sj_change_samples_new (const char         *source,
                       const char * const *names,
                       const char         *base)
{
  SjChangeSamples *samples;

  g_return_val_if_fail (source != NULL, NULL);

  samples = g_new0 (SjChangeSamples, 1);
  samples->source = g_strdup (source);
  samples->names = g_strdupv ((char **) names);
  samples->base = g_strdup (base);

  return samples;
}

void
sj_change_samples_free (SjChangeSamples *samples)
{
  if (samples == NULL)
    return;

  g_free (samples->source);
  g_strfreev (samples->names);
  g_free (samples->base);
  g_free (samples);
}

static SjChangeResult *
result_new (SjChangeStatus status)
{
  SjChangeResult *self = g_new0 (SjChangeResult, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->status = status;
  self->apply_at_cycle = NAN;
  self->apply_in_seconds = NAN;
  self->dry_run.sounds = g_new0 (char *, 1);
  self->dry_run.tempo = g_array_new (FALSE, FALSE, sizeof (SjChangeTempo));
  self->dry_run.samples = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_change_samples_free);
  self->dry_run.loading_sounds = g_new0 (char *, 1);
  self->diagnostics = g_ptr_array_new_with_free_func (diagnostic_free);
  self->unknown_symbols = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_change_unknown_name_free);
  self->unknown_sounds = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_change_unknown_name_free);
  self->unavailable_sounds = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_change_unknown_name_free);
  self->sounds.load_ms = NAN;

  return self;
}

/**
 * sj_change_result_new_landing:
 * @status: scheduled, or applied at once
 * @new_hash: the SHA-256 of the code that lands
 *
 * A change that goes ahead; the pipeline fills in the dry-run summary.
 *
 * Returns: (transfer full): a new result
 */
SjChangeResult *
sj_change_result_new_landing (SjChangeStatus  status,
                              double          cycle,
                              double          in_seconds,
                              const char     *new_hash)
{
  SjChangeResult *self;

  g_return_val_if_fail (status == SJ_CHANGE_STATUS_SCHEDULED || status == SJ_CHANGE_STATUS_APPLIED, NULL);
  g_return_val_if_fail (new_hash != NULL, NULL);

  self = result_new (status);
  self->apply_at_cycle = cycle;
  self->apply_in_seconds = in_seconds;
  self->new_hash = g_strdup (new_hash);

  return self;
}

/**
 * sj_change_result_new_rejected:
 * @field: (nullable): the input field at fault
 *
 * A rejected change with one diagnostic, @message; the pipeline adds the
 * unknown names and their places when it has them.
 *
 * Returns: (transfer full): a new result
 */
SjChangeResult *
sj_change_result_new_rejected (SjChangePhase      phase,
                               SjChangeRejection  rejection,
                               const char        *message,
                               const char        *field)
{
  SjChangeResult *self;
  SjChangeDiagnostic *diagnostic;

  g_return_val_if_fail (phase != SJ_CHANGE_PHASE_NONE && phase < G_N_ELEMENTS (phase_names), NULL);
  g_return_val_if_fail (rejection != SJ_CHANGE_REJECTION_NONE && rejection < G_N_ELEMENTS (rejection_names), NULL);
  g_return_val_if_fail (message != NULL, NULL);

  self = result_new (SJ_CHANGE_STATUS_REJECTED);
  self->phase = phase;
  self->rejection = rejection;

  diagnostic = g_new0 (SjChangeDiagnostic, 1);
  diagnostic->message = g_strdup (message);
  diagnostic->field = g_strdup (field);
  g_ptr_array_add (self->diagnostics, diagnostic);

  return self;
}

SjChangeResult *
sj_change_result_ref (SjChangeResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sj_change_result_unref (SjChangeResult *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_free (self->new_hash);
  g_strfreev (self->dry_run.sounds);
  g_array_unref (self->dry_run.tempo);
  g_ptr_array_unref (self->dry_run.samples);
  g_strfreev (self->dry_run.loading_sounds);
  g_ptr_array_unref (self->diagnostics);
  g_ptr_array_unref (self->unknown_symbols);
  g_ptr_array_unref (self->unknown_sounds);
  g_ptr_array_unref (self->unavailable_sounds);
  g_strfreev (self->sounds.ready);
  g_strfreev (self->sounds.loading);
  g_strfreev (self->sounds.kit);
  g_strfreev (self->sounds.failed);
  g_strfreev (self->sounds.late);
  g_free (self->latest_code);
  g_free (self->latest_hash);
  g_free (self);
}

/**
 * sj_change_result_get_message:
 *
 * Returns: (nullable): the first diagnostic's message: why a rejected
 *   change was rejected; %NULL when there is none
 */
const char *
sj_change_result_get_message (const SjChangeResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->diagnostics->len == 0)
    return NULL;

  return ((SjChangeDiagnostic *) g_ptr_array_index (self->diagnostics, 0))->message;
}

static JsonArray *
strv_to_json (const char * const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);

  return array;
}

/* The dry-run's numbers come from JavaScript, which writes a whole number
 * without a fraction (json-glib then reads an integer) and a NaN or an
 * infinity as null: written back the same way, they read as the model
 * always read them. */
static void
set_js_number (JsonObject *object,
               const char *member,
               double      value)
{
  if (!isfinite (value))
    json_object_set_null_member (object, member);
  else if (value == floor (value) && fabs (value) < 0x1p63)
    json_object_set_int_member (object, member, (gint64) value);
  else
    json_object_set_double_member (object, member, value);
}

static JsonArray *
unknown_names_to_json (GPtrArray *unknown_names)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < unknown_names->len; i++)
    {
      SjChangeUnknownName *unknown = g_ptr_array_index (unknown_names, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "name", unknown->name);
      if (unknown->kind != NULL)
        json_object_set_string_member (object, "kind", unknown->kind);
      if (unknown->line > 0)
        json_object_set_int_member (object, "line", unknown->line);
      if (unknown->column > 0)
        json_object_set_int_member (object, "column", unknown->column);
      if (unknown->suggestions != NULL)
        json_object_set_array_member (object, "suggestions", strv_to_json ((const char * const *) unknown->suggestions));
      json_array_add_object_element (array, object);
    }

  return array;
}

static JsonObject *
dry_run_to_json (const SjChangeDryRun *dry_run)
{
  JsonObject *object = json_object_new ();
  JsonArray *tempo = json_array_new ();
  JsonArray *samples = json_array_new ();

  for (guint i = 0; i < dry_run->tempo->len; i++)
    {
      const SjChangeTempo *change = &g_array_index (dry_run->tempo, SjChangeTempo, i);
      JsonObject *element = json_object_new ();

      set_js_number (element, "cps", change->cps);
      if (!isnan (change->cycle))
        set_js_number (element, "cycle", change->cycle);
      json_array_add_object_element (tempo, element);
    }

  for (guint i = 0; i < dry_run->samples->len; i++)
    {
      const SjChangeSamples *source = g_ptr_array_index (dry_run->samples, i);
      JsonObject *element = json_object_new ();

      json_object_set_string_member (element, "source", source->source);
      if (source->names != NULL)
        json_object_set_array_member (element, "names", strv_to_json ((const char * const *) source->names));
      if (source->base != NULL)
        json_object_set_string_member (element, "base", source->base);
      json_array_add_object_element (samples, element);
    }

  json_object_set_int_member (object, "events", dry_run->events);
  json_object_set_array_member (object, "sounds", strv_to_json ((const char * const *) dry_run->sounds));
  json_object_set_array_member (object, "tempo", tempo);
  json_object_set_array_member (object, "samples", samples);
  /* Sounds of sample maps the page has yet to fetch: not known before
   * they are, so the model does not claim more than is known. */
  if (dry_run->loading_sounds != NULL && dry_run->loading_sounds[0] != NULL)
    json_object_set_array_member (object, "loadingSounds", strv_to_json ((const char * const *) dry_run->loading_sounds));

  return object;
}

/* What the model should do next: look the unknown names up when there
 * are any, else what the phase calls for. */
static JsonObject *
suggested_next_to_json (const SjChangeResult *self)
{
  JsonObject *next = json_object_new ();
  JsonArray *queries = json_array_new ();

  for (guint k = 0; k < 2; k++)
    {
      GPtrArray *names = k == 0 ? self->unknown_symbols : self->unknown_sounds;

      for (guint i = 0; i < names->len; i++)
        {
          SjChangeUnknownName *unknown = g_ptr_array_index (names, i);
          g_autofree char *query = g_strconcat (k == 0 ? "symbol:" : "sounds:", unknown->name, NULL);

          json_array_add_string_element (queries, query);
        }
    }

  if (json_array_get_length (queries) > 0)
    {
      json_object_set_string_member (next, "action", "consult_strudel_knowledge");
      json_object_set_array_member (next, "queries", queries);
      return next;
    }

  json_array_unref (queries);
  if (self->rejection == SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE)
    json_object_set_string_member (next, "action", "use_available_sounds");
  else if (self->phase == SJ_CHANGE_PHASE_INPUT)
    json_object_set_string_member (next, "action", "fix_the_input");
  else if (self->phase == SJ_CHANGE_PHASE_STALE)
    json_object_set_string_member (next, "action", "rebase_on_latest_code");
  else
    json_object_set_string_member (next, "action", "repair_and_retry");

  return next;
}

/* [{name: "casio:0", reason?, alternatives: [...]}]: what could not be
 * had, why when the page tried to load it, and sounds of its kind that
 * play now. */
static JsonArray *
unavailable_to_json (GPtrArray *unavailable)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < unavailable->len; i++)
    {
      SjChangeUnknownName *sound = g_ptr_array_index (unavailable, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "name", sound->name);
      if (sound->reason != NULL)
        json_object_set_string_member (object, "reason", sound->reason);
      json_object_set_array_member (object, "alternatives", strv_to_json ((const char * const *) sound->suggestions));
      json_array_add_object_element (array, object);
    }

  return array;
}

static gboolean
has_sounds (const SjChangeSounds *sounds)
{
  const GStrv lists[] = { sounds->ready, sounds->loading, sounds->kit, sounds->failed, sounds->late };

  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    if (lists[i] != NULL && lists[i][0] != NULL)
      return TRUE;
  return FALSE;
}

/* {ready, loading, kit, failed?, late?, loadMs?}: only for a change that
 * plays sample files, so a change of synthesizers reads as it always did. */
static JsonObject *
sounds_to_json (const SjChangeSounds *sounds)
{
  JsonObject *object = json_object_new ();

  json_object_set_array_member (object, "ready", strv_to_json ((const char * const *) sounds->ready));
  json_object_set_array_member (object, "loading", strv_to_json ((const char * const *) sounds->loading));
  json_object_set_array_member (object, "kit", strv_to_json ((const char * const *) sounds->kit));
  if (sounds->failed != NULL && sounds->failed[0] != NULL)
    json_object_set_array_member (object, "failed", strv_to_json ((const char * const *) sounds->failed));
  if (sounds->late != NULL && sounds->late[0] != NULL)
    json_object_set_array_member (object, "late", strv_to_json ((const char * const *) sounds->late));
  if (!isnan (sounds->load_ms))
    set_js_number (object, "loadMs", round (sounds->load_ms));

  return object;
}

static JsonObject *
rejection_to_json (const SjChangeResult *self)
{
  JsonObject *object = json_object_new ();
  JsonArray *diagnostics = json_array_new ();

  json_object_set_string_member (object, "status", "rejected");
  json_object_set_string_member (object, "phase", sj_change_phase_to_string (self->phase));
  json_object_set_string_member (object, "code", sj_change_rejection_to_string (self->rejection));

  for (guint i = 0; i < self->diagnostics->len; i++)
    {
      SjChangeDiagnostic *diagnostic = g_ptr_array_index (self->diagnostics, i);
      JsonObject *element = json_object_new ();

      json_object_set_string_member (element, "message", diagnostic->message);
      if (diagnostic->field != NULL)
        json_object_set_string_member (element, "field", diagnostic->field);
      if (diagnostic->line > 0)
        json_object_set_int_member (element, "line", diagnostic->line);
      if (diagnostic->column > 0)
        json_object_set_int_member (element, "column", diagnostic->column);
      json_array_add_object_element (diagnostics, element);
    }
  json_object_set_array_member (object, "diagnostics", diagnostics);
  json_object_set_array_member (object, "unknownSymbols", unknown_names_to_json (self->unknown_symbols));
  json_object_set_array_member (object, "unknownSounds", unknown_names_to_json (self->unknown_sounds));
  if (self->unavailable_sounds->len > 0)
    json_object_set_array_member (object, "unavailableSounds", unavailable_to_json (self->unavailable_sounds));
  json_object_set_object_member (object, "suggestedNext", suggested_next_to_json (self));

  if (self->latest_code != NULL)
    json_object_set_string_member (object, "latestCode", self->latest_code);
  if (self->latest_hash != NULL)
    json_object_set_string_member (object, "latestHash", self->latest_hash);

  return object;
}

/**
 * sj_change_result_to_json:
 *
 * The result as apply_strudel_change answers the model (see the top of
 * this file). Only the agent's tools need it.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
sj_change_result_to_json (const SjChangeResult *self)
{
  JsonObject *object;
  JsonObject *apply_at;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->status == SJ_CHANGE_STATUS_REJECTED)
    return rejection_to_json (self);

  object = json_object_new ();
  apply_at = json_object_new ();
  json_object_set_string_member (object, "status", sj_change_status_to_string (self->status));
  json_object_set_double_member (apply_at, "cycle", self->apply_at_cycle);
  json_object_set_double_member (apply_at, "inSeconds", self->apply_in_seconds);
  json_object_set_object_member (object, "applyAt", apply_at);
  json_object_set_string_member (object, "newHash", self->new_hash);
  json_object_set_boolean_member (object, "activeUnchangedUntilApply", TRUE);
  json_object_set_object_member (object, "dryRun", dry_run_to_json (&self->dry_run));
  if (has_sounds (&self->sounds))
    json_object_set_object_member (object, "sounds", sounds_to_json (&self->sounds));

  return object;
}
