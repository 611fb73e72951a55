/* test-history-store.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjHistoryStore against a real SQLite file: migrations, sessions and
 * their rows, streamed text committed by the timer, a crash, answers a
 * killed process left streaming marked interrupted (and those a live
 * store streams left alone), redaction, the Markdown export, and failures
 * that keep the streamed text.
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/prctl.h>
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

static char *
message_status (sqlite3 *db,
                gint64   id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT status FROM messages WHERE id = %" G_GINT64_FORMAT, id);

  return query_text (db, sql);
}

/* What the child of test_interrupted wrote, for the parent to check. */
typedef struct
{
  gint64 session;
  gint64 user;
  gint64 answer;
  gint64 stopped;
  gint64 call;
} Written;

/* The child: a session with a finished exchange, then an answer it streams
 * (its first words committed by the timer, a tool call finished) and never
 * finishes. It tells the parent what it wrote through @fd, and streams on
 * until it is killed. */
static void
stream_until_killed (const char *path,
                     int         fd)
{
  SjHistoryStore *store = sj_history_store_new (path, NULL);
  Written written = { 0 };

  written.session = sj_history_store_create_session (store, "Killed", NULL);
  written.user = sj_history_store_append_message (store, written.session, SJ_HISTORY_ROLE_USER, "Faster",
                                                  NULL, SJ_HISTORY_MESSAGE_COMPLETE, NULL);
  written.stopped = sj_history_store_append_message (store, written.session, SJ_HISTORY_ROLE_ASSISTANT, "Half",
                                                     "m", SJ_HISTORY_MESSAGE_STREAMING, NULL);
  sj_history_store_finish_message (store, written.stopped, SJ_HISTORY_MESSAGE_STOPPED, NULL);
  sj_history_store_append_message (store, written.session, SJ_HISTORY_ROLE_USER, "Even faster",
                                   NULL, SJ_HISTORY_MESSAGE_COMPLETE, NULL);
  written.answer = sj_history_store_append_message (store, written.session, SJ_HISTORY_ROLE_ASSISTANT, NULL,
                                                    "m", SJ_HISTORY_MESSAGE_STREAMING, NULL);
  written.call = sj_history_store_record_tool_call (store, written.answer, "read_code", "{}", "{\"ok\":true}",
                                                    SJ_HISTORY_TOOL_SUCCEEDED, 3, NAN, NULL);
  sj_history_store_append_text (store, written.answer, "Doubling the ", NULL);
  wait_for_content (store, written.session, 3, "Doubling the ");

  g_assert_cmpint (write (fd, &written, sizeof written), ==, sizeof written);
  for (;;)
    {
      sj_history_store_append_text (store, written.answer, "hats ", NULL);
      g_main_context_iteration (NULL, TRUE);
    }
}

/* A process streaming an answer is killed with SIGKILL. While it lives, a
 * store opened elsewhere leaves its answer streaming; once it is dead, the
 * next store to open marks it interrupted, its text and tool call kept,
 * and nothing else changes. */
static void
test_interrupted (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *status = NULL;
  g_autofree char *markdown = NULL;
  SjHistoryStore *store;
  SjHistoryMessage *answer;
  Written written = { 0 };
  int fds[2];
  int wait_status = 0;
  sqlite3 *db;
  pid_t pid;

  g_assert_cmpint (pipe (fds), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* Never outlives a parent that failed before it could kill it. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      close (fds[0]);
      stream_until_killed (fixture->path, fds[1]);
      _exit (1);
    }
  close (fds[1]);
  g_assert_cmpint (read (fds[0], &written, sizeof written), ==, sizeof written);
  close (fds[0]);

  /* The child is alive and streaming: a store opened now leaves it be. */
  store = open_store (fixture);
  db = open_raw (fixture->path);
  status = message_status (db, written.answer);
  g_assert_cmpstr (status, ==, "streaming");
  g_clear_object (&store);

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (wait_status));
  g_assert_cmpint (WTERMSIG (wait_status), ==, SIGKILL);

  /* Still streaming in the file: nothing marks it but the next store. */
  g_clear_pointer (&status, g_free);
  status = message_status (db, written.answer);
  g_assert_cmpstr (status, ==, "streaming");

  store = open_store (fixture);
  g_clear_pointer (&status, g_free);
  status = message_status (db, written.answer);
  g_assert_cmpstr (status, ==, "interrupted");
  sqlite3_close (db);

  messages = sj_history_store_list_messages (store, written.session, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (messages->len, ==, 4);
  answer = g_ptr_array_index (messages, 3);
  g_assert_cmpint (answer->id, ==, written.answer);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_INTERRUPTED);
  g_assert_true (g_str_has_prefix (answer->content, "Doubling the "));
  /* When it ended is not known. */
  g_assert_cmpint (answer->ended, ==, 0);
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (messages, 0))->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (messages, 1))->status, ==, SJ_HISTORY_MESSAGE_STOPPED);
  calls = sj_history_store_list_tool_calls (store, written.answer, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->id, ==, written.call);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);

  /* The export says so too. */
  markdown = sj_history_store_export_markdown (store, written.session, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (markdown, "Doubling the "));
  g_assert_nonnull (strstr (markdown, "*Interrupted: the app stopped before this answer finished*"));
  g_assert_nonnull (strstr (markdown, "*Stopped*"));

  g_object_unref (store);
}

