/* test-code-store.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjCodeStore against a real directory: the demo on first run, debounced
 * atomic saves, and failures that lose nothing. And SjCodeFile, reading a
 * file the user opens: code as the editor keeps it, or an error that says
 * why not for anything else.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sj-code-file.h"
#include "sj-code-store-private.h"
#include "sj-test-files.h"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-code-store-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->path = g_build_filename (fixture->dir, "sub", "current.strudel.js", NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->path);
}

static void
count_cb (gpointer  instance,
          gpointer  user_data)
{
  (*(guint *)user_data)++;
}

static void
record_error_cb (SjCodeStore *store,
                 GError      *error,
                 gpointer     user_data)
{
  GError **out = user_data;

  g_clear_error (out);
  *out = g_error_copy (error);
}

/* Spins the main loop until *counter reaches at least @target. */
static void
wait_for (guint *counter,
          guint  target)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (*counter < target)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

static SjCodeStore *
store_for (Fixture *fixture)
{
  g_autoptr(GFile) file = g_file_new_for_path (fixture->path);

  return sj_code_store_new (file);
}

static void
test_first_run_is_demo (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  gboolean first_run = FALSE;

  code = sj_code_store_load (store, &first_run, &error);
  g_assert_no_error (error);
  g_assert_true (first_run);
  g_assert_cmpstr (code, ==, sj_code_store_get_demo_code ());

  /* The demo must play offline: synths, and drums by the standard names
   * the built-in kit plays when they cannot be downloaded; no bank, no
   * soundfont, no sample pack of its own. */
  g_assert_nonnull (strstr (code, "s(\"sawtooth\")"));
  g_assert_nonnull (strstr (code, "s(\"bd*4, [~ cp]*2, [~ hh]*4, ~ ~ ~ oh\")"));
  g_assert_null (strstr (code, "bank("));
  g_assert_null (strstr (code, "gm_"));
  g_assert_null (strstr (code, "samples("));

  /* Loading alone never writes. */
  g_assert_false (g_file_test (fixture->path, G_FILE_TEST_EXISTS));
}

