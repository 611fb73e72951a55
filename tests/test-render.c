/* test-render.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Render to File from the window (issue 33): with the live page playing,
 * Main Menu → Render to File… (the win.render action) opens the dialog
 * with the editor's code, and a render (to a path given as the file
 * chooser would give it) writes a whole WAV of the asked length while the
 * live page's playing state and cycle keep advancing; Cancel leaves no file.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sj-render-dialog-private.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

static SjRenderDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (SJ_IS_RENDER_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return SJ_RENDER_DIALOG (window);
    }

  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog () != NULL;
}

static gboolean
render_done (gpointer data)
{
  return !_sj_render_dialog_is_busy (data);
}

static gboolean
progress_shown (gpointer data)
{
  SjRenderDialog *dialog = data;

  return !_sj_render_dialog_is_busy (dialog) ||
         g_strcmp0 (_sj_render_dialog_get_status (dialog), "") != 0;
}

static void
test_render_while_playing (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sj-render-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "jam.wav", NULL);
  g_autofree char *cancelled = g_build_filename (dir, "cancelled.wav", NULL);
  Progress progress = { repl, 0, 0 };
  SjRenderDialog *dialog;
  JsonObject *summary;
  double cycle_before;
  GStatBuf st;

  sj_test_spin_until (sj_test_repl_is_ready, repl, "the live page to be ready");
  outcome = sj_test_evaluate (repl, "setcps(1)\n$: s(\"bd*4, hh*8\").gain(.5)\n$: note(\"c3 e3\").s(\"sawtooth\").gain(.2)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the live page to play");

  g_action_group_activate_action (G_ACTION_GROUP (window), "render", NULL);
  sj_test_spin_until (dialog_shown, NULL, "the Render to File dialog");
  dialog = find_dialog ();

  cycle_before = sj_repl_get_state (repl)->cycle;
  /* The dialog's default: 8 cycles at the live tempo (1 cps): 8 s. */
  _sj_render_dialog_render_to (dialog, path);
  g_assert_true (_sj_render_dialog_is_busy (dialog));
  sj_test_spin_until (render_done, dialog, "the render to end");

  summary = _sj_render_dialog_get_summary (dialog);
  g_assert_nonnull (summary);
  g_assert_cmpstr (json_object_get_string_member (summary, "status"), ==, "ok");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (summary, "seconds"), 8, 0.01);
  g_assert_cmpfloat (json_object_get_double_member (summary, "peakDbfs"), >, -30);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 44 + 8 * 48000 * 2 * 2);

  /* The live page never stopped: still playing, and further on. */
  g_assert_true (sj_repl_get_state (repl)->playing);
  progress.cycle = cycle_before + 2;
  sj_test_spin_until (sj_test_progressed, &progress, "the live page to keep playing after the render");
  g_assert_true (sj_repl_get_state (repl)->playing);

  /* Cancel: nothing under the chosen name, no temporary file beside it. */
  _sj_render_dialog_render_to (dialog, cancelled);
  sj_test_spin_until (progress_shown, dialog, "the render to start");
  g_assert_true (_sj_render_dialog_is_busy (dialog));
  sj_test_click (GTK_WIDGET (_sj_render_dialog_get_cancel_button (dialog)));
  sj_test_spin_until (render_done, dialog, "the cancelled render to end");
  g_assert_false (g_file_test (cancelled, G_FILE_TEST_EXISTS));
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;
    guint n = 0;

    while ((name = g_dir_read_name (d)) != NULL)
      n++;
    g_assert_cmpuint (n, ==, 1);
  }

  g_unlink (path);
  g_rmdir (dir);
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

  g_test_add_func ("/render/while-playing", test_render_while_playing);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
