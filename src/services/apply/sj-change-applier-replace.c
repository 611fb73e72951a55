/* sj-change-applier-replace.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Whole code put in place of what plays now: an undo (the code before the
 * current one in the timeline) and a replacement (an Apply on a code
 * block, a Revert from the timeline).  Neither is written against a hash
 * the caller read, so each first reads the code that plays now and makes
 * a full-code change against it; from there both run the pipeline of
 * sj-change-applier.c like any change: the dry-run, the sounds, the
 * quantized swap.
 */

#include "config.h"

#include "sj-change-applier-private.h"

/* The code that plays now, or %NULL when the page could not say and
 * @task was finished with that. */
static char *
fetch_current_finish (GObject       *object,
                      GAsyncResult  *result,
                      GTask        **task)
{
  GError *error = NULL;
  char *current;

  current = sj_live_target_fetch_code_finish (SJ_LIVE_TARGET (object), result, &error);
  if (current == NULL)
    _sj_change_applier_propagate_or_reject (g_steal_pointer (task), error, SJ_CHANGE_PHASE_SCHEDULE,
                                            SJ_CHANGE_REJECTION_PAGE_UNAVAILABLE);
  return current;
}

/* An undo or a replacement is an ordinary full-code change against what
 * plays now; takes @task and @code. */
static void
start_full_code (SjChangeApplier *self,
                 GTask           *task,
                 const char      *current,
                 char            *code,
                 const char      *source,
                 gboolean         undo)
{
  SjChangeRequest *request = g_new0 (SjChangeRequest, 1);

  request->base_hash = sj_code_hash (current);
  request->code = code;
  request->policy = self->defaults;

  _sj_change_applier_start (self, task, request, source, undo);
}

static void
undo_fetch_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjChangeApplier *self = g_task_get_source_object (task);
  const SjSnapshot *target = sj_timeline_get_undo_target (self->timeline);
  g_autofree char *current = NULL;

  current = fetch_current_finish (object, result, &task);
  if (current == NULL)
    return;

  if (target == NULL)
    {
      _sj_change_applier_reject (g_steal_pointer (&task),
                                 sj_change_result_new_rejected (SJ_CHANGE_PHASE_INPUT,
                                                                SJ_CHANGE_REJECTION_NOTHING_TO_UNDO,
                                                                "There is no earlier code in the timeline.", NULL));
      return;
    }

  start_full_code (self, g_steal_pointer (&task), current, g_strdup (target->code), target->source, TRUE);
}

/**
 * sj_change_applier_undo_async:
 *
 * Brings back the code before the current one in the timeline, through
 * the same dry-run and quantized swap as any change.
 */
void
sj_change_applier_undo_async (SjChangeApplier     *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;

  g_assert (SJ_IS_CHANGE_APPLIER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_change_applier_undo_async);
  sj_live_target_fetch_code_async (self->target, cancellable, undo_fetch_cb, task);
}

/* Returns: (transfer full): as sj_change_applier_apply_finish() */
SjChangeResult *
sj_change_applier_undo_finish (SjChangeApplier  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  g_assert (SJ_IS_CHANGE_APPLIER (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef struct
{
  char *code;
  char *source;
} Replacement;

static void
replacement_free (gpointer data)
{
  Replacement *replacement = data;

  g_free (replacement->code);
  g_free (replacement->source);
  g_free (replacement);
}

static void
replace_fetch_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjChangeApplier *self = g_task_get_source_object (task);
  Replacement *replacement = g_task_get_task_data (task);
  g_autofree char *current = NULL;
  g_autofree char *source = NULL;

  current = fetch_current_finish (object, result, &task);
  if (current == NULL)
    return;

  /* Both are taken before the pipeline replaces the task data. */
  source = g_steal_pointer (&replacement->source);
  start_full_code (self, g_steal_pointer (&task), current, g_steal_pointer (&replacement->code), source, FALSE);
}

/**
 * sj_change_applier_replace_async:
 * @code: the whole new code
 * @source: who asks, "user" or "agent"
 *
 * Puts @code in place of whatever plays now, through the same dry-run and
 * quantized swap as any change: an Apply on a code block, a Revert from
 * the timeline. Finish with sj_change_applier_apply_finish().
 */
void
sj_change_applier_replace_async (SjChangeApplier     *self,
                                 const char          *code,
                                 const char          *source,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  Replacement *replacement;
  GTask *task;

  g_assert (SJ_IS_CHANGE_APPLIER (self));
  g_assert (code != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_change_applier_apply_async);
  replacement = g_new0 (Replacement, 1);
  replacement->code = g_strdup (code);
  replacement->source = g_strdup (source ? source : "user");
  g_task_set_task_data (task, replacement, replacement_free);
  sj_live_target_fetch_code_async (self->target, cancellable, replace_fetch_cb, task);
}
