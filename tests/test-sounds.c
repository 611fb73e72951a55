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
 * the Console, and the music goes on. A sound whose download fails (the
 * piano's host answers a captive portal's page) is refused before the
 * agent's change lands (SOUND_UNAVAILABLE, once, with why), is never
 * decoded, and playing it by hand is one Console line, not one a note.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <math.h>
#include <signal.h>

#include "sj-change-applier.h"
#include "sj-dry-run.h"
#include "sj-console-page.h"
#include "sj-repl-private.h"
#include "sj-application-private.h"
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

/* Dirt-Samples' insect and numbers, and the soundfonts, answer this late,
 * as from a far-away host. */
#define SLOW_PREFIX  "/dirt-samples/insect/"
#define SLOW_PREFIX2 "/dirt-samples/numbers/"
#define SLOW_MS      1500

static void
answer_late (gpointer data)
{
  soup_server_message_unpause (data);
  g_object_unref (data);
}

/* The sample host: every file is a WAV, except Dirt-Samples' crow, which
 * is missing (404); insect comes late. */
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
  if (g_str_has_prefix (path, "/dirt-samples/metal/"))
    {
      /* A WAV's first bytes and nothing a decoder can read after them:
       * the cache takes it for a sound, the page cannot decode it. */
      static const char broken[] = "RIFF\x40\0\0\0WAVEjunk\x20\0\0\0this is not a format chunk at all";

      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "audio/wav", NULL);
      soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC, broken,
                                sizeof broken - 1);
      return;
    }
  if (g_str_has_prefix (path, "/piano/"))
    {
      static const char portal[] = "<!DOCTYPE html><html><body>Sign in to the network</body></html>";

      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "text/html", NULL);
      soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC, portal,
                                strlen (portal));
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  if (g_str_has_prefix (path, "/soundfonts/"))
    {
      /* A WebAudioFont preset as the soundfonts package reads it: one zone
       * over the whole keyboard, its sound the same short WAV. */
      g_autofree char *base64 = g_base64_encode (g_bytes_get_data (wav, NULL), g_bytes_get_size (wav));
      g_autofree char *font = g_strdup_printf ("var _tone_test={zones:[{keyRangeLow:0,keyRangeHigh:127,"
                                               "originalPitch:6000,coarseTune:0,fineTune:0,loopStart:0,"
                                               "loopEnd:0,sampleRate:8000,file:'%s'}]};", base64);

      soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "text/javascript", NULL);
      soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_COPY, font, strlen (font));
    }
  else
    {
      soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "audio/wav", NULL);
      soup_message_body_append_bytes (soup_server_message_get_response_body (msg), wav);
    }
  if (g_str_has_prefix (path, SLOW_PREFIX) || g_str_has_prefix (path, SLOW_PREFIX2) ||
      g_str_has_prefix (path, "/soundfonts/"))
    {
      soup_server_message_pause (msg);
      g_timeout_add_once (SLOW_MS, answer_late, g_object_ref (msg));
    }
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

static guint
n_requests_with_prefix (const char *prefix)
{
  GHashTableIter iter;
  gpointer path, count;
  guint n = 0;

  g_hash_table_iter_init (&iter, requests);
  while (g_hash_table_iter_next (&iter, &path, &count))
    if (g_str_has_prefix (path, prefix))
      n += GPOINTER_TO_UINT (count);
  return n;
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
  SjSoundsIndex *sounds = _sj_application_get_sounds (sj_test_app);
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
  g_assert_null (_sj_repl_get_external_requests (repl)[0]);
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
  g_assert_null (_sj_repl_get_external_requests (repl)[0]);
  g_assert_false (console_has ((gpointer)"could not be downloaded"));
  /* The musician's own evaluation waited for its sounds too: superdough
   * never had to drop a note whose sample was still loading. */
  g_assert_false (console_has ((gpointer)"took too long"));

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

static SjChangeResult *
apply_code (SjChangeApplier *applier,
            SjRepl          *repl,
            const char      *code)
{
  g_autofree char *current = sj_test_fetch_code (repl);
  g_autofree char *hash = sj_code_hash (current);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) input = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *slot = NULL;
  SjChangeResult *result;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "baseHash");
  json_builder_add_string_value (builder, hash);
  json_builder_set_member_name (builder, "change");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "kind");
  json_builder_add_string_value (builder, "full_code");
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, code);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  input = json_builder_get_root (builder);

  sj_change_applier_apply_async (applier, input, "agent", NULL, sj_test_store_result_cb, &slot);
  result = sj_change_applier_apply_finish (applier, sj_test_wait_result (&slot), &error);
  g_assert_no_error (error);
  g_clear_object (&slot);

  return result;
}

