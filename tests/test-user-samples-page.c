/* test-user-samples-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The user's own folders of samples in the real window under Xvfb, with
 * private XDG directories and settings: a folder with good, bad and oddly
 * named files (tests/sj-test-samples.c) is added through the real file
 * chooser (the GTK dialog GtkFileChooserNative falls back to without a
 * portal); the Sounds page lists its sounds under "User" and names the
 * files that cannot be played; the page plays s("big_drums:1"), its file
 * served through strudel-jam://sounds/user/ (counted there);
 * strudel_knowledge finds the sound, the dry-run knows it; a page restart
 * and a new service on the same settings keep it; a sound named like the
 * library's replaces it and gives it back, also when its folder is
 * deleted and read again; the Console names the files that cannot be
 * played and the folder that is gone; removing the folder with the
 * keyboard makes its sounds unknown again.
 */

#include "config.h"

#include "sj-application-private.h"
#include "sj-console-page.h"
#include "sj-dry-run-report.h"
#include "sj-knowledge-item.h"
#include "sj-sounds-page-private.h"
#include "sj-test-app.h"
#include "sj-test-samples.h"
#include "sj-test-widgets.h"
#include "sj-user-samples-private.h"
#include "sj-user-samples-view-private.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60
#define CONSOLE_PROBLEMS "Your samples: in “" SJ_TEST_SAMPLES_ROOT "”, 5 files cannot be played: " \
                         "Big Drums/broken.wav (not a WAV file), Big Drums/silence.wav (empty)"

static char *tmp_dir;
static char *root;
static SjTestKeyWindow keys;

static SjUserSamples *
samples (void)
{
  return sj_application_get_user_samples (sj_test_app);
}

static gboolean
console_has (gpointer data)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));

  return strstr (text, data) != NULL;
}

static guint
console_count (const char *needle)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));
  guint n = 0;

  for (const char *at = strstr (text, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

static gboolean
index_has (gpointer data)
{
  return sj_sounds_index_lookup (_sj_application_get_sounds (sj_test_app), data) != NULL;
}

static gboolean
index_lacks (gpointer data)
{
  return !index_has (data);
}

static gboolean
loads_reach (gpointer data)
{
  return _sj_user_samples_get_n_loads (samples ()) >= GPOINTER_TO_UINT (data);
}

static gboolean
folders_ready (gpointer data)
{
  guint n = sj_user_samples_get_n_folders (samples ());

  if (n != GPOINTER_TO_UINT (data) || sj_user_samples_get_busy (samples ()))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (sj_user_folder_get_state (sj_user_samples_get_folder (samples (), i)) != SJ_USER_FOLDER_READY)
      return FALSE;
  return TRUE;
}

/* Whether the page's snapshot has @name registered by its prebake (the
 * library) rather than by the user. */
typedef struct
{
  const char *name;
  gboolean    prebake;
} Registered;

static gboolean
page_registered (gpointer data)
{
  Registered *want = data;
  JsonObject *sounds = sj_repl_get_sounds (_sj_window_get_repl (sj_test_current_window ()));
  JsonObject *entry;

  if (sounds == NULL || !json_object_has_member (sounds, want->name))
    return FALSE;
  entry = json_object_get_object_member (sounds, want->name);
  return json_object_get_boolean_member (entry, "prebake") == want->prebake;
}

static gboolean
results_have (const char *name)
{
  SjSoundsPage *page = _sj_window_get_sounds_page (sj_test_current_window ());
  GListModel *results = _sj_sounds_page_get_results (page);
  SjSoundsIndex *sounds = sj_knowledge_get_sounds (_sj_sounds_page_get_knowledge (page));

  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(SjKnowledgeItem) item = g_list_model_get_item (results, i);

      if (g_str_equal (sj_sounds_index_get_sound (sounds, sj_knowledge_item_get_index (item))->name, name))
        return TRUE;
    }
  return FALSE;
}

static gboolean
listed_under_user (gpointer data)
{
  return results_have (data);
}

/* The chooser ------------------------------------------------------------- */

static GtkWidget *
find_chooser_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER_DIALOG (window) && gtk_widget_get_visible (window))
        return window;
    }
  return NULL;
}

