/* test-sounds-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sounds page in the real window under Xvfb, with private XDG
 * directories and a loopback sample host (STRUDEL_JAM_SOUNDS_URL): each row
 * says how its sound would play, to the eye (an icon and its tooltip) and
 * to screen readers (the accessible description of the row and of its
 * preview button, GTK_A11Y=test), before and after its file is cached and
 * with downloads switched off; a preview that downloads shows a spinner
 * until it plays, one from a slow host has its missed note played again,
 * and one that cannot play says why in the sound cache's words.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-console-page.h"
#include "sj-knowledge-item.h"
#include "sj-sound-packs-view.h"
#include "sj-sound-row.h"
#include "sj-sounds-page-private.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

static SoupServer *server;
static guint n_requests;

/* A short, valid WAV (8 kHz, mono, 16 bit, 0.1 s of a tone). */
static GBytes *
make_wav (void)
{
  const guint32 frames = 800, data_size = frames * 2;
  guint8 *wav = g_malloc0 (44 + data_size);
  guint32 value;

  memcpy (wav, "RIFF", 4);
  value = GUINT32_TO_LE (36 + data_size);
  memcpy (wav + 4, &value, 4);
  memcpy (wav + 8, "WAVEfmt ", 8);
  value = GUINT32_TO_LE (16);
  memcpy (wav + 16, &value, 4);
  wav[20] = 1; wav[22] = 1;
  value = GUINT32_TO_LE (8000);
  memcpy (wav + 24, &value, 4);
  value = GUINT32_TO_LE (16000);
  memcpy (wav + 28, &value, 4);
  wav[32] = 2; wav[34] = 16;
  memcpy (wav + 36, "data", 4);
  value = GUINT32_TO_LE (data_size);
  memcpy (wav + 40, &value, 4);
  for (guint32 i = 0; i < frames; i++)
    {
      gint16 sample = GINT16_TO_LE ((gint16)(8000 * ((i / 10) % 2 ? 1 : -1)));

      memcpy (wav + 44 + i * 2, &sample, 2);
    }

  return g_bytes_new_take (wav, 44 + data_size);
}

static void
answer_late (gpointer data)
{
  soup_server_message_unpause (data);
  g_object_unref (data);
}

/* The sample host: every file is a WAV; uzu-drumkit's oh comes later than
 * a preview's lead. */
static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  g_autoptr(GBytes) wav = make_wav ();

  n_requests++;
  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "audio/wav", NULL);
  soup_message_body_append_bytes (soup_server_message_get_response_body (msg), wav);
  if (g_str_has_prefix (path, "/uzu-drumkit/oh/"))
    {
      soup_server_message_pause (msg);
      g_timeout_add_once (300, answer_late, g_object_ref (msg));
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

static gboolean
console_has (gpointer data)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));

  return strstr (text, data) != NULL;
}

/* The page's rows ----------------------------------------------------------- */

static gboolean
is_sound_row (GtkWidget *widget,
              gpointer   data)
{
  return SJ_IS_SOUND_ROW (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (sj_sound_row_get_name (SJ_SOUND_ROW (widget)), data) == 0;
}

static SjSoundRow *
find_row (const char *name)
{
  GtkWidget *page = GTK_WIDGET (_sj_window_get_sounds_page (sj_test_current_window ()));

  return (SjSoundRow *)sj_test_find_widget (page, is_sound_row, (gpointer)name);
}

static gboolean
is_of_type (GtkWidget *widget,
            gpointer   data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, GPOINTER_TO_SIZE (data));
}

static GtkWidget *
row_child (SjSoundRow *row,
           GType       type)
{
  return sj_test_find_widget (GTK_WIDGET (row), is_of_type, GSIZE_TO_POINTER (type));
}

static gboolean
row_loading (SjSoundRow *row)
{
  GtkWidget *spinner = row_child (row, GTK_TYPE_SPINNER);

  return gtk_widget_get_visible (spinner) && gtk_spinner_get_spinning (GTK_SPINNER (spinner));
}

/* The row's state: its icon's tooltip and the accessible description of the
 * row and of its preview button. */
