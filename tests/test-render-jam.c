/* test-render-jam.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Render Jam to File (issue 33 item 4) from the window: with the live page
 * playing, a session of the window's history holds three code changes at
 * known cycles (a 440 Hz sine at 1 cycle a second from cycle 0, a 1319 Hz
 * sine that sets 2 cycles a second from cycle 4, silence from cycle 8).
 * The session's row menu → Render Jam to File… opens the render dialog
 * (every control named); the render's WAV has each part sounding in its
 * own seconds (Goertzel power and RMS per window: 0–4 s, 4–6 s at the
 * faster tempo, then silence), the summary gives each change's second, and
 * the live page kept playing. A session with no code says so in a toast
 * and opens no dialog.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sj-render-dialog-private.h"
#include "sj-sessions-page-private.h"
#include "sj-test-app.h"
#include "sj-test-pcm.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define RATE 48000

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
is_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

/* The row menu's item, as a screen reader or the keyboard reaches it. */
static GtkWidget *
find_menu_item (GtkWidget  *popover,
                const char *text)
{
  g_autoptr(GPtrArray) buttons = sj_test_find_all_by_type (popover, g_type_from_name ("GtkModelButton"));

  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *label = sj_test_find_by_type (g_ptr_array_index (buttons, i), GTK_TYPE_LABEL);

      if (label != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) == 0)
        {
          /* Alt+J, or J in the open menu: its keyboard path. */
          g_assert_cmpuint (gdk_keyval_to_lower (gtk_label_get_mnemonic_keyval (GTK_LABEL (label))), ==, GDK_KEY_j);
          return g_ptr_array_index (buttons, i);
        }
    }

  return NULL;
}

static void
dump (GtkWidget *widget,
      int        depth)
{
  g_printerr ("%*s%s\n", depth * 2, "", G_OBJECT_TYPE_NAME (widget));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    dump (child, depth + 1);
}

static void
open_from_row_menu (SjWindow *window,
                    gint64    session)
{
  GtkWidget *row;
  GtkWidget *menu_button;
  GtkWidget *item;
  GtkPopover *popover;

  sj_sessions_page_reload (window->sessions_page);
  row = _sj_sessions_page_find_row (window->sessions_page, session);
  g_assert_nonnull (row);
  menu_button = sj_test_find_by_type (row, GTK_TYPE_MENU_BUTTON);
  g_assert_nonnull (menu_button);
  /* Opened as Enter or a click on the row's menu button opens it. */
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button));
  g_assert_nonnull (popover);
  item = find_menu_item (GTK_WIDGET (popover), "Render Jam to File…");
  if (item == NULL)
    dump (GTK_WIDGET (popover), 0);
  g_assert_nonnull (item);
  /* The item's mnemonic (J) is its keyboard path; Enter activates it. */
  g_assert_true (gtk_widget_activate (item));
}

/* The WAV's samples from @seconds_from to @seconds_to (stereo, 16-bit). */
static const gint16 *
window_of (GBytes *wav,
           double  seconds_from,
           double  seconds_to,
           gsize  *frames)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (wav, &size);
  gsize total = (size - 44) / 4;
  gsize from = MIN ((gsize)(seconds_from * RATE), total);
  gsize to = MIN ((gsize)(seconds_to * RATE), total);

  *frames = to - from;

  return (const gint16 *)(data + 44) + 2 * from;
}

static double
db (double power)
{
  return 10 * log10 (power + 1e-30);
}

