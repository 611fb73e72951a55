/* sj-agent-send.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The start and the end of a turn, and the calls that start one: send,
 * regenerate, resend, and stop.  A turn starts by keeping the musician's
 * words in the store and opening the answer's message, then reads the code
 * so that the model's user message carries the state of the music; the
 * loop of rounds and tool calls between start and end is sj-agent-turn.c.
 * The end closes the message, says in the transcript what went wrong, and
 * only then completes the caller's task, so a caller always finds the
 * transcript whole.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-agent-private.h"

/**
 * _sj_agent_add_system_message:
 *
 * A line of the app's own in the transcript: errors, and what happened
 * when the model could not finish.
 */
void
_sj_agent_add_system_message (SjAgent    *self,
                              gint64      session_id,
                              const char *text)
{
  g_autoptr(GError) error = NULL;
  gint64 id;

  id = sj_history_store_append_message (self->store, session_id, SJ_HISTORY_ROLE_SYSTEM,
                                        text, NULL, SJ_HISTORY_MESSAGE_COMPLETE, &error);
  if (id == 0)
    g_warning ("Could not store a message: %s", error->message);
  else
    _sj_agent_emit_message_added (self, id, SJ_HISTORY_ROLE_SYSTEM);
}

/**
 * sj_agent_add_note:
 * @transcript: (nullable): the line the chat shows, in the musician's language
 * @for_model: (nullable): what the model is told with the next message
 *
 * Something the musician did outside the chat that the agent must know,
 * such as canceling its change before it landed or pressing Panic: a line
 * of the app's own in the transcript, and a note the model gets with the
 * next message (after a turn under way, which has its own tool results).
 */
void
sj_agent_add_note (SjAgent    *self,
                   const char *transcript,
                   const char *for_model)
{
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_AGENT (self));

  if (transcript != NULL)
    {
      if (_sj_agent_ensure_session (self, transcript, &error))
        _sj_agent_add_system_message (self, self->session_id, transcript);
      else
        g_warning ("Could not store a note: %s", error->message);
    }

  if (for_model != NULL)
    {
      if (self->notes == NULL)
        self->notes = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (self->notes, g_strdup (for_model));
    }
}

void
_sj_agent_turn_free (SjAgentTurn *turn)
{
  if (turn == NULL)
    return;

  if (turn->caller_cancellable != NULL)
    g_cancellable_disconnect (turn->caller_cancellable, turn->chained_id);
  g_clear_object (&turn->caller_cancellable);
  g_clear_object (&turn->cancellable);
  g_clear_handle_id (&turn->retry_id, g_source_remove);
  g_clear_handle_id (&turn->retry_cancel_id, g_source_remove);
  g_clear_pointer (&turn->calls, json_array_unref);
  g_clear_pointer (&turn->skills, g_ptr_array_unref);
  g_clear_pointer (&turn->orphan, sj_agent_context_free);
  g_free (turn->text);
  g_free (turn);
}

/**
 * _sj_agent_turn_end:
 * @error: (transfer full) (nullable): why the turn failed
 *
 * Closes the turn's message with @status and completes the caller's task.
 */