static gboolean
row_says (SjSoundRow *row,
          const char *description)
{
  GtkWidget *button = row_child (row, GTK_TYPE_BUTTON);
  g_autofree char *row_error = gtk_test_accessible_check_property (GTK_ACCESSIBLE (row),
                                                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                                                   description);
  g_autofree char *button_error = gtk_test_accessible_check_property (GTK_ACCESSIBLE (button),
                                                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                                                      description);

  return row_error == NULL && button_error == NULL;
}

typedef struct
{
  const char *name;
  const char *state;
} RowState;

static gboolean
row_shows (gpointer data)
{
  RowState *want = data;
  SjSoundRow *row = find_row (want->name);
  GtkWidget *image;

  if (row == NULL || !row_says (row, want->state))
    return FALSE;
  image = row_child (row, GTK_TYPE_IMAGE);
  return gtk_widget_get_visible (image) && g_strcmp0 (gtk_widget_get_tooltip_text (image), want->state) == 0;
}

static gboolean
searched (gpointer data)
{
  SjSoundsPage *page = _sj_window_get_sounds_page (sj_test_current_window ());
  SjSoundsIndex *sounds = sj_knowledge_get_sounds (_sj_sounds_page_get_knowledge (page));

  return g_list_model_get_n_items (_sj_sounds_page_get_results (page)) < sj_sounds_index_get_n_sounds (sounds);
}

/* Types @text in the search entry and waits for its results: the entry
 * lists everything at once when its text is replaced, and searches a
 * moment after the last change. */
static void
search_sounds (const char *text)
{
  GtkWidget *page = GTK_WIDGET (_sj_window_get_sounds_page (sj_test_current_window ()));
  GtkWidget *entry = sj_test_find_widget (page, sj_test_is_mapped_of_type, GSIZE_TO_POINTER (GTK_TYPE_SEARCH_ENTRY));

  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  if (*text != '\0')
    sj_test_spin_until (searched, NULL, text);
}

/* "3 of 8 downloaded" as the page writes it, from what the cache holds. */
static char *
expected_state (const char *name,
                gboolean    online)
{
  SjSoundCache *cache = sj_application_get_sound_cache (sj_test_app);
  SjSoundFiles files;

  sj_sound_cache_get_sound_availability (cache, name, &files);
  g_assert_cmpuint (files.n_cached, >, 0);
  if (files.n_cached == files.n_files)
    return g_strdup ("Downloaded");
  if (online)
    return g_strdup_printf ("%u of %u downloaded; the others download when first played", files.n_cached, files.n_files);
  return g_strdup_printf ("%u of %u downloaded", files.n_cached, files.n_files);
}

static gboolean
not_loading (gpointer data)
{
  SjSoundRow *row = find_row (data);

  return row != NULL && !row_loading (row);
}

static gboolean
preview_failed (gpointer data)
{
  SjSoundRow *row = find_row (data);
  GtkWidget *label;

  if (row == NULL)
    return FALSE;
  label = gtk_widget_get_next_sibling (gtk_widget_get_first_child (gtk_widget_get_first_child (GTK_WIDGET (row))));
  return gtk_widget_has_css_class (label, "error");
}

