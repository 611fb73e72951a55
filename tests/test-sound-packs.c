/* test-sound-packs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Download for offline" in the real window under Xvfb, with private XDG
 * directories, a loopback sample host (STRUDEL_JAM_SOUNDS_URL) that holds
 * each file a moment, real key events (xdotool) and GTK_A11Y=test: the
 * Sounds page's Packs view lists each pack with what of it is downloaded;
 * Return on a pack's Download button starts it, its progress bar and the
 * header bar's indicator move ("Downloading sounds, N %"), the keyboard
 * lands on Cancel and Return there stops it, leaving whole files; Remove
 * empties the pack; "Remove All Downloaded Sounds…" asks first; "Show
 * Packs" opens the view. Every control checked has an accessible name.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-sound-pack-row.h"
#include "sj-sounds-page-private.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"
#include "sj-test-samples.h"

#define MACHINE        "tidal-drum-machines/RolandTR909"   /* 74 files */
#define SMALL_MACHINE  "tidal-drum-machines/CasioVL1"      /* 3 files */

static SoupServer *server;
static guint delay_ms;
static SjTestKeyWindow keys;

/* The sample host ----------------------------------------------------------- */

static void
message_gone_cb (SoupServerMessage *msg)
{
  g_object_set_data (G_OBJECT (msg), "sj-gone", GINT_TO_POINTER (TRUE));
}

static void
answer_later_cb (gpointer data)
{
  if (g_object_get_data (data, "sj-gone") == NULL)
    soup_server_message_unpause (data);
  g_object_unref (data);
}

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (1000);

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "audio/wav", NULL);
  soup_message_body_append_bytes (soup_server_message_get_response_body (msg), wav);
  if (delay_ms > 0)
    {
      g_signal_connect (msg, "disconnected", G_CALLBACK (message_gone_cb), NULL);
      g_signal_connect (msg, "finished", G_CALLBACK (message_gone_cb), NULL);
      soup_server_message_pause (msg);
      g_timeout_add_once (delay_ms, answer_later_cb, g_object_ref (msg));
    }
}

static char *
server_start (void)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server, NULL, (SoupServerCallback)server_cb, NULL, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  return g_uri_to_string (uris->data);
}

/* Finding things ------------------------------------------------------------ */

static SjSoundsPage *
sounds_page (void)
{
  return _sj_window_get_sounds_page (sj_test_current_window ());
}

static SjSoundDownloads *
downloads (void)
{
  return sj_application_get_sound_downloads (sj_test_app);
}

static const SjSoundPackInfo *
pack (const char *id)
{
  return sj_sound_downloads_get_pack (downloads (), id);
}

static gboolean
is_pack_row (GtkWidget *widget,
             gpointer   data)
{
  return SJ_IS_SOUND_PACK_ROW (widget) && g_strcmp0 (sj_sound_pack_row_get_id (SJ_SOUND_PACK_ROW (widget)), data) == 0;
}

static GtkWidget *
find_row (const char *id)
{
  GtkWidget *row = sj_test_find_widget (GTK_WIDGET (sounds_page ()->packs_view), is_pack_row, (gpointer)id);

  g_assert_nonnull (row);
  return row;
}

static gboolean
is_action_button (GtkWidget *widget,
                  gpointer   data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), data) == 0;
}

/* The button of a pack's row that activates @action ("packs.download"). */
static GtkWidget *
row_button (const char *id,
            const char *action)
{
  GtkWidget *button = sj_test_find_widget (find_row (id), is_action_button, (gpointer)action);

  g_assert_nonnull (button);
  return button;
}

static GtkProgressBar *
row_progress (const char *id)
{
  return GTK_PROGRESS_BAR (sj_test_find_by_type (find_row (id), GTK_TYPE_PROGRESS_BAR));
}

static const char *
row_subtitle (const char *id)
{
  return gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (find_row (id), "dim-label")));
}

static gboolean
has_label (GtkWidget  *widget,
           const char *label)
{
  g_autofree char *error = gtk_test_accessible_check_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                               label);

  if (error != NULL)
    g_test_message ("%s", error);
  return error == NULL;
}

static GtkWidget *
indicator_button (void)
{
  return sj_test_find_by_type (GTK_WIDGET (sj_test_current_window ()->downloads_indicator), GTK_TYPE_MENU_BUTTON);
}

static gboolean
indicator_shown (void)
{
  return gtk_widget_get_mapped (GTK_WIDGET (sj_test_current_window ()->downloads_indicator));
}

