/* test-history-stream.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The history store's streamed saves (each save adds the new text, never
 * rewrites the answer; a secret split across chunks is still masked
 * before anything reaches SQLite) and its size limit, on real SQLite
 * files.
 */

#define _GNU_SOURCE
#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include <glib/gstdio.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"
#include "sj-test-files.h"

/* A key a local server accepts: no known shape, masked only by value; it
 * holds spaces, so the store's cut before a word does not keep it whole. */
#define LOCAL_KEY "open sesame 4711 zq"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-history-stream-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->path = g_build_filename (fixture->dir, "history.sqlite3", NULL);
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
  return store;
}

static gint64
query_int (SjHistoryStore *store,
           const char     *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 value;

  g_assert_cmpint (sqlite3_prepare_v2 (_sj_history_store_get_db (store), sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  value = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return value;
}

/* Every bit of text the file holds for messages, as stored. */
static char *
stored_text (SjHistoryStore *store)
{
  sqlite3_stmt *stmt = NULL;
  GString *text = g_string_new (NULL);

  g_assert_cmpint (sqlite3_prepare_v2 (_sj_history_store_get_db (store),
                                       "SELECT content, reasoning FROM messages UNION ALL "
                                       "SELECT content, reasoning FROM message_parts",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    for (int i = 0; i < 2; i++)
      if (sqlite3_column_text (stmt, i) != NULL)
        g_string_append_printf (text, "%s\n", sqlite3_column_text (stmt, i));
  sqlite3_finalize (stmt);
  return g_string_free (text, FALSE);
}

static char *
message_content (SjHistoryStore *store,
                 gint64          id)
{
  g_autoptr(GError) error = NULL;
  SjHistoryMessage *message;
  char *content;

  message = sj_history_store_get_message (store, id, &error);
  g_assert_no_error (error);
  content = g_strdup (message->content);
  sj_history_message_free (message);
  return content;
}

/* Each timed save adds the new text as a row; the message's own row is
 * not rewritten until the answer is finished, which folds the rows in. */
static void
test_saves_append (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *content = NULL;
  gint64 session, id;

  session = sj_history_store_create_session (store, "Stream", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *chunk = g_strdup_printf ("line %u of the answer\n", i);

      sj_history_store_append_text (store, id, chunk, i == 0 ? "thinking " : NULL);
      g_string_append (expected, chunk);
      g_assert_true (_sj_history_store_save_now (store, &error));
      g_assert_no_error (error);
      g_assert_cmpint (query_int (store, "SELECT count(*) FROM message_parts"), ==, i + 1);
      g_assert_cmpint (query_int (store, "SELECT length(content) FROM messages"), ==, 0);
    }

  /* What readers see is the whole text so far. */
  content = message_content (store, id);
  g_assert_cmpstr (content, ==, expected->str);

  /* Authorization's value spans the pieces: the earlier one is rewritten. */
  sj_history_store_append_text (store, id, "Authorization: Bearer ", NULL);
  g_assert_true (_sj_history_store_save_now (store, &error));
  sj_history_store_append_text (store, id, "zzzLongOpaqueToken123 ok\nbye", NULL);
  g_assert_true (_sj_history_store_save_now (store, &error));
  {
    g_autofree char *stored = stored_text (store);

    g_assert_null (strstr (stored, "zzzLongOpaqueToken123"));
  }

  g_assert_true (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);
  g_assert_cmpint (query_int (store, "SELECT count(*) FROM message_parts"), ==, 0);
  g_clear_pointer (&content, g_free);
  content = message_content (store, id);
  g_assert_true (g_str_has_prefix (content, expected->str));
  g_assert_cmpstr (content + expected->len, ==, "Authorization: [redacted]\nbye");
  {
    SjHistoryMessage *message = sj_history_store_get_message (store, id, &error);

    g_assert_cmpstr (message->reasoning, ==, "thinking ");
    sj_history_message_free (message);
  }
}

static gboolean
file_contains (const char *path,
               const char *needle)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &bytes, &len, NULL))
    return FALSE;
  return memmem (bytes, len, needle, strlen (needle)) != NULL;
}

/* A registered key split across two chunks at every offset: the timed save
 * between them writes none of it, and what is saved after is masked. */
static void
test_split_secret (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autofree char *wal = g_strconcat (fixture->path, "-wal", NULL);
  gsize key_len = strlen (LOCAL_KEY);
  gint64 session;

  sj_redact_add_secret (LOCAL_KEY);
  session = sj_history_store_create_session (store, "Keys", &error);
  g_assert_no_error (error);

  for (gsize k = 1; k < key_len; k++)
    {
      g_autofree char *before = g_strdup_printf ("Try %" G_GSIZE_FORMAT ": ", k);
      g_autofree char *head = g_strndup (LOCAL_KEY, k);
      g_autofree char *first = g_strconcat (before, head, NULL);
      g_autofree char *stored = NULL;
      g_autofree char *content = NULL;
      g_autofree char *expected = NULL;
      gint64 id;

      id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                            SJ_HISTORY_MESSAGE_STREAMING, &error);
      g_assert_no_error (error);

      sj_history_store_append_text (store, id, first, NULL);
      g_assert_true (_sj_history_store_save_now (store, &error));
      g_assert_no_error (error);
      /* Nothing of the key yet: at most the text before it. */
      stored = stored_text (store);
      g_assert_null (strstr (stored, head));

      sj_history_store_append_text (store, id, LOCAL_KEY + k, NULL);
      sj_history_store_append_text (store, id, " and on", NULL);
      g_assert_true (_sj_history_store_save_now (store, &error));
      g_clear_pointer (&stored, g_free);
      stored = stored_text (store);
      g_assert_null (strstr (stored, LOCAL_KEY));
      if (key_len - k >= 6)
        g_assert_null (strstr (stored, LOCAL_KEY + k));

      g_assert_true (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
      content = message_content (store, id);
      expected = g_strconcat (before, "[redacted] and on", NULL);
      g_assert_cmpstr (content, ==, expected);
    }

  /* Not in the file, nor in its write-ahead log, ever. */
  g_assert_false (file_contains (fixture->path, LOCAL_KEY));
  g_assert_false (file_contains (wal, LOCAL_KEY));
  g_assert_false (file_contains (wal, "sesame 4711"));
}

/* A long word without spaces is saved anyway, but never across a key. */
static void
test_secret_in_long_word (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autofree char *run = g_strnfill (400, 'x');
  g_autofree char *head = g_strndup (LOCAL_KEY, 9);
  g_autofree char *first = g_strconcat (run, head, NULL);
  g_autofree char *stored = NULL;
  gint64 session, id;

  sj_redact_add_secret (LOCAL_KEY);
  session = sj_history_store_create_session (store, "Long", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);

  sj_history_store_append_text (store, id, first, NULL);
  g_assert_true (_sj_history_store_save_now (store, &error));
  stored = stored_text (store);
  /* The run is saved (it is longer than what is held back for a word). */
  g_assert_nonnull (strstr (stored, "xxxxxxxxxxxxxxxxxxxx"));
  g_assert_null (strstr (stored, head));
  g_assert_true (_sj_history_store_has_pending (store));
}

/* The size limit: reported, never enforced by deleting or refusing. */
static void
test_size_limit (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *content = NULL;
  guint notified = 0;
  gint64 old_session, session, id;
  guint64 size;

  g_signal_connect_swapped (store, "notify::over-limit", G_CALLBACK (g_atomic_int_inc), &notified);

  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, "line %u of an old session\n", i);
  old_session = sj_history_store_create_session (store, "Old", &error);
  sj_history_store_append_message (store, old_session, SJ_HISTORY_ROLE_USER, big->str, NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);

  size = sj_history_store_get_size (store);
  g_assert_cmpuint (size, >, big->len);
  g_assert_false (sj_history_store_get_over_limit (store));

  /* Under the limit: nothing to say. */
  sj_history_store_set_size_limit (store, size * 2);
  g_assert_false (sj_history_store_get_over_limit (store));
  g_assert_cmpuint (notified, ==, 0);

  /* Over it: reported, and new messages are still saved whole. */
  sj_history_store_set_size_limit (store, size / 2);
  g_assert_true (sj_history_store_get_over_limit (store));
  g_assert_cmpuint (notified, ==, 1);
  session = sj_history_store_create_session (store, "New", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  sj_history_store_append_text (store, id, "still saved", NULL);
  g_assert_true (sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error));
  g_assert_no_error (error);
  content = message_content (store, id);
  g_assert_cmpstr (content, ==, "still saved");
  g_assert_cmpint (query_int (store, "SELECT count(*) FROM sessions"), ==, 2);
  g_assert_true (sj_history_store_get_over_limit (store));

  /* The musician deletes the old session: back under the limit. */
  g_assert_true (sj_history_store_delete_session (store, old_session, &error));
  g_assert_no_error (error);
  g_assert_false (sj_history_store_get_over_limit (store));
  g_assert_cmpuint (notified, ==, 2);

  /* 0: no limit. */
  sj_history_store_set_size_limit (store, 1);
  g_assert_true (sj_history_store_get_over_limit (store));
  sj_history_store_set_size_limit (store, 0);
  g_assert_false (sj_history_store_get_over_limit (store));
}