static gboolean
preview_triggered (gpointer data)
{
  Progress *progress = data;

  return sj_repl_get_state (progress->repl)->triggered > progress->triggered;
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

/* Each row says how its sound would play, follows the cache and the
 * download setting live, and a preview that downloads shows a spinner
 * until it plays; one that cannot play says why. */
/* With nothing searched, the list opens on the sounds a newcomer reaches
 * for (bd, sd, hh…), not on the alphabet's first ("9000_bd"). */
static void
test_sounds_page_common_first (void)
{
  SjWindow *window = sj_test_open_window ();
  SjSoundsPage *page = _sj_window_get_sounds_page (window);
  SjSoundsIndex *sounds;
  const char *expected[] = { "bd", "sd", "hh" };

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sounds", NULL);
  search_sounds ("");
  sounds = sj_knowledge_get_sounds (page->knowledge);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (page->results)), >, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(SjKnowledgeItem) item = g_list_model_get_item (G_LIST_MODEL (page->results), i);
      const SjSound *sound = sj_sounds_index_get_sound (sounds, sj_knowledge_item_get_index (item));

      g_assert_cmpstr (sound->name, ==, expected[i]);
    }
  /* Every sound is still listed once. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (page->results)), ==, sj_sounds_index_get_n_sounds (sounds));
}

static void
test_sounds_page_availability (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *state = NULL;
  g_autofree char *failure_description = NULL;
  RowState cp = { "cp", "Downloads when first played" };
  RowState casio = { "casio", "Not available offline" };
  RowState hh = { "hh", "Plays the built-in drum kit offline" };
  RowState sawtooth = { "sawtooth", "Built in" };
  RowState oh = { "oh", NULL };
  Progress progress = { repl, 0, 0 };
  guint requests_before = n_requests;
  SjSoundRow *row;
  GtkWidget *label;

  /* casio fails while nobody looks at the Sounds page: the page keeps the
   * failed file and never asks for it again, and the cache said why once. */
  g_settings_set_boolean (settings, "download-sounds", FALSE);
  outcome = sj_test_evaluate (repl, "s(\"casio\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (console_has, (gpointer)"casio:0 is not downloaded", "casio to fail");
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
  g_settings_set_boolean (settings, "download-sounds", TRUE);
  requests_before = n_requests;

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sounds", NULL);

  /* Not cached, and downloads are on. */
  search_sounds ("cp");
  sj_test_spin_until (row_shows, &cp, "cp to download when first played");

  /* The preview downloads it, with a spinner in the row, and plays. */
  row = find_row ("cp");
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_click (row_child (row, GTK_TYPE_BUTTON));
  g_assert_true (row_loading (row));
  sj_test_spin_until (not_loading, (gpointer)"cp", "the preview to load cp");
  sj_test_spin_until (preview_triggered, &progress, "the preview of cp to play");
  g_assert_cmpuint (n_requests, ==, requests_before + 1);
  requests_before = n_requests;

  /* The row follows: part of it, or all, is downloaded now. */
  state = expected_state ("cp", TRUE);
  cp.state = state;
  sj_test_spin_until (row_shows, &cp, "cp to say it is downloaded");

  /* A download slower than the preview's lead: the note the page missed
   * is played once more, the file fetched once. */
  search_sounds ("oh");
  oh.state = "Downloads when first played";
  sj_test_spin_until (row_shows, &oh, "oh to download when first played");
  row = find_row ("oh");
  progress.triggered = sj_repl_get_state (repl)->triggered + 1;
  sj_test_click (row_child (row, GTK_TYPE_BUTTON));
  g_assert_true (row_loading (row));
  sj_test_spin_until (not_loading, (gpointer)"oh", "the preview to load oh");
  sj_test_spin_until (console_has, (gpointer)"loading sound \"oh:0\" took too long", "the missed note");
  sj_test_spin_until (preview_triggered, &progress, "the preview of oh to play again");
  g_assert_cmpuint (n_requests, ==, requests_before + 1);

  /* Offline, each row says what plays. */
  g_settings_set_boolean (settings, "download-sounds", FALSE);
  g_clear_pointer (&state, g_free);
  state = expected_state ("cp", FALSE);
  cp.state = state;
  search_sounds ("cp");
  sj_test_spin_until (row_shows, &cp, "cp to say what of it plays offline");
  search_sounds ("hh");
  sj_test_spin_until (row_shows, &hh, "hh to play the kit");
  search_sounds ("sawtooth");
  sj_test_spin_until (row_shows, &sawtooth, "sawtooth to be built in");
  search_sounds ("casio");
  sj_test_spin_until (row_shows, &casio, "casio to be unavailable");

  /* "offline" lists what plays with no network. */
  search_sounds ("offline");
  g_assert_true (results_have ("sawtooth"));
  g_assert_true (results_have ("hh"));
  g_assert_true (results_have ("cp"));
  g_assert_false (results_have ("casio"));

  /* A preview that cannot play says why, in the cache's words. */
  search_sounds ("casio");
  sj_test_spin_until (row_shows, &casio, "casio's row");
  sj_test_click (row_child (find_row ("casio"), GTK_TYPE_BUTTON));
  sj_test_spin_until (preview_failed, (gpointer)"casio", "the preview of casio to fail");
  row = find_row ("casio");
  label = gtk_widget_get_next_sibling (gtk_widget_get_first_child (gtk_widget_get_first_child (GTK_WIDGET (row))));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "casio:0 is not downloaded and the app is offline"));
  failure_description = g_strdup_printf ("Not available offline. %s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_true (row_says (row, failure_description));
  g_assert_false (row_loading (row));

  /* Downloads back on: the rows say so at once. */
  g_settings_set_boolean (settings, "download-sounds", TRUE);
  casio.state = "Downloads when first played";
  g_assert_true (row_shows (&casio));

  search_sounds ("");
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-console", NULL);
}