#define PRESS(...) sj_test_key_window_press (&keys, (const char *[]) { __VA_ARGS__, NULL })

/* Conditions ------------------------------------------------------------------ */

typedef struct
{
  const char *id;
  const char *text;
} Says;

static gboolean
subtitle_is (gpointer data)
{
  Says *says = data;

  return g_strcmp0 (row_subtitle (says->id), says->text) == 0;
}

static gboolean
subtitle_starts (gpointer data)
{
  Says *says = data;

  return g_str_has_prefix (row_subtitle (says->id), says->text);
}

typedef struct
{
  double      above;
  int         percent;    /* of the indicator, when it was last seen */
  guint       percents;   /* how many different ones were seen */
} Moving;

/* The row's progress bar moved past @above, and the indicator said so. */
static gboolean
progress_moved (gpointer data)
{
  Moving *moving = data;
  GtkProgressBar *bar = row_progress (MACHINE);
  int percent = (int)(sj_sound_downloads_get_fraction (downloads ()) * 100);
  g_autofree char *label = g_strdup_printf ("Downloading sounds, %d %%", percent);

  if (!gtk_widget_get_mapped (GTK_WIDGET (bar)) || !indicator_shown ())
    return FALSE;
  g_assert_true (has_label (indicator_button (), label));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (indicator_button ()), ==, label);
  if (percent != moving->percent)
    {
      moving->percent = percent;
      moving->percents++;
    }
  return gtk_progress_bar_get_fraction (bar) > moving->above;
}

static gboolean
state_is (gpointer data)
{
  Says *says = data;

  return (int)pack (says->id)->state == GPOINTER_TO_INT (says->text);
}

static gboolean
nothing_downloaded (gpointer data)
{
  const char * const *packs = sj_sound_downloads_get_packs (downloads ());

  for (guint i = 0; packs[i] != NULL; i++)
    if (pack (packs[i])->n_cached > 0 || pack (packs[i])->state != SJ_SOUND_PACK_IDLE)
      return FALSE;
  return TRUE;
}

static gboolean
packs_shown (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (sounds_page ()->packs_view));
}

static AdwMessageDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog () != NULL;
}

/* The window to @name in SJ_TEST_OUTPUT_DIR, to look at. */
static void
save_screenshot (const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("SJ_TEST_OUTPUT_DIR") ? g_getenv ("SJ_TEST_OUTPUT_DIR")
                                                                           : g_get_tmp_dir (),
                                            name, NULL);

  sj_test_key_window_wait_frames (&keys, 3);
  texture = sj_test_render_widget (GTK_WIDGET (sj_test_current_window ()));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("The window is in %s", path);
}

/* The test ---------------------------------------------------------------------- */

