/* test-history-store.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjHistoryStore against a real SQLite file: migrations, sessions and
 * their rows, streamed text committed by the timer, a crash, redaction,
 * the Markdown export, and failures that keep the streamed text.
 */

#include "config.h"

#include <math.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"
#include "sj-test-files.h"

#define OPENROUTER_KEY "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"
#define OPENAI_KEY "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx"
#define BEARER_TOKEN "eyJhbGciOiJIUzI1NiJ9.payload.signature"
#define JSON_KEY "hunter2-supersecret"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-history-store-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->path = g_build_filename (fixture->dir, "sub", "history.sqlite3", NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->path);
}

static SjHistoryStore *
open_store (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  SjHistoryStore *store = sj_history_store_new (fixture->path, &error);

  g_assert_no_error (error);
  g_assert_true (SJ_IS_HISTORY_STORE (store));
  return store;
}

/* A second, independent connection: what another process would see. */
static sqlite3 *
open_raw (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  sqlite3_exec (db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  return db;
}

static gint64
query_int (sqlite3    *db,
           const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 value;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  value = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return value;
}

static char *
query_text (sqlite3    *db,
            const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  char *value;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  value = g_strdup ((const char *)sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  return value;
}

static void
exec_raw (sqlite3    *db,
          const char *sql)
{
  g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
}

static char *
message_content (SjHistoryStore *store,
                 gint64          session_id,
                 guint           index)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = sj_history_store_list_messages (store, session_id, &error);
  SjHistoryMessage *message;

  g_assert_no_error (error);
  g_assert_cmpuint (messages->len, >, index);
  message = g_ptr_array_index (messages, index);
  return g_strdup (message->content);
}

/* Spins the main loop until the message's committed text is @expected. */
static void
wait_for_content (SjHistoryStore *store,
                  gint64          session_id,
                  guint           index,
                  const char     *expected)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  for (;;)
    {
      g_autofree char *content = message_content (store, session_id, index);

      if (g_strcmp0 (content, expected) == 0)
        return;

      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

static void
test_migrate (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autofree char *journal = NULL;
  SjHistoryStore *store;
  sqlite3 *db;
  gint64 id;

  /* From nothing: the directory, the file and schema version 1. */
  store = open_store (fixture);
  g_assert_cmpstr (_sj_history_store_get_path (store), ==, fixture->path);
  id = sj_history_store_create_session (store, "First jam", &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);

  db = open_raw (fixture->path);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, SJ_HISTORY_STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                                  "('sessions', 'messages', 'tool_calls', 'code_snapshots')"), ==, 4);
  journal = query_text (db, "PRAGMA journal_mode");
  g_assert_cmpstr (journal, ==, "wal");
  sqlite3_close (db);
  g_object_unref (store);

  /* Re-opening an up-to-date file migrates nothing and keeps the data. */
  store = open_store (fixture);
  sessions = sj_history_store_list_sessions (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  g_assert_cmpstr (((SjHistorySession *)g_ptr_array_index (sessions, 0))->title, ==, "First jam");
  g_object_unref (store);

  /* The default lives under $XDG_DATA_HOME. */
  {
    g_autofree char *path = sj_history_store_default_path ();
    g_autofree char *expected = g_build_filename (g_get_user_data_dir (), "strudel-jam",
                                                  "history.sqlite3", NULL);

    g_assert_cmpstr (path, ==, expected);
  }
}

static void
test_newer_version (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *wal = NULL;
  gsize before_len, after_len;
  sqlite3 *db;

  g_assert_cmpint (g_mkdir_with_parents (fixture->dir, 0700), ==, 0);
  g_free (fixture->path);
  fixture->path = g_build_filename (fixture->dir, "future.sqlite3", NULL);

  db = open_raw (fixture->path);
  exec_raw (db, "CREATE TABLE future (x); INSERT INTO future VALUES (42); PRAGMA user_version = 99");
  sqlite3_close (db);
  g_assert_true (g_file_get_contents (fixture->path, &before, &before_len, NULL));

  store = sj_history_store_new (fixture->path, &error);
  g_assert_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NEWER_VERSION);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, "newer"));

  /* Untouched: same bytes, still in its old journal mode. */
  g_assert_true (g_file_get_contents (fixture->path, &after, &after_len, NULL));
  g_assert_cmpmem (before, before_len, after, after_len);
  wal = g_strconcat (fixture->path, "-wal", NULL);
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
}

