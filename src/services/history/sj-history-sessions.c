/* sj-history-sessions.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Sessions and their messages in the history store.
 */

#include "config.h"

#include "sj-history-store-private.h"

static const char * const role_names[] = { "user", "assistant", "system", "tool" };
static const char * const status_names[] = { "complete", "streaming", "stopped", "error", "interrupted" };

G_STATIC_ASSERT (G_N_ELEMENTS (status_names) == SJ_HISTORY_MESSAGE_INTERRUPTED + 1);

const char *
_sj_history_status_to_string (SjHistoryMessageStatus status)
{
  g_return_val_if_fail (status < G_N_ELEMENTS (status_names), NULL);

  return status_names[status];
}

gboolean
_sj_history_store_touch_session (SjHistoryStore  *self,
               gint64           session_id,
               GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  stmt = _sj_history_store_prepare (self, "UPDATE sessions SET updated = ? WHERE id = ?", error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, g_get_real_time ());
  sqlite3_bind_int64 (stmt, 2, session_id);
  return _sj_history_store_step_done (self, stmt, error);
}

gint64
sj_history_store_create_session (SjHistoryStore  *self,
                                 const char      *title,
                                 GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *clean = NULL;
  gint64 now = g_get_real_time ();

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), 0);
  g_return_val_if_fail (title != NULL, 0);

  stmt = _sj_history_store_prepare (self,
                                    "INSERT INTO sessions (title, created, updated) VALUES (?, ?, ?)",
                                    error);
  if (stmt == NULL)
    return 0;

  clean = _sj_history_sanitize (title);
  _sj_history_bind_text (stmt, 1, clean);
  sqlite3_bind_int64 (stmt, 2, now);
  sqlite3_bind_int64 (stmt, 3, now);
  if (!_sj_history_store_step_done (self, stmt, error))
    return 0;

  return sqlite3_last_insert_rowid (_sj_history_store_get_db (self));
}

gboolean
_sj_history_store_check_changed (SjHistoryStore  *self,
               const char      *what,
               gint64           id,
               GError         **error)
{
  if (sqlite3_changes (_sj_history_store_get_db (self)) == 0)
    {
      g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND,
                   "No %s with id %" G_GINT64_FORMAT, what, id);
      return FALSE;
    }

  return TRUE;
}

gboolean
sj_history_store_rename_session (SjHistoryStore  *self,
                                 gint64           session_id,
                                 const char      *title,
                                 GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *clean = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);
  g_return_val_if_fail (title != NULL, FALSE);

  stmt = _sj_history_store_prepare (self, "UPDATE sessions SET title = ?, updated = ? WHERE id = ?", error);
  if (stmt == NULL)
    return FALSE;

  clean = _sj_history_sanitize (title);
  _sj_history_bind_text (stmt, 1, clean);
  sqlite3_bind_int64 (stmt, 2, g_get_real_time ());
  sqlite3_bind_int64 (stmt, 3, session_id);

  return _sj_history_store_step_done (self, stmt, error) &&
         _sj_history_store_check_changed (self, "session", session_id, error);
}

gboolean
sj_history_store_delete_session (SjHistoryStore  *self,
                                 gint64           session_id,
                                 GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  stmt = _sj_history_store_prepare (self, "DELETE FROM sessions WHERE id = ?", error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, session_id);
  if (!_sj_history_store_step_done (self, stmt, error) ||
      !_sj_history_store_check_changed (self, "session", session_id, error))
    return FALSE;

  /* Text still buffered for the deleted messages has nowhere to go; the
   * flush finds no message to add it to and drops it. */
  _sj_history_store_check_size (self);
  return TRUE;
}

/**
 * sj_history_store_list_sessions:
 *
 * Returns: (transfer full) (element-type SjHistorySession): the sessions,
 *   most recently updated first
 */
GPtrArray *
sj_history_store_list_sessions (SjHistoryStore  *self,
                                GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  int rc;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  stmt = _sj_history_store_prepare (self,
                                    "SELECT id, title, created, updated FROM sessions "
                                    "ORDER BY updated DESC, id DESC",
                                    error);
  if (stmt == NULL)
    return NULL;

  sessions = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_history_session_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SjHistorySession *session = g_new0 (SjHistorySession, 1);

      session->id = sqlite3_column_int64 (stmt, 0);
      session->title = _sj_history_column_text (stmt, 1);
      session->created = sqlite3_column_int64 (stmt, 2);
      session->updated = sqlite3_column_int64 (stmt, 3);
      g_ptr_array_add (sessions, session);
    }

  if (rc != SQLITE_DONE)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return g_steal_pointer (&sessions);
}

/**
 * sj_history_store_append_message:
 * @content: (nullable): the text so far
 * @model: (nullable): the model that wrote it
 * @status: %SJ_HISTORY_MESSAGE_STREAMING for a message whose text follows
 *   with sj_history_store_append_text ()
 *
 * Returns: the new message's id, 0 on error
 */