static gboolean
strv_has (GStrv       strv,
          const char *text)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, text);
}

static gboolean
cycle_reached (gpointer data)
{
  Progress *progress = data;

  return sj_repl_get_state (progress->repl)->cycle >= progress->cycle;
}

/* The agent brings in a sample nobody has loaded, from a slow host: the
 * change waits for it (the old music plays on meanwhile), says it had to
 * load, and lands on the first boundary after: the new sample's first
 * onset is exactly there, and superdough drops none of its notes. */
static void
test_apply_waits_for_its_sounds (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(SjChangeResult) result = NULL;
  g_autoptr(JsonNode) recorded = NULL;
  g_autoptr(JsonObject) json = NULL;
  Progress progress = { repl, 0, 0 };
  JsonArray *events;
  double first_insect = -1, cycle_at_request;
  gint64 asked;
  guint insects = 0;

  outcome = sj_test_evaluate (repl, "note(\"c3 e3\").s(\"triangle\").gain(0.3)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = 1;
  sj_test_spin_until (cycle_reached, &progress, "the music to play");
  g_clear_pointer (&recorded, json_node_unref);
  recorded = sj_test_call_js (repl, "return sjBridge.recordEvents(true);");

  cycle_at_request = sj_repl_get_state (repl)->cycle;
  asked = g_get_monotonic_time ();
  result = apply_code (applier, repl, "stack(note(\"c3 e3\").s(\"triangle\").gain(0.3), s(\"insect*4\"))");

  g_assert_cmpint (result->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (strv_has (result->sounds.loading, "insect:0"));
  g_assert_false (strv_has (result->sounds.ready, "insect:0"));
  /* It waited for the slow host before choosing its boundary. */
  g_assert_cmpint (g_get_monotonic_time () - asked, >=, (SLOW_MS - 100) * 1000);
  g_assert_cmpfloat (result->apply_at_cycle, >, cycle_at_request + SLOW_MS / 1000.0 * sj_repl_get_state (repl)->cps - 1);
  g_assert_cmpfloat (result->sounds.load_ms, >=, SLOW_MS - 100);
  json = sj_change_result_to_json (result);
  g_assert_true (json_object_has_member (json, "sounds"));

  progress.cycle = result->apply_at_cycle + 2;
  sj_test_spin_until (cycle_reached, &progress, "two cycles after the change");
  recorded = sj_test_call_js (repl, "return sjBridge.takeRecordedEvents();");
  events = json_object_get_array_member (json_node_get_object (recorded), "events");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *event = json_array_get_object_element (events, i);
      JsonObject *value = json_object_get_object_member (event, "value");

      if (g_strcmp0 (json_object_get_string_member_with_default (value, "s", ""), "insect") != 0)
        continue;
      if (first_insect < 0)
        first_insect = json_object_get_double_member (event, "onset");
      insects++;
    }
  g_assert_cmpfloat (first_insect, ==, result->apply_at_cycle);
  g_assert_cmpuint (insects, >=, 8);
  /* Loaded before its first note: superdough never had to drop one. */
  g_assert_true (console_has ((gpointer)"load sound \"insect:0:0\"... done!"));
  g_assert_false (console_has ((gpointer)"took too long"));
  g_clear_pointer (&recorded, json_node_unref);
  recorded = sj_test_call_js (repl, "return sjBridge.recordEvents(false);");
}

/* A soundfont is loaded before its change lands too: the change waits for
 * the slow font, and the result says it loaded it. */
static void
test_soundfont_change_waits_for_its_font (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(SjChangeResult) result = NULL;
  Progress progress = { repl, 0, 0 };
  gint64 asked;

  outcome = sj_test_evaluate (repl, "note(\"c3 e3\").s(\"triangle\").gain(0.3)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 0.5;
  sj_test_spin_until (cycle_reached, &progress, "the music to play");

  asked = g_get_monotonic_time ();
  result = apply_code (applier, repl, "note(\"c3 g3\").s(\"gm_epiano1\")");
  g_assert_cmpint (result->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (strv_has (result->sounds.loading, "gm_epiano1:0"));
  g_assert_cmpint (g_get_monotonic_time () - asked, >=, (SLOW_MS - 100) * 1000);
  g_assert_cmpfloat (result->sounds.load_ms, >=, SLOW_MS - 100);
  g_assert_true (result->sounds.failed == NULL || result->sounds.failed[0] == NULL);
  g_assert_cmpuint (n_requests_with_prefix ("/soundfonts/"), ==, 1);

  progress.cycle = result->apply_at_cycle + 1;
  sj_test_spin_until (cycle_reached, &progress, "the soundfont to play");
}

/* Offline, the agent cannot bring in a sound that is not downloaded: the
 * change is rejected with SOUND_UNAVAILABLE and sounds that do play, and
 * the music and the editor stay as they are. A drum falls back to the
 * kit, and says so. */
static void
test_sound_unavailable_offline (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(SjChangeResult) rejected = NULL;
  g_autoptr(SjChangeResult) kit = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  SjChangeUnknownName *wind;
  Progress progress = { repl, 0, 0 };

  g_clear_pointer (&before, g_free);
  outcome = sj_test_evaluate (repl, "note(\"c3 e3\").s(\"triangle\").gain(0.3)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  before = sj_test_fetch_code (repl);
  g_settings_set_boolean (settings, "download-sounds", FALSE);
  g_assert_true (sj_repl_get_state (repl)->playing);

  rejected = apply_code (applier, repl, "s(\"wind*2\")");
  g_assert_cmpint (rejected->status, ==, SJ_CHANGE_STATUS_REJECTED);
  g_assert_cmpint (rejected->rejection, ==, SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE);
  g_assert_cmpuint (rejected->unavailable_sounds->len, >=, 1);
  wind = g_ptr_array_index (rejected->unavailable_sounds, 0);
  g_assert_true (g_str_has_prefix (wind->name, "wind:"));
  g_assert_nonnull (wind->suggestions);
  g_assert_nonnull (wind->suggestions[0]);
  for (guint i = 0; wind->suggestions[i] != NULL; i++)
    g_assert_cmpint (sj_sound_cache_get_sound_availability (sj_application_get_sound_cache (sj_test_app),
                                                            wind->suggestions[i], NULL),
                     !=, SJ_SOUND_AVAILABILITY_UNAVAILABLE);
  json = sj_change_result_to_json (rejected);
  g_assert_cmpstr (json_object_get_string_member (json, "code"), ==, "SOUND_UNAVAILABLE");
  g_assert_true (json_object_has_member (json, "unavailableSounds"));
  g_assert_cmpuint (requests_for ("/dirt-samples/wind/000_wind1.wav"), ==, 0);
  after = sj_test_fetch_code (repl);
  g_assert_cmpstr (after, ==, before);
  g_assert_true (sj_repl_get_state (repl)->playing);

  /* A drum is the kit's voice, and the change goes ahead. */
  kit = apply_code (applier, repl, "s(\"oh*2\")");
  g_assert_cmpint (kit->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (strv_has (kit->sounds.kit, "oh:0"));
  progress.cycle = kit->apply_at_cycle + 1;
  sj_test_spin_until (cycle_reached, &progress, "the kit's oh to play");
  sj_test_spin_until (console_has, (gpointer)"oh:0 is not downloaded and the app is offline", "the kit's console line");
  g_assert_true (console_has ((gpointer)"the built-in oh plays instead"));

  g_settings_set_boolean (settings, "download-sounds", TRUE);
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static guint
count_in_console (const char *text)
{
  g_autofree char *console = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));
  guint n = 0;

  for (const char *at = strstr (console, text); at != NULL; at = strstr (at + 1, text))
    n++;
  return n;
}

/* Issue 29: offline in effect (the piano's host answers a captive portal's
 * page for every file), the agent's change to the piano is refused before
 * anything changes: SOUND_UNAVAILABLE naming piano:0 once (not once per
 * note), with the page's reason. The page never decodes the portal's page
 * (the cache refuses it, and the page's fetch() refuses an error answer),
 * and the piano played by hand is one Console line, however many notes. */
static void
test_failed_download_refused (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(SjChangeResult) refused = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonNode) fetched = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  SjChangeUnknownName *piano;
  JsonArray *unavailable;
  Progress progress = { repl, 0, 0 };

  outcome = sj_test_evaluate (repl, "note(\"c3 e3\").s(\"triangle\").gain(0.3)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 0.5;
  sj_test_spin_until (cycle_reached, &progress, "the music to play");
  before = sj_test_fetch_code (repl);

  refused = apply_code (applier, repl, "note(\"c e g\").s(\"piano\")");
  g_assert_cmpint (refused->status, ==, SJ_CHANGE_STATUS_REJECTED);
  g_assert_cmpint (refused->rejection, ==, SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE);
  g_assert_cmpint (refused->phase, ==, SJ_CHANGE_PHASE_SOUNDS);
  /* Three notes, three files, one sound. */
  g_assert_cmpuint (refused->unavailable_sounds->len, ==, 1);
  piano = g_ptr_array_index (refused->unavailable_sounds, 0);
  g_assert_cmpstr (piano->name, ==, "piano:0");
  g_assert_nonnull (piano->reason);
  g_test_message ("piano:0: %s", piano->reason);
  g_assert_nonnull (strstr (piano->reason, "not a sound"));
  g_assert_nonnull (piano->suggestions);
  g_assert_nonnull (piano->suggestions[0]);
  g_assert_nonnull (strstr (sj_change_result_get_message (refused), "piano:0"));
  json = sj_change_result_to_json (refused);
  g_assert_cmpstr (json_object_get_string_member (json, "status"), ==, "rejected");
  g_assert_cmpstr (json_object_get_string_member (json, "code"), ==, "SOUND_UNAVAILABLE");
  unavailable = json_object_get_array_member (json, "unavailableSounds");
  g_assert_cmpuint (json_array_get_length (unavailable), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (unavailable, 0), "reason"), ==,
                   piano->reason);

  /* Nothing changed: the editor, the music. */
  after = sj_test_fetch_code (repl);
  g_assert_cmpstr (after, ==, before);
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_spin_until (sj_test_progressed, &progress, "the old music to go on");

  /* The page's fetch() refuses the cache's error answer, with its reason. */
  fetched = sj_test_call_js (repl, "return await fetch('strudel-jam://sounds/piano/C4v8.mp3')"
                                   ".then((r) => ({ok: r.ok, status: r.status}), "
                                   "(e) => ({error: e.name, message: e.message}));");
  g_assert_cmpstr (json_object_get_string_member_with_default (json_node_get_object (fetched), "error", ""), ==,
                   "SoundUnavailableError");

  /* By hand: the notes play (silently) for three cycles, one line said. */
  g_clear_pointer (&outcome, json_object_unref);
  outcome = sj_test_evaluate (repl, "note(\"c e g\").fast(2).s(\"piano\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 3;
  sj_test_spin_until (cycle_reached, &progress, "three cycles of the piano");
  /* One line: the cache's, which the page does not repeat. */
  g_assert_cmpuint (count_in_console ("could not be downloaded: the server sent an HTML page"), ==, 1);
  g_assert_cmpuint (count_in_console ("piano:0 is unavailable"), ==, 0);
  g_assert_cmpuint (count_in_console ("[getTrigger] error"), ==, 0);
  g_assert_cmpuint (count_in_console ("Decoding failed"), ==, 0);
  /* Nothing but a sound is decoded: no "loaded 74 B" of the portal's page. */
  g_assert_cmpuint (count_in_console ("piano:0:0\"... done!"), ==, 0);
  g_assert_cmpuint (count_in_console ("piano:0\"... done!"), ==, 0);

  /* A file that starts like a WAV but cannot be decoded: the page says it,
   * once for all its notes. */
  g_clear_pointer (&outcome, json_object_unref);
  outcome = sj_test_evaluate (repl, "s(\"metal*8\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 3;
  sj_test_spin_until (cycle_reached, &progress, "three cycles of metal");
  g_assert_cmpuint (count_in_console ("metal:0 is unavailable: it is not a sound the page can decode"), ==, 1);
  g_assert_cmpuint (count_in_console ("[getTrigger] error"), ==, 0);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

typedef struct
{
  const char *path;
  gsize       bytes;
} FileSize;

static gboolean
file_has_bytes (gpointer data)
{
  FileSize *size = data;
  GStatBuf st;

  return g_stat (size->path, &st) == 0 && (gsize)st.st_size >= size->bytes;
}

#define RATE     44100
#define CHANNELS 2
#define BLOCK    (RATE / 100)   /* 10 ms */

/* The time (monotonic µs) of the first 10 ms block of @raw (s16le stereo,
 * its last frame recorded at @end_us) louder than @rms, or -1. */
static gint64
first_sound (GBytes *raw,
             gint64  end_us,
             double  rms)
{
  gsize size;
  const gint16 *frames = g_bytes_get_data (raw, &size);
  gsize n = size / (2 * CHANNELS);
  gint64 start_us = end_us - (gint64)(n * G_USEC_PER_SEC / RATE);

  for (gsize block = 0; block + BLOCK <= n; block += BLOCK)
    {
      double sum = 0;

      for (gsize i = block * CHANNELS; i < (block + BLOCK) * CHANNELS; i++)
        {
          double x = GINT16_FROM_LE (frames[i]) / 32768.0;

          sum += x * x;
        }
      if (sqrt (sum / (BLOCK * CHANNELS)) > rms)
        return start_us + (gint64)(block * G_USEC_PER_SEC / RATE);
    }
  return -1;
}

/* Heard, not only scheduled: while silent music plays, the agent brings in
 * a sample from a slow host, and the first sound in the null sink is that
 * sample's first onset, at the change's boundary, not a cycle later. */
static void
test_first_hit_after_a_change_is_audible (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  SjChangeApplier *applier = sj_window_get_applier (window);
  const char *sink = g_getenv ("SJ_TEST_PULSE_SINK");
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(SjChangeResult) result = NULL;
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GBytes) raw = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *device = NULL;
  g_autofree char *file = NULL;
  Progress progress = { repl, 0, 0 };
  FileSize recording;
  gint64 boundary_us, heard_us, end_us;

  if (sink == NULL)
    {
      g_test_skip ("no PulseAudio null sink (run under tests/with-pulse.sh)");
      return;
    }

  outcome = sj_test_evaluate (repl, "note(\"c3\").s(\"triangle\").gain(0)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  sj_test_spin_until (cycle_reached, &progress, "the silent music to play");

  file = g_build_filename (g_get_user_cache_dir (), "first-hit.raw", NULL);
  device = g_strdup_printf ("--device=%s.monitor", sink);
  recorder = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "parecord", "--raw", device, "--format=s16le",
                               "--rate=44100", "--channels=2", "--latency-msec=10", file, NULL);
  g_assert_no_error (error);
  recording.path = file;
  recording.bytes = RATE / 2 * CHANNELS * 2;
  sj_test_spin_until (file_has_bytes, &recording, "half a second of recording");

  result = apply_code (applier, repl, "s(\"numbers\")");
  g_assert_cmpint (result->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (strv_has (result->sounds.loading, "numbers:0"));
  boundary_us = g_get_monotonic_time () + (gint64)(result->apply_in_seconds * G_USEC_PER_SEC);

  progress.cycle = result->apply_at_cycle + 1.5;
  sj_test_spin_until (cycle_reached, &progress, "a cycle and a half after the change");
  g_subprocess_send_signal (recorder, SIGTERM);
  end_us = g_get_monotonic_time ();
  g_subprocess_wait (recorder, NULL, NULL);

  {
    char *contents = NULL;
    gsize length = 0;

    g_assert_true (g_file_get_contents (file, &contents, &length, NULL));
    raw = g_bytes_new_take (contents, length);
  }
  heard_us = first_sound (raw, end_us, 0.02);
  g_test_message ("first sound %.3f s after the boundary", (heard_us - boundary_us) / 1e6);
  g_assert_cmpint (heard_us, >=, 0);
  /* The output's own latency puts it a little after the boundary; a lost
   * first hit would put it a whole cycle (2 s) later. */
  g_assert_cmpint (heard_us - boundary_us, >, -300 * 1000);
  g_assert_cmpint (heard_us - boundary_us, <, 600 * 1000);
  g_assert_false (console_has ((gpointer)"took too long"));

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
  g_test_add_func ("/sounds/apply-waits-for-its-sounds", test_apply_waits_for_its_sounds);
  g_test_add_func ("/sounds/first-hit-after-a-change-is-audible", test_first_hit_after_a_change_is_audible);
  g_test_add_func ("/sounds/soundfont-change-waits-for-its-font", test_soundfont_change_waits_for_its_font);
  g_test_add_func ("/sounds/sound-unavailable-offline", test_sound_unavailable_offline);
  g_test_add_func ("/sounds/failed-download-refused", test_failed_download_refused);

  ret = g_test_run ();

  sj_test_app_stop ();
  soup_server_disconnect (server);
  g_clear_object (&server);
  g_clear_pointer (&requests, g_hash_table_unref);
  sj_test_remove_tree (home);

  return ret;
}
