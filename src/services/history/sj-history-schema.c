/* sj-history-schema.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The history's schema and its migrations, keyed by PRAGMA user_version.
 *
 * SQLite cannot change a column's CHECK constraint in place: a step that
 * must (version 2 allows the status "interrupted") builds the table anew,
 * copies the rows, drops the old one and renames the new one, as SQLite's
 * documentation describes. Foreign keys are off while the steps run, or
 * dropping the old table would delete its rows' tool calls with it.
 */

#include "config.h"

#include "sj-history-store-private.h"

/* One entry per schema version; entry i takes the file from version i to
 * i + 1. Never edit a released step: add a new one. */
static const char * const migrations[] = {
  "CREATE TABLE sessions ("
  "  id INTEGER PRIMARY KEY,"
  "  title TEXT NOT NULL,"
  "  created INTEGER NOT NULL,"
  "  updated INTEGER NOT NULL);"
  "CREATE TABLE messages ("
  "  id INTEGER PRIMARY KEY,"
  "  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),"
  "  content TEXT NOT NULL DEFAULT '',"
  "  reasoning TEXT,"
  "  model TEXT,"
  "  status TEXT NOT NULL CHECK (status IN ('complete', 'streaming', 'stopped', 'error')),"
  "  started INTEGER NOT NULL,"
  "  ended INTEGER);"
  "CREATE INDEX messages_session ON messages(session_id, id);"
  "CREATE TABLE tool_calls ("
  "  id INTEGER PRIMARY KEY,"
  "  message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
  "  name TEXT NOT NULL,"
  "  arguments TEXT NOT NULL,"
  "  result TEXT,"
  "  status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'canceled')),"
  "  duration_ms INTEGER NOT NULL,"
  "  apply_cycle REAL);"
  "CREATE INDEX tool_calls_message ON tool_calls(message_id, id);"
  "CREATE TABLE code_snapshots ("
  "  id INTEGER PRIMARY KEY,"
  "  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  hash TEXT NOT NULL,"
  "  code TEXT NOT NULL,"
  "  cycle REAL,"
  "  source TEXT NOT NULL CHECK (source IN ('user', 'agent')),"
  "  message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,"
  "  created INTEGER NOT NULL);"
  "CREATE INDEX code_snapshots_session ON code_snapshots(session_id, id);"
  "CREATE INDEX code_snapshots_message ON code_snapshots(message_id);",

  /* 2: "interrupted", for the answers a previous run left streaming. */
  "CREATE TABLE messages_new ("
  "  id INTEGER PRIMARY KEY,"
  "  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),"
  "  content TEXT NOT NULL DEFAULT '',"
  "  reasoning TEXT,"
  "  model TEXT,"
  "  status TEXT NOT NULL CHECK (status IN ('complete', 'streaming', 'stopped', 'error', 'interrupted')),"
  "  started INTEGER NOT NULL,"
  "  ended INTEGER);"
  "INSERT INTO messages_new (id, session_id, role, content, reasoning, model, status, started, ended)"
  "  SELECT id, session_id, role, content, reasoning, model, status, started, ended FROM messages;"
  "DROP TABLE messages;"
  "ALTER TABLE messages_new RENAME TO messages;"
  "CREATE INDEX messages_session ON messages(session_id, id);",

  /* 3: skills. Those pinned to a session or activated in it by the model,
   * and those each answer used (the chips on a message). */
  "CREATE TABLE session_skills ("
  "  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  name TEXT NOT NULL,"
  "  state TEXT NOT NULL CHECK (state IN ('pinned', 'activated')),"
  "  created INTEGER NOT NULL,"
  "  PRIMARY KEY (session_id, state, name));"
  "CREATE TABLE message_skills ("
  "  message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
  "  position INTEGER NOT NULL,"
  "  name TEXT NOT NULL,"
  "  title TEXT NOT NULL,"
  "  how TEXT NOT NULL CHECK (how IN ('pinned', 'tool', 'auto')),"
  "  PRIMARY KEY (message_id, name));",

  /* 4: an answer's streamed text, saved piece by piece as it comes: each
   * save adds a row instead of rewriting the whole message. Finishing the
   * answer (or marking it interrupted) folds its pieces into it. */
  "CREATE TABLE message_parts ("
  "  id INTEGER PRIMARY KEY,"
  "  message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
  "  content TEXT NOT NULL DEFAULT '',"
  "  reasoning TEXT);"
  "CREATE INDEX message_parts_message ON message_parts(message_id, id);",

  /* 5: where in its answer's text each tool call was made (the bytes of
   * the content written before it), so the chat shows the calls between
   * the words around them. NULL for the calls of older answers, which are
   * shown after the text as before. */
  "ALTER TABLE tool_calls ADD COLUMN text_offset INTEGER;",

  /* 6: what each answer cost (sj-history-usage.c): tokens and US dollars,
   * NULL where the provider did not say. The row belongs to the session,
   * not the message: a regenerated answer was paid for all the same, so
   * its row stays in the session's sum with message_id set to NULL. */
  "CREATE TABLE message_usage ("
  "  id INTEGER PRIMARY KEY,"
  "  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  message_id INTEGER UNIQUE REFERENCES messages(id) ON DELETE SET NULL,"
  "  prompt_tokens INTEGER CHECK (prompt_tokens >= 0),"
  "  completion_tokens INTEGER CHECK (completion_tokens >= 0),"
  "  reasoning_tokens INTEGER CHECK (reasoning_tokens >= 0),"
  "  cost REAL CHECK (cost >= 0));"
  "CREATE INDEX message_usage_session ON message_usage(session_id);",
};

