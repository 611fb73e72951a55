/* sj-agent-session.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The agent's sessions: the one its conversation is in, a new one, a
 * stored one taken up again (at start, the one the musician left), and
 * the last exchange taken back for Regenerate and Edit. What the model
 * knows of a session (its context) starts over with each of them.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-agent-private.h"
#include "sj-bundled-data.h"

#define SYSTEM_PROMPT_RESOURCE "/io/github/strudeljam/StrudelJam/agent/system-prompt.md"
#define TITLE_LENGTH 48

/* What the model reads at the end of an answer the app stopped in the
 * middle of (a crash, a kill): never an empty answer, which some
 * providers refuse, and never two user messages in a row, which some
 * local chat templates refuse. */
#define INTERRUPTED_NOTE "<app-note>The app stopped before this answer was finished: it is cut off here, " \
                         "and whatever it was about to do did not happen.</app-note>"

static char *
load_system_prompt (void)
{
  g_autoptr(GBytes) bytes = NULL;

  sj_bundled_data_register ();
  bytes = g_resources_lookup_data (SYSTEM_PROMPT_RESOURCE, 0, NULL);
  g_assert (bytes != NULL);
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/**
 * _sj_agent_reset_conversation:
 *
 * The model starts over: its context holds only the system prompt, and
 * it is shown the code in full again.
 */
void
_sj_agent_reset_conversation (SjAgent *self)
{
  g_autofree char *prompt = load_system_prompt ();

  /* A stopped turn still finishing writes into its own conversation, not
   * into the new one. */
  if (self->turn != NULL && self->turn->context == self->context)
    self->turn->orphan = g_steal_pointer (&self->context);
  g_clear_pointer (&self->context, sj_agent_context_free);
  self->context = sj_agent_context_new (prompt);
  g_clear_pointer (&self->known_hash, g_free);
}

/* A session is created by its first message only: a new session never
 * used leaves nothing in the history. */
gboolean
_sj_agent_ensure_session (SjAgent     *self,
                          const char  *first_message,
                          GError     **error)
{
  g_autofree char *title = NULL;

  if (self->session_id != 0)
    return TRUE;

  /* The first words of the first message name the session, on one line. */
  title = g_utf8_substring (first_message, 0, MIN (g_utf8_strlen (first_message, -1), TITLE_LENGTH));
  g_strdelimit (title, "\r\n\t", ' ');
  self->session_id = sj_history_store_create_session (self->store, g_strstrip (title), error);
  if (self->session_id == 0)
    return FALSE;
  _sj_agent_skills_session_created (self);

  _sj_agent_notify_session_id (self);
  return TRUE;
}

/**
 * sj_agent_get_session_id:
 *
 * Returns: the session the conversation is in, 0 for a new one that has
 *   no message yet (see #SjAgent:session-id)
 */
gint64
sj_agent_get_session_id (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  return self->session_id;
}

/**
 * sj_agent_new_session:
 *
 * The next message starts a new session. A turn under way is stopped.
 */
void
sj_agent_new_session (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  sj_agent_stop (self);
  _sj_agent_reset_conversation (self);
  self->session_id = 0;
  g_clear_pointer (&self->pending_pins, g_ptr_array_unref);
  _sj_agent_notify_session_id (self);
}

static void
add_stored_answer (SjAgentContext         *context,
                   const SjHistoryMessage *message)
{
  g_autofree char *text = NULL;

  if (message->status != SJ_HISTORY_MESSAGE_INTERRUPTED)
    {
      sj_agent_context_add_assistant (context, message->content, NULL);
      return;
    }

  if (message->content != NULL && *message->content != '\0')
    text = g_strdup_printf ("%s\n\n%s", message->content, INTERRUPTED_NOTE);
  else
    text = g_strdup (INTERRUPTED_NOTE);
  sj_agent_context_add_assistant (context, text, NULL);
}

/**
 * sj_agent_load_session:
 *
 * Continues a stored session: the model gets its messages back (the
 * words, not the old tool calls, which were about code that has moved
 * on), and sees the current code again on the next turn. An answer the
 * app stopped in the middle of is given back as far as it went, with a
 * note that it was cut off.
 */
gboolean
sj_agent_load_session (SjAgent  *self,
                       gint64    session_id,
                       GError  **error)
{
  g_autoptr(GPtrArray) messages = NULL;

  g_assert (SJ_IS_AGENT (self));

  messages = sj_history_store_list_messages (self->store, session_id, error);
  if (messages == NULL)
    return FALSE;

  sj_agent_stop (self);
  _sj_agent_reset_conversation (self);
  self->session_id = session_id;
  g_clear_pointer (&self->pending_pins, g_ptr_array_unref);

  for (guint i = 0; i < messages->len; i++)
    {
      SjHistoryMessage *message = g_ptr_array_index (messages, i);

      if (message->role == SJ_HISTORY_ROLE_USER)
        sj_agent_context_add_user (self->context, message->content, NULL, NULL, NULL, NULL);
      else if (message->role == SJ_HISTORY_ROLE_ASSISTANT)
        add_stored_answer (self->context, message);
    }
  /* Once the model's context is back, for whoever reads it then. */
  _sj_agent_notify_session_id (self);

  return TRUE;
}

/**
 * sj_agent_resume:
 * @remembered: the session the musician was in when the app last stopped,
 *   0 for a new one, -1 when it is not known
 *
 * Takes up where the musician left off, at start: the remembered session
 * while it is in the history, otherwise the most recently updated one (a
 * remembered session deleted since, or none remembered yet), otherwise a
 * new one. Its answers left unfinished by a crash are already marked
 * interrupted by the store.
 *
 * Returns: %FALSE if the history could not be read
 */
gboolean
sj_agent_resume (SjAgent  *self,
                 gint64    remembered,
                 GError  **error)
{
  g_autoptr(GPtrArray) sessions = NULL;
  gint64 session_id = 0;

  g_assert (SJ_IS_AGENT (self));

  /* A new session it was, and a new session it is. */
  if (remembered == 0)
    return TRUE;

  sessions = sj_history_store_list_sessions (self->store, error);
  if (sessions == NULL)
    return FALSE;

  /* Most recently updated first. */
  for (guint i = 0; i < sessions->len && session_id == 0; i++)
    if (((SjHistorySession *) g_ptr_array_index (sessions, i))->id == remembered)
      session_id = remembered;
  if (session_id == 0 && sessions->len > 0)
    session_id = ((SjHistorySession *) g_ptr_array_index (sessions, 0))->id;

  if (session_id == 0)
    return TRUE;

  return sj_agent_load_session (self, session_id, error);
}

/* Returns: the last user message of the session, 0 when there is none */
gint64
sj_agent_get_last_user_message (SjAgent *self)
{
  g_autoptr(GPtrArray) messages = NULL;

  g_assert (SJ_IS_AGENT (self));

  if (self->session_id == 0)
    return 0;
  messages = sj_history_store_list_messages (self->store, self->session_id, NULL);
  for (guint i = messages ? messages->len : 0; i > 0; i--)
    {
      SjHistoryMessage *message = g_ptr_array_index (messages, i - 1);

      if (message->role == SJ_HISTORY_ROLE_USER)
        return message->id;
    }

  return 0;
}

/* Forgets the answer to (and with @drop_user, also) the last user message,
 * in the store and in the model's context. */
gint64
_sj_agent_rewind (SjAgent   *self,
                  gboolean   drop_user,
                  char     **out_text,
                  GError   **error)
{
  gint64 user_message = sj_agent_get_last_user_message (self);
  g_autofree char *text = NULL;

  if (self->turn != NULL)
    {
      g_set_error_literal (error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUSY, _("The agent is still answering. Stop it first."));
      return 0;
    }
  if (user_message == 0)
    {
      g_set_error_literal (error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOTHING_TO_REDO, _("There is no message to answer again."));
      return 0;
    }

  if (!sj_history_store_delete_messages_from (self->store, self->session_id,
                                              drop_user ? user_message : user_message + 1, error))
    return 0;

  /* The old user message goes from the context too: it is added again
   * with a fresh runtime envelope, as the code may have changed since. */
  text = sj_agent_context_rewind_to_last_user (self->context, TRUE);
  g_clear_pointer (&self->known_hash, g_free);
  *out_text = g_steal_pointer (&text);

  return user_message;
}