gint64
sj_history_store_append_message (SjHistoryStore          *self,
                                 gint64                   session_id,
                                 SjHistoryRole            role,
                                 const char              *content,
                                 const char              *model,
                                 SjHistoryMessageStatus   status,
                                 GError                 **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *clean_model = NULL;
  gint64 now = g_get_real_time ();
  gint64 id;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), 0);
  g_return_val_if_fail (role <= SJ_HISTORY_ROLE_TOOL, 0);
  g_return_val_if_fail (status <= SJ_HISTORY_MESSAGE_INTERRUPTED, 0);

  stmt = _sj_history_store_prepare (self,
                                    "INSERT INTO messages (session_id, role, content, model, status, started, ended) "
                                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                                    error);
  if (stmt == NULL)
    return 0;

  clean = _sj_history_sanitize (content != NULL ? content : "");
  clean_model = _sj_history_sanitize (model);
  sqlite3_bind_int64 (stmt, 1, session_id);
  sqlite3_bind_text (stmt, 2, role_names[role], -1, SQLITE_STATIC);
  _sj_history_bind_text (stmt, 3, clean);
  _sj_history_bind_text (stmt, 4, clean_model);
  sqlite3_bind_text (stmt, 5, status_names[status], -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 6, now);
  if (status == SJ_HISTORY_MESSAGE_STREAMING)
    sqlite3_bind_null (stmt, 7);
  else
    sqlite3_bind_int64 (stmt, 7, now);

  if (!_sj_history_store_step_done (self, stmt, error))
    return 0;

  id = sqlite3_last_insert_rowid (_sj_history_store_get_db (self));
  if (!_sj_history_store_touch_session (self, session_id, error))
    return 0;
  _sj_history_store_check_size (self);

  return id;
}

int
_sj_history_parse_name (const char * const *names,
            guint               n_names,
            const char         *name)
{
  for (guint i = 0; i < n_names; i++)
    if (g_strcmp0 (names[i], name) == 0)
      return i;

  return 0;
}

/**
 * sj_history_store_list_messages:
 *
 * Returns: (transfer full) (element-type SjHistoryMessage): the session's
 *   messages as committed, oldest first (call sj_history_store_flush ()
 *   first for text still buffered)
 */
static GPtrArray *
query_messages (SjHistoryStore  *self,
                const char      *where,
                gint64           key,
                GError         **error)
{
  g_autofree char *sql = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  int rc;

  /* Pieces of text saved while an answer streams are part of it. */
  sql = g_strdup_printf ("SELECT m.id, m.session_id, m.role, " SJ_HISTORY_FULL_CONTENT ", "
                         SJ_HISTORY_FULL_REASONING ", m.model, m.status, m.started, m.ended "
                         "FROM messages m " SJ_HISTORY_PARTS_JOIN " WHERE m.%s = ? ORDER BY m.id", where);
  stmt = _sj_history_store_prepare (self, sql, error);
  if (stmt == NULL)
    return NULL;

  sqlite3_bind_int64 (stmt, 1, key);
  messages = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_history_message_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SjHistoryMessage *message = g_new0 (SjHistoryMessage, 1);

      message->id = sqlite3_column_int64 (stmt, 0);
      message->session_id = sqlite3_column_int64 (stmt, 1);
      message->role = _sj_history_parse_name (role_names, G_N_ELEMENTS (role_names),
                                  (const char *)sqlite3_column_text (stmt, 2));
      message->content = _sj_history_column_text (stmt, 3);
      message->reasoning = _sj_history_column_text (stmt, 4);
      message->model = _sj_history_column_text (stmt, 5);
      message->status = _sj_history_parse_name (status_names, G_N_ELEMENTS (status_names),
                                    (const char *)sqlite3_column_text (stmt, 6));
      message->started = sqlite3_column_int64 (stmt, 7);
      message->ended = sqlite3_column_int64 (stmt, 8);
      g_ptr_array_add (messages, message);
    }

  if (rc != SQLITE_DONE)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return g_steal_pointer (&messages);
}

GPtrArray *
sj_history_store_list_messages (SjHistoryStore  *self,
                                gint64           session_id,
                                GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  return query_messages (self, "session_id", session_id, error);
}

/**
 * sj_history_store_get_message:
 *
 * Returns: (transfer full): the message, or %NULL with
 *   %SJ_HISTORY_STORE_ERROR_NOT_FOUND when there is none
 */
SjHistoryMessage *
sj_history_store_get_message (SjHistoryStore  *self,
                              gint64           message_id,
                              GError         **error)
{
  g_autoptr(GPtrArray) found = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  /* Text still buffered for it is part of it. */
  if (!sj_history_store_flush (self, error))
    return NULL;
  found = query_messages (self, "id", message_id, error);
  if (found == NULL)
    return NULL;
  if (found->len == 0)
    {
      g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND,
                   "No message %" G_GINT64_FORMAT, message_id);
      return NULL;
    }

  return g_ptr_array_steal_index (found, 0);
}

void
sj_history_session_free (SjHistorySession *session)
{
  if (session == NULL)
    return;

  g_free (session->title);
  g_free (session);
}

void
sj_history_message_free (SjHistoryMessage *message)
{
  if (message == NULL)
    return;

  g_free (message->content);
  g_free (message->reasoning);
  g_free (message->model);
  g_free (message);
}

/**
 * sj_history_store_delete_messages_from:
 * @message_id: the first message to delete
 *
 * Deletes a message and every later one of its session, with their tool
 * calls, for Regenerate and for editing the last message. Code snapshots
 * stay: the music did change, whatever happens to the words.
 */
gboolean
sj_history_store_delete_messages_from (SjHistoryStore  *self,
                                       gint64           session_id,
                                       gint64           message_id,
                                       GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  /* Buffered text of these messages goes first, so a later flush does not
   * write into rows that are gone. */
  if (!sj_history_store_flush (self, error))
    return FALSE;

  stmt = _sj_history_store_prepare (self, "DELETE FROM messages WHERE session_id = ? AND id >= ?", error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, session_id);
  sqlite3_bind_int64 (stmt, 2, message_id);
  if (!_sj_history_store_step_done (self, stmt, error))
    return FALSE;

  _sj_history_store_check_size (self);
  return TRUE;
}