void
_sj_agent_turn_end (SjAgent                *self,
                    SjHistoryMessageStatus  status,
                    GError                 *error)
{
  SjAgentTurn *turn = self->turn;
  g_autoptr(GError) store_error = NULL;
  g_autoptr(GTask) task = NULL;

  g_assert (turn != NULL);

  self->turn = NULL;
  task = g_steal_pointer (&turn->task);

  if (turn->message_id != 0 &&
      !sj_history_store_finish_message (self->store, turn->message_id, status, &store_error))
    g_warning ("Could not finish the message: %s", store_error->message);

  /* The app says what happened when the model could not land a change, so
   * the transcript never reads as a success that was not. */
  if (turn->limit_reached && !turn->applied)
    {
      g_autofree char *text = g_strdup_printf (_("Nothing was applied: the change was rejected %u times, the repair limit. The music is unchanged."),
                                               turn->rejections);
      _sj_agent_add_system_message (self, turn->session_id, text);
    }
  else if (turn->budget_reached && !turn->applied)
    _sj_agent_add_system_message (self, turn->session_id, _("Nothing was applied: the agent used its whole tool budget for this message. The music is unchanged."));

  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sj_agent_add_system_message (self, turn->session_id, error->message);

  if (turn->message_id != 0)
    _sj_agent_emit_message_finished (self, turn->message_id, status);

  _sj_agent_turn_free (turn);

  /* No longer busy once the transcript is whole, and before the caller
   * hears how it went. */
  _sj_agent_notify_busy (self);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
read_code_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SjAgent *self = user_data;
  SjAgentTurn *turn = self->turn;
  g_autoptr(JsonObject) code = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *envelope_text = NULL;
  g_autofree char *skills_text = NULL;
  const char *hash = NULL;
  const char *text = NULL;
  SjAgentEnvelope envelope = { 0 };
  SjTransport transport;
  SjSwapPolicy policy;

  code = sj_change_applier_read_code_finish (SJ_CHANGE_APPLIER (object), result, &error);
  g_object_unref (self);

  if (turn == NULL || turn != self->turn)
    return;
  if (g_cancellable_is_cancelled (turn->cancellable))
    {
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_STOPPED, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Stopped"));
      return;
    }

  /* Without the page (it is restarting) the model still gets the
   * message; it can read the code once the page is back. */
  if (code != NULL)
    {
      hash = json_object_get_string_member (code, "hash");
      text = json_object_get_string_member (code, "code");
    }

  sj_live_target_get_transport (sj_change_applier_get_target (sj_agent_tools_get_applier (self->tools)), &transport);
  sj_change_applier_get_defaults (sj_agent_tools_get_applier (self->tools), &policy);
  envelope.code_hash = hash;
  envelope.playing = transport.playing;
  envelope.cps = transport.cps;
  envelope.cycle = transport.cycle;
  envelope.quantize = sj_quantize_to_string (policy.quantize);
  envelope.bars = policy.bars;
  envelope.repairs_left = self->max_repairs;
  envelope.tool_calls_left = self->tool_budget;
  envelope_text = sj_agent_context_format_envelope (&envelope);

  /* The full code only when the model has not seen this version. */
  if (hash != NULL && g_strcmp0 (hash, self->known_hash) == 0)
    text = NULL;
  skills_text = _sj_agent_skills_begin_turn (self, turn);
  /* What the musician did since the last message (canceled a change,
   * pressed Panic), before the message itself. */
  for (guint i = 0; self->notes != NULL && i < self->notes->len; i++)
    sj_agent_context_add_note (turn->context, g_ptr_array_index (self->notes, i));
  g_clear_pointer (&self->notes, g_ptr_array_unref);
  sj_agent_context_add_user (turn->context, turn->text, envelope_text, text, hash, skills_text);
  if (hash != NULL && turn->context == self->context)
    {
      g_free (self->known_hash);
      self->known_hash = g_strdup (hash);
    }

  _sj_agent_turn_begin (self, turn);
}

static void
chained_cancel_cb (GCancellable *caller,
                   GCancellable *ours)
{
  g_cancellable_cancel (ours);
}

