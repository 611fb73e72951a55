/* test-remote-sounds.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * samples() in the musician's code, in the real window under Xvfb with
 * private XDG directories: samples('github:user/repo'),
 * samples('https://host/strudel.json') and samples({…}, 'https://host/base/')
 * go through the app's strudel-jam://remote/ scheme, the native side
 * downloads each map and file once (from a loopback server standing in for
 * raw.githubusercontent.com and the other hosts, through
 * STRUDEL_JAM_REMOTE_URL) and the page plays them; nothing leaves the
 * scheme. The dry-run reports a map's sounds as loading until the map has
 * been fetched, and knows them after. A map too deep, too large or not
 * JSON, a host that drops the connection, a file outside its host and a
 * map that cannot be had offline are one Console line each; an agent
 * change that needs such a map is SOUND_UNAVAILABLE. With the host gone, a
 * new run of the app (a new process) plays everything from the cache.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "sj-application-private.h"
#include "sj-change-applier.h"
#include "sj-console-page.h"
#include "sj-dry-run.h"
#include "sj-dry-run-report.h"
#include "sj-repl-private.h"
#include "sj-sound-cache-private.h"
#include "sj-test-app.h"
#include "sj-window-private.h"
#include "sj-test-samples.h"

#define GITHUB "/raw.githubusercontent.com/user/repo/main/"

static SoupServer *server;
static GHashTable *requests;   /* decoded path → count */

static char *
make_deep (void)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < 50000; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 50000; i++)
    g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

static char *
make_huge (void)
{
  GString *text = g_string_new ("{\"big\": [");

  for (guint i = 0; text->len < 3 * 1024 * 1024; i++)
    g_string_append_printf (text, "%s\"file-%08u.wav\"", i > 0 ? "," : "", i);
  g_string_append (text, "]}");
  return g_string_free (text, FALSE);
}

/* A host that drops the connection: before it answers, or (@announced
 * set) after the headers and part of the body it announced. */
static void
drop_connection (SoupServerMessage *msg,
                 const char        *announced)
{
  g_autoptr(GIOStream) stream = soup_server_message_steal_connection (msg);

  if (announced != NULL)
    {
      g_autofree char *head = g_strdup_printf ("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n%s", announced);

      g_output_stream_write_all (g_io_stream_get_output_stream (stream), head, strlen (head), NULL, NULL, NULL);
    }
  g_io_stream_close (stream, NULL, NULL);
}

/* The hosts: a user's repository on GitHub, and host.test with a pack, a
 * map too deep and one too large. Every .wav is the same short tone. */
static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  g_autofree char *text = NULL;

  g_hash_table_replace (requests, g_strdup (path),
                        GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (requests, path)) + 1));

  if (g_str_equal (path, GITHUB "strudel.json"))
    text = g_strdup ("{\"_base\": \"https://raw.githubusercontent.com/user/repo/main/\","
                     " \"ghkick\": [\"kick/a.wav\", \"kick/b.wav\"], \"ghsnare\": \"snare/x y.wav\"}");
  else if (g_str_equal (path, "/host.test/evil/strudel.json"))
    /* File names that climb out of the map's folder, and a base that would
     * climb out of the host's. */
    text = g_strdup ("{\"_base\": \"https://host.test/evil/\","
                     " \"evilup\": [\"../../../../../../../../../../tmp/evil.wav\"],"
                     " \"evilaway\": {\"_base\": \"https://../\", \"c4\": \"etc/away.wav\"}}");
  else if (g_str_has_suffix (path, "/strudel.json") && g_str_has_prefix (path, "/host.test/"))
    {
      g_autofree char *folder = g_strndup (path + strlen ("/host.test/"),
                                           strlen (path) - strlen ("/host.test/") - strlen ("/strudel.json"));

      text = g_strdup_printf ("{\"_base\": \"https://host.test/%s/\", \"%sbell\": [\"bell.wav\"]}", folder, folder);
    }
  else if (g_str_equal (path, "/host.test/deep.json"))
    text = make_deep ();
  else if (g_str_equal (path, "/host.test/huge.json"))
    text = make_huge ();
  else if (g_str_equal (path, "/host.test/page.json"))
    text = g_strdup ("<!DOCTYPE html><html><body>Moved</body></html>");
  else if (g_str_has_prefix (path, "/host.test/drop."))
    {
      drop_connection (msg, NULL);
      return;
    }
  else if (g_str_has_prefix (path, "/host.test/cut."))
    {
      drop_connection (msg, "RIFF");
      return;
    }

  if (text != NULL)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (headers, "application/json", NULL);
      soup_message_body_append (body, SOUP_MEMORY_COPY, text, strlen (text));
    }
  else if (g_str_has_suffix (path, ".wav"))
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (headers, "audio/wav", NULL);
      soup_message_body_append_bytes (body, sj_test_samples_make_wav (800));
    }
  else
    soup_server_message_set_status (msg, 404, NULL);
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
console_has (gpointer data)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));

  return strstr (text, data) != NULL;
}

