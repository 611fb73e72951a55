/* sj-repl-target.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Strudel page as the apply pipeline sees it (SjLiveTarget): its
 * editor text, and the exact quantized swap.  An adapter rather than an
 * interface on SjRepl itself, so that the services' view of the music
 * stays one small file.
 */

#include "config.h"

#include "sj-repl-target.h"

struct _SjReplTarget
{
  GObject  parent_instance;

  SjRepl  *repl;   /* weak: the window owns the page */
};

static void live_target_iface_init (SjLiveTargetInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SjReplTarget, sj_repl_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SJ_TYPE_LIVE_TARGET, live_target_iface_init))

static void
sj_repl_target_dispose (GObject *object)
{
  SjReplTarget *self = (SjReplTarget *)object;

  g_clear_weak_pointer (&self->repl);

  G_OBJECT_CLASS (sj_repl_target_parent_class)->dispose (object);
}

static void
sj_repl_target_class_init (SjReplTargetClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sj_repl_target_dispose;
}

static void
sj_repl_target_init (SjReplTarget *self)
{
}

static void
swap_changed_cb (SjReplTarget *self,
                 const char   *state,
                 double        cycle)
{
  g_signal_emit_by_name (self, "swap-changed", state, cycle);
}

/* Errors of the playing music: a sample that could not be loaded or
 * decoded, a note that could not be triggered. An evaluation's own error
 * ("[eval] error: …") is the swap's answer, not the music's. */
static void
log_cb (SjReplTarget *self,
        SjLogEntry   *entry)
{
  const char *message = sj_log_entry_get_message (entry);

  if (sj_log_entry_get_level (entry) == SJ_LOG_LEVEL_ERROR && !g_str_has_prefix (message, "[eval]"))
    g_signal_emit_by_name (self, "page-error", message);
}

SjReplTarget *
sj_repl_target_new (SjRepl *repl)
{
  SjReplTarget *self;

  g_return_val_if_fail (SJ_IS_REPL (repl), NULL);

  self = g_object_new (SJ_TYPE_REPL_TARGET, NULL);
  g_set_weak_pointer (&self->repl, repl);
  g_signal_connect_object (repl, "swap-changed", G_CALLBACK (swap_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (repl, "log", G_CALLBACK (log_cb), self, G_CONNECT_SWAPPED);

  return self;
}

static gboolean
page_gone (SjReplTarget        *self,
           gpointer             source_tag,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  if (self->repl != NULL)
    return FALSE;

  g_task_report_new_error (self, callback, user_data, source_tag, G_IO_ERROR, G_IO_ERROR_CLOSED,
                           "The Strudel page is closed.");
  return TRUE;
}

static void
fetch_code_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *code = sj_repl_fetch_code_finish (SJ_REPL (object), result, &error);

  if (code == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, code, g_free);
}

static void
sj_repl_target_fetch_code_async (SjLiveTarget        *target,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  SjReplTarget *self = SJ_REPL_TARGET (target);

  g_assert (SJ_IS_REPL_TARGET (self));

  if (page_gone (self, sj_repl_target_fetch_code_async, callback, user_data))
    return;

  sj_repl_fetch_code_async (self->repl, cancellable, fetch_code_cb,
                            g_task_new (self, cancellable, callback, user_data));
}

static char *
sj_repl_target_fetch_code_finish (SjLiveTarget  *target,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
schedule_swap_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  SjSwapResult *swap = sj_repl_schedule_swap_finish (SJ_REPL (object), result, &error);

  if (swap == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, swap, (GDestroyNotify)sj_swap_result_free);
}

static void
sj_repl_target_schedule_swap_async (SjLiveTarget        *target,
                                    const char          *code,
                                    const SjSwapPolicy  *policy,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  SjReplTarget *self = SJ_REPL_TARGET (target);

  g_assert (SJ_IS_REPL_TARGET (self));

  if (page_gone (self, sj_repl_target_schedule_swap_async, callback, user_data))
    return;

  sj_repl_schedule_swap_async (self->repl, code, sj_quantize_to_string (policy->quantize),
                               policy->bars, policy->bar_cycles, policy->auto_start,
                               policy->refuse_unavailable, cancellable,
                               schedule_swap_cb, g_task_new (self, cancellable, callback, user_data));
}

static SjSwapResult *
sj_repl_target_schedule_swap_finish (SjLiveTarget  *target,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
sj_repl_target_get_transport (SjLiveTarget *target,
                              SjTransport  *transport)
{
  SjReplTarget *self = SJ_REPL_TARGET (target);
  const SjReplState *state;

  if (self->repl == NULL)
    return;

  /* The page reports its state several times a second: recent enough to
   * tell the model where the music is, and no round trip is needed. */
  state = sj_repl_get_state (self->repl);
  transport->playing = state->playing;
  transport->cps = state->cps;
  transport->cycle = state->cycle;
}

static void
live_target_iface_init (SjLiveTargetInterface *iface)
{
  iface->fetch_code_async = sj_repl_target_fetch_code_async;
  iface->fetch_code_finish = sj_repl_target_fetch_code_finish;
  iface->schedule_swap_async = sj_repl_target_schedule_swap_async;
  iface->schedule_swap_finish = sj_repl_target_schedule_swap_finish;
  iface->get_transport = sj_repl_target_get_transport;
}
