/* sj-change-applier.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * apply_strudel_change: the only way generated code reaches the music.
 * The pipeline is strict and ordered: read the input → check that it was
 * written against the code that is in the editor now (the stale-hash
 * check) → build the new code → dry-run it in the isolated helper → check
 * that every sound it plays exists and can be had now (cached, downloaded,
 * or the drum kit's voice) → hand it to the page, which loads its sounds
 * and then swaps it in exactly on the next boundary.  Any failure stops the pipeline with a
 * structured rejection, and the music keeps playing what it played.
 *
 * Undo goes back through the timeline along the same path, and a
 * replacement puts whole code in place the same way (both are in
 * sj-change-applier-replace.c); read_code gives the model the text and the
 * hash to write its change against.
 */

#include "config.h"

#include <string.h>

#include "sj-change-applier-private.h"
#include "sj-change-report.h"
#include "sj-change-sounds.h"

G_DEFINE_FINAL_TYPE (SjChangeApplier, sj_change_applier, G_TYPE_OBJECT)

enum {
  LANDING,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  SjChangeRequest *request;
  char            *source;
  gboolean         undo;
  char            *current;
  char            *code;
  char            *hash;
  SjDryRunResult  *report;
  SjChangeSounds   sounds;
  gint64           dry_run_started;
} ApplyData;

static void
apply_data_free (gpointer data)
{
  ApplyData *apply = data;

  g_clear_pointer (&apply->request, sj_change_request_free);
  g_free (apply->source);
  g_free (apply->current);
  g_free (apply->code);
  g_free (apply->hash);
  g_clear_pointer (&apply->report, sj_dry_run_result_free);
  g_strfreev (apply->sounds.ready);
  g_strfreev (apply->sounds.loading);
  g_strfreev (apply->sounds.kit);
  g_free (apply);
}

static void
sj_change_applier_finalize (GObject *object)
{
  SjChangeApplier *self = (SjChangeApplier *)object;

  g_clear_object (&self->target);
  g_clear_object (&self->dry_run);
  g_clear_object (&self->knowledge);
  g_clear_object (&self->timeline);
  g_clear_object (&self->sound_cache);

  G_OBJECT_CLASS (sj_change_applier_parent_class)->finalize (object);
}

static void
sj_change_applier_class_init (SjChangeApplierClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_change_applier_finalize;

  /**
   * SjChangeApplier::landing:
   * @previous: the code that played before
   * @code: the code the page was given
   * @hash: its hash
   * @cycle: the boundary it starts at (0 when applied while stopped)
   * @applied: whether it is already playing (applied at once, stopped)
   * @source: who asked: "agent", "user" or "verify"
   *
   * A change passed every check and the page has it: what checks that it
   * is heard (sj-change-verify.c) starts here.
   */
  signals[LANDING] =
    g_signal_new ("landing", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 6,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_BOOLEAN, G_TYPE_STRING);
}

static void
sj_change_applier_init (SjChangeApplier *self)
{
  self->defaults.quantize = SJ_QUANTIZE_NEXT_CYCLE;
  self->defaults.bars = 1;
  self->defaults.bar_cycles = 4;
  self->defaults.auto_start = FALSE;
  self->defaults.dry_run_bars = 1;
}

/**
 * sj_change_applier_set_sound_cache:
 * @cache: (nullable): the cache the page's sample files come from
 *
 * With a cache, every change's sample files are checked before it lands
 * (see sj-change-sounds.c); without one (the tests' page in memory), they
 * are not.
 */
void
sj_change_applier_set_sound_cache (SjChangeApplier *self,
                                   SjSoundCache    *cache)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));
  g_return_if_fail (cache == NULL || SJ_IS_SOUND_CACHE (cache));

  g_set_object (&self->sound_cache, cache);
}