/* Two stores on one file in one process, as two windows would have: the
 * second to open never marks what the first is streaming, and when the
 * first is closed the answer it finished is not touched either. */
static void
test_live_stream_untouched (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) streaming = open_store (fixture);
  g_autoptr(SjHistoryStore) other = NULL;
  g_autoptr(SjHistoryMessage) message = NULL;
  gint64 session, id;

  session = sj_history_store_create_session (streaming, "Live", &error);
  id = sj_history_store_append_message (streaming, session, SJ_HISTORY_ROLE_ASSISTANT, "Still going",
                                        NULL, SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);

  other = open_store (fixture);
  message = sj_history_store_get_message (other, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_STREAMING);
  g_clear_pointer (&message, sj_history_message_free);

  /* Closing the other store changes nothing either. */
  g_clear_object (&other);
  message = sj_history_store_get_message (streaming, id, &error);
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_STREAMING);
  g_clear_pointer (&message, sj_history_message_free);

  g_assert_true (sj_history_store_finish_message (streaming, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);
  g_clear_object (&streaming);

  other = open_store (fixture);
  message = sj_history_store_get_message (other, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (message->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
}

/* Version 1 of the schema, as released: never edit it, it stands for the
 * files users have. */
static const char schema_v1[] =
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
  "CREATE INDEX code_snapshots_message ON code_snapshots(message_id);"
  "PRAGMA user_version = 1;";

/* A history of version 1 with an answer its app left streaming: opened,
 * it is the current version, every row is kept with its links (tool calls and code
 * snapshots still point at their message), the answer is interrupted, the
 * new status is allowed and foreign keys hold again. */
static void
test_migrate_v1 (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autofree char *schema = NULL;
  sqlite3 *db;

  g_assert_cmpint (g_mkdir_with_parents (fixture->dir, 0700), ==, 0);
  g_free (fixture->path);
  fixture->path = g_build_filename (fixture->dir, "v1.sqlite3", NULL);

  db = open_raw (fixture->path);
  exec_raw (db, schema_v1);
  exec_raw (db,
            "INSERT INTO sessions VALUES (7, 'Old jam', 100, 200);"
            "INSERT INTO messages VALUES (1, 7, 'user', 'Add hats', NULL, NULL, 'complete', 100, 100);"
            "INSERT INTO messages VALUES (2, 7, 'assistant', 'Hats added.', 'hmm', 'm', 'complete', 110, 150);"
            "INSERT INTO messages VALUES (3, 7, 'user', 'Now a bass', NULL, NULL, 'complete', 160, 160);"
            "INSERT INTO messages VALUES (4, 7, 'assistant', 'A bass on', NULL, 'm', 'streaming', 170, NULL);"
            "INSERT INTO tool_calls VALUES (1, 2, 'apply_strudel_change', '{}', '{\"ok\":true}', 'succeeded', 40, 8);"
            "INSERT INTO tool_calls VALUES (2, 4, 'read_code', '{}', '{}', 'canceled', 1, NULL);"
            "INSERT INTO code_snapshots VALUES (1, 7, 'h', 's(\"hh*8\")', 8, 'agent', 2, 120);");
  sqlite3_close (db);

  store = open_store (fixture);

  db = open_raw (fixture->path);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, SJ_HISTORY_STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE name IN ('session_skills', 'message_skills')"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE name = 'messages_session'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE name = 'messages_new'"), ==, 0);
  schema = query_text (db, "SELECT sql FROM sqlite_master WHERE name = 'tool_calls'");
  g_assert_nonnull (strstr (schema, "REFERENCES messages(id)"));
  /* The new status is allowed, a made-up one still refused. */
  exec_raw (db, "UPDATE messages SET status = 'interrupted' WHERE id = 1; UPDATE messages SET status = 'complete' WHERE id = 1");
  g_assert_cmpint (sqlite3_exec (db, "UPDATE messages SET status = 'bogus' WHERE id = 1", NULL, NULL, NULL), ==, SQLITE_CONSTRAINT);
  sqlite3_close (db);

  messages = sj_history_store_list_messages (store, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (messages->len, ==, 4);
  g_assert_cmpstr (((SjHistoryMessage *) g_ptr_array_index (messages, 1))->reasoning, ==, "hmm");
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (messages, 1))->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (messages, 1))->ended, ==, 150);
  g_assert_cmpstr (((SjHistoryMessage *) g_ptr_array_index (messages, 3))->content, ==, "A bass on");
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (messages, 3))->status, ==, SJ_HISTORY_MESSAGE_INTERRUPTED);
  calls = sj_history_store_list_session_tool_calls (store, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 2);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->message_id, ==, 4);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->text_offset, ==, -1);
  snapshots = sj_history_store_list_snapshots (store, 7, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (snapshots->len, ==, 1);
  g_assert_cmpint (((SjHistorySnapshot *) g_ptr_array_index (snapshots, 0))->message_id, ==, 2);

  /* New rows in the rebuilt table; deleting still cascades. */
  g_assert_cmpint (sj_history_store_append_message (store, 7, SJ_HISTORY_ROLE_USER, "More", NULL,
                                                    SJ_HISTORY_MESSAGE_COMPLETE, &error), ==, 5);
  g_assert_no_error (error);
  g_assert_true (sj_history_store_delete_session (store, 7, &error));
  g_assert_no_error (error);
  db = open_raw (fixture->path);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM messages"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM tool_calls"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM code_snapshots"), ==, 0);
  sqlite3_close (db);
}