static guint
console_count (const char *line)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));
  guint n = 0;

  for (const char *at = strstr (text, line); at != NULL; at = strstr (at + 1, line))
    n++;
  return n;
}

static gboolean
cached (const char *relative)
{
  g_autofree char *path = g_build_filename (g_get_user_cache_dir (), "strudel-jam", "sounds", "remote", "https", relative, NULL);

  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static JsonObject *
dry_run_report (const char *code)
{
  SjDryRun *dry_run = sj_test_current_window ()->dry_run;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) raw = NULL;
  g_autoptr(GError) error = NULL;

  sj_dry_run_run_async (dry_run, code, 1, 0, NULL, sj_test_store_result_cb, &result);
  raw = sj_dry_run_run_finish (dry_run, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);

  return sj_dry_run_report (raw, sj_application_get_knowledge (sj_test_app));
}

static gboolean
array_has (JsonArray  *array,
           const char *name)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      const char *text = JSON_NODE_HOLDS_OBJECT (node)
                           ? json_object_get_string_member (json_node_get_object (node), "name")
                           : json_node_get_string (node);

      if (g_strcmp0 (text, name) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
assert_nothing_left_our_scheme (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_current_window ());

  g_assert_null (_sj_repl_get_external_requests (repl)[0]);
}

static void
stop_music (void)
{
  SjWindow *window = sj_test_current_window ();

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, _sj_window_get_repl (window), "playback to stop");
}

static SjChangeResult *
apply_code (const char *code)
{
  SjWindow *window = sj_test_current_window ();
  SjChangeApplier *applier = sj_window_get_applier (window);
  g_autofree char *current = sj_test_fetch_code (_sj_window_get_repl (window));
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
array_has_name (GPtrArray  *names,
                const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (g_str_equal (((SjChangeUnknownName *) g_ptr_array_index (names, i))->name, name))
      return TRUE;
  return FALSE;
}

static gboolean
strv_has (GStrv       strv,
          const char *text)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, text);
}

static void
evaluate (const char *code)
{
  g_autoptr(JsonObject) outcome = sj_test_evaluate (_sj_window_get_repl (sj_test_current_window ()), code);

  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
}

/* Code whose map cannot be had fails as in Strudel: with the app's
 * sentence, and the music plays on unchanged. */
static void
evaluate_fails (const char *code,
                const char *message)
{
  g_autoptr(JsonObject) outcome = sj_test_evaluate (_sj_window_get_repl (sj_test_current_window ()), code);
  JsonObject *error;

  g_assert_false (json_object_get_boolean_member (outcome, "ok"));
  error = json_object_get_object_member (outcome, "error");
  g_assert_nonnull (strstr (json_object_get_string_member (error, "message"), message));
  sj_test_spin_until (console_has, (gpointer)message, "the Console line");
}

#define GITHUB_CODE "samples('github:user/repo')\ns(\"ghkick ghkick:1 ghsnare\")"

/* Before the map was ever fetched, the dry-run cannot know what it
 * registers: its sounds are loading, not unknown. */
static void
test_dry_run_before_the_map (void)
{
  g_autoptr(JsonObject) report = NULL;

  sj_test_open_window ();
  report = dry_run_report (GITHUB_CODE);
  g_assert_true (json_object_get_boolean_member (report, "ok"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "unknownSounds")), ==, 0);
  g_assert_true (array_has (json_object_get_array_member (report, "loadingSounds"), "ghkick"));
  g_assert_true (array_has (json_object_get_array_member (report, "loadingSounds"), "ghsnare"));
  g_assert_cmpuint (g_hash_table_size (requests), ==, 0);
}

/* samples('github:user/repo'): the map and each file downloaded once through
 * our scheme, kept, decoded and played; afterwards the dry-run knows the
 * map's sounds, and the knowledge says they are cached. */