static gboolean
chooser_shown (gpointer data)
{
  return find_chooser_dialog () != NULL;
}

static gboolean
chooser_has (gpointer data)
{
  GtkWidget *dialog = find_chooser_dialog ();
  g_autoptr(GFile) chosen = dialog != NULL ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;

  return chosen != NULL && g_file_equal (chosen, data);
}

/* "Add a Folder of Samples…", the folder chosen in the dialog, Select. */
static void
add_through_chooser (SjUserSamplesView *view,
                     const char        *path)
{
  g_autoptr(GFile) folder = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GtkWidget *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "user-samples.add-folder", NULL));
  g_assert_nonnull (_sj_user_samples_view_get_chooser (view));
  sj_test_spin_until (chooser_shown, NULL, "the file chooser");
  dialog = find_chooser_dialog ();
  g_assert_cmpint (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (dialog)), ==, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER);
  gtk_file_chooser_set_file (GTK_FILE_CHOOSER (dialog), folder, &error);
  g_assert_no_error (error);
  sj_test_spin_until (chooser_has, folder, "the folder to be chosen");
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_assert_null (_sj_user_samples_view_get_chooser (view));
}

/* Rows -------------------------------------------------------------------- */

static gboolean
is_toggle_titled (GtkWidget *widget,
                  gpointer   data)
{
  GtkWidget *child;

  if (!GTK_IS_TOGGLE_BUTTON (widget) || !GTK_IS_LABEL (child = gtk_button_get_child (GTK_BUTTON (widget))))
    return FALSE;
  return g_str_has_prefix (gtk_label_get_text (GTK_LABEL (child)), data);
}

static gboolean
is_remove_button (GtkWidget *widget,
                  gpointer   data)
{
  GtkActionable *actionable = GTK_IS_BUTTON (widget) ? GTK_ACTIONABLE (widget) : NULL;
  GVariant *target = actionable != NULL ? gtk_actionable_get_action_target_value (actionable) : NULL;

  return target != NULL && g_strcmp0 (gtk_actionable_get_action_name (actionable), "user-samples.remove-folder") == 0 &&
         g_str_equal (g_variant_get_string (target, NULL), data);
}

static gboolean
is_rescan_button (GtkWidget *widget,
                  gpointer   data)
{
  GtkActionable *actionable = GTK_IS_BUTTON (widget) ? GTK_ACTIONABLE (widget) : NULL;
  GVariant *target = actionable != NULL ? gtk_actionable_get_action_target_value (actionable) : NULL;

  return target != NULL && g_strcmp0 (gtk_actionable_get_action_name (actionable), "user-samples.rescan-folder") == 0 &&
         g_str_equal (g_variant_get_string (target, NULL), data);
}

static gboolean
is_not_audio_row (GtkWidget *widget,
               gpointer   data)
{
  return ADW_IS_ACTION_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), data) == 0 &&
         g_strcmp0 (adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)), "not audio") == 0;
}

static JsonObject *
dry_run_report (SjWindow   *window,
                const char *code)
{
  g_autoptr(JsonObject) raw = NULL;
  g_autoptr(GError) error = NULL;

  raw = sj_dry_run_run_sync (window->dry_run, code, 1, 20000, SJ_DRY_RUN_FLAGS_NONE, NULL, &error);
  g_assert_no_error (error);
  return sj_dry_run_report (raw, sj_application_get_knowledge (sj_test_app));
}

static guint
n_unknown_sounds (JsonObject *report)
{
  return json_array_get_length (json_object_get_array_member (report, "unknownSounds"));
}

static char *
knowledge (const char *query)
{
  g_autoptr(JsonNode) answer = sj_knowledge_query (sj_application_get_knowledge (sj_test_app), query);

  return json_to_string (answer, FALSE);
}