static void
test_crud (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  SjHistoryMessage *message;
  SjHistoryToolCall *call;
  SjHistorySnapshot *snapshot;
  gint64 a, b, user, assistant, call_id, snap_id;
  sqlite3 *db;

  a = sj_history_store_create_session (store, "Session A", &error);
  g_assert_no_error (error);
  b = sj_history_store_create_session (store, "Session B", &error);
  g_assert_no_error (error);

  g_assert_true (sj_history_store_rename_session (store, a, "Techno", &error));
  g_assert_no_error (error);
  g_assert_false (sj_history_store_rename_session (store, 9999, "Nope", &error));
  g_assert_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  user = sj_history_store_append_message (store, a, SJ_HISTORY_ROLE_USER, "make a beat", NULL,
                                          SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  assistant = sj_history_store_append_message (store, a, SJ_HISTORY_ROLE_ASSISTANT, NULL, "some/model",
                                               SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);
  g_assert_cmpint (assistant, >, user);

  call_id = sj_history_store_record_tool_call (store, assistant, "apply_strudel_change",
                                               "{\"code\":\"s(\\\"bd\\\")\"}", "{\"ok\":true}",
                                               SJ_HISTORY_TOOL_SUCCEEDED, 120, 16.0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (call_id, >, 0);
  snap_id = sj_history_store_record_snapshot (store, a, "s(\"bd\")", 16.0, SJ_HISTORY_SOURCE_AGENT,
                                              assistant, &error);
  g_assert_no_error (error);
  g_assert_cmpint (snap_id, >, 0);
  sj_history_store_record_snapshot (store, b, "s(\"hh\")", NAN, SJ_HISTORY_SOURCE_USER, 0, &error);
  g_assert_no_error (error);

  /* A message in a session that does not exist breaks the foreign key. */
  g_assert_cmpint (sj_history_store_append_message (store, 9999, SJ_HISTORY_ROLE_USER, "x", NULL,
                                                    SJ_HISTORY_MESSAGE_COMPLETE, &error), ==, 0);
  g_assert_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_FAILED);
  g_clear_error (&error);

  /* Most recently updated first: A got the messages. */
  sessions = sj_history_store_list_sessions (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 2);
  g_assert_cmpint (((SjHistorySession *)g_ptr_array_index (sessions, 0))->id, ==, a);
  g_assert_cmpstr (((SjHistorySession *)g_ptr_array_index (sessions, 0))->title, ==, "Techno");

  messages = sj_history_store_list_messages (store, a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (messages->len, ==, 2);
  message = g_ptr_array_index (messages, 0);
  g_assert_cmpint (message->id, ==, user);
  g_assert_cmpint (message->role, ==, SJ_HISTORY_ROLE_USER);
  g_assert_cmpstr (message->content, ==, "make a beat");
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_cmpint (message->ended, >=, message->started);
  message = g_ptr_array_index (messages, 1);
  g_assert_cmpint (message->role, ==, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpstr (message->model, ==, "some/model");
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_STREAMING);
  g_assert_cmpint (message->ended, ==, 0);

  g_assert_true (sj_history_store_finish_message (store, assistant, SJ_HISTORY_MESSAGE_STOPPED, &error));
  g_assert_no_error (error);
  g_clear_pointer (&messages, g_ptr_array_unref);
  messages = sj_history_store_list_messages (store, a, &error);
  message = g_ptr_array_index (messages, 1);
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_STOPPED);
  g_assert_cmpint (message->ended, >=, message->started);

  calls = sj_history_store_list_tool_calls (store, assistant, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 1);
  call = g_ptr_array_index (calls, 0);
  g_assert_cmpstr (call->name, ==, "apply_strudel_change");
  g_assert_cmpstr (call->result, ==, "{\"ok\":true}");
  g_assert_cmpint (call->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_cmpint (call->duration_ms, ==, 120);
  g_assert_cmpfloat (call->apply_cycle, ==, 16.0);

  snapshots = sj_history_store_list_snapshots (store, a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (snapshots->len, ==, 1);
  snapshot = g_ptr_array_index (snapshots, 0);
  g_assert_cmpint (snapshot->message_id, ==, assistant);
  g_assert_cmpint (snapshot->source, ==, SJ_HISTORY_SOURCE_AGENT);
  g_assert_cmpuint (strlen (snapshot->hash), ==, 64);

  /* Deleting a message keeps its snapshot, unlinked (ON DELETE SET NULL). */
  db = open_raw (fixture->path);
  exec_raw (db, "DELETE FROM messages WHERE role = 'assistant'");
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM tool_calls"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM code_snapshots WHERE message_id IS NULL"), ==, 2);

  /* Deleting a session takes its messages and snapshots along. */
  g_assert_true (sj_history_store_delete_session (store, a, &error));
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM messages"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM code_snapshots"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, 1);
  sqlite3_close (db);

  g_assert_false (sj_history_store_delete_session (store, a, &error));
  g_assert_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND);
}