SjChangeApplier *
sj_change_applier_new (SjLiveTarget *target,
                       SjDryRun     *dry_run,
                       SjKnowledge  *knowledge,
                       SjTimeline   *timeline)
{
  SjChangeApplier *self;

  g_return_val_if_fail (SJ_IS_LIVE_TARGET (target), NULL);
  g_return_val_if_fail (SJ_IS_DRY_RUN (dry_run), NULL);
  g_return_val_if_fail (SJ_IS_KNOWLEDGE (knowledge), NULL);
  g_return_val_if_fail (SJ_IS_TIMELINE (timeline), NULL);

  self = g_object_new (SJ_TYPE_CHANGE_APPLIER, NULL);
  self->target = g_object_ref (target);
  self->dry_run = g_object_ref (dry_run);
  self->knowledge = g_object_ref (knowledge);
  self->timeline = g_object_ref (timeline);

  return self;
}

/**
 * sj_change_applier_set_defaults:
 *
 * The policy for fields a change leaves out (the settings' quantize mode
 * and bar length).
 */
void
sj_change_applier_set_defaults (SjChangeApplier    *self,
                                const SjSwapPolicy *policy)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));

  self->defaults = *policy;
  self->defaults.bar_cycles = CLAMP (policy->bar_cycles, 1, 16);
}

SjTimeline *
sj_change_applier_get_timeline (SjChangeApplier *self)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));

  return self->timeline;
}

/* Finishes @task with @rejection, and takes both. */
void
_sj_change_applier_reject (GTask          *task,
                           SjChangeResult *rejection)
{
  g_task_return_pointer (task, rejection, (GDestroyNotify) sj_change_result_unref);
  g_object_unref (task);
}

/* A failure of the page itself (gone, restarting, timed out) is a
 * rejection too: the caller learns that nothing was applied. */
gboolean
_sj_change_applier_propagate_or_reject (GTask             *task,
                                        GError            *error,
                                        SjChangePhase      phase,
                                        SjChangeRejection  rejection)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return TRUE;
    }

  _sj_change_applier_reject (task, sj_change_result_new_rejected (phase, rejection, error->message, NULL));
  g_error_free (error);
  return TRUE;
}

static SjChangeResult *
success (ApplyData          *apply,
         const SjSwapResult *swap)
{
  SjChangeResult *result;

  result = sj_change_result_new_landing (swap->status == SJ_SWAP_APPLIED ? SJ_CHANGE_STATUS_APPLIED : SJ_CHANGE_STATUS_SCHEDULED,
                                         swap->apply_at_cycle, swap->in_seconds, apply->hash);
  sj_change_report_read_dry_run (apply->report, &result->dry_run);
  result->sounds.ready = g_steal_pointer (&apply->sounds.ready);
  result->sounds.loading = g_steal_pointer (&apply->sounds.loading);
  result->sounds.kit = g_steal_pointer (&apply->sounds.kit);
  sj_change_sounds_read_page (&result->sounds, swap);

  return result;
}

/* The page refused the change: a sound of it could not be loaded (a
 * download that failed, a body that is not a sound), and the change would
 * have played silence where it plays. Nothing changed. */
static SjChangeResult *
refusal (SjChangeApplier    *self,
         const SjSwapResult *swap)
{
  g_autoptr(GPtrArray) unavailable = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_change_unknown_name_free);
  g_autofree char *which = sj_change_sounds_read_refusal (swap, self->sound_cache, self->knowledge, unavailable);
  g_autofree char *message = g_strdup_printf ("Not applied: the page could not load %s, so the change would "
                                              "have been silent there. Nothing changed; use sounds that play "
                                              "now (the alternatives, or strudel_knowledge \"sounds available "
                                              "offline\").",
                                              *which != '\0' ? which : "a sound of the change");
  SjChangeResult *rejection = sj_change_result_new_rejected (SJ_CHANGE_PHASE_SOUNDS,
                                                             SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE,
                                                             message, NULL);

  g_ptr_array_extend_and_steal (rejection->unavailable_sounds, g_steal_pointer (&unavailable));
  return rejection;
}