G_STATIC_ASSERT (G_N_ELEMENTS (migrations) == SJ_HISTORY_STORE_SCHEMA_VERSION);


gboolean
_sj_history_exec (sqlite3     *db,
                  const char  *sql,
                  GError     **error)
{
  int rc = sqlite3_exec (db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return _sj_history_store_set_error (db, rc, error);

  return TRUE;
}

gboolean
_sj_history_read_user_version (sqlite3  *db,
                               int      *version,
                               GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  rc = sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    return _sj_history_store_set_error (db, rc, error);

  *version = sqlite3_column_int (stmt, 0);
  return TRUE;
}

gboolean
_sj_history_check_version (const char  *path,
                           int          version,
                           GError     **error)
{
  if (version > SJ_HISTORY_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NEWER_VERSION,
                   "The history in “%s” was written by a newer Strudel Jam "
                   "(schema version %d, this version knows up to %d)",
                   path, version, SJ_HISTORY_STORE_SCHEMA_VERSION);
      return FALSE;
    }

  return TRUE;
}

gboolean
_sj_history_migrate (sqlite3     *db,
                     const char  *path,
                     GError     **error)
{
  int version;

  if (!_sj_history_read_user_version (db, &version, error) ||
      !_sj_history_check_version (path, version, error))
    return FALSE;
  if (version == SJ_HISTORY_STORE_SCHEMA_VERSION)
    return TRUE;

  /* Outside the transaction: SQLite ignores this pragma inside one. */
  if (!_sj_history_exec (db, "PRAGMA foreign_keys = OFF", error))
    return FALSE;

  /* IMMEDIATE takes the write lock before reading the version again, so two
   * instances opening a fresh file do not both run the same step. */
  if (!_sj_history_exec (db, "BEGIN IMMEDIATE", error))
    goto restore;

  if (!_sj_history_read_user_version (db, &version, error) ||
      !_sj_history_check_version (path, version, error))
    goto rollback;

  for (; version < SJ_HISTORY_STORE_SCHEMA_VERSION; version++)
    {
      g_autofree char *set_version = g_strdup_printf ("PRAGMA user_version = %d", version + 1);

      if (!_sj_history_exec (db, migrations[version], error) ||
          !_sj_history_exec (db, set_version, error))
        goto rollback;
    }

  if (!_sj_history_exec (db, "COMMIT", error))
    goto rollback;

  return _sj_history_exec (db, "PRAGMA foreign_keys = ON", error);

rollback:
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
restore:
  sqlite3_exec (db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  return FALSE;
}
