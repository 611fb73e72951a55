/* sj-dry-run-engine.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One JavaScriptCore context running the dry-run bundle (data/web/dryrun/,
 * built by build-dryrun.mjs): Strudel's core, mini, tonal, webaudio, draw
 * and soundfonts packages and the transpiler, with no DOM, no audio and no
 * network.  The bundle does the work; this object only calls it and turns
 * what cannot be answered from JavaScript (a script that never settles) into
 * an answer.
 *
 * It lives in its own process, strudel-jam-dryrun, because user code can
 * loop forever: JavaScriptCore's GLib API has no way to interrupt a script,
 * so the app kills the process instead.
 */

#include "config.h"

#include <jsc/jsc.h>
#include <json-glib/json-glib.h>

#include "sj-dry-run-engine.h"

struct _SjDryRunEngine
{
  GObject     parent_instance;

  JSCContext *context;
  gboolean    dirty;  /* a dry-run left the runtime in an unknown state */
};

G_DEFINE_FINAL_TYPE (SjDryRunEngine, sj_dry_run_engine, G_TYPE_OBJECT)

static void
sj_dry_run_engine_finalize (GObject *object)
{
  SjDryRunEngine *self = (SjDryRunEngine *)object;

  g_clear_object (&self->context);

  G_OBJECT_CLASS (sj_dry_run_engine_parent_class)->finalize (object);
}

static void
sj_dry_run_engine_class_init (SjDryRunEngineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_dry_run_engine_finalize;
}

static void
sj_dry_run_engine_init (SjDryRunEngine *self)
{
}

/* performance.now() for the bundle: a bare context has no high-resolution
 * clock, and the answers report their duration in milliseconds. */
static double
monotonic_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static char *
take_exception (JSCContext *context)
{
  JSCException *exception = jsc_context_get_exception (context);
  char *report;

  if (exception == NULL)
    return NULL;
  report = jsc_exception_report (exception);
  jsc_context_clear_exception (context);
  return report;
}

/* Calls a global function of the bundle that takes no arguments. */
static JSCValue *
call_global (JSCContext *context,
             const char *name)
{
  g_autoptr(JSCValue) function = jsc_context_get_value (context, name);

  if (!jsc_value_is_function (function))
    return NULL;
  return jsc_value_function_call (function, G_TYPE_NONE);
}

static char *
call_global_string (JSCContext *context,
                    const char *name)
{
  g_autoptr(JSCValue) value = call_global (context, name);

  if (value == NULL || !jsc_value_is_string (value))
    return NULL;
  return jsc_value_to_string (value);
}

/**
 * sj_dry_run_engine_new:
 * @script: the dry-run bundle
 *
 * Loads the bundle into a new context and waits for its initialisation
 * (every Strudel module loaded and one evaluation done).
 */
SjDryRunEngine *
sj_dry_run_engine_new (GBytes  *script,
                       GError **error)
{
  g_autoptr(SjDryRunEngine) self = g_object_new (SJ_TYPE_DRY_RUN_ENGINE, NULL);
  g_autoptr(JSCValue) clock = NULL;
  g_autoptr(JSCValue) result = NULL;
  g_autoptr(JSCValue) ready = NULL;
  g_autofree char *exception = NULL;
  g_autofree char *init_error = NULL;
  gsize length = 0;
  const char *source = g_bytes_get_data (script, &length);

  self->context = jsc_context_new ();
  clock = jsc_value_new_function (self->context, "__sjNow", G_CALLBACK (monotonic_ms),
                                  NULL, NULL, G_TYPE_DOUBLE, 0);
  jsc_context_set_value (self->context, "__sjNow", clock);

  result = jsc_context_evaluate_with_source_uri (self->context, source, length,
                                                 "resource:///io/github/strudeljam/StrudelJam/dryrun/dryrun.js", 1);
  if ((exception = take_exception (self->context)) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The dry-run bundle failed to load: %s", exception);
      return NULL;
    }

  /* Initialisation is asynchronous (evalScope); it has settled by now. */
  if ((init_error = call_global_string (self->context, "sjDryRunInitError")) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The dry-run engine failed to start: %s", init_error);
      return NULL;
    }
  ready = jsc_context_get_value (self->context, "sjDryRunReady");
  if (!jsc_value_to_boolean (ready))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The dry-run engine did not finish starting");
      return NULL;
    }

  return g_steal_pointer (&self);
}

