/* test-code-store.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjCodeStore against a real directory: the demo on first run, debounced
 * atomic saves, and failures that lose nothing.
 */

#include "config.h"

#include <glib/gstdio.h>

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

  return g_test_run ();
}