/* Pieces left by a run that died mid-answer become the answer's text. */
static void
test_interrupted_folded (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = open_store (fixture);
  g_autoptr(SjHistoryStore) again = NULL;
  g_autofree char *content = NULL;
  gint64 session, id;

  session = sj_history_store_create_session (store, "Crash", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  /* Longer than the tail held back for a registered key. */
  sj_history_store_append_text (store, id, "the first part of the answer ", "why this beat works ");
  g_assert_true (_sj_history_store_save_now (store, &error));
  sj_history_store_append_text (store, id, "and the second part of it ", NULL);
  g_assert_true (_sj_history_store_save_now (store, &error));
  g_assert_cmpint (query_int (store, "SELECT count(*) FROM message_parts"), ==, 2);
  /* Closed with no finish, as a killed process leaves it. */
  g_clear_object (&store);

  again = open_store (fixture);
  g_assert_cmpint (query_int (again, "SELECT count(*) FROM message_parts"), ==, 0);
  content = message_content (again, id);
  g_assert_cmpstr (content, ==, "the first part of the answer and the second part of it ");
  g_assert_cmpint (query_int (again, "SELECT reasoning = 'why this beat works ' FROM messages"), ==, 1);
  g_assert_cmpint (query_int (again, "SELECT status = 'interrupted' FROM messages"), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/history-stream/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("saves-append", test_saves_append);
  ADD ("split-secret", test_split_secret);
  ADD ("secret-in-long-word", test_secret_in_long_word);
  ADD ("size-limit", test_size_limit);
  ADD ("interrupted-folded", test_interrupted_folded);

#undef ADD

  return g_test_run ();
}