/* Where in its answer each call was made is kept; a call recorded without
 * it reads back as not known (issue 31). */
static void
test_tool_call_offset (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) session_calls = NULL;
  gint64 session, answer;

  session = sj_history_store_create_session (store, "Offsets", &error);
  answer = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "Let me look. Found it.",
                                            "m", SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sj_history_store_record_tool_call_at (store, answer, "strudel_knowledge", "{}", "{}",
                                                         SJ_HISTORY_TOOL_SUCCEEDED, 3, NAN, 12, &error), >, 0);
  g_assert_cmpint (sj_history_store_record_tool_call_at (store, answer, "read_code", "{}", "{}",
                                                         SJ_HISTORY_TOOL_SUCCEEDED, 3, NAN, 0, &error), >, 0);
  g_assert_cmpint (sj_history_store_record_tool_call (store, answer, "read_code", "{}", "{}",
                                                      SJ_HISTORY_TOOL_SUCCEEDED, 3, NAN, &error), >, 0);
  g_assert_no_error (error);

  calls = sj_history_store_list_tool_calls (store, answer, &error);
  session_calls = sj_history_store_list_session_tool_calls (store, session, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 3);
  g_assert_cmpuint (session_calls->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      gint64 expected[] = { 12, 0, -1 };

      g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, i))->text_offset, ==, expected[i]);
      g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (session_calls, i))->text_offset, ==, expected[i]);
    }
}

/* A history of version 4, before calls knew where they were made: opened,
 * its calls are all there, their place not known (the chat lists them
 * after the text, as before), and new calls keep theirs. */
static void
test_migrate_v4 (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  SjHistoryStore *store;
  sqlite3 *db;
  gint64 session, answer;

  store = open_store (fixture);
  session = sj_history_store_create_session (store, "Old jam", &error);
  answer = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "Hats added.", "m",
                                            SJ_HISTORY_MESSAGE_COMPLETE, &error);
  sj_history_store_record_tool_call (store, answer, "read_code", "{}", "{}", SJ_HISTORY_TOOL_SUCCEEDED, 1, NAN, &error);
  sj_history_store_record_tool_call (store, answer, "apply_strudel_change", "{}", "{\"ok\":true}",
                                     SJ_HISTORY_TOOL_SUCCEEDED, 40, 8, &error);
  g_assert_no_error (error);
  g_object_unref (store);

  /* Back to version 4's table, as an older app left it. */
  db = open_raw (fixture->path);
  exec_raw (db, "ALTER TABLE tool_calls DROP COLUMN text_offset; DROP TABLE message_usage; PRAGMA user_version = 4");
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM pragma_table_info('tool_calls') WHERE name = 'text_offset'"), ==, 0);
  sqlite3_close (db);

  store = open_store (fixture);
  db = open_raw (fixture->path);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, SJ_HISTORY_STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM tool_calls"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM tool_calls WHERE text_offset IS NULL"), ==, 2);
  sqlite3_close (db);

  calls = sj_history_store_list_session_tool_calls (store, session, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 2);
  g_assert_cmpstr (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->name, ==, "apply_strudel_change");
  g_assert_cmpfloat (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->apply_cycle, ==, 8);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->text_offset, ==, -1);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->text_offset, ==, -1);
  g_clear_pointer (&calls, g_ptr_array_unref);

  sj_history_store_record_tool_call_at (store, answer, "read_code", "{}", "{}", SJ_HISTORY_TOOL_SUCCEEDED, 1, NAN, 5, &error);
  g_assert_no_error (error);
  calls = sj_history_store_list_tool_calls (store, answer, &error);
  g_assert_cmpuint (calls->len, ==, 3);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 2))->text_offset, ==, 5);
  g_object_unref (store);
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
    /* While it streams, the text is saved in pieces. */
    reasoning = query_text (db, "SELECT group_concat(reasoning, '') FROM message_parts");
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
  ADD ("interrupted", test_interrupted);
  ADD ("live-stream-untouched", test_live_stream_untouched);
  ADD ("migrate-v1", test_migrate_v1);
  ADD ("migrate-v4", test_migrate_v4);
  ADD ("tool-call-offset", test_tool_call_offset);
  g_test_add_func ("/history-store/redact", test_redact);
  ADD ("redact-columns", test_redact_columns);
  ADD ("export", test_export);
  ADD ("full", test_full);
  ADD ("read-only", test_read_only);

#undef ADD

  return g_test_run ();
}