static void
test_render_jam (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) wav = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sj-render-jam-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "jam.wav", NULL);
  g_autoptr(GString) unnamed = g_string_new (NULL);
  Progress progress = { repl, 0, 0 };
  SjRenderDialog *dialog;
  JsonObject *summary;
  JsonArray *changes;
  gint64 session;
  gint64 empty;
  double cycle_before;
  guint checked = 0;
  const gint16 *samples;
  gsize frames;

  sj_test_spin_until (sj_test_repl_is_ready, repl, "the live page to be ready");
  outcome = sj_test_evaluate (repl, "setcps(1)\ns(\"bd*2, hh*4\").gain(.4)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the live page to play");

  session = sj_history_store_create_session (window->history, "Sine jam", &error);
  g_assert_no_error (error);
  g_assert_cmpint (sj_history_store_record_snapshot (window->history, session,
                                                     "setcps(1)\nnote(\"a4*4\").s(\"sine\").gain(.5)", 0,
                                                     SJ_HISTORY_SOURCE_USER, 0, &error), >, 0);
  g_assert_cmpint (sj_history_store_record_snapshot (window->history, session,
                                                     "setcps(2)\nnote(\"e6*4\").s(\"sine\").gain(.5)", 4,
                                                     SJ_HISTORY_SOURCE_AGENT, 0, &error), >, 0);
  g_assert_cmpint (sj_history_store_record_snapshot (window->history, session, "silence", 8,
                                                     SJ_HISTORY_SOURCE_AGENT, 0, &error), >, 0);
  g_assert_no_error (error);

  open_from_row_menu (window, session);
  sj_test_spin_until (dialog_shown, NULL, "the Render Jam to File dialog");
  dialog = find_dialog ();
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Render Jam to File");
  sj_test_spin_until (is_mapped, dialog, "the dialog to be mapped");
  sj_test_collect_unnamed (GTK_WIDGET (dialog), "Render Jam to File", unnamed, &checked);
  g_assert_cmpuint (checked, >=, 3);
  g_assert_cmpstr (unnamed->str, ==, "");

  cycle_before = sj_repl_get_state (repl)->cycle;
  /* The default tail: 8 cycles after the last change, at its 2 cps. */
  _sj_render_dialog_render_to (dialog, path);
  g_assert_true (_sj_render_dialog_is_busy (dialog));
  sj_test_spin_until (render_done, dialog, "the jam's render to end");

  summary = _sj_render_dialog_get_summary (dialog);
  if (summary == NULL)
    g_error ("the render failed: %s", _sj_render_dialog_get_status (dialog));
  g_assert_cmpstr (json_object_get_string_member (summary, "status"), ==, "ok");
  /* 4 cycles at 1 cps, 4 at 2, then 8 at 2: 4 + 2 + 4 seconds. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (summary, "seconds"), 10, 0.01);
  changes = json_object_get_array_member (summary, "changes");
  g_assert_nonnull (changes);
  g_assert_cmpuint (json_array_get_length (changes), ==, 3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_array_get_object_element (changes, 0), "seconds"), 0, 1e-6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_array_get_object_element (changes, 1), "seconds"), 4, 1e-6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_array_get_object_element (changes, 2), "seconds"), 6, 1e-6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_array_get_object_element (changes, 1), "cps"), 2, 1e-6);

  file = g_file_new_for_path (path);
  wav = g_file_load_bytes (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (wav), ==, 44 + 10 * RATE * 2 * 2);

  /* Each part in its own seconds (a little room for the notes' release). */
  samples = window_of (wav, 0.1, 3.9, &frames);
  g_test_message ("0-4 s: 440 Hz %.1f dB, 1319 Hz %.1f dB", db (sj_test_pcm_power_at (samples, frames, 440, RATE)),
                  db (sj_test_pcm_power_at (samples, frames, 1318.51, RATE)));
  g_assert_cmpfloat (db (sj_test_pcm_power_at (samples, frames, 440, RATE)), >,
                     db (sj_test_pcm_power_at (samples, frames, 1318.51, RATE)) + 20);
  g_assert_cmpfloat (sj_test_pcm_rms_db (samples, frames * 2), >, -40);

  samples = window_of (wav, 4.1, 5.9, &frames);
  g_test_message ("4-6 s: 440 Hz %.1f dB, 1319 Hz %.1f dB", db (sj_test_pcm_power_at (samples, frames, 440, RATE)),
                  db (sj_test_pcm_power_at (samples, frames, 1318.51, RATE)));
  g_assert_cmpfloat (db (sj_test_pcm_power_at (samples, frames, 1318.51, RATE)), >,
                     db (sj_test_pcm_power_at (samples, frames, 440, RATE)) + 20);
  g_assert_cmpfloat (sj_test_pcm_rms_db (samples, frames * 2), >, -40);

  samples = window_of (wav, 6.5, 10, &frames);
  g_test_message ("6.5-10 s: RMS %.1f dBFS", sj_test_pcm_rms_db (samples, frames * 2));
  g_assert_cmpfloat (sj_test_pcm_rms_db (samples, frames * 2), <, -70);

  /* The live page never stopped. */
  g_assert_true (sj_repl_get_state (repl)->playing);
  progress.cycle = cycle_before + 2;
  sj_test_spin_until (sj_test_progressed, &progress, "the live page to keep playing after the render");
  g_assert_true (sj_repl_get_state (repl)->playing);
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* A session with no code: a toast, no dialog. */
  empty = sj_history_store_create_session (window->history, "Empty", &error);
  g_assert_no_error (error);
  _sj_window_render_session (window, empty);
  g_assert_null (find_dialog ());

  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Accessible properties are only kept with the test backend. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/render-jam/from-sessions-page", test_render_jam);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