static void
swap_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjChangeApplier *self = g_task_get_source_object (task);
  ApplyData *apply = g_task_get_task_data (task);
  g_autoptr(SjSwapResult) swap = NULL;
  GError *error = NULL;

  swap = sj_live_target_schedule_swap_finish (SJ_LIVE_TARGET (object), result, &error);
  if (swap == NULL)
    {
      _sj_change_applier_propagate_or_reject (g_steal_pointer (&task), error, SJ_CHANGE_PHASE_SCHEDULE,
                                              SJ_CHANGE_REJECTION_PAGE_UNAVAILABLE);
      return;
    }

  if (swap->status == SJ_SWAP_UNAVAILABLE)
    {
      _sj_change_applier_reject (g_steal_pointer (&task), refusal (self, swap));
      return;
    }
  if (swap->status == SJ_SWAP_ERROR)
    {
      _sj_change_applier_reject (g_steal_pointer (&task),
                                 sj_change_result_new_rejected (SJ_CHANGE_PHASE_RUNTIME,
                                                                SJ_CHANGE_REJECTION_LIVE_EVALUATION_FAILED,
                                                                swap->message != NULL ? swap->message
                                                                                      : "The page could not evaluate the code.",
                                                                NULL));
      return;
    }

  if (apply->undo)
    sj_timeline_step_back (self->timeline);
  else
    sj_timeline_push (self->timeline, apply->code, swap->apply_at_cycle, apply->source);

  g_signal_emit (self, signals[LANDING], 0, apply->current, apply->code, apply->hash,
                 swap->apply_at_cycle, swap->status == SJ_SWAP_APPLIED, apply->source);
  g_task_return_pointer (task, success (apply, swap), (GDestroyNotify) sj_change_result_unref);
}

static void
dry_run_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjChangeApplier *self = g_task_get_source_object (task);
  ApplyData *apply = g_task_get_task_data (task);
  g_autoptr(JsonObject) raw = NULL;
  GError *error = NULL;

  raw = sj_dry_run_run_finish (SJ_DRY_RUN (object), result, &error);
  self->last_dry_run_us = g_get_monotonic_time () - apply->dry_run_started;
  if (raw == NULL)
    {
      _sj_change_applier_propagate_or_reject (g_steal_pointer (&task), error, SJ_CHANGE_PHASE_RUNTIME,
                                              SJ_CHANGE_REJECTION_DRY_RUN_UNAVAILABLE);
      return;
    }

  {
    g_autoptr(JsonObject) report = sj_dry_run_report (raw, self->knowledge);

    apply->report = sj_dry_run_result_new_from_report (report);
  }

  if (!sj_change_report_lets_through (apply->report))
    {
      _sj_change_applier_reject (g_steal_pointer (&task), sj_change_report_rejection (apply->report));
      return;
    }

  /* The agent never plays a sound that cannot sound: the music stays as it
   * is and the model hears what plays instead. The musician's own changes
   * and undo go ahead (the kit, or silence for that sound, as in Strudel). */
  if (self->sound_cache != NULL)
    {
      g_autoptr(GPtrArray) unavailable = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_change_unknown_name_free);

      sj_change_sounds_classify (&apply->sounds, apply->report, self->sound_cache, self->knowledge, unavailable);
      if (unavailable->len > 0 && !apply->undo && g_strcmp0 (apply->source, "agent") == 0)
        {
          SjChangeResult *rejection = sj_change_result_new_rejected (
            SJ_CHANGE_PHASE_SOUNDS, SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE,
            sj_sound_cache_get_allow_downloads (self->sound_cache)
              ? "The change plays sounds that are not downloaded, and the sound hosts cannot be reached: use sounds that play offline (the alternatives, or strudel_knowledge \"sounds available offline\")."
              : "The change plays sounds that are not downloaded, and downloading sounds is off: use sounds that play offline (the alternatives, or strudel_knowledge \"sounds available offline\").",
            NULL);

          g_ptr_array_extend_and_steal (rejection->unavailable_sounds, g_steal_pointer (&unavailable));
          _sj_change_applier_reject (g_steal_pointer (&task), rejection);
          return;
        }
    }

  /* From here on the change is committed: once the page has been asked to
   * swap, stopping the agent must not leave a swap the caller believes
   * was canceled, so the result is reported whatever the cancellable says. */
  g_task_set_check_cancellable (task, FALSE);
  /* The agent's change is refused by the page if a sound fails to load, as
   * it would have been here had the cache known (see above). */
  apply->request->policy.refuse_unavailable = !apply->undo && g_strcmp0 (apply->source, "agent") == 0;
  sj_live_target_schedule_swap_async (self->target, apply->code, &apply->request->policy,
                                      NULL, swap_cb, g_steal_pointer (&task));
}

