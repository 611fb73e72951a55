/* sj-history-usage.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the agent's answers cost, kept per answer in the message_usage
 * table (schema version 6): the sum of the requests of the answer's turn,
 * rewritten after each request so that a turn stopped or failed halfway
 * still counts what it spent. NULL columns are what the provider did not
 * say. A session's total is the sum of its rows, rows of answers since
 * regenerated included (their message_id is NULL then): that money was
 * spent, and the session's budget counts it.
 */

#include "config.h"

#include <math.h>

#include "sj-history-store-private.h"

static void
bind_count (sqlite3_stmt *stmt,
            int           index,
            gint64        count)
{
  if (count < 0)
    sqlite3_bind_null (stmt, index);
  else
    sqlite3_bind_int64 (stmt, index, count);
}

static gint64
column_count (sqlite3_stmt *stmt,
              int           index)
{
  if (sqlite3_column_type (stmt, index) == SQLITE_NULL)
    return -1;
  return MAX (sqlite3_column_int64 (stmt, index), 0);
}

static void
read_usage (sqlite3_stmt *stmt,
            SjUsage      *usage)
{
  usage->prompt_tokens = column_count (stmt, 0);
  usage->completion_tokens = column_count (stmt, 1);
  usage->reasoning_tokens = column_count (stmt, 2);
  usage->cost = sqlite3_column_type (stmt, 3) == SQLITE_NULL ? NAN : MAX (sqlite3_column_double (stmt, 3), 0);
}

/**
 * sj_history_store_set_message_usage:
 * @usage: what the answer cost so far, unknown fields included
 *
 * Keeps @usage as the cost of the answer @message_id, replacing what was
 * kept for it before.
 */
gboolean
sj_history_store_set_message_usage (SjHistoryStore  *self,
                                    gint64           message_id,
                                    const SjUsage   *usage,
                                    GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);
  g_return_val_if_fail (usage != NULL, FALSE);

  /* The WHERE is SQLite's way to tell an upsert's ON from a join's. */
  stmt = _sj_history_store_prepare (self,
                                    "INSERT INTO message_usage (session_id, message_id, prompt_tokens, "
                                    "completion_tokens, reasoning_tokens, cost) "
                                    "SELECT session_id, id, ?2, ?3, ?4, ?5 FROM messages WHERE id = ?1 "
                                    "ON CONFLICT (message_id) DO UPDATE SET prompt_tokens = excluded.prompt_tokens, "
                                    "completion_tokens = excluded.completion_tokens, "
                                    "reasoning_tokens = excluded.reasoning_tokens, cost = excluded.cost",
                                    error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, message_id);
  bind_count (stmt, 2, usage->prompt_tokens);
  bind_count (stmt, 3, usage->completion_tokens);
  bind_count (stmt, 4, usage->reasoning_tokens);
  if (isfinite (usage->cost) && usage->cost >= 0)
    sqlite3_bind_double (stmt, 5, usage->cost);
  else
    sqlite3_bind_null (stmt, 5);

  if (!_sj_history_store_step_done (self, stmt, error))
    return FALSE;

  return _sj_history_store_check_changed (self, "message", message_id, error);
}

/* One row of usage from @sql, bound to @id: the message's own row (none
 * kept: all unknown) or a session's sums (always one row). */
static gboolean
query_usage (SjHistoryStore  *self,
             const char      *sql,
             gint64           id,
             SjUsage         *usage,
             GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  sj_usage_init_unknown (usage);
  stmt = _sj_history_store_prepare (self, sql, error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, id);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    read_usage (stmt, usage);
  else if (rc != SQLITE_DONE)
    return _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);

  return TRUE;
}

/**
 * sj_history_store_get_message_usage:
 * @usage: (out): what the answer cost; all unknown when nothing was kept
 */
gboolean
sj_history_store_get_message_usage (SjHistoryStore  *self,
                                    gint64           message_id,
                                    SjUsage         *usage,
                                    GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);
  g_return_val_if_fail (usage != NULL, FALSE);

  return query_usage (self,
                      "SELECT prompt_tokens, completion_tokens, reasoning_tokens, cost "
                      "FROM message_usage WHERE message_id = ?",
                      message_id, usage, error);
}

/**
 * sj_history_store_get_session_usage:
 * @usage: (out): what the session's answers cost in all; a field is
 *   unknown when no answer knew it
 */
gboolean
sj_history_store_get_session_usage (SjHistoryStore  *self,
                                    gint64           session_id,
                                    SjUsage         *usage,
                                    GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);
  g_return_val_if_fail (usage != NULL, FALSE);

  /* SUM () of only NULLs is NULL: unknown stays unknown. */
  return query_usage (self,
                      "SELECT SUM (prompt_tokens), SUM (completion_tokens), SUM (reasoning_tokens), "
                      "SUM (cost) FROM message_usage WHERE session_id = ?",
                      session_id, usage, error);
}
