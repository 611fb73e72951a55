/* test-save-failure.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A save that fails, as the window shows it (issue 27): said once, with the
 * way out, however many edits retry it; Save a Copy… writes the editor's
 * text where the musician picks; the next save that works takes the message
 * away and the file holds the newest text. The fault (permission denied) is
 * injected through the store's write hook: the test runs as root, which no
 * permission bit stops.
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "sj-code-store-private.h"
#include "sj-console-page-private.h"
#include "sj-log-entry.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

static gboolean
deny_hook (const char  *temp_path,
           gpointer     user_data,
           GError     **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, g_strerror (EACCES));
  return FALSE;
}

typedef struct
{
  guint failed;
  guint saved;
} Counts;

static void
failed_cb (SjCodeStore *store,
           GError      *error,
           Counts      *counts)
{
  counts->failed++;
}

static void
saved_cb (SjCodeStore *store,
          Counts      *counts)
{
  counts->saved++;
}

typedef struct
{
  guint *counter;
  guint  target;
} Reached;

static gboolean
reached (gpointer data)
{
  Reached *r = data;

  return *r->counter >= r->target;
}

static void
edit (SjRepl     *repl,
      const char *code)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  /* As typing: the page reports the change, the store saves it. */
  sj_repl_set_code_async (repl, code, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_set_code_finish (repl, sj_test_wait_result (&result), &error));
  g_assert_no_error (error);
}

static guint
count_console_lines (SjWindow   *window,
                     const char *prefix)
{
  GListModel *model = _sj_console_page_get_model (_sj_window_get_console_page (window));
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(SjLogEntry) entry = g_list_model_get_item (model, i);

      if (g_str_has_prefix (sj_log_entry_get_message (entry), prefix))
        n++;
    }

  return n;
}

static GtkWidget *
find_chooser (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER (window) && gtk_widget_get_visible (window))
        return window;
    }

  return NULL;
}

static gboolean
chooser_shown (gpointer data)
{
  return find_chooser () != NULL;
}

typedef struct
{
  const char *path;
  const char *expected;
} FileCheck;

static gboolean
file_has (gpointer data)
{
  FileCheck *check = data;
  g_autofree char *contents = NULL;

  return g_file_get_contents (check->path, &contents, NULL, NULL) &&
         g_strcmp0 (contents, check->expected) == 0;
}

typedef struct
{
  GtkWidget  *chooser;
  const char *path;
} Chosen;

/* The chooser sets its folder asynchronously. */
static gboolean
chooser_has_file (gpointer data)
{
  Chosen *chosen = data;
  g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chosen->chooser));

  return file != NULL && g_strcmp0 (g_file_peek_path (file), chosen->path) == 0;
}

static void
test_said_once_with_a_way_out (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjCodeStore *store = _sj_window_get_code_store (window);
  g_autofree char *path = g_file_get_path (sj_code_store_get_file (store));
  g_autofree char *copy_dir = g_dir_make_tmp ("sj-copy-XXXXXX", NULL);
  g_autofree char *copy_path = g_build_filename (copy_dir, "my-copy.strudel.js", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (copy_dir);
  const char *expected_text = "Your code could not be saved: Permission denied. Save a Copy…";
  Counts counts = { 0 };
  Reached failures = { &counts.failed, 0 };
  Reached saves = { &counts.saved, 1 };
  FileCheck check;
  Chosen chosen;
  GtkWidget *chooser;

  g_assert_nonnull (store);
  sj_test_spin_until (sj_test_repl_is_ready, repl, "the page to be ready");
  edit (repl, "s(\"before\")");
  check.path = path;
  check.expected = "s(\"before\")";
  sj_test_spin_until (file_has, &check, "the first save");

  _sj_code_store_set_write_hook (store, deny_hook, NULL);
  g_signal_connect (store, "save-failed", G_CALLBACK (failed_cb), &counts);
  g_signal_connect (store, "saved", G_CALLBACK (saved_cb), &counts);

  /* Three edits, three failed saves (each edit retries): one message. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *code = g_strdup_printf ("s(\"edit %u\")", i);

      edit (repl, code);
      failures.target = i + 1;
      sj_test_spin_until (reached, &failures, "the save to fail");
    }
  g_assert_cmpuint (counts.failed, ==, 3);
  g_assert_cmpuint (count_console_lines (window, "Your code could not be saved"), ==, 1);
  g_assert_nonnull (window->save_failure_toast);
  g_assert_cmpstr (adw_toast_get_title (window->save_failure_toast), ==, expected_text);
  g_assert_cmpstr (adw_toast_get_button_label (window->save_failure_toast), ==, "Save a Copy…");
  g_assert_cmpstr (adw_toast_get_action_name (window->save_failure_toast), ==, "win.save-copy");
  g_assert_cmpuint (adw_toast_get_timeout (window->save_failure_toast), ==, 0);

  /* The previous file is intact. */
  check.expected = "s(\"before\")";
  g_assert_true (file_has (&check));

  /* Save a Copy…: a file chooser, and the editor's text where it says. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "save-copy", NULL);
  sj_test_spin_until (chooser_shown, NULL, "the file chooser");
  chooser = find_chooser ();
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "my-copy.strudel.js");
  chosen.chooser = chooser;
  chosen.path = copy_path;
  sj_test_spin_until (chooser_has_file, &chosen, "the chooser to take the name");
  /* GTK 4.8's fallback chooser answers a Save only after checks of its own
   * that never finished under the test's Xvfb; the window's answer to the
   * chosen file is what is tested from here. */
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  {
    g_autoptr(GFile) copy = g_file_new_for_path (copy_path);

    _sj_window_save_copy_to (window, copy);
  }
  check.path = copy_path;
  check.expected = "s(\"edit 2\")";
  sj_test_spin_until (file_has, &check, "the copy on disk");

  /* The disk works again: the next edit is saved and the message goes. */
  _sj_code_store_set_write_hook (store, NULL, NULL);
  edit (repl, "s(\"after\")");
  sj_test_spin_until (reached, &saves, "the save to work again");
  /* The page may still report an older text that a save then writes first
   * (its change messages are not ordered with the test's edits): the file
   * ends with the newest one. */
  check.path = path;
  check.expected = "s(\"after\")";
  sj_test_spin_until (file_has, &check, "the newest text on disk");
  g_assert_null (window->save_failure_toast);
  g_assert_false (window->save_failure_shown);

  g_signal_handlers_disconnect_by_data (store, &counts);
  sj_test_close_window (window);
  sj_test_remove_tree (copy_dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/save-failure/said-once-with-a-way-out", test_said_once_with_a_way_out);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