static void
fetch_code_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjChangeApplier *self = g_task_get_source_object (task);
  ApplyData *apply = g_task_get_task_data (task);
  g_autofree char *current_hash = NULL;
  SjChangeResult *rejection = NULL;
  GCancellable *cancellable;
  GError *error = NULL;
  guint cycles;

  apply->current = sj_live_target_fetch_code_finish (SJ_LIVE_TARGET (object), result, &error);
  if (apply->current == NULL)
    {
      _sj_change_applier_propagate_or_reject (g_steal_pointer (&task), error, SJ_CHANGE_PHASE_SCHEDULE,
                                              SJ_CHANGE_REJECTION_PAGE_UNAVAILABLE);
      return;
    }

  /* The change was written against some text; if the editor holds
   * another one now (the user typed, another change landed), applying it
   * would silently undo that.  The model gets the latest code instead. */
  current_hash = sj_code_hash (apply->current);
  if (!g_str_equal (current_hash, apply->request->base_hash))
    {
      rejection = sj_change_result_new_rejected (SJ_CHANGE_PHASE_STALE, SJ_CHANGE_REJECTION_STALE_BASE_HASH,
                                                 "The code changed since it was read: rebase the change on latestCode and send latestHash as baseHash.",
                                                 "baseHash");
      rejection->latest_code = g_strdup (apply->current);
      rejection->latest_hash = g_strdup (current_hash);
      _sj_change_applier_reject (g_steal_pointer (&task), rejection);
      return;
    }

  /* What the user played before this change is recorded first (pushing
   * the current snapshot again does nothing), so that undo can always go
   * back to it, even when the user's own evaluations never passed here. */
  if (!apply->undo)
    sj_timeline_push (self->timeline, apply->current, -1, "user");

  apply->code = sj_change_request_build (apply->request, apply->current, &rejection);
  if (apply->code == NULL)
    {
      _sj_change_applier_reject (g_steal_pointer (&task), rejection);
      return;
    }

  apply->hash = sj_code_hash (apply->code);
  if (g_str_equal (apply->hash, current_hash))
    {
      rejection = sj_change_result_new_rejected (SJ_CHANGE_PHASE_INPUT, SJ_CHANGE_REJECTION_NO_CHANGE,
                                                 "The change leaves the code exactly as it is.", "change");
      _sj_change_applier_reject (g_steal_pointer (&task), rejection);
      return;
    }

  cycles = CLAMP (apply->request->policy.dry_run_bars * apply->request->policy.bar_cycles, 1, 8);
  /* Arguments are evaluated in any order: take the cancellable before the
   * task is handed over. */
  cancellable = g_task_get_cancellable (task);
  apply->dry_run_started = g_get_monotonic_time ();
  sj_dry_run_run_async (self->dry_run, apply->code, cycles, SJ_CHANGE_DRY_RUN_TIMEOUT_MS,
                        cancellable, dry_run_cb, g_steal_pointer (&task));
}

/* Runs the pipeline for @request, from reading the code that plays now;
 * takes @task and @request. */