static void
test_debounced_save (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(SjCodeStore) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *code = NULL;
  gboolean first_run = TRUE;
  guint saved = 0;

  _sj_code_store_set_delay (store, 50);
  g_signal_connect (store, "saved", G_CALLBACK (count_cb), &saved);

  /* A burst of edits is one write, of the newest text. */
  sj_code_store_queue_save (store, "s(\"bd\")");
  sj_code_store_queue_save (store, "s(\"bd sd\")");
  sj_code_store_queue_save (store, "s(\"bd sd hh\")");
  g_assert_true (sj_code_store_get_pending (store));
  g_assert_false (g_file_test (fixture->path, G_FILE_TEST_EXISTS));

  wait_for (&saved, 1);
  g_assert_cmpuint (saved, ==, 1);
  g_assert_false (sj_code_store_get_pending (store));
  g_assert_true (g_file_get_contents (fixture->path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "s(\"bd sd hh\")");

  /* The same text again does not write again. */
  sj_code_store_queue_save (store, "s(\"bd sd hh\")");
  g_assert_false (sj_code_store_get_pending (store));

  /* What was saved is what the next start loads. */
  reloaded = store_for (fixture);
  code = sj_code_store_load (reloaded, &first_run, &error);
  g_assert_no_error (error);
  g_assert_false (first_run);
  g_assert_cmpstr (code, ==, "s(\"bd sd hh\")");
}

static void
test_flush_writes_pending (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;

  /* Closing the window flushes right away, without waiting for the delay. */
  sj_code_store_queue_save (store, "note(\"c e g\")");
  g_assert_true (sj_code_store_flush (store, &error));
  g_assert_no_error (error);
  g_assert_false (sj_code_store_get_pending (store));
  g_assert_true (g_file_get_contents (fixture->path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "note(\"c e g\")");
}

static void
test_failed_save_keeps_text (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) reported = NULL;
  g_autofree char *blocker = g_build_filename (fixture->dir, "sub", NULL);
  g_autofree char *contents = NULL;
  guint saved = 0;

  /* A file where the directory should be makes every write fail, even as
   * root (permissions would not). */
  g_assert_true (g_file_set_contents (blocker, "not a directory", -1, NULL));

  _sj_code_store_set_delay (store, 10);
  g_signal_connect (store, "save-failed", G_CALLBACK (record_error_cb), &reported);
  g_signal_connect (store, "saved", G_CALLBACK (count_cb), &saved);

  sj_code_store_queue_save (store, "s(\"precious\")");
  while (reported == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (reported, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
  g_assert_cmpuint (saved, ==, 0);

  g_assert_false (sj_code_store_flush (store, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* Once the disk is usable again, the text that failed is still there to
   * be written: nothing was lost. */
  g_assert_cmpint (g_unlink (blocker), ==, 0);
  g_assert_true (sj_code_store_get_pending (store));
  g_assert_true (sj_code_store_flush (store, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (fixture->path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "s(\"precious\")");
}

static void
test_unreadable_file_is_an_error (Fixture       *fixture,
                                  gconstpointer  data)
{
  g_autoptr(SjCodeStore) store = store_for (fixture);
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_path_get_dirname (fixture->path);
  g_autofree char *code = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fixture->path, "s(\"\xff\xfe\")", -1, NULL));

  /* Not valid UTF-8: refuse rather than hand back the demo, so that the
   * caller knows not to overwrite the file. */
  code = sj_code_store_load (store, NULL, &error);
  g_assert_null (code);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

/* Code files ---------------------------------------------------------------- */

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **)user_data = g_object_ref (result);
}

static char *
read_code_file (const char  *path,
                GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  sj_code_file_read_async (file, NULL, store_result_cb, &result);
  while (result == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }

  return sj_code_file_read_finish (result, error);
}

static char *
write_file (Fixture    *fixture,
            const char *name,
            const char *contents,
            gssize      length)
{
  char *path = g_build_filename (fixture->dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, length, NULL));
  return path;
}

static void
test_code_file_reads_code (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autofree char *plain = write_file (fixture, "plain.strudel.js", "note(\"c3 e3\").s(\"sawtooth\")\n", -1);
  g_autofree char *windows = write_file (fixture, "crlf.js", "\xEF\xBB\xBF// a\r\n$: s(\"bd\")\r\r\n", -1);
  g_autofree char *empty = write_file (fixture, "empty.js", "", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;

  code = read_code_file (plain, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (code, ==, "note(\"c3 e3\").s(\"sawtooth\")\n");

  /* As the editor keeps it: no byte-order mark, "\n" line ends. */
  g_clear_pointer (&code, g_free);
  code = read_code_file (windows, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (code, ==, "// a\n$: s(\"bd\")\n\n");

  g_clear_pointer (&code, g_free);
  code = read_code_file (empty, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (code, ==, "");
}

static void
test_code_file_refuses (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *binary = write_file (fixture, "binary.strudel.js", "s(\"bd\")\0\x01\x02", 11);
  g_autofree char *latin1 = write_file (fixture, "latin1.js", "// caf\xe9\n", -1);
  g_autofree char *huge_text = g_strnfill (SJ_CODE_FILE_MAX_BYTES + 1, 'x');
  g_autofree char *huge = write_file (fixture, "huge.js", huge_text, -1);
  g_autofree char *limit = write_file (fixture, "limit.js", huge_text, SJ_CODE_FILE_MAX_BYTES);
  g_autofree char *missing = g_build_filename (fixture->dir, "missing.js", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  g_autoptr(GFile) named = g_file_new_for_path ("/tmp/caf\xc3\xa9 pattern.strudel.js");
  g_autofree char *name = sj_code_file_dup_name (named);

  g_assert_null (read_code_file (binary, &error));
  g_assert_error (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_NOT_TEXT);
  g_clear_error (&error);

  g_assert_null (read_code_file (latin1, &error));
  g_assert_error (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_NOT_TEXT);
  g_clear_error (&error);

  g_assert_null (read_code_file (huge, &error));
  g_assert_error (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_TOO_LARGE);
  g_clear_error (&error);

  /* Exactly the limit still opens. */
  code = read_code_file (limit, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (code), ==, SJ_CODE_FILE_MAX_BYTES);

  g_assert_null (read_code_file (missing, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_null (read_code_file (fixture->dir, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_clear_error (&error);

  /* A device could be endless: refused without reading. */
  g_assert_null (read_code_file ("/dev/zero", &error));
  g_assert_error (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_NOT_TEXT);
  g_clear_error (&error);

  g_assert_cmpstr (name, ==, "caf\xc3\xa9 pattern.strudel.js");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/code-store/first-run-is-demo", Fixture, NULL, fixture_setup, test_first_run_is_demo, fixture_teardown);
  g_test_add ("/code-store/debounced-save", Fixture, NULL, fixture_setup, test_debounced_save, fixture_teardown);
  g_test_add ("/code-store/flush", Fixture, NULL, fixture_setup, test_flush_writes_pending, fixture_teardown);
  g_test_add ("/code-store/failed-save-keeps-text", Fixture, NULL, fixture_setup, test_failed_save_keeps_text, fixture_teardown);
  g_test_add ("/code-store/unreadable-file", Fixture, NULL, fixture_setup, test_unreadable_file_is_an_error, fixture_teardown);
  g_test_add ("/code-file/reads-code", Fixture, NULL, fixture_setup, test_code_file_reads_code, fixture_teardown);
  g_test_add ("/code-file/refuses", Fixture, NULL, fixture_setup, test_code_file_refuses, fixture_teardown);

  return g_test_run ();
}