/* The Packs view's label that says what the cache holds. */
static gboolean
usage_says (gpointer data)
{
  SjSoundsPage *page = _sj_window_get_sounds_page (sj_test_current_window ());
  g_autoptr(GPtrArray) labels = sj_test_find_all_by_type (GTK_WIDGET (page->packs_view), GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_label (g_ptr_array_index (labels, i)), data) != NULL)
      return TRUE;
  return FALSE;
}

/* " of 4.0 GiB used", as GLib writes sizes (with a no-break space). */
static char *
of_limit (guint mib)
{
  g_autofree char *size = g_format_size_full ((guint64)mib * 1024 * 1024, G_FORMAT_SIZE_IEC_UNITS);

  return g_strdup_printf (" of %s used", size);
}

/* The Sounds page shows what the cache holds of its limit, and the limit
 * is a setting (in GiB on the page, in MiB in GSettings). */
static void
test_sounds_page_cache_limit (void)
{
  SjWindow *window = sj_test_current_window ();
  SjSoundsPage *page = _sj_window_get_sounds_page (window);
  SjSoundCache *cache = sj_application_get_sound_cache (sj_test_app);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GtkSpinButton *spin;
  g_autofree char *of_4 = of_limit (4096);
  g_autofree char *of_2_5 = of_limit (2560);
  g_autofree char *of_8 = of_limit (8192);

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sound-packs", NULL);
  sj_test_spin_until (usage_says, of_4, "the usage of the limit");
  g_assert_true (usage_says ((gpointer)" used; packs kept for offline are never removed"));
  g_assert_cmpuint (sj_sound_cache_get_limit_mb (cache), ==, 4096);

  spin = GTK_SPIN_BUTTON (sj_test_find_by_type (GTK_WIDGET (page->packs_view), GTK_TYPE_SPIN_BUTTON));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, "Sound cache limit in GiB");
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 4.0);

  /* The page sets the setting, and the cache follows. */
  gtk_spin_button_set_value (spin, 2.5);
  g_assert_cmpuint (g_settings_get_uint (settings, "sound-cache-limit-mb"), ==, 2560);
  g_assert_cmpuint (sj_sound_cache_get_limit_mb (cache), ==, 2560);
  g_assert_true (usage_says (of_2_5));

  /* The setting sets the page. */
  g_settings_set_uint (settings, "sound-cache-limit-mb", 8192);
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 8.0);
  g_assert_true (usage_says (of_8));

  g_settings_reset (settings, "sound-cache-limit-mb");
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

  /* The accessible properties are checked: GTK keeps them without a bus. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  url = server_start ();
  g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);
  sj_test_app_start ();

  g_test_add_func ("/sounds-page/common-first", test_sounds_page_common_first);
  g_test_add_func ("/sounds-page/availability", test_sounds_page_availability);
  g_test_add_func ("/sounds-page/cache-limit", test_sounds_page_cache_limit);

  ret = g_test_run ();

  sj_test_app_stop ();
  soup_server_disconnect (server);
  g_clear_object (&server);
  sj_test_remove_tree (home);

  return ret;
}