static char *
error_answer (gint64      id,
              const char *phase,
              const char *message)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, id);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "phase");
  json_builder_add_string_value (builder, phase);
  json_builder_set_member_name (builder, "message");
  json_builder_add_string_value (builder, message);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

/**
 * sj_dry_run_engine_run:
 *
 * Dry-runs @code for @cycles cycles.
 *
 * Returns: (transfer full): the answer, one line of JSON
 */
char *
sj_dry_run_engine_run (SjDryRunEngine *self,
                       gint64          id,
                       const char     *code,
                       int             cycles,
                       gboolean        want_haps)
{
  g_autoptr(JSCValue) function = NULL;
  g_autoptr(JSCValue) ignored = NULL;
  g_autofree char *exception = NULL;
  char *answer;

  g_assert (SJ_IS_DRY_RUN_ENGINE (self));
  g_assert (code != NULL);

  function = jsc_context_get_value (self->context, "sjDryRun");
  /* JSON numbers are doubles in JavaScript; ids stay exact up to 2^53. */
  ignored = jsc_value_function_call (function,
                                     G_TYPE_DOUBLE, (double) id,
                                     G_TYPE_STRING, code,
                                     G_TYPE_INT, cycles,
                                     G_TYPE_BOOLEAN, want_haps,
                                     G_TYPE_NONE);
  if ((exception = take_exception (self->context)) != NULL)
    {
      self->dirty = TRUE;
      return error_answer (id, "runtime", exception);
    }

  /* The promises of that call settled when it returned: an answer that is
   * still missing waits for something that never comes (a timer, a promise
   * never resolved).  The REPL is then stuck in the middle of an
   * evaluation, so the context is replaced. */
  if ((answer = call_global_string (self->context, "sjDryRunTake")) == NULL)
    {
      self->dirty = TRUE;
      return error_answer (id, "runtime",
                           "The code never finished evaluating: it waits for something that never "
                           "happens in a dry-run (a timer, or a promise that never settles).");
    }

  return answer;
}

/**
 * sj_dry_run_engine_is_dirty:
 *
 * Whether the last dry-runs changed the shared runtime (a new global, a
 * replaced pattern method, an evaluation that never ended): the next
 * dry-run would then not see what the page sees on a fresh start, and the
 * caller should make a new engine.
 */
gboolean
sj_dry_run_engine_is_dirty (SjDryRunEngine *self)
{
  g_autoptr(JSCValue) dirty = NULL;
  g_autofree char *exception = NULL;

  g_assert (SJ_IS_DRY_RUN_ENGINE (self));

  if (self->dirty)
    return TRUE;
  dirty = call_global (self->context, "sjDryRunDirty");
  if ((exception = take_exception (self->context)) != NULL || dirty == NULL)
    return TRUE;
  return jsc_value_to_boolean (dirty);
}

/**
 * sj_dry_run_engine_set_user_samples:
 * @packs: the user's folders of samples, `[{id, map}]` as JSON
 *
 * Registers them as the page does, replacing the ones given before.
 *
 * Returns: (transfer full): `{"ok":true,"userSounds":[…]}` or
 *   `{"ok":false,"message"}`, one line of JSON
 */
char *
sj_dry_run_engine_set_user_samples (SjDryRunEngine *self,
                                    const char     *packs)
{
  g_autoptr(JSCValue) function = NULL;
  g_autoptr(JSCValue) ignored = NULL;
  g_autofree char *exception = NULL;
  char *answer;

  g_assert (SJ_IS_DRY_RUN_ENGINE (self));
  g_assert (packs != NULL);

  function = jsc_context_get_value (self->context, "sjDryRunSetUserSamples");
  if (!jsc_value_is_function (function))
    return g_strdup ("{\"ok\":false,\"message\":\"the engine cannot register samples\"}");
  ignored = jsc_value_function_call (function, G_TYPE_STRING, packs, G_TYPE_NONE);
  if ((exception = take_exception (self->context)) != NULL)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "ok");
      json_builder_add_boolean_value (builder, FALSE);
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, exception);
      json_builder_end_object (builder);
      root = json_builder_get_root (builder);
      return json_to_string (root, FALSE);
    }

  /* Registering settles its promises before the call returns. */
  if ((answer = call_global_string (self->context, "sjDryRunUserSamplesTake")) == NULL)
    return g_strdup ("{\"ok\":false,\"message\":\"registering the samples never finished\"}");
  return answer;
}