static void
test_github_map_plays (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_current_window ());
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(JsonNode) answer = NULL;
  Progress progress = { repl, 2, 0 };
  JsonObject *item;

  evaluate (GITHUB_CODE);
  sj_test_spin_until (console_has, (gpointer)"load sound \"ghkick:0:0\"... done!", "ghkick to be loaded");
  sj_test_spin_until (console_has, (gpointer)"load sound \"ghkick:1:0\"... done!", "ghkick:1 to be loaded");
  sj_test_spin_until (console_has, (gpointer)"load sound \"ghsnare:0:0\"... done!", "ghsnare to be loaded");
  sj_test_spin_until (sj_test_progressed, &progress, "the scheduler to play on");

  g_assert_cmpuint (requests_for (GITHUB "strudel.json"), ==, 1);
  g_assert_cmpuint (requests_for (GITHUB "kick/a.wav"), ==, 1);
  g_assert_cmpuint (requests_for (GITHUB "kick/b.wav"), ==, 1);
  g_assert_cmpuint (requests_for (GITHUB "snare/x y.wav"), ==, 1);
  g_assert_true (cached ("raw.githubusercontent.com/user/repo/main/strudel.json"));
  g_assert_true (cached ("raw.githubusercontent.com/user/repo/main/snare/x y.wav"));
  g_assert_false (console_has ((gpointer)"took too long"));
  g_assert_false (console_has ((gpointer)"could not"));
  assert_nothing_left_our_scheme ();

  report = dry_run_report ("samples('github:user/repo')\ns(\"ghkick nosuch\")");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "loadingSounds")), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "unknownSounds")), ==, 1);
  g_assert_true (array_has (json_object_get_array_member (report, "unknownSounds"), "nosuch"));

  answer = sj_knowledge_query (sj_application_get_knowledge (sj_test_app), "sounds:ghkick");
  g_assert_true (json_object_get_boolean_member (json_node_get_object (answer), "ok"));
  item = json_array_get_object_element (json_object_get_array_member (json_node_get_object (answer), "items"), 0);
  g_assert_cmpstr (json_object_get_string_member (item, "name"), ==, "ghkick");
  g_assert_cmpstr (json_object_get_string_member (item, "availability"), ==, "cached");
  g_assert_cmpint (json_object_get_int_member (item, "cachedFiles"), ==, 2);

  stop_music ();
}

/* samples('https://host/strudel.json') and samples({…}, 'https://host/base/'):
 * the same way, and an agent change loading a map nobody fetched yet goes
 * ahead and waits for it. */
static void
test_url_and_inline_maps_play (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_current_window ());
  g_autoptr(SjChangeResult) result = NULL;
  Progress progress = { repl, 0, 0 };

  evaluate ("samples('https://host.test/pack/strudel.json')\n"
            "samples({hostclap: ['clap.wav']}, 'https://host.test/base/')\n"
            "s(\"packbell hostclap\")");
  sj_test_spin_until (console_has, (gpointer)"load sound \"packbell:0:0\"... done!", "packbell to be loaded");
  sj_test_spin_until (console_has, (gpointer)"load sound \"hostclap:0:0\"... done!", "hostclap to be loaded");
  g_assert_cmpuint (requests_for ("/host.test/pack/strudel.json"), ==, 1);
  g_assert_cmpuint (requests_for ("/host.test/pack/bell.wav"), ==, 1);
  g_assert_cmpuint (requests_for ("/host.test/base/clap.wav"), ==, 1);
  g_assert_true (cached ("host.test/base/clap.wav"));

  result = apply_code ("samples('https://host.test/new/strudel.json')\ns(\"newbell*2\")");
  g_assert_cmpint (result->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (strv_has (result->dry_run.loading_sounds, "newbell"));
  g_assert_true (strv_has (result->sounds.loading, "newbell"));
  g_assert_true (result->sounds.failed == NULL || result->sounds.failed[0] == NULL);
  progress.cycle = result->apply_at_cycle + 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the change to play");
  g_assert_cmpuint (requests_for ("/host.test/new/strudel.json"), ==, 1);
  g_assert_cmpuint (requests_for ("/host.test/new/bell.wav"), ==, 1);
  g_assert_false (console_has ((gpointer)"took too long"));
  assert_nothing_left_our_scheme ();
  stop_music ();
}

/* A map too deep or too large is refused with one Console line, and the
 * music plays on. */
