/* test-open.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Opening a file with a second launch: this test is the primary instance
 * of the unique application on its private session bus, and runs the real
 * `strudel-jam FILE` beside it, which hands the file over (GApplication's
 * open) and exits 0. The code appears in the editor without being played;
 * when the editor holds other code that is saved nowhere else, a dialog
 * asks first, and Escape (Cancel) keeps the code while Alt+R replaces it,
 * typed as real keys; binary, huge, missing files and folders are a clear
 * message and change nothing. With no window, the file opens one.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

static SjTestKeyWindow keys;
static char *files_dir;

static char *
write_file (const char *name,
            const char *contents,
            gssize      length)
{
  char *path = g_build_filename (files_dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, length, NULL));
  return path;
}

/* Runs `strudel-jam @paths…` as a second instance and waits for it to exit,
 * which it does once it has handed the files to this process. */
static void
launch_expecting (const char * const *paths,
                  int                 status)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;

  g_strv_builder_add (builder, SJ_STRUDEL_JAM);
  g_strv_builder_addv (builder, (const char **)paths);
  argv = g_strv_builder_end (builder);

  process = g_subprocess_newv ((const char * const *)argv, G_SUBPROCESS_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_subprocess_wait_async (process, NULL, sj_test_store_result_cb, &result);
  g_assert_true (g_subprocess_wait_finish (process, sj_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, status);
}

static void
launch (const char * const *paths)
{
  launch_expecting (paths, 0);
}

static gboolean
editor_has (gpointer data)
{
  return g_strcmp0 (_sj_repl_get_code (_sj_window_get_repl (sj_test_current_window ())), data) == 0;
}

static void
set_code (SjRepl     *repl,
          const char *code)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  sj_repl_set_code_async (repl, code, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_set_code_finish (repl, sj_test_wait_result (&result), &error));
  g_assert_no_error (error);
  sj_test_spin_until (editor_has, (gpointer)code, "the page to report the code");
}

static AdwMessageDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_mapped (window))
        return ADW_MESSAGE_DIALOG (window);
    }

  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog () != NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return find_dialog () == NULL;
}

static void
assert_playing_unchanged (SjRepl *repl)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) haps = NULL;
  double cycle = sj_repl_get_state (repl)->cycle;

  g_assert_true (sj_repl_get_state (repl)->playing);

  /* The scheduler still plays the old pattern: no square wave. */
  _sj_repl_query_haps_async (repl, cycle, cycle + 2, 200, NULL, sj_test_store_result_cb, &result);
  haps = _sj_repl_query_haps_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (haps), >, 0);
  for (guint i = 0; i < json_array_get_length (haps); i++)
    g_assert_null (strstr (json_object_get_string_member (json_array_get_object_element (haps, i), "show"),
                           "square"));
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

  return g_file_get_contents (check->path, &contents, NULL, NULL) && g_strcmp0 (contents, check->expected) == 0;
}

/* The first start's demo is replaced without asking, and keeps playing. */
static void
test_second_launch (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  SjRepl *repl = _sj_window_get_repl (window);
  const char *code = "setcpm(30)\n$: note(\"c3 g3\").s(\"square\").gain(.2)\n";
  g_autofree char *path = write_file ("pattern.strudel.js", code, -1);
  g_autofree char *saved = g_file_get_path (sj_code_store_get_file (_sj_window_get_code_store (window)));
  g_autoptr(JsonObject) outcome = NULL;
  FileCheck check = { saved, code };
  Progress progress = { repl, 1, 0 };

  g_assert_true (editor_has ((gpointer)sj_code_store_get_demo_code ()));
  outcome = sj_test_evaluate (repl, NULL);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (sj_test_progressed, &progress, "the demo to play");

  launch ((const char *[]) { path, NULL });
  sj_test_spin_until (editor_has, (gpointer)code, "the file's code in the editor");
  g_assert_null (find_dialog ());
  assert_playing_unchanged (repl);

  /* Like any edit, the new code is what the next start restores. */
  sj_test_spin_until (file_has, &check, "the opened code to be saved");

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

/* Code of the user's own is only replaced when they say so. */
static void
test_asks_before_replacing (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  SjRepl *repl = _sj_window_get_repl (window);
  const char *mine = "// my jam, saved nowhere else\n$: s(\"bd*2\")\n";
  const char *theirs = "// from a file\n$: note(\"e3 b3\").s(\"sawtooth\")\n";
  const char *first = "setcpm(30)\n$: note(\"c3 g3\").s(\"square\").gain(.2)\n";
  g_autofree char *path = write_file ("theirs.strudel.js", theirs, -1);
  g_autofree char *first_path = write_file ("first.strudel.js", first, -1);
  g_autofree char *code = NULL;
  SjTestKeyWindow dialog_keys = { 0 };
  AdwMessageDialog *dialog;

  set_code (repl, mine);

  /* Escape is Cancel: the code stays. */
  launch ((const char *[]) { path, NULL });
  sj_test_spin_until (dialog_shown, NULL, "the replace dialog");
  dialog = find_dialog ();
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Replace the Current Code?");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "“theirs.strudel.js”"));
  g_assert_cmpstr (adw_message_dialog_get_response_label (dialog, "cancel"), ==, "_Cancel");
  g_assert_cmpstr (adw_message_dialog_get_response_label (dialog, "replace"), ==, "_Replace");
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "cancel");
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));

  sj_test_key_window_attach (&dialog_keys, GTK_WINDOW (dialog), WAIT_TIMEOUT_S);
  sj_test_key_window_wait_frames (&dialog_keys, 20);
  {
    g_autoptr(GdkTexture) texture = sj_test_render_widget (GTK_WIDGET (dialog));
    g_autofree char *shot = sj_test_save_png (texture, "open-replace-dialog.png");
  }
  /* The dialog goes with the key: no barrier key after it. */
  sj_test_run_xdotool ((const char *[]) { "key", "Escape", NULL });
  sj_test_spin_until (dialog_gone, NULL, "Escape to close the dialog");
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, mine);

  /* Alt+R is Replace. */
  launch ((const char *[]) { path, NULL });
  sj_test_spin_until (dialog_shown, NULL, "the replace dialog again");
  sj_test_key_window_attach (&dialog_keys, GTK_WINDOW (find_dialog ()), WAIT_TIMEOUT_S);
  sj_test_run_xdotool ((const char *[]) { "key", "alt+r", NULL });
  sj_test_spin_until (editor_has, (gpointer)theirs, "Alt+R to replace the code");
  g_assert_null (find_dialog ());

  /* The code of the file opened last is saved in that file: no question. */
  launch ((const char *[]) { first_path, NULL });
  sj_test_spin_until (editor_has, (gpointer)first, "the next file's code");
  g_assert_null (find_dialog ());

  /* Nor for an empty editor. */
  set_code (repl, "  \n");
  launch ((const char *[]) { path, NULL });
  sj_test_spin_until (editor_has, (gpointer)theirs, "the code opened into an empty editor");
  g_assert_null (find_dialog ());

  sj_test_key_window_attach (&keys, GTK_WINDOW (window), WAIT_TIMEOUT_S);
}

