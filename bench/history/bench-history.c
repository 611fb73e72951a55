/* bench-history.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The history store's saves while a long answer streams: a 1 MB answer in
 * token-sized deltas, saved every --save-bytes, through SjHistoryStore (each
 * save adds the new text as a row) and through the peer, the store's former
 * save kept here only (read the message back, append, redact the whole
 * text, rewrite it). Prints the time per save (first, median, last, max),
 * the total, the answer's finish and the bytes written to the files
 * (write(2) calls, from /proc/self/io).
 *
 *   bench-history [--answer-bytes N] [--save-bytes N] [--delta-bytes N]
 */

#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"

static gint64 answer_bytes = 1024 * 1024;
static gint64 save_bytes = 2048;
static gint64 delta_bytes = 24;

static guint64
written_bytes (void)
{
  g_autofree char *io = NULL;
  const char *wchar;

  if (!g_file_get_contents ("/proc/self/io", &io, NULL, NULL) ||
      (wchar = strstr (io, "wchar: ")) == NULL)
    return 0;
  return g_ascii_strtoull (wchar + 7, NULL, 10);
}

/* Text that looks like an answer: prose and code, words and newlines. */
static char *
make_answer (void)
{
  static const char * const lines[] = {
    "Here is a groove that keeps the kick on the one and lets the hats breathe.\n",
    "s(\"bd*2 [~ bd] sd ~\").bank(\"RolandTR909\").gain(0.9)\n",
    "note(\"c3 eb3 g3 bb3\").s(\"sawtooth\").lpf(sine.range(400, 2000).slow(8))\n",
    "Try raising the cutoff slowly while the pattern plays; it opens up the bass.\n",
  };
  GString *text = g_string_new (NULL);

  for (guint i = 0; (gint64) text->len < answer_bytes; i++)
    g_string_append (text, lines[i % G_N_ELEMENTS (lines)]);
  g_string_truncate (text, answer_bytes);
  return g_string_free (text, FALSE);
}

typedef struct
{
  GArray *save_us;
  double  finish_ms;
  guint64 written;
} Result;

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

static void
print_result (const char *name,
              Result     *result)
{
  g_autoptr(GArray) sorted = g_array_copy (result->save_us);
  guint n = result->save_us->len;
  double total = 0;

  for (guint i = 0; i < n; i++)
    total += g_array_index (result->save_us, double, i);
  g_array_sort (sorted, compare_double);

  printf ("%-8s saves %4u  first %8.3f ms  median %8.3f ms  last %8.3f ms  max %8.3f ms  "
          "total %9.1f ms  finish %7.1f ms  written %8.1f MiB\n",
          name, n,
          g_array_index (result->save_us, double, 0) / 1000.0,
          g_array_index (sorted, double, n / 2) / 1000.0,
          g_array_index (result->save_us, double, n - 1) / 1000.0,
          g_array_index (sorted, double, n - 1) / 1000.0,
          total / 1000.0, result->finish_ms, result->written / 1048576.0);
}

/* SjHistoryStore as the app uses it: deltas in, a timed save now and then. */
static void
run_store (const char *path,
           const char *answer,
           Result     *result)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = sj_history_store_new (path, &error);
  gint64 session, id, since_save = 0, start;
  guint64 written = written_bytes ();
  gsize len = strlen (answer);

  g_assert_no_error (error);
  session = sj_history_store_create_session (store, "Bench", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);

  for (gsize at = 0; at < len; at += delta_bytes)
    {
      g_autofree char *delta = g_strndup (answer + at, MIN ((gsize) delta_bytes, len - at));

      sj_history_store_append_text (store, id, delta, NULL);
      since_save += delta_bytes;
      if (since_save >= save_bytes)
        {
          double us;

          start = g_get_monotonic_time ();
          if (!_sj_history_store_save_now (store, &error))
            g_error ("%s", error->message);
          us = g_get_monotonic_time () - start;
          g_array_append_val (result->save_us, us);
          since_save = 0;
        }
    }

  start = g_get_monotonic_time ();
  if (!sj_history_store_finish_message (store, id, SJ_HISTORY_MESSAGE_COMPLETE, &error))
    g_error ("%s", error->message);
  result->finish_ms = (g_get_monotonic_time () - start) / 1000.0;
  result->written = written_bytes () - written;
}