static void
test_refused_maps (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_current_window ());
  Progress progress = { repl, 0, 0 };

  evaluate ("note(\"c3\").s(\"triangle\").gain(0)");
  evaluate_fails ("samples('https://host.test/deep.json')\nnote(\"c3\").s(\"sine\").gain(0)",
                  "The sample map https://host.test/deep.json could not be loaded: it is nested more than 16 levels deep");
  evaluate_fails ("samples('https://host.test/huge.json')\nnote(\"c3\").s(\"sine\").gain(0)",
                  "The sample map https://host.test/huge.json could not be loaded: the file is larger than 2.0\302\240MiB");
  g_assert_cmpuint (console_count ("Evaluation failed: The sample map https://host.test/deep.json"), ==, 1);
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_spin_until (sj_test_progressed, &progress, "the music to go on");
  g_assert_false (cached ("host.test/deep.json"));
  g_assert_false (cached ("host.test/huge.json"));
  assert_nothing_left_our_scheme ();
  stop_music ();
}

/* What a host can do wrong: a map that is HTML, a connection dropped
 * before the map or halfway through a file, file names that climb out of
 * the map's folder or its host. Each is a clear Console line; the music
 * plays on, the code stays in the editor as written, and nothing is kept
 * but inside the cache. */
static void
test_bad_hosts (void)
{
  SjWindow *window = sj_test_current_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autofree char *after = NULL;
  Progress progress = { repl, 0, 0 };

  /* A dropped connection is retried: quickly here. */
  _sj_sound_cache_set_retry_delay (sj_application_get_sound_cache (sj_test_app), 10, 2);
  evaluate ("note(\"c3\").s(\"triangle\").gain(0)");

  evaluate_fails ("samples('https://host.test/page.json')\nnote(\"c3\").s(\"sine\").gain(0)",
                  "The sample map https://host.test/page.json could not be loaded: it is not valid JSON: "
                  "<data>:1:1: Parse error: unexpected character `<', expected value");
  evaluate_fails ("samples('https://host.test/drop.json')\nnote(\"c3\").s(\"sine\").gain(0)",
                  "The sample map https://host.test/drop.json could not be loaded: "
                  "the server closed the connection without answering");
  g_assert_false (cached ("host.test/page.json"));
  g_assert_false (cached ("host.test/drop.json"));
  /* The musician's code stays as written, to be fixed. */
  after = sj_test_fetch_code (repl);
  g_assert_cmpstr (after, ==, "samples('https://host.test/drop.json')\nnote(\"c3\").s(\"sine\").gain(0)");

  /* The inline form's file cut short: one line, the rest plays. */
  evaluate ("samples({cutwav: ['cut.wav']}, 'https://host.test/')\n"
            "samples('https://host.test/evil/strudel.json')\n"
            "s(\"cutwav evilup evilaway\").gain(0)");
  sj_test_spin_until (console_has, (gpointer)"https://host.test/cut.wav could not be downloaded: "
                                             "the server sent less than it announced", "the cut file's line");
  sj_test_spin_until (console_has, (gpointer)"load sound \"evilup:0:0\"... done!", "evilup to be loaded");
  progress.cycle = sj_repl_get_state (repl)->cycle + 2;
  sj_test_spin_until (sj_test_progressed, &progress, "the music to go on");
  sj_test_spin_until (console_has, (gpointer)"evilaway:0 could not be downloaded: "
                                             "https://../etc/away.wav is not an http or https address of a file",
                      "the line of the file outside the host");
  g_assert_cmpuint (console_count ("https://host.test/cut.wav could not be downloaded"), ==, 1);
  g_assert_false (cached ("host.test/cut.wav"));
  g_assert_true (cached ("host.test/tmp/evil.wav"));
  g_assert_cmpuint (requests_for ("/host.test/tmp/evil.wav"), ==, 1);
  g_assert_cmpuint (requests_for ("/etc/away.wav"), ==, 0);
  g_assert_cmpuint (requests_for ("/../etc/away.wav"), ==, 0);

  assert_nothing_left_our_scheme ();
  _sj_sound_cache_set_retry_delay (sj_application_get_sound_cache (sj_test_app), 1000, 3);
  stop_music ();
}

/* Downloads off: a map that is not cached is one clear line, and an agent
 * change that needs it is SOUND_UNAVAILABLE; the cached map plays. */