static void
test_streaming_timer (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(GPtrArray) messages = NULL;
  SjHistoryMessage *message;
  gint64 session, id;

  session = sj_history_store_create_session (store, "Stream", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);

  sj_history_store_append_text (store, id, "Here is ", "Thinking ");
  sj_history_store_append_text (store, id, "a beat. ", NULL);
  sj_history_store_append_text (store, id, NULL, "about drums\n");
  g_assert_true (_sj_history_store_has_pending (store));

  /* Buffered, not yet written. */
  {
    g_autofree char *content = message_content (store, session, 0);

    g_assert_cmpstr (content, ==, "");
  }

  /* No flush: the timer commits it. */
  wait_for_content (store, session, 0, "Here is a beat. ");
  g_assert_false (_sj_history_store_has_pending (store));

  messages = sj_history_store_list_messages (store, session, &error);
  message = g_ptr_array_index (messages, 0);
  g_assert_cmpstr (message->reasoning, ==, "Thinking about drums\n");
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_STREAMING);

  /* finish commits the rest at once. */
  sj_history_store_append_text (store, id, "Enjoy", NULL);
  g_assert_true (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);
  {
    g_autofree char *content = message_content (store, session, 0);

    g_assert_cmpstr (content, ==, "Here is a beat. Enjoy");
  }
}

static void
test_crash (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autofree char *content = NULL;
  int status = 0;
  pid_t pid;

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* The child streams, lets the timer commit, streams more, and dies
       * without flushing or closing. */
      SjHistoryStore *child = sj_history_store_new (fixture->path, NULL);
      gint64 session = sj_history_store_create_session (child, "Crash", NULL);
      gint64 id = sj_history_store_append_message (child, session, SJ_HISTORY_ROLE_ASSISTANT, NULL,
                                                   NULL, SJ_HISTORY_MESSAGE_STREAMING, NULL);

      sj_history_store_append_text (child, id, "committed ", NULL);
      wait_for_content (child, session, 0, "committed ");
      sj_history_store_append_text (child, id, "lost in the crash ", NULL);
      _exit (0);
    }

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  /* What the timer committed survived; only the last second is missing. */
  store = open_store (fixture);
  sessions = sj_history_store_list_sessions (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  content = message_content (store, ((SjHistorySession *)g_ptr_array_index (sessions, 0))->id, 0);
  g_assert_cmpstr (content, ==, "committed ");
}