static void
test_packs_view (void)
{
  SjWindow *window = sj_test_open_window ();
  SjSoundsPage *page;
  g_autofree char *machine_dir = NULL;
  Says counted = { MACHINE, "74 files, none downloaded" };
  Says idle = { MACHINE, GINT_TO_POINTER (SJ_SOUND_PACK_IDLE) };
  Says partial = { MACHINE, NULL };
  Moving moving = { 0.0, -1, 0 };
  GtkWidget *button;
  guint n_cached;

  sj_test_key_window_attach (&keys, GTK_WINDOW (window), SJ_TEST_WAIT_TIMEOUT_S);
  page = sounds_page ();
  machine_dir = g_build_filename (g_get_user_cache_dir (), "strudel-jam", "sounds", MACHINE, NULL);

  /* The Sounds page, then its Packs view, by keyboard. */
  PRESS ("ctrl+shift+s");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "sounds");
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (page->packs_view)));
  gtk_widget_grab_focus (GTK_WIDGET (page->packs_toggle));
  PRESS ("space");
  sj_test_spin_until (packs_shown, NULL, "the Packs view");
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (page->stack)));

  /* Each pack says what of it is downloaded, once counted. */
  sj_test_spin_until (subtitle_is, &counted, "the pack to be counted");
  g_assert_true (has_label (find_row (MACHINE), "RolandTR909"));
  g_assert_true (has_label (row_button (MACHINE, "packs.download"), "Download RolandTR909 for offline use"));
  g_assert_true (has_label (row_button (MACHINE, "packs.cancel"), "Cancel downloading RolandTR909"));
  g_assert_true (has_label (row_button (MACHINE, "packs.remove"), "Remove the downloaded sounds of RolandTR909"));
  g_assert_true (has_label (find_row ("dirt-samples"), "Dirt-Samples"));
  g_assert_false (gtk_widget_get_mapped (row_button (MACHINE, "packs.remove")));
  g_assert_false (indicator_shown ());

  /* Return on Download starts it: the bar and the header's indicator
   * move, and the keyboard is on Cancel. */
  delay_ms = 40;
  button = row_button (MACHINE, "packs.download");
  gtk_widget_grab_focus (button);
  PRESS ("Return");
  g_assert_cmpint (pack (MACHINE)->state, !=, SJ_SOUND_PACK_IDLE);
  sj_test_spin_until (progress_moved, &moving, "the download to progress");
  moving.above = gtk_progress_bar_get_fraction (row_progress (MACHINE));
  sj_test_spin_until (progress_moved, &moving, "the download to progress further");
  g_assert_cmpuint (moving.percents, >=, 2);
  save_screenshot ("sound-packs.png");
  g_assert_true (has_label (GTK_WIDGET (row_progress (MACHINE)), "Download of RolandTR909"));
  g_assert_false (gtk_widget_get_mapped (button));
  button = row_button (MACHINE, "packs.cancel");
  g_assert_true (gtk_widget_has_focus (button));

  /* Return on Cancel stops it; what was downloaded stays, and says so. */
  PRESS ("Return");
  sj_test_spin_until (state_is, &idle, "the download to stop");
  g_assert_false (indicator_shown ());
  n_cached = pack (MACHINE)->n_cached;
  g_assert_cmpuint (n_cached, >, 0);
  g_assert_cmpuint (n_cached, <, 74);
  partial.text = g_strdup_printf ("%u of 74 files downloaded (", n_cached);
  sj_test_spin_until (subtitle_starts, &partial, "the row to say what is downloaded");
  g_assert_nonnull (strstr (row_subtitle (MACHINE), "to download, size unknown"));
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (row_progress (MACHINE))));
  g_assert_true (gtk_widget_get_mapped (row_button (MACHINE, "packs.download")));
  g_free ((char *)partial.text);

  /* Return on Remove empties it. */
  button = row_button (MACHINE, "packs.remove");
  g_assert_true (gtk_widget_get_mapped (button));
  gtk_widget_grab_focus (button);
  PRESS ("Return");
  sj_test_spin_until (subtitle_is, &counted, "the pack to be removed");
  g_assert_false (g_file_test (machine_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (pack (MACHINE)->n_cached, ==, 0);

  /* A small pack, whole; then everything removed, after asking. */
  delay_ms = 0;
  gtk_widget_activate_action (GTK_WIDGET (page->packs_view), "packs.download", "s", SMALL_MACHINE);
  sj_test_spin_until (subtitle_starts, &(Says) { SMALL_MACHINE, "All 3 files downloaded (" }, "the small pack");
  button = sj_test_find_by_class (GTK_WIDGET (page->packs_view), "destructive-action");
  g_assert_true (gtk_widget_get_sensitive (button));
  gtk_widget_grab_focus (button);
  /* The dialog takes the keyboard: no barrier key after Return. */
  sj_test_run_xdotool ((const char *[]) { "key", "Return", NULL });
  sj_test_spin_until (dialog_shown, NULL, "the confirmation");
  g_assert_cmpuint (pack (SMALL_MACHINE)->n_cached, ==, 3);
  adw_message_dialog_response (find_dialog (), "remove");
  sj_test_spin_until (nothing_downloaded, NULL, "everything to be removed");
  g_assert_false (gtk_widget_get_sensitive (button));
  save_screenshot ("sound-packs-removed.png");

  /* "Show Packs" (the indicator's popover) opens the view from anywhere. */
  gtk_toggle_button_set_active (page->sounds_toggle, TRUE);
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (page->packs_view)));
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sound-packs", NULL);
  sj_test_spin_until (packs_shown, NULL, "the Packs view again");
  g_assert_true (sj_test_has_focus_within (GTK_WIDGET (page->packs_view)));

  gtk_toggle_button_set_active (page->sounds_toggle, TRUE);
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-console", NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autofree char *url = NULL;
  int ret;

  g_setenv ("GTK_A11Y", "test", TRUE);
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  url = server_start ();
  g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);
  sj_test_app_start ();

  g_test_add_func ("/sound-packs/view", test_packs_view);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  soup_server_disconnect (server);
  g_clear_object (&server);
  sj_test_remove_tree (home);

  return ret;
}