static void
test_offline (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_current_window ());
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(SjChangeResult) rejected = NULL;
  g_autoptr(SjChangeResult) cached_change = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  Progress progress = { repl, 0, 0 };

  g_settings_set_boolean (settings, "download-sounds", FALSE);
  evaluate ("note(\"c3\").s(\"triangle\").gain(0)");
  evaluate_fails ("samples('https://host.test/other/strudel.json')\nnote(\"c3\").s(\"sine\").gain(0)",
                  "The sample map https://host.test/other/strudel.json is not downloaded and the app is offline "
                  "(“Download sounds when first played” is off)");
  g_assert_cmpuint (requests_for ("/host.test/other/strudel.json"), ==, 0);

  before = sj_test_fetch_code (repl);
  rejected = apply_code ("samples('https://host.test/other/strudel.json')\ns(\"otherbell\")");
  g_assert_cmpint (rejected->status, ==, SJ_CHANGE_STATUS_REJECTED);
  g_assert_cmpint (rejected->rejection, ==, SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE);
  g_assert_true (array_has_name (rejected->unavailable_sounds, "otherbell"));
  after = sj_test_fetch_code (repl);
  g_assert_cmpstr (after, ==, before);

  /* The map fetched before plays from the cache. */
  cached_change = apply_code ("samples('github:user/repo')\ns(\"ghkick ghsnare\")");
  g_assert_cmpint (cached_change->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (strv_has (cached_change->sounds.ready, "ghkick"));
  g_assert_true (strv_has (cached_change->sounds.ready, "ghsnare"));
  progress.cycle = cached_change->apply_at_cycle + 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the cached map to play");
  g_assert_cmpuint (requests_for (GITHUB "strudel.json"), ==, 1);

  g_settings_set_boolean (settings, "download-sounds", TRUE);
  assert_nothing_left_our_scheme ();
  stop_music ();
}

/* In a new process with the same XDG folders, the host down: every map
 * and file the code loads plays from the cache, the dry-run knows the
 * maps' sounds before the page loads them, and nothing leaves our scheme.
 * Any request would have failed, and said so in the Console. */
static void
replay_from_the_cache (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) report = NULL;
  Progress progress = { repl, 1, 0 };

  report = dry_run_report ("samples('github:user/repo')\ns(\"ghkick ghsnare\")");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "loadingSounds")), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "unknownSounds")), ==, 0);

  evaluate ("samples('github:user/repo')\n"
            "samples('https://host.test/pack/strudel.json')\n"
            "samples({hostclap: ['clap.wav']}, 'https://host.test/base/')\n"
            "s(\"ghkick ghsnare packbell hostclap\")");
  sj_test_spin_until (console_has, (gpointer)"load sound \"ghsnare:0:0\"... done!", "ghsnare from the cache");
  sj_test_spin_until (console_has, (gpointer)"load sound \"packbell:0:0\"... done!", "packbell from the cache");
  sj_test_spin_until (console_has, (gpointer)"load sound \"hostclap:0:0\"... done!", "hostclap from the cache");
  sj_test_spin_until (sj_test_progressed, &progress, "the music to play");
  g_assert_cmpuint (console_count ("could not"), ==, 0);
  g_assert_cmpuint (console_count ("is not downloaded"), ==, 0);
  g_assert_cmpuint (console_count ("Decoding failed"), ==, 0);
  assert_nothing_left_our_scheme ();
  stop_music ();
}

/* The host gone and the app quit: a new run plays from the cache. */
static void
test_restart_plays_from_the_cache (void)
{
  if (g_test_subprocess ())
    {
      replay_from_the_cache ();
      return;
    }

  soup_server_disconnect (server);
  g_clear_object (&server);
  sj_test_close_window (sj_test_current_window ());
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autofree char *url = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* A new run (restart-plays-from-the-cache) keeps the first one's
   * folders, and its hosts, which are gone by then. */
  if (!g_test_subprocess ())
    {
      home = sj_test_app_init ();
      url = server_start ();
      g_setenv ("STRUDEL_JAM_REMOTE_URL", url, TRUE);
      /* The sound library's hosts are not needed: nothing here plays them. */
      g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);
    }
  else
    sj_application_prepare_env ();
  sj_test_app_start ();

  g_test_add_func ("/remote-sounds/dry-run-before-the-map", test_dry_run_before_the_map);
  g_test_add_func ("/remote-sounds/github-map-plays", test_github_map_plays);
  g_test_add_func ("/remote-sounds/url-and-inline-maps-play", test_url_and_inline_maps_play);
  g_test_add_func ("/remote-sounds/refused-maps", test_refused_maps);
  g_test_add_func ("/remote-sounds/bad-hosts", test_bad_hosts);
  g_test_add_func ("/remote-sounds/offline", test_offline);
  g_test_add_func ("/remote-sounds/restart-plays-from-the-cache", test_restart_plays_from_the_cache);

  ret = g_test_run ();

  sj_test_app_stop ();
  if (server != NULL)
    soup_server_disconnect (server);
  g_clear_object (&server);
  g_clear_pointer (&requests, g_hash_table_unref);
  if (home != NULL)
    sj_test_remove_tree (home);

  return ret;
}
