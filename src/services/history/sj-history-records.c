/* sj-history-records.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Tool calls and code snapshots in the history store, and the helpers the
 * store's files share.
 */

#include "config.h"

#include <math.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"

gboolean
_sj_history_store_set_error (sqlite3  *db,
                             int       rc,
                             GError  **error)
{
  const char *message = db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc);

  switch (rc & 0xff)
    {
    case SQLITE_FULL:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "History database is full: %s", message);
      break;
    case SQLITE_READONLY:
    case SQLITE_PERM:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY, "History database is read-only: %s", message);
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, "History database is busy: %s", message);
      break;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot access the history database: %s", message);
      break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_CORRUPT,
                   "History database is damaged: %s", message);
      break;
    default:
      g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_FAILED,
                   "History database error: %s", message);
      break;
    }

  return FALSE;
}

sqlite3_stmt *
_sj_history_store_prepare (SjHistoryStore  *self,
                           const char      *sql,
                           GError         **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  g_assert (SJ_IS_HISTORY_STORE (self));

  rc = sqlite3_prepare_v2 (_sj_history_store_get_db (self), sql, -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return stmt;
}

gboolean
_sj_history_store_step_done (SjHistoryStore  *self,
                             sqlite3_stmt    *stmt,
                             GError         **error)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    return _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);

  return TRUE;
}

void
_sj_history_bind_text (sqlite3_stmt *stmt,
                       int           index,
                       const char   *text)
{
  if (text == NULL)
    sqlite3_bind_null (stmt, index);
  else
    sqlite3_bind_text (stmt, index, text, -1, SQLITE_TRANSIENT);
}

char *
_sj_history_column_text (sqlite3_stmt *stmt,
                         int           index)
{
  if (sqlite3_column_type (stmt, index) == SQLITE_NULL)
    return NULL;

  return g_strdup ((const char *)sqlite3_column_text (stmt, index));
}

/* Model output and tool results are not trusted to be UTF-8. */
char *
_sj_history_sanitize (const char *text)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    return NULL;

  valid = g_utf8_make_valid (text, -1);
  return sj_redact (valid);
}


static const char * const tool_status_names[] = { "succeeded", "failed", "canceled" };
static const char * const source_names[] = { "user", "agent" };

static void
bind_cycle (sqlite3_stmt *stmt,
            int           index,
            double        cycle)
{
  if (isnan (cycle))
    sqlite3_bind_null (stmt, index);
  else
    sqlite3_bind_double (stmt, index, cycle);
}

static double
column_cycle (sqlite3_stmt *stmt,
              int           index)
{
  if (sqlite3_column_type (stmt, index) == SQLITE_NULL)
    return NAN;

  return sqlite3_column_double (stmt, index);
}

/**
 * sj_history_store_record_tool_call:
 * @arguments: the call's arguments as JSON text
 * @result: (nullable): its result as JSON text
 * @apply_cycle: the cycle a change was applied at, or NAN
 *
 * Records a call whose place in its answer's text is not known (see
 * sj_history_store_record_tool_call_at()).
 *
 * Returns: the new tool call's id, 0 on error
 */
gint64
sj_history_store_record_tool_call (SjHistoryStore      *self,
                                   gint64               message_id,
                                   const char          *name,
                                   const char          *arguments,
                                   const char          *result,
                                   SjHistoryToolStatus  status,
                                   gint64               duration_ms,
                                   double               apply_cycle,
                                   GError             **error)
{
  return sj_history_store_record_tool_call_at (self, message_id, name, arguments, result, status,
                                               duration_ms, apply_cycle, -1, error);
}

/**
 * sj_history_store_record_tool_call_at:
 * @text_offset: how many bytes of the message's content the model had
 *   written when it made the call, or -1 when not known
 *
 * As sj_history_store_record_tool_call(), with where the call was made:
 * the chat shows it between the text before and the text after.
 *
 * Returns: the new tool call's id, 0 on error
 */