void
_sj_change_applier_start (SjChangeApplier *self,
                          GTask           *task,
                          SjChangeRequest *request,
                          const char      *source,
                          gboolean         undo)
{
  ApplyData *apply = g_new0 (ApplyData, 1);

  apply->request = request;
  apply->source = g_strdup (source);
  apply->undo = undo;
  g_task_set_task_data (task, apply, apply_data_free);

  sj_live_target_fetch_code_async (self->target, g_task_get_cancellable (task), fetch_code_cb, task);
}

/**
 * sj_change_applier_apply_async:
 * @input: `{baseHash, change, policy?}` as the model sent it
 * @source: who asked: "agent" or "user"
 *
 * Runs the pipeline.  The result is always an #SjChangeResult, scheduled,
 * applied or rejected; only cancellation finishes with an error.
 */
void
sj_change_applier_apply_async (SjChangeApplier     *self,
                               JsonNode            *input,
                               const char          *source,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SjChangeRequest *request;
  SjChangeResult *rejection = NULL;

  g_assert (SJ_IS_CHANGE_APPLIER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_change_applier_apply_async);

  request = sj_change_request_parse (input, &self->defaults, &rejection);
  if (request == NULL)
    {
      _sj_change_applier_reject (g_steal_pointer (&task), rejection);
      return;
    }

  _sj_change_applier_start (self, g_steal_pointer (&task), request, source, FALSE);
}

/**
 * sj_change_applier_apply_finish:
 *
 * Finishes sj_change_applier_apply_async() and
 * sj_change_applier_replace_async().
 *
 * Returns: (transfer full): what the change came to, scheduled, applied or
 *   rejected; %NULL only when canceled before the page was asked
 */
SjChangeResult *
sj_change_applier_apply_finish (SjChangeApplier  *self,
                                GAsyncResult     *result,
                                GError          **error)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
read_code_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  const char *query = g_task_get_task_data (task);
  g_autofree char *code = NULL;
  GError *error = NULL;

  code = sj_live_target_fetch_code_finish (SJ_LIVE_TARGET (object), result, &error);
  if (code == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  g_task_return_pointer (task, sj_read_code (code, query), (GDestroyNotify)json_object_unref);
}

/**
 * sj_change_applier_read_code_async:
 * @input: (nullable): `{query?}`
 */
void
sj_change_applier_read_code_async (SjChangeApplier     *self,
                                   JsonNode            *input,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task;
  const char *query = NULL;

  g_assert (SJ_IS_CHANGE_APPLIER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_change_applier_read_code_async);

  if (input != NULL && JSON_NODE_HOLDS_OBJECT (input))
    {
      JsonNode *node = json_object_get_member (json_node_get_object (input), "query");

      /* A query that is not a string is no query: the whole code comes
       * back, which is never wrong. */
      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        query = json_node_get_string (node);
    }
  g_task_set_task_data (task, g_strdup (query), g_free);

  sj_live_target_fetch_code_async (self->target, cancellable, read_code_cb, task);
}

/* Returns: (transfer full): see sj_read_code() */
JsonObject *
sj_change_applier_read_code_finish (SjChangeApplier  *self,
                                    GAsyncResult     *result,
                                    GError          **error)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sj_change_applier_get_last_dry_run_time:
 *
 * The agent's benchmark separates its own overhead from the dry-run's.
 *
 * Returns: how long the last dry-run took, in microseconds, 0 before any
 */
gint64
sj_change_applier_get_last_dry_run_time (SjChangeApplier *self)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));

  return self->last_dry_run_us;
}

/* Returns: (transfer none): the music this pipeline changes */
SjLiveTarget *
sj_change_applier_get_target (SjChangeApplier *self)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));

  return self->target;
}

/* The default swap policy, as the settings set it. */
void
sj_change_applier_get_defaults (SjChangeApplier *self,
                                SjSwapPolicy    *policy)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));

  *policy = self->defaults;
}