static void
start_turn (SjAgent             *self,
            const char          *text,
            gint64               reuse_user_message,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  SjAgentTurn *turn;

  g_task_set_source_tag (task, sj_agent_send_async);
  /* Stopped turns report G_IO_ERROR_CANCELLED themselves, after the
   * transcript is consistent. */
  g_task_set_check_cancellable (task, FALSE);

  if (self->turn != NULL)
    {
      g_task_return_new_error (task, SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUSY,
                               _("The agent is still answering. Stop it first."));
      return;
    }

  if (!_sj_agent_ensure_session (self, text, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  turn = g_new0 (SjAgentTurn, 1);
  turn->agent = self;
  turn->context = self->context;
  turn->session_id = self->session_id;
  turn->task = g_steal_pointer (&task);
  turn->cancellable = g_cancellable_new ();
  turn->text = g_strdup (text);
  sj_usage_init_unknown (&turn->usage);
  if (cancellable != NULL)
    {
      turn->caller_cancellable = g_object_ref (cancellable);
      turn->chained_id = g_cancellable_connect (cancellable, G_CALLBACK (chained_cancel_cb),
                                                g_object_ref (turn->cancellable), g_object_unref);
    }
  self->turn = turn;
  _sj_agent_notify_busy (self);

  /* The musician's words are kept whatever happens next. */
  if (reuse_user_message != 0)
    turn->user_message_id = reuse_user_message;
  else
    {
      turn->user_message_id = sj_history_store_append_message (self->store, turn->session_id, SJ_HISTORY_ROLE_USER,
                                                               text, NULL, SJ_HISTORY_MESSAGE_COMPLETE, &error);
      if (turn->user_message_id == 0)
        {
          _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR, g_steal_pointer (&error));
          return;
        }
      _sj_agent_emit_message_added (self, turn->user_message_id, SJ_HISTORY_ROLE_USER);
    }

  if (self->client == NULL)
    {
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR, g_error_copy (self->config_error));
      return;
    }

  /* A session past its budget gets no answer, and no empty bubble. */
  if ((error = _sj_agent_check_budget (self, turn->session_id)) != NULL)
    {
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR, g_steal_pointer (&error));
      return;
    }

  turn->message_id = sj_history_store_append_message (self->store, turn->session_id, SJ_HISTORY_ROLE_ASSISTANT,
                                                      "", self->model, SJ_HISTORY_MESSAGE_STREAMING, &error);
  if (turn->message_id == 0)
    {
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR, g_steal_pointer (&error));
      return;
    }
  _sj_agent_emit_message_added (self, turn->message_id, SJ_HISTORY_ROLE_ASSISTANT);

  sj_change_applier_read_code_async (sj_agent_tools_get_applier (self->tools), NULL, turn->cancellable,
                                     read_code_cb, g_object_ref (self));
}

/**
 * sj_agent_send_async:
 *
 * Sends the musician's message and runs the agent until it answers, is
 * stopped, or fails. The transcript is in the store and in the signals
 * while it happens.
 */
void
sj_agent_send_async (SjAgent             *self,
                     const char          *text,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_assert (SJ_IS_AGENT (self));
  g_assert (text != NULL);
  g_assert (!cancellable || G_IS_CANCELLABLE (cancellable));

  start_turn (self, text, 0, cancellable, callback, user_data);
}

/**
 * sj_agent_regenerate_async:
 *
 * Answers the last user message again, replacing the last answer. Changes
 * that answer applied stay: the music moved on, and the new answer sees
 * the code as it is now.
 */
void
sj_agent_regenerate_async (SjAgent             *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gint64 user_message;

  g_assert (SJ_IS_AGENT (self));

  user_message = _sj_agent_rewind (self, FALSE, &text, &error);
  if (user_message == 0)
    {
      g_task_report_error (self, callback, user_data, sj_agent_send_async, g_steal_pointer (&error));
      return;
    }

  start_turn (self, text ? text : "", user_message, cancellable, callback, user_data);
}

/**
 * sj_agent_resend_async:
 * @text: the edited message
 *
 * Replaces the last user message (and its answer) with @text, and sends it.
 */
void
sj_agent_resend_async (SjAgent             *self,
                       const char          *text,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *old_text = NULL;

  g_assert (SJ_IS_AGENT (self));
  g_assert (text != NULL);

  if (_sj_agent_rewind (self, TRUE, &old_text, &error) == 0)
    {
      g_task_report_error (self, callback, user_data, sj_agent_send_async, g_steal_pointer (&error));
      return;
    }

  start_turn (self, text, 0, cancellable, callback, user_data);
}

/**
 * sj_agent_send_finish:
 *
 * Returns: %TRUE when the agent answered; %FALSE with G_IO_ERROR_CANCELLED
 *   when it was stopped, or another error, which is also in the transcript
 */
gboolean
sj_agent_send_finish (SjAgent       *self,
                      GAsyncResult  *result,
                      GError       **error)
{
  g_assert (SJ_IS_AGENT (self));
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sj_agent_stop:
 *
 * Stops the turn under way, at any point: the text so far is kept, tool
 * calls not finished are recorded as canceled, and a change already handed
 * to the page still lands (it is in the tool log as such).
 */
void
sj_agent_stop (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  if (self->turn == NULL)
    return;

  /* Whatever is under way (a request, a tool call, a wait before a
   * retry) notices and ends the turn consistently. */
  g_cancellable_cancel (self->turn->cancellable);
}