static gboolean
console_has (gpointer data)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));

  return strstr (text, data) != NULL;
}

/* What is not code says so and changes nothing. */
static void
test_bad_files (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  SjRepl *repl = _sj_window_get_repl (window);
  const char *mine = "// mine\n$: s(\"hh*4\")\n";
  g_autofree char *huge_text = g_strnfill (2 * 1024 * 1024, '/');
  g_autofree char *binary = write_file ("sample.wav", "RIFF\0\0\0\0WAVEfmt ", 16);
  g_autofree char *huge = write_file ("huge.strudel.js", huge_text, -1);
  g_autofree char *missing = g_build_filename (files_dir, "missing.strudel.js", NULL);
  g_autofree char *two = write_file ("two.strudel.js", "// two\n", -1);
  const struct {
    const char *path;
    const char *message;
  } cases[] = {
    { binary, "“sample.wav” could not be opened: It is not text (UTF-8)" },
    { huge, "“huge.strudel.js” could not be opened: It is larger than 1 MiB" },
  };
  /* A path that is not there, or a folder, is the command line's error
   * (stderr, exit 1, see check-cli.sh): nothing reaches the window. */
  const char *not_files[] = { missing, files_dir };

  set_code (repl, mine);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *code = NULL;

      launch ((const char *[]) { cases[i].path, NULL });
      sj_test_spin_until (console_has, (gpointer)cases[i].message, cases[i].message);
      g_assert_null (find_dialog ());
      code = sj_test_fetch_code (repl);
      g_assert_cmpstr (code, ==, mine);
    }

  for (guint i = 0; i < G_N_ELEMENTS (not_files); i++)
    {
      g_autofree char *code = NULL;

      launch_expecting ((const char *[]) { not_files[i], NULL }, 1);
      g_assert_null (find_dialog ());
      code = sj_test_fetch_code (repl);
      g_assert_cmpstr (code, ==, mine);
    }

  /* Of several files, the first opens (after asking). */
  launch ((const char *[]) { two, huge, NULL });
  sj_test_spin_until (dialog_shown, NULL, "the replace dialog for the first of two files");
  adw_message_dialog_response (find_dialog (), "replace");
  sj_test_spin_until (editor_has, (gpointer)"// two\n", "the first of two files");
}

/* With no window yet, the file waits for the page of the window it opens. */
static void
test_opens_a_window (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  const char *code = "// opened with the app\n$: note(\"a3\").s(\"triangle\")\n";
  g_autofree char *path = write_file ("start.strudel.js", code, -1);

  /* The demo is what the next start restores. */
  set_code (_sj_window_get_repl (window), sj_code_store_get_demo_code ());
  sj_test_close_window (window);

  launch ((const char *[]) { path, NULL });
  sj_test_spin_until (sj_test_repl_is_ready, NULL, "a window to open with the file");
  window = sj_test_current_window ();
  sj_test_spin_until (editor_has, (gpointer)code, "the file's code in the new window");
  g_assert_null (find_dialog ());
  sj_test_key_window_attach (&keys, GTK_WINDOW (window), WAIT_TIMEOUT_S);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  files_dir = g_build_filename (home, "files", NULL);
  g_assert_cmpint (g_mkdir_with_parents (files_dir, 0700), ==, 0);
  g_test_init (&argc, &argv, NULL);

  /* The primary instance of the unique application, on the test's own
   * session bus, as a running Strudel Jam is. */
  gtk_init ();
  sj_test_app = sj_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (sj_test_app), NULL, NULL));
  g_assert_false (g_application_get_is_remote (G_APPLICATION (sj_test_app)));
  g_application_hold (G_APPLICATION (sj_test_app));

  g_test_add_func ("/open/second-launch", test_second_launch);
  g_test_add_func ("/open/asks-before-replacing", test_asks_before_replacing);
  g_test_add_func ("/open/bad-files", test_bad_files);
  g_test_add_func ("/open/opens-a-window", test_opens_a_window);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);
  g_free (files_dir);

  return ret;
}
