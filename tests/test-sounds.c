/* test-sounds.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sound library in the real window under Xvfb, with private XDG
 * directories: the page registers the website's library without fetching
 * anything, and when s("bd sd") plays, superdough asks strudel-jam://sounds/
 * for its files, the native cache downloads each once from the sample host
 * (a loopback server here, through STRUDEL_JAM_SOUNDS_URL) and keeps it,
 * and the page decodes and plays it. The dry-run names the same files. A
 * sound that cannot be had (a 404, downloads switched off) is one line in
 * the Console, and the music goes on.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-dry-run.h"
#include "sj-console-page.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

#define BD_FILE "/uzu-drumkit/bd/10_bd_switchangel.wav"
#define SD_FILE "/uzu-drumkit/sd/10_sd_switchangel-bounce-2.wav"

static SoupServer *server;
static GHashTable *requests;   /* path → count */
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

/* The sample host: every file is a WAV, except Dirt-Samples' crow, which
 * is missing (404). */
static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  g_autoptr(GBytes) wav = make_wav ();

  g_hash_table_replace (requests, g_strdup (path),
                        GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (requests, path)) + 1));
  n_requests++;

  if (g_str_has_prefix (path, "/dirt-samples/crow/"))
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "audio/wav", NULL);
  soup_message_body_append_bytes (soup_server_message_get_response_body (msg), wav);
}

static char *
server_start (void)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  requests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server, NULL, (SoupServerCallback)server_cb, NULL, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  return g_uri_to_string (uris->data);
}

static guint
requests_for (const char *path)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (requests, path));
}

static gboolean
requested (gpointer data)
{
  return requests_for (data) > 0;
}

static gboolean
console_has (gpointer data)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));

  return strstr (text, data) != NULL;
}

static gboolean
has_full_snapshot (gpointer data)
{
  JsonObject *sounds = sj_repl_get_sounds (SJ_REPL (data));

  return sounds != NULL && json_object_get_size (sounds) >= 1653;
}

static char *
cache_path (const char *file)
{
  return g_build_filename (g_get_user_cache_dir (), "strudel-jam", "sounds", file, NULL);
}

/* The page registers what the website does: the same 1,653 sounds, the same
 * categories, and nothing is fetched for it. */
static void
test_page_registers_the_library (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjSoundsIndex *sounds = sj_application_get_sounds (sj_test_app);
  JsonObject *bd, *tr909;

  /* Before the page reports, the index has them already. */
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_DRUMS), ==, 1357);

  sj_test_spin_until (has_full_snapshot, repl, "the page's sound snapshot");
  g_assert_cmpuint (json_object_get_size (sj_repl_get_sounds (repl)), ==, 1653);
  g_assert_false (json_object_has_member (sj_repl_get_sounds (repl), "_base"));
  bd = json_object_get_object_member (sj_repl_get_sounds (repl), "bd");
  g_assert_nonnull (bd);
  g_assert_cmpstr (json_object_get_string_member (bd, "tag"), ==, "drum-machines");
  g_assert_cmpint (json_object_get_int_member (bd, "count"), ==, 8);
  tr909 = json_object_get_object_member (sj_repl_get_sounds (repl), "tr909_bd");
  g_assert_nonnull (tr909);
  g_assert_cmpint (json_object_get_int_member (tr909, "count"), ==, 4);

  /* The page's snapshot is what the index holds: the same categories. */
  g_assert_cmpuint (sj_sounds_index_get_n_sounds (sounds), ==, 1653);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_DRUMS), ==, 1357);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_SAMPLES), ==, 138);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_SYNTHS), ==, 150);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_WAVETABLES), ==, 7);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_USER), ==, 0);

  g_assert_cmpuint (n_requests, ==, 0);
  g_assert_null (sj_repl_get_external_requests (repl)[0]);
}

/* s("bd sd"): the files are downloaded once, cached, decoded and played;
 * the dry-run names the very same files. */