gint64
sj_history_store_record_tool_call_at (SjHistoryStore      *self,
                                      gint64               message_id,
                                      const char          *name,
                                      const char          *arguments,
                                      const char          *result,
                                      SjHistoryToolStatus  status,
                                      gint64               duration_ms,
                                      double               apply_cycle,
                                      gint64               text_offset,
                                      GError             **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *clean_name = NULL;
  g_autofree char *clean_arguments = NULL;
  g_autofree char *clean_result = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), 0);
  g_return_val_if_fail (name != NULL, 0);
  g_return_val_if_fail (status < G_N_ELEMENTS (tool_status_names), 0);

  stmt = _sj_history_store_prepare (self,
                                    "INSERT INTO tool_calls (message_id, name, arguments, result, status, "
                                    "duration_ms, apply_cycle, text_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                    error);
  if (stmt == NULL)
    return 0;

  clean_name = _sj_history_sanitize (name);
  clean_arguments = _sj_history_sanitize (arguments != NULL ? arguments : "{}");
  clean_result = _sj_history_sanitize (result);
  sqlite3_bind_int64 (stmt, 1, message_id);
  _sj_history_bind_text (stmt, 2, clean_name);
  _sj_history_bind_text (stmt, 3, clean_arguments);
  _sj_history_bind_text (stmt, 4, clean_result);
  sqlite3_bind_text (stmt, 5, tool_status_names[status], -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 6, MAX (duration_ms, 0));
  bind_cycle (stmt, 7, apply_cycle);
  if (text_offset >= 0)
    sqlite3_bind_int64 (stmt, 8, text_offset);
  else
    sqlite3_bind_null (stmt, 8);

  if (!_sj_history_store_step_done (self, stmt, error))
    return 0;

  return sqlite3_last_insert_rowid (_sj_history_store_get_db (self));
}

/**
 * sj_history_store_list_tool_calls:
 *
 * Returns: (transfer full) (element-type SjHistoryToolCall): the message's
 *   tool calls in the order they were recorded
 */
static GPtrArray *
query_tool_calls (SjHistoryStore  *self,
                  const char      *sql,
                  gint64           key,
                  GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  int rc;

  stmt = _sj_history_store_prepare (self, sql, error);
  if (stmt == NULL)
    return NULL;

  sqlite3_bind_int64 (stmt, 1, key);
  calls = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_history_tool_call_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SjHistoryToolCall *call = g_new0 (SjHistoryToolCall, 1);

      call->id = sqlite3_column_int64 (stmt, 0);
      call->message_id = sqlite3_column_int64 (stmt, 1);
      call->name = _sj_history_column_text (stmt, 2);
      call->arguments = _sj_history_column_text (stmt, 3);
      call->result = _sj_history_column_text (stmt, 4);
      call->status = _sj_history_parse_name (tool_status_names, G_N_ELEMENTS (tool_status_names),
                                             (const char *)sqlite3_column_text (stmt, 5));
      call->duration_ms = sqlite3_column_int64 (stmt, 6);
      call->apply_cycle = column_cycle (stmt, 7);
      call->text_offset = sqlite3_column_type (stmt, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64 (stmt, 8);
      g_ptr_array_add (calls, call);
    }

  if (rc != SQLITE_DONE)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return g_steal_pointer (&calls);
}

GPtrArray *
sj_history_store_list_tool_calls (SjHistoryStore  *self,
                                  gint64           message_id,
                                  GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  return query_tool_calls (self,
                           "SELECT id, message_id, name, arguments, result, status, duration_ms, "
                           "apply_cycle, text_offset FROM tool_calls WHERE message_id = ? ORDER BY id",
                           message_id, error);
}

/**
 * sj_history_store_list_session_tool_calls:
 *
 * All the tool calls of a session in one query, by message then in the
 * order they were recorded: opening a long session reads them at once
 * rather than message by message.
 *
 * Returns: (transfer full) (element-type SjHistoryToolCall): the calls
 */
GPtrArray *
sj_history_store_list_session_tool_calls (SjHistoryStore  *self,
                                          gint64           session_id,
                                          GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  return query_tool_calls (self,
                           "SELECT t.id, t.message_id, t.name, t.arguments, t.result, t.status, t.duration_ms, "
                           "t.apply_cycle, t.text_offset FROM tool_calls t JOIN messages m ON m.id = t.message_id "
                           "WHERE m.session_id = ? ORDER BY t.message_id, t.id",
                           session_id, error);
}

