/* sj-history-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Skills in the history store: the skills pinned to a session by the
 * musician or activated in it by the model, which the agent reads back
 * when a session is taken up again, and the skills each answer used,
 * which the chat shows as chips on the message after a reload too. The
 * store keeps names and titles only; what a skill says is the registry's.
 */

#include "config.h"

#include "sj-history-store-private.h"

void
sj_history_skill_use_free (SjHistorySkillUse *use)
{
  if (use == NULL)
    return;

  g_free (use->name);
  g_free (use->title);
  g_free (use->how);
  g_free (use);
}

static const char *
state_to_string (SjHistorySkillState state)
{
  return state == SJ_HISTORY_SKILL_PINNED ? "pinned" : "activated";
}

/**
 * sj_history_store_set_session_skill:
 * @on: whether @name is to be in the set
 *
 * Adds @name to (or removes it from) the session's pinned or activated
 * skills.
 */
gboolean
sj_history_store_set_session_skill (SjHistoryStore       *self,
                                    gint64                session_id,
                                    const char           *name,
                                    SjHistorySkillState   state,
                                    gboolean              on,
                                    GError              **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  g_assert (SJ_IS_HISTORY_STORE (self));
  g_return_val_if_fail (name != NULL, FALSE);

  if (on)
    {
      g_autoptr(sqlite3_stmt) exists = _sj_history_store_prepare (self, "SELECT 1 FROM sessions WHERE id = ?", error);

      if (exists == NULL)
        return FALSE;
      sqlite3_bind_int64 (exists, 1, session_id);
      if (sqlite3_step (exists) != SQLITE_ROW)
        {
          g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND,
                       "No session with id %" G_GINT64_FORMAT, session_id);
          return FALSE;
        }
      stmt = _sj_history_store_prepare (self,
                                        "INSERT OR IGNORE INTO session_skills (session_id, name, state, created) "
                                        "VALUES (?1, ?2, ?3, ?4)",
                                        error);
    }
  else
    stmt = _sj_history_store_prepare (self, "DELETE FROM session_skills WHERE session_id = ?1 AND name = ?2 AND state = ?3",
                                      error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, session_id);
  _sj_history_bind_text (stmt, 2, name);
  _sj_history_bind_text (stmt, 3, state_to_string (state));
  if (on)
    sqlite3_bind_int64 (stmt, 4, g_get_real_time ());

  return _sj_history_store_step_done (self, stmt, error);
}

/**
 * sj_history_store_list_session_skills:
 *
 * Returns: (transfer full): the session's pinned or activated skills, in
 *   the order they were added
 */
GStrv
sj_history_store_list_session_skills (SjHistoryStore       *self,
                                      gint64                session_id,
                                      SjHistorySkillState   state,
                                      GError              **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  int rc;

  g_assert (SJ_IS_HISTORY_STORE (self));

  stmt = _sj_history_store_prepare (self,
                                    "SELECT name FROM session_skills WHERE session_id = ? AND state = ? "
                                    "ORDER BY created, name",
                                    error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, session_id);
  _sj_history_bind_text (stmt, 2, state_to_string (state));

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_strv_builder_add (builder, (const char *) sqlite3_column_text (stmt, 0));
  if (rc != SQLITE_DONE)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return g_strv_builder_end (builder);
}

/**
 * sj_history_store_record_message_skills:
 * @uses: (element-type SjHistorySkillUse): the skills, in their order
 *
 * Records the skills a message's turn used, replacing any recorded.
 */
gboolean
sj_history_store_record_message_skills (SjHistoryStore  *self,
                                        gint64           message_id,
                                        GPtrArray       *uses,
                                        GError         **error)
{
  g_autoptr(sqlite3_stmt) clear = NULL;
  sqlite3 *db;

  g_assert (SJ_IS_HISTORY_STORE (self));

  db = _sj_history_store_get_db (self);
  if (!_sj_history_exec (db, "SAVEPOINT message_skills", error))
    return FALSE;

  clear = _sj_history_store_prepare (self, "DELETE FROM message_skills WHERE message_id = ?", error);
  if (clear == NULL)
    goto fail;
  sqlite3_bind_int64 (clear, 1, message_id);
  if (!_sj_history_store_step_done (self, clear, error))
    goto fail;

  for (guint i = 0; uses != NULL && i < uses->len; i++)
    {
      SjHistorySkillUse *use = g_ptr_array_index (uses, i);
      g_autoptr(sqlite3_stmt) stmt = NULL;

      stmt = _sj_history_store_prepare (self,
                                        "INSERT OR REPLACE INTO message_skills (message_id, position, name, title, how) "
                                        "VALUES (?, ?, ?, ?, ?)",
                                        error);
      if (stmt == NULL)
        goto fail;
      sqlite3_bind_int64 (stmt, 1, message_id);
      sqlite3_bind_int (stmt, 2, i);
      _sj_history_bind_text (stmt, 3, use->name);
      _sj_history_bind_text (stmt, 4, use->title ? use->title : use->name);
      _sj_history_bind_text (stmt, 5, use->how);
      if (!_sj_history_store_step_done (self, stmt, error))
        goto fail;
    }

  return _sj_history_exec (db, "RELEASE message_skills", error);

fail:
  sqlite3_exec (db, "ROLLBACK TO message_skills; RELEASE message_skills", NULL, NULL, NULL);
  return FALSE;
}

/**
 * sj_history_store_list_message_skills:
 *
 * Returns: (transfer full) (element-type SjHistorySkillUse): the skills
 *   the message's turn used, in their order; empty when none
 */
GPtrArray *
sj_history_store_list_message_skills (SjHistoryStore  *self,
                                      gint64           message_id,
                                      GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) uses = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_history_skill_use_free);
  int rc;

  g_assert (SJ_IS_HISTORY_STORE (self));

  stmt = _sj_history_store_prepare (self,
                                    "SELECT name, title, how FROM message_skills WHERE message_id = ? ORDER BY position",
                                    error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, message_id);

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SjHistorySkillUse *use = g_new0 (SjHistorySkillUse, 1);

      use->name = _sj_history_column_text (stmt, 0);
      use->title = _sj_history_column_text (stmt, 1);
      use->how = _sj_history_column_text (stmt, 2);
      g_ptr_array_add (uses, use);
    }
  if (rc != SQLITE_DONE)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  return g_steal_pointer (&uses);
}