static gboolean
repl_not_ready (gpointer data)
{
  return !sj_repl_get_ready (data);
}

/* The panel as it looks, for people to check: user-samples.png. */
static void
screenshot (SjWindow *window)
{
  g_autoptr(GdkTexture) texture = sj_test_render_widget (window->panel);
  g_autofree char *path = g_build_filename (g_getenv ("SJ_TEST_OUTPUT_DIR") ? g_getenv ("SJ_TEST_OUTPUT_DIR")
                                                                            : g_get_tmp_dir (),
                                            "user-samples.png", NULL);

  g_assert_true (gdk_texture_save_to_png (texture, path));
}

/* The test ---------------------------------------------------------------- */

static void
test_user_samples (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjSoundsPage *page;
  SjUserSamplesView *view;
  SjUserFolder *folder;
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_auto(GStrv) kept = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *remove_error = NULL;
  g_autofree char *remove_label = NULL;
  g_autofree char *id = NULL;
  g_autofree char *mine = g_build_filename (tmp_dir, "Mine", NULL);
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (800);
  Registered bd_user = { "bd", FALSE }, bd_library = { "bd", TRUE }, drums_user = { "big_drums", FALSE };
  GtkWidget *remove;
  JsonObject *use = NULL;
  JsonArray *uses;
  guint loads;

  /* The Sounds page, then "User": the chip can be chosen with no sound
   * of one's own yet, and shows where folders are added. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sounds", NULL);
  page = _sj_window_get_sounds_page (window);
  view = page->user_samples_view;
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (view)));
  sj_test_click (sj_test_find_widget (GTK_WIDGET (page->chip_bar), is_toggle_titled, (gpointer) "User"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (view)));

  /* Through the file chooser. */
  add_through_chooser (view, root);
  sj_test_spin_until (folders_ready, GUINT_TO_POINTER (1), "the folder to be read");
  folder = sj_user_samples_get_folder (samples (), 0);
  id = g_strdup (sj_user_folder_get_id (folder));
  g_assert_cmpstr (sj_user_folder_get_name (folder), ==, SJ_TEST_SAMPLES_ROOT);

  /* The files that cannot be played, by name. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (_sj_user_samples_view_get_problems_label (view))));
  g_assert_nonnull (strstr (gtk_label_get_text (_sj_user_samples_view_get_problems_label (view)),
                            "5 files cannot be played: Big Drums/broken.wav (not a WAV file), "
                            "Big Drums/silence.wav (empty), HATS/piano.aiff"));
  g_assert_true (g_str_has_suffix (gtk_label_get_text (_sj_user_samples_view_get_problems_label (view)), ", …"));
  g_assert_nonnull (sj_test_find_widget (GTK_WIDGET (view), is_not_audio_row, (gpointer) "notes.txt"));
  /* The Console names them too, once. */
  sj_test_spin_until (console_has, (gpointer) CONSOLE_PROBLEMS, "the Console to name the files");
  g_assert_true (console_has ((gpointer) "notes.txt (not audio)"));
  g_assert_cmpuint (console_count (CONSOLE_PROBLEMS), ==, 1);
  remove = sj_test_find_widget (GTK_WIDGET (view), is_remove_button, id);
  g_assert_nonnull (remove);
  remove_label = g_strdup_printf ("Remove “%s”", SJ_TEST_SAMPLES_ROOT);
  remove_error = gtk_test_accessible_check_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                     remove_label);
  g_assert_null (remove_error);

  /* The page registered them as the user's: the Sounds page lists them
   * under "User", and the knowledge finds them. */
  sj_test_spin_until (page_registered, &drums_user, "the page to register big_drums");
  sj_test_spin_until (index_has, (gpointer) "big_drums", "the app's index to know big_drums");
  sj_test_spin_until (listed_under_user, (gpointer) "big_drums", "big_drums under User");
  g_assert_true (results_have ("café"));
  g_assert_false (results_have ("bd"));
  sj_test_key_window_attach (&keys, GTK_WINDOW (window), WAIT_TIMEOUT_S);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (remove, ADW_TYPE_EXPANDER_ROW)), TRUE);
  sj_test_key_window_wait_frames (&keys, 5);
  screenshot (window);
  answer = knowledge ("sounds:big_drums");
  g_assert_nonnull (strstr (answer, "\"name\":\"big_drums\""));
  g_assert_nonnull (strstr (answer, "\"user\""));
  g_clear_pointer (&answer, g_free);
  /* "sounds:user" lists the user's sounds, and only them. */
  answer = knowledge ("sounds:user");
  g_assert_nonnull (strstr (answer, "\"name\":\"big_drums\""));
  g_assert_nonnull (strstr (answer, "\"name\":\"café\""));
  g_assert_null (strstr (answer, "\"name\":\"bd\""));
  g_clear_pointer (&answer, g_free);

  /* The page plays it: its files come through the scheme, from the disk. */
  loads = _sj_user_samples_get_n_loads (samples ());
  outcome = sj_test_evaluate (repl, "s(\"big_drums:1 big_drums:3\").gain(0.3)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (loads_reach, GUINT_TO_POINTER (loads + 2), "the two files to be served");
  sj_test_spin_until (console_has, (gpointer) "load sound \"big_drums:1:0\"... done!", "big_drums:1 to load");
  sj_test_spin_until (console_has, (gpointer) "load sound \"big_drums:3:0\"... done!", "big_drums:3 to load");
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");

  /* The dry-run knows them, and names their files. */
  report = dry_run_report (window, "s(\"big_drums hats jam_samples café\")");
  g_assert_true (json_object_get_boolean_member (report, "ok"));
  g_assert_cmpuint (n_unknown_sounds (report), ==, 0);
  uses = json_object_get_array_member (report, "sampleUses");
  for (guint i = 0; i < json_array_get_length (uses); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (uses, i), "sound"), "big_drums"))
      use = json_array_get_object_element (uses, i);
  g_assert_nonnull (use);
  g_assert_cmpstr (json_object_get_string_member (use, "pack"), ==, SJ_USER_SAMPLES_PACK);
  g_clear_pointer (&report, json_object_unref);

  /* A restarted page registers them again before it is ready. */
  loads = _sj_user_samples_get_n_loads (samples ());
  sj_repl_restart (repl);
  sj_test_spin_until (repl_not_ready, repl, "the page to restart");
  sj_test_spin_until (sj_test_repl_is_ready, NULL, "the page to be ready again");
  g_clear_pointer (&outcome, json_object_unref);
  outcome = sj_test_evaluate (repl, "s(\"big_drums:1\").gain(0.3)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (loads_reach, GUINT_TO_POINTER (loads + 1), "the file to be served to the new page");
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");

  /* The folder is kept in the settings, and read back from there. */
  kept = g_settings_get_strv (settings, "sample-folders");
  g_assert_cmpuint (g_strv_length (kept), ==, 1);
  g_assert_cmpstr (kept[0], ==, sj_user_folder_get_uri (folder));
  {
    g_autoptr(SjUserSamples) next_run = sj_user_samples_new ();
    g_autoptr(GSettings) next_settings = g_settings_new (APP_ID);

    g_settings_bind (next_settings, "sample-folders", next_run, "folders", G_SETTINGS_BIND_DEFAULT);
    g_assert_cmpuint (sj_user_samples_get_n_folders (next_run), ==, 1);
    while (sj_user_samples_get_busy (next_run))
      g_main_context_iteration (NULL, TRUE);
    g_assert_cmpstr (sj_user_folder_get_id (sj_user_samples_get_folder (next_run, 0)), ==, id);
    g_assert_nonnull (sj_user_folder_lookup_sound (sj_user_samples_get_folder (next_run, 0), "big_drums"));
    g_settings_unbind (next_run, "folders");
  }

  /* A sound named like the library's replaces it, and gives it back. */
  sj_test_samples_write (mine, "bd/one.wav", g_bytes_get_data (wav, NULL), g_bytes_get_size (wav));
  {
    g_autoptr(GFile) mine_file = g_file_new_for_path (mine);
    g_autoptr(GError) error = NULL;
    SjUserFolder *mine_folder = sj_user_samples_add_folder (samples (), mine_file, &error);

    g_assert_no_error (error);
    sj_test_spin_until (folders_ready, GUINT_TO_POINTER (2), "the second folder to be read");
    g_autofree char *mine_id = g_strdup (sj_user_folder_get_id (mine_folder));
    g_autofree char *rescan_error = NULL;
    GtkWidget *rescan;

    g_assert_true (sj_user_folder_lookup_sound (mine_folder, "bd")->replaces);
    sj_test_spin_until (page_registered, &bd_user, "the user's bd to replace the library's");

    /* The folder disappears from the disk; "Read Again" finds it gone:
     * its sounds are gone from the page, the Console says why. */
    sj_test_remove_tree (mine);
    rescan = sj_test_find_widget (GTK_WIDGET (view), is_rescan_button, mine_id);
    g_assert_nonnull (rescan);
    rescan_error = gtk_test_accessible_check_property (GTK_ACCESSIBLE (rescan), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                       "Read “Mine” again");
    g_assert_null (rescan_error);
    /* Held: reading the folder again rebuilds the rows, the button too. */
    g_object_ref (rescan);
    sj_test_click (rescan);
    g_object_unref (rescan);
    sj_test_spin_until (console_has, (gpointer) "Your samples: the folder “Mine” cannot be read",
                        "the Console to say the folder is gone");
    sj_test_spin_until (page_registered, &bd_library, "the library's bd to be back");
    mine_folder = sj_user_samples_lookup_folder (samples (), mine_id);
    g_assert_cmpint (sj_user_folder_get_state (mine_folder), ==, SJ_USER_FOLDER_FAILED);
    g_assert_null (sj_user_folder_lookup_sound (mine_folder, "bd"));
    g_assert_true (sj_user_samples_remove_folder (samples (), mine_id));
    /* The first folder was not read again, and is not reported again. */
    g_assert_cmpuint (console_count (CONSOLE_PROBLEMS), ==, 1);
  }

  /* Removed with the keyboard: its sounds are unknown again. */
  remove = sj_test_find_widget (GTK_WIDGET (view), is_remove_button, id);
  g_assert_true (gtk_widget_grab_focus (remove));
  sj_test_key_window_wait_frames (&keys, 3);
  sj_test_key_window_press (&keys, (const char *[]) { "Return", NULL });
  sj_test_spin_until (folders_ready, GUINT_TO_POINTER (0), "the folder to be removed");
  /* The keyboard is still in the view, and the next key arrives. */
  g_assert_true (sj_test_has_focus_within (GTK_WIDGET (view)));
  sj_test_key_window_press (&keys, (const char *[]) { NULL });
  sj_test_spin_until (index_lacks, (gpointer) "big_drums", "big_drums to be gone from the index");
  g_assert_true (index_has ("bd"));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (_sj_user_samples_view_get_problems_label (view))));
  g_assert_false (results_have ("big_drums"));
  g_clear_pointer (&kept, g_strfreev);
  kept = g_settings_get_strv (settings, "sample-folders");
  g_assert_cmpuint (g_strv_length (kept), ==, 0);

  report = dry_run_report (window, "s(\"big_drums\")");
  g_assert_cmpuint (n_unknown_sounds (report), ==, 1);
  answer = knowledge ("sounds:big_drums");
  g_assert_null (strstr (answer, "\"name\":\"big_drums\""));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Real keys go to the window through X11; accessible properties are
   * kept without a bus. */
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  g_setenv ("GTK_A11Y", "test", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  root = sj_test_samples_make_folder (&tmp_dir);
  sj_test_app_start ();

  g_test_add_func ("/user-samples-page/add-play-remove", test_user_samples);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (tmp_dir);
  sj_test_remove_tree (home);
  g_free (tmp_dir);
  g_free (root);

  return ret;
}