/**
 * sj_history_store_record_snapshot:
 * @cycle: the cycle the code started playing at, or NAN
 * @message_id: the message that led to it, or 0
 *
 * Returns: the new snapshot's id, 0 on error
 */
gint64
sj_history_store_record_snapshot (SjHistoryStore   *self,
                                  gint64            session_id,
                                  const char       *code,
                                  double            cycle,
                                  SjHistorySource   source,
                                  gint64            message_id,
                                  GError          **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *hash = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), 0);
  g_return_val_if_fail (code != NULL, 0);
  g_return_val_if_fail (source < G_N_ELEMENTS (source_names), 0);

  stmt = _sj_history_store_prepare (self,
                                    "INSERT INTO code_snapshots (session_id, hash, code, cycle, source, "
                                    "message_id, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                    error);
  if (stmt == NULL)
    return 0;

  /* The hash is of the text as stored, so equal rows have equal hashes. */
  clean = _sj_history_sanitize (code);
  hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, clean, -1);
  sqlite3_bind_int64 (stmt, 1, session_id);
  _sj_history_bind_text (stmt, 2, hash);
  _sj_history_bind_text (stmt, 3, clean);
  bind_cycle (stmt, 4, cycle);
  sqlite3_bind_text (stmt, 5, source_names[source], -1, SQLITE_STATIC);
  if (message_id > 0)
    sqlite3_bind_int64 (stmt, 6, message_id);
  else
    sqlite3_bind_null (stmt, 6);
  sqlite3_bind_int64 (stmt, 7, g_get_real_time ());

  if (!_sj_history_store_step_done (self, stmt, error))
    return 0;

  return sqlite3_last_insert_rowid (_sj_history_store_get_db (self));
}

/**
 * sj_history_store_list_snapshots:
 *
 * Returns: (transfer full) (element-type SjHistorySnapshot): the session's
 *   code snapshots, oldest first
 */
GPtrArray *
sj_history_store_list_snapshots (SjHistoryStore  *self,
                                 gint64           session_id,
                                 GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  int rc;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  stmt = _sj_history_store_prepare (self,
                                    "SELECT id, session_id, hash, code, cycle, source, message_id, created "
                                    "FROM code_snapshots WHERE session_id = ? ORDER BY id",
                                    error);
  if (stmt == NULL)
    return NULL;

  sqlite3_bind_int64 (stmt, 1, session_id);
  snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_history_snapshot_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SjHistorySnapshot *snapshot = g_new0 (SjHistorySnapshot, 1);

      snapshot->id = sqlite3_column_int64 (stmt, 0);
      snapshot->session_id = sqlite3_column_int64 (stmt, 1);
      snapshot->hash = _sj_history_column_text (stmt, 2);
      snapshot->code = _sj_history_column_text (stmt, 3);
      snapshot->cycle = column_cycle (stmt, 4);
      snapshot->source = _sj_history_parse_name (source_names, G_N_ELEMENTS (source_names),
                                                 (const char *)sqlite3_column_text (stmt, 5));
      snapshot->message_id = sqlite3_column_int64 (stmt, 6);
      snapshot->created = sqlite3_column_int64 (stmt, 7);
      g_ptr_array_add (snapshots, snapshot);
    }

  if (rc != SQLITE_DONE)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return g_steal_pointer (&snapshots);
}

const char *
_sj_history_tool_status_to_string (SjHistoryToolStatus status)
{
  g_return_val_if_fail (status < G_N_ELEMENTS (tool_status_names), NULL);

  return tool_status_names[status];
}

void
sj_history_tool_call_free (SjHistoryToolCall *call)
{
  if (call == NULL)
    return;

  g_free (call->name);
  g_free (call->arguments);
  g_free (call->result);
  g_free (call);
}

void
sj_history_snapshot_free (SjHistorySnapshot *snapshot)
{
  if (snapshot == NULL)
    return;

  g_free (snapshot->hash);
  g_free (snapshot->code);
  g_free (snapshot);
}