static void
test_redact (void)
{
  static const struct {
    const char *input;
    const char *expected;
  } cases[] = {
    { "key " OPENROUTER_KEY " end", "key [redacted] end" },
    { "use " OPENAI_KEY, "use [redacted]" },
    { "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "[redacted]" },
    { "Authorization: Bearer " BEARER_TOKEN "\nnext", "Authorization: [redacted]\nnext" },
    { "curl -H 'x: Bearer " BEARER_TOKEN "'", "curl -H 'x: Bearer [redacted]'" },
    { "{\"api_key\": \"" JSON_KEY "\", \"n\": 1}", "{\"api_key\": \"[redacted]\", \"n\": 1}" },
    { "{\"headers\":{\"Authorization\":\"Basic dXNlcjpwYXNz\"}}",
      "{\"headers\":{\"Authorization\":\"[redacted]\"}}" },
    { "OPENROUTER_API_KEY=abcdefgh123 strudel-jam", "OPENROUTER_API_KEY=[redacted] strudel-jam" },
    { "{\"access_token\": \"ya29.a0AfH6SMB\"}", "{\"access_token\": \"[redacted]\"}" },
    { "{\"api_key\": null}", "{\"api_key\": null}" },
    /* Music is not a secret. */
    { "s(\"bd sd\").gain(0.8) // max_tokens: 4096", "s(\"bd sd\").gain(0.8) // max_tokens: 4096" },
    { "note(\"c e g\").s(\"sawtooth\")", "note(\"c e g\").s(\"sawtooth\")" },
    { "", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *redacted = sj_redact (cases[i].input);
      g_autofree char *twice = sj_redact (redacted);

      g_assert_cmpstr (redacted, ==, cases[i].expected);
      g_assert_cmpstr (twice, ==, redacted);
    }

  g_assert_null (sj_redact (NULL));
}

static void
assert_no_secret (const char *text)
{
  g_assert_null (strstr (text, "0123456789abcdef"));
  g_assert_null (strstr (text, "AbCdEfGhIjKl"));
  g_assert_null (strstr (text, BEARER_TOKEN));
  g_assert_null (strstr (text, JSON_KEY));
}

static void
test_redact_columns (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autofree char *markdown = NULL;
  gint64 session, user, assistant;
  sqlite3 *db;
  sqlite3_stmt *stmt = NULL;
  guint rows = 0;

  session = sj_history_store_create_session (store, "Key " OPENROUTER_KEY, &error);
  user = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_USER,
                                          "my key is " OPENAI_KEY, "model " OPENAI_KEY,
                                          SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  assistant = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                               SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);

  /* A key split over deltas and over two commits: the timed commit holds
   * back the unfinished word. */
  sj_history_store_append_text (store, assistant, "Do not paste sk-or-v1-0123456789", "Bearer eyJhbGciOi");
  wait_for_content (store, session, 1, "Do not paste ");
  {
    g_autofree char *reasoning = NULL;

    db = open_raw (fixture->path);
    reasoning = query_text (db, "SELECT reasoning FROM messages WHERE role = 'assistant'");
    g_assert_cmpstr (reasoning, ==, "Bearer ");
    sqlite3_close (db);
  }
  sj_history_store_append_text (store, assistant, "abcdef0123456789abcdef0123456789abcdef0123456789ab here.",
                                "JIUzI1NiJ9.payload.signature");
  g_assert_true (sj_history_store_finish_message (store, assistant, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);

  sj_history_store_record_tool_call (store, assistant, "fetch",
                                     "{\"url\":\"x\",\"headers\":{\"Authorization\":\"Bearer " BEARER_TOKEN "\"}}",
                                     "{\"api_key\": \"" JSON_KEY "\"}",
                                     SJ_HISTORY_TOOL_FAILED, 5, NAN, &error);
  g_assert_no_error (error);
  sj_history_store_record_snapshot (store, session, "// " OPENAI_KEY "\ns(\"bd\")", NAN,
                                    SJ_HISTORY_SOURCE_USER, user, &error);
  g_assert_no_error (error);

  /* Every text column of every table, as stored. */
  db = open_raw (fixture->path);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT title FROM sessions UNION ALL "
                                       "SELECT content FROM messages UNION ALL "
                                       "SELECT reasoning FROM messages UNION ALL "
                                       "SELECT model FROM messages UNION ALL "
                                       "SELECT arguments FROM tool_calls UNION ALL "
                                       "SELECT result FROM tool_calls UNION ALL "
                                       "SELECT code FROM code_snapshots",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *text = (const char *)sqlite3_column_text (stmt, 0);

      if (text != NULL)
        {
          assert_no_secret (text);
          rows++;
        }
    }
  sqlite3_finalize (stmt);
  g_assert_cmpuint (rows, >=, 8);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM messages WHERE content LIKE '%[redacted]%'"), ==, 2);
  sqlite3_close (db);

  markdown = sj_history_store_export_markdown (store, session, &error);
  g_assert_no_error (error);
  assert_no_secret (markdown);
  g_assert_nonnull (strstr (markdown, "Do not paste [redacted] here."));
}

static void
test_export (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autofree char *markdown = NULL;
  g_autofree char *sql = NULL;
  gint64 session, user, assistant;
  const char *expected;
  sqlite3 *db;

  session = sj_history_store_create_session (store, "Acid jam", &error);
  sj_history_store_record_snapshot (store, session, "s(\"bd*4\")", 0, SJ_HISTORY_SOURCE_USER, 0, &error);
  g_assert_no_error (error);
  user = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_USER, "Add a 303 line", NULL,
                                          SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  assistant = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, "m1",
                                               SJ_HISTORY_MESSAGE_STREAMING, &error);
  sj_history_store_append_text (store, assistant, "Added a bassline.", "Needs a sawtooth.");
  sj_history_store_record_tool_call (store, assistant, "apply_strudel_change",
                                     "{\"code\":\"```\"}", "{\"ok\":true}",
                                     SJ_HISTORY_TOOL_SUCCEEDED, 80, 8, &error);
  sj_history_store_record_snapshot (store, session, "note(\"c2\").s(\"sawtooth\")", 8,
                                    SJ_HISTORY_SOURCE_AGENT, assistant, &error);
  g_assert_true (sj_history_store_finish_message (store, assistant, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);

  /* 65 s of cooking. */
  db = open_raw (fixture->path);
  sql = g_strdup_printf ("UPDATE messages SET ended = started + 65400000 WHERE id = %" G_GINT64_FORMAT,
                         assistant);
  exec_raw (db, sql);
  sqlite3_close (db);

  markdown = sj_history_store_export_markdown (store, session, &error);
  g_assert_no_error (error);

  expected =
    "# Acid jam\n"
    "\n"
    "**Code** (user, cycle 0)\n"
    "\n"
    "```javascript\n"
    "s(\"bd*4\")\n"
    "```\n"
    "\n"
    "## User\n"
    "\n"
    "Add a 303 line\n"
    "\n"
    "## Assistant (m1)\n"
    "\n"
    "*Cooked for 1 m 5 s*\n"
    "\n"
    "> Needs a sawtooth.\n"
    "\n"
    "Added a bassline.\n"
    "\n"
    "**Tool call: apply_strudel_change** (succeeded, 80 ms, applied at cycle 8)\n"
    "\n"
    "````json\n"
    "{\"code\":\"```\"}\n"
    "````\n"
    "\n"
    "Result:\n"
    "\n"
    "```json\n"
    "{\"ok\":true}\n"
    "```\n"
    "\n"
    "**Code** (agent, cycle 8)\n"
    "\n"
    "```javascript\n"
    "note(\"c2\").s(\"sawtooth\")\n"
    "```\n"
    "\n";
  g_assert_cmpstr (markdown, ==, expected);
  (void)user;

  g_clear_pointer (&markdown, g_free);
  markdown = sj_history_store_export_markdown (store, 9999, &error);
  g_assert_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND);
  g_assert_null (markdown);
}