static void
test_samples_play_through_the_cache (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(SjDryRun) dry_run = sj_dry_run_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *bd_cached = cache_path ("uzu-drumkit/bd/10_bd_switchangel.wav");
  g_autofree char *sd_cached = cache_path ("uzu-drumkit/sd/10_sd_switchangel-bounce-2.wav");
  Progress progress = { repl, 2, 0 };
  JsonArray *uses;

  outcome = sj_test_evaluate (repl, "s(\"bd sd\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));

  sj_test_spin_until (requested, (gpointer)BD_FILE, "the bd download");
  sj_test_spin_until (requested, (gpointer)SD_FILE, "the sd download");
  /* superdough decoded them: it says so when a sample has loaded (its
   * label is the sound, its index and n: "bd:0:0"). */
  sj_test_spin_until (console_has, (gpointer)"load sound \"bd:0:0\"... done!", "bd to be loaded");
  sj_test_spin_until (console_has, (gpointer)"load sound \"sd:0:0\"... done!", "sd to be loaded");
  sj_test_spin_until (sj_test_progressed, &progress, "the scheduler to play on");

  g_assert_true (g_file_test (bd_cached, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (sd_cached, G_FILE_TEST_IS_REGULAR));
  /* Every note after the first plays from the page's own buffer, and each
   * file was fetched once. */
  g_assert_cmpuint (requests_for (BD_FILE), ==, 1);
  g_assert_cmpuint (requests_for (SD_FILE), ==, 1);
  g_assert_null (sj_repl_get_external_requests (repl)[0]);
  g_assert_false (console_has ((gpointer)"could not be downloaded"));

  /* The dry-run of the same code names the files the page fetched. */
  sj_dry_run_start (dry_run);
  report = sj_dry_run_run_sync (dry_run, "s(\"bd sd\")", 1, 0, SJ_DRY_RUN_FLAGS_NONE, NULL, &error);
  g_assert_no_error (error);
  uses = json_object_get_array_member (report, "sampleUses");
  g_assert_cmpuint (json_array_get_length (uses), ==, 2);
  for (guint i = 0; i < json_array_get_length (uses); i++)
    {
      JsonObject *use = json_array_get_object_element (uses, i);
      g_autofree char *path = g_strdup_printf ("/%s/%s", json_object_get_string_member (use, "pack"),
                                               json_object_get_string_member (use, "path"));

      g_assert_cmpuint (requests_for (path), ==, 1);
    }
}

/* A file the host does not have, and downloads switched off: one line each
 * in the Console, and the music goes on. */
static void
test_missing_sounds_are_one_console_line (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *text = NULL;
  g_autofree char *casio_cached = cache_path ("dirt-samples/casio/high.wav");
  Progress progress = { repl, 0, 0 };
  const char *line;

  outcome = sj_test_evaluate (repl, "s(\"bd crow\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (requested, (gpointer)"/dirt-samples/crow/000_crow.wav", "the crow download");
  sj_test_spin_until (console_has, (gpointer)"crow:0 could not be downloaded: the server answered 404",
                      "the console line for crow");

  g_settings_set_boolean (settings, "download-sounds", FALSE);
  g_clear_pointer (&outcome, json_object_unref);
  outcome = sj_test_evaluate (repl, "s(\"bd casio\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (console_has, (gpointer)"casio:0 is not downloaded and the app is offline",
                      "the console line for casio");
  g_assert_cmpuint (requests_for ("/dirt-samples/casio/high.wav"), ==, 0);
  g_assert_false (g_file_test (casio_cached, G_FILE_TEST_EXISTS));

  /* The music goes on, bd included. */
  progress.cycle = sj_repl_get_state (repl)->cycle + 2;
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_spin_until (sj_test_progressed, &progress, "the music to go on");
  g_assert_true (sj_repl_get_state (repl)->playing);

  /* Each failure is said once, however often the note plays. */
  text = sj_console_page_dup_text (_sj_window_get_console_page (window));
  line = strstr (text, "crow:0 could not be downloaded");
  g_assert_null (strstr (line + 1, "crow:0 could not be downloaded"));
  line = strstr (text, "casio:0 is not downloaded");
  g_assert_null (strstr (line + 1, "casio:0 is not downloaded"));

  g_settings_set_boolean (settings, "download-sounds", TRUE);
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autofree char *url = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  url = server_start ();
  g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);
  sj_test_app_start ();

  g_test_add_func ("/sounds/page-registers-the-library", test_page_registers_the_library);
  g_test_add_func ("/sounds/samples-play-through-the-cache", test_samples_play_through_the_cache);
  g_test_add_func ("/sounds/missing-sounds-are-one-console-line", test_missing_sounds_are_one_console_line);

  ret = g_test_run ();

  sj_test_app_stop ();
  soup_server_disconnect (server);
  g_clear_object (&server);
  g_clear_pointer (&requests, g_hash_table_unref);
  sj_test_remove_tree (home);

  return ret;
}