/* The peer: the store's save before #27, on the same file format. */
static void
peer_save (sqlite3    *db,
           gint64      id,
           const char *text)
{
  sqlite3_stmt *select = NULL;
  sqlite3_stmt *update = NULL;
  g_autoptr(GString) content = NULL;
  g_autofree char *valid = NULL;
  g_autofree char *clean = NULL;

  sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  sqlite3_prepare_v2 (db, "SELECT content FROM messages WHERE id = ?", -1, &select, NULL);
  sqlite3_bind_int64 (select, 1, id);
  g_assert_cmpint (sqlite3_step (select), ==, SQLITE_ROW);
  content = g_string_new ((const char *)sqlite3_column_text (select, 0));
  sqlite3_finalize (select);

  g_string_append (content, text);
  valid = g_utf8_make_valid (content->str, -1);
  clean = sj_redact (valid);

  sqlite3_prepare_v2 (db, "UPDATE messages SET content = ? WHERE id = ?", -1, &update, NULL);
  sqlite3_bind_text (update, 1, clean, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (update, 2, id);
  g_assert_cmpint (sqlite3_step (update), ==, SQLITE_DONE);
  sqlite3_finalize (update);
  g_assert_cmpint (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
}

static void
run_peer (const char *path,
          const char *answer,
          Result     *result)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) buffer = g_string_new (NULL);
  SjHistoryStore *store = sj_history_store_new (path, &error);
  sqlite3 *db;
  gint64 session, id, start;
  guint64 written;
  gsize len = strlen (answer);

  g_assert_no_error (error);
  session = sj_history_store_create_session (store, "Bench", &error);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, NULL,
                                        SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);
  db = _sj_history_store_get_db (store);
  written = written_bytes ();

  for (gsize at = 0; at < len; at += delta_bytes)
    {
      g_string_append_len (buffer, answer + at, MIN ((gsize) delta_bytes, len - at));
      if ((gint64) buffer->len >= save_bytes)
        {
          double us;

          start = g_get_monotonic_time ();
          peer_save (db, id, buffer->str);
          us = g_get_monotonic_time () - start;
          g_array_append_val (result->save_us, us);
          g_string_truncate (buffer, 0);
        }
    }

  start = g_get_monotonic_time ();
  if (buffer->len > 0)
    peer_save (db, id, buffer->str);
  result->finish_ms = (g_get_monotonic_time () - start) / 1000.0;
  result->written = written_bytes () - written;
  g_object_unref (store);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *store_path = NULL;
  g_autofree char *peer_path = NULL;
  Result store = { g_array_new (FALSE, FALSE, sizeof (double)), 0, 0 };
  Result peer = { g_array_new (FALSE, FALSE, sizeof (double)), 0, 0 };
  GOptionEntry entries[] = {
    { "answer-bytes", 0, 0, G_OPTION_ARG_INT64, &answer_bytes, "Length of the answer", "N" },
    { "save-bytes", 0, 0, G_OPTION_ARG_INT64, &save_bytes, "Text between two saves", "N" },
    { "delta-bytes", 0, 0, G_OPTION_ARG_INT64, &delta_bytes, "Length of a streamed delta", "N" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  /* The app registers the key in use: the saves hold back a tail for it. */
  sj_redact_add_secret ("sk-or-v1-bench0123456789abcdef0123456789abcdef0123456789abcdef0123");

  dir = g_dir_make_tmp ("sj-bench-history-XXXXXX", &error);
  g_assert_no_error (error);
  store_path = g_build_filename (dir, "store.sqlite3", NULL);
  peer_path = g_build_filename (dir, "peer.sqlite3", NULL);
  answer = make_answer ();

  printf ("answer %" G_GINT64_FORMAT " bytes in %" G_GINT64_FORMAT "-byte deltas, a save every %"
          G_GINT64_FORMAT " bytes; files in %s\n", answer_bytes, delta_bytes, save_bytes, dir);
  run_store (store_path, answer, &store);
  print_result ("store", &store);
  run_peer (peer_path, answer, &peer);
  print_result ("peer", &peer);

  {
    const char *names[] = { "store.sqlite3", "store.sqlite3-wal", "store.sqlite3-shm", "store.sqlite3.lock",
                            "peer.sqlite3", "peer.sqlite3-wal", "peer.sqlite3-shm", "peer.sqlite3.lock" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *path = g_build_filename (dir, names[i], NULL);

        g_unlink (path);
      }
    g_rmdir (dir);
  }

  g_array_unref (store.save_us);
  g_array_unref (peer.save_us);
  return 0;
}