static void
test_full (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *content = NULL;
  gint64 session, id, pages;
  sqlite3 *db;

  session = sj_history_store_create_session (store, "Full", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);
  g_assert_true (sj_history_store_flush (store, &error));

  db = open_raw (fixture->path);
  pages = query_int (db, "PRAGMA page_count");
  sqlite3_close (db);

  /* No room for anything more: as on a full disk. */
  _sj_history_store_set_max_pages (store, pages);
  for (guint i = 0; i < 4000; i++)
    g_string_append_printf (big, "line %u of a long answer\n", i);
  sj_history_store_append_text (store, id, big->str, NULL);

  g_assert_false (sj_history_store_flush (store, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  g_assert_true (_sj_history_store_has_pending (store));
  g_assert_false (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  g_assert_true (_sj_history_store_has_pending (store));

  /* Room again: the buffered text is all there. */
  _sj_history_store_set_max_pages (store, 0);
  g_assert_true (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);
  g_assert_false (_sj_history_store_has_pending (store));
  content = message_content (store, session, 0);
  g_assert_cmpstr (content, ==, big->str);
}

static void
record_error_cb (SjHistoryStore *store,
                 GError         *error,
                 gpointer        user_data)
{
  GError **out = user_data;

  g_clear_error (out);
  *out = g_error_copy (error);
}

static void
test_read_only (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) timer_error = NULL;
  g_autoptr(SjHistoryStore) store = NULL;
  g_autofree char *content = NULL;
  gint64 session, id;
  gint64 deadline;

  store = open_store (fixture);
  session = sj_history_store_create_session (store, "Read-only", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "kept", NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);
  g_clear_object (&store);

  g_assert_cmpint (g_chmod (fixture->path, 0444), ==, 0);
  store = open_store (fixture);

  /* Reading works. */
  content = message_content (store, session, 0);
  g_assert_cmpstr (content, ==, "kept");

  /* Writing fails, and the streamed text stays buffered: through the timer… */
  g_signal_connect (store, "flush-failed", G_CALLBACK (record_error_cb), &timer_error);
  sj_history_store_append_text (store, id, " and more", NULL);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (timer_error == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  g_assert_error (timer_error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  g_assert_true (_sj_history_store_has_pending (store));

  /* …and through flush and finish. */
  g_assert_false (sj_history_store_flush (store, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_true (_sj_history_store_has_pending (store));

  g_assert_cmpint (sj_history_store_create_session (store, "x", &error), ==, 0);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  g_clear_error (&error);

  g_clear_pointer (&content, g_free);
  content = message_content (store, session, 0);
  g_assert_cmpstr (content, ==, "kept");

  g_clear_object (&store);
  g_assert_cmpint (g_chmod (fixture->path, 0644), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/history-store/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("migrate", test_migrate);
  ADD ("newer-version", test_newer_version);
  ADD ("crud", test_crud);
  ADD ("streaming-timer", test_streaming_timer);
  ADD ("crash", test_crash);
  g_test_add_func ("/history-store/redact", test_redact);
  ADD ("redact-columns", test_redact_columns);
  ADD ("export", test_export);
  ADD ("full", test_full);
  ADD ("read-only", test_read_only);

#undef ADD

  return g_test_run ();
}
