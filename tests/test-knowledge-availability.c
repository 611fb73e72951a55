/* test-knowledge-availability.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * strudel_knowledge with a real SjSoundCache on a temporary directory:
 * every sound item says how it would play (built in, cached, downloaded on
 * first use, the drum kit's voice, or not at all), "sounds:offline" lists
 * what plays with no network, and the answers follow the cache: a file
 * downloaded (from a loopback server standing in for the sample hosts) or
 * downloads switched off change them at once. Without a cache, the items
 * say nothing of it. The answers stay within the query budget.
 */

#include "config.h"

#include <time.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "sj-knowledge.h"
#include "sj-test-files.h"

#ifdef __SANITIZE_ADDRESS__
# define QUERY_BUDGET (50 * G_TIME_SPAN_MILLISECOND)
#else
# define QUERY_BUDGET (5 * G_TIME_SPAN_MILLISECOND)
#endif

#define BD3  "bd/13_bd_mot4i.wav"
#define CROW "crow/000_crow.wav"

typedef struct
{
  SoupServer    *server;
  char          *dir;
  SjSoundsIndex *sounds;
  SjSoundCache  *cache;
  SjKnowledge   *knowledge;
  guint          changed;
} Fixture;

/* The sample host: a few bytes for every file. */
static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  /* A WAV head, as the cache keeps only bodies that sniff as audio. */
  static const char body[] = "RIFF\x10\0\0\0WAVEnot-really";

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC, body, sizeof body - 1);
}

/* What plays a standard drum that cannot be had; never called here. */
static GBytes *
fake_kit (const char  *voice,
          guint        variant,
          GError     **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "not in this test");
  return NULL;
}

static void
changed_cb (SjKnowledge *knowledge,
            Fixture     *fixture)
{
  fixture->changed++;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GFile) directory = NULL;
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;
  g_autofree char *url = NULL;

  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, server_cb, NULL, NULL);
  g_assert_true (soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (fixture->server);
  url = g_uri_to_string (uris->data);
  g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);

  fixture->dir = g_dir_make_tmp ("sj-knowledge-availability-XXXXXX", NULL);
  directory = g_file_new_for_path (fixture->dir);
  fixture->cache = sj_sound_cache_new (sj_sound_library_get_default (), directory);
  sj_sound_cache_set_fallback (fixture->cache, fake_kit);
  /* Offline until a test says otherwise: nothing is downloaded by accident. */
  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);

  fixture->sounds = sj_sounds_index_new ();
  sj_sounds_index_load_bundled (fixture->sounds);
  fixture->knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), fixture->sounds);
  sj_knowledge_set_sound_cache (fixture->knowledge, fixture->cache);
  g_signal_connect (fixture->knowledge, "availability-changed", G_CALLBACK (changed_cb), fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->knowledge);
  g_clear_object (&fixture->sounds);
  g_clear_object (&fixture->cache);
  soup_server_disconnect (fixture->server);
  g_clear_object (&fixture->server);
  sj_test_remove_tree (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
  g_unsetenv ("STRUDEL_JAM_SOUNDS_URL");
}

/* Puts a file in the cache as a download would have. */
static void
write_cached (Fixture    *fixture,
              const char *pack,
              const char *path,
              const char *contents)
{
  g_autofree char *file = g_build_filename (fixture->dir, pack, path, NULL);
  g_autofree char *parent = g_path_get_dirname (file);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_file_set_contents (file, contents, -1, &error);
  g_assert_no_error (error);
}

static JsonObject *
ask (SjKnowledge *knowledge,
     const char  *query)
{
  g_autoptr(JsonNode) node = sj_knowledge_query (knowledge, query);
  JsonObject *answer = json_node_get_object (node);

  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  return json_object_ref (answer);
}

static JsonObject *
ask_json (SjKnowledge *knowledge,
          const char  *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  node = sj_knowledge_query_json (knowledge, json_parser_get_root (parser));
  answer = json_node_get_object (node);
  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  return json_object_ref (answer);
}

/* The item named @name, or NULL. */
static JsonObject *
find_item (JsonObject *answer,
           const char *name)
{
  JsonArray *items = json_object_get_array_member (answer, "items");

  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *item = json_array_get_object_element (items, i);

      if (g_str_equal (json_object_get_string_member (item, "name"), name))
        return item;
    }
  return NULL;
}

/* The first item of a lookup of @name. */
static JsonObject *
lookup (SjKnowledge *knowledge,
        const char  *name)
{
  g_autofree char *query = g_strdup_printf ("sounds:%s", name);
  g_autoptr(JsonObject) answer = ask (knowledge, query);
  JsonObject *item = find_item (answer, name);

  g_assert_nonnull (item);
  return json_object_ref (item);
}

static void
assert_availability (JsonObject *item,
                     const char *availability,
                     gint64      files,
                     gint64      cached_files)
{
  g_assert_cmpstr (json_object_get_string_member (item, "availability"), ==, availability);
  if (files < 0)
    {
      g_assert_false (json_object_has_member (item, "files"));
      g_assert_false (json_object_has_member (item, "cachedFiles"));
      return;
    }
  g_assert_cmpint (json_object_get_int_member (item, "files"), ==, files);
  g_assert_cmpint (json_object_get_int_member (item, "cachedFiles"), ==, cached_files);
  g_assert_cmpint (json_object_has_member (item, "cachedBytes"), ==, cached_files > 0);
}

/* Every kind of sound, offline and online, and nothing without a cache. */
static void
test_values (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(JsonObject) bd = NULL;
  g_autoptr(JsonObject) sawtooth = NULL;
  g_autoptr(JsonObject) casio = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(SjKnowledge) plain = NULL;

  /* Offline: bd is the kit's, sawtooth is made by the page, casio cannot
   * play. */
  bd = lookup (fixture->knowledge, "bd");
  assert_availability (bd, "kit", 8, 0);
  g_assert_cmpstr (json_object_get_string_member (bd, "kitVoice"), ==, "bd");
  sawtooth = lookup (fixture->knowledge, "sawtooth");
  assert_availability (sawtooth, "built-in", -1, -1);
  casio = lookup (fixture->knowledge, "casio");
  assert_availability (casio, "unavailable", 3, 0);
  answer = ask (fixture->knowledge, "is casio available");
  g_assert_nonnull (strstr (json_object_get_string_member (answer, "answer"), "cannot be downloaded now"));

  /* Online: they download on first use. */
  sj_sound_cache_set_allow_downloads (fixture->cache, TRUE);
  g_assert_cmpuint (fixture->changed, ==, 1);
  g_clear_pointer (&casio, json_object_unref);
  casio = lookup (fixture->knowledge, "casio");
  assert_availability (casio, "download", 3, 0);
  g_clear_pointer (&bd, json_object_unref);
  bd = lookup (fixture->knowledge, "bd");
  assert_availability (bd, "download", 8, 0);

  /* A bank's sound and its alias: the machine's files. */
  g_clear_pointer (&answer, json_object_unref);
  answer = ask (fixture->knowledge, "rolandtr909_bd");
  assert_availability (find_item (answer, "rolandtr909_bd"), "download", 4, 0);

  /* Without a cache, nothing is said about it. */
  plain = sj_knowledge_new (sj_reference_index_get_bundled (), fixture->sounds);
  g_clear_pointer (&bd, json_object_unref);
  bd = lookup (plain, "bd");
  g_assert_false (json_object_has_member (bd, "availability"));
  g_assert_false (json_object_has_member (bd, "files"));
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GBytes **bytes = user_data;
  g_autoptr(GError) error = NULL;

  *bytes = sj_sound_cache_load_finish (SJ_SOUND_CACHE (object), result, NULL, NULL, &error);
  g_assert_no_error (error);
}

/* A downloaded file changes the answer at once (SjSoundCache::file-cached),
 * and so does going offline. */
static void
test_follows_the_cache (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(JsonObject) bd = NULL;
  g_autoptr(JsonObject) listing = NULL;
  g_autoptr(GBytes) bytes = NULL;
  JsonObject *item;

  sj_sound_cache_set_allow_downloads (fixture->cache, TRUE);
  bd = lookup (fixture->knowledge, "bd");
  assert_availability (bd, "download", 8, 0);
  /* The listing reads the cache directory once, before the download. */
  listing = ask (fixture->knowledge, "sounds:offline");
  g_assert_cmpstr (json_object_get_string_member (find_item (listing, "bd"), "offline"), ==, "kit");

  fixture->changed = 0;
  sj_sound_cache_load_async (fixture->cache, "uzu-drumkit", BD3, NULL, loaded_cb, &bytes);
  while (bytes == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (fixture->changed, ==, 1);

  /* Partly cached: the rest still downloads, and the size of what is here
   * is known. */
  g_clear_pointer (&bd, json_object_unref);
  bd = lookup (fixture->knowledge, "bd");
  assert_availability (bd, "download", 8, 1);
  g_assert_cmpint (json_object_get_int_member (bd, "cachedBytes"), ==, g_bytes_get_size (bytes));
  g_clear_pointer (&listing, json_object_unref);
  listing = ask (fixture->knowledge, "sounds:offline");
  item = find_item (listing, "bd");
  g_assert_cmpstr (json_object_get_string_member (item, "offline"), ==, "cached");
  g_assert_cmpstr (json_object_get_string_member (item, "availability"), ==, "download");

  /* Offline, the cached variant plays. */
  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);
  g_clear_pointer (&bd, json_object_unref);
  bd = lookup (fixture->knowledge, "bd");
  assert_availability (bd, "cached", 8, 1);
  g_assert_cmpuint (fixture->changed, ==, 2);
}

/* What plays with no network: synthesizers, cached sounds, the kit's
 * drums; not a sound that would have to be downloaded. */
static void
test_offline_listing (Fixture       *fixture,
                      gconstpointer  data)
{
  const char *forms[] = {
    "{\"q\": \"sounds:offline\", \"limit\": 100}",
    "{\"q\": \"sounds available offline\", \"limit\": 100}",
    "{\"q\": \"offline sounds\", \"domain\": \"sounds\", \"limit\": 100}",
  };
  g_autoptr(JsonObject) small = NULL;
  g_autoptr(JsonObject) drums = NULL;
  g_autoptr(JsonObject) machine = NULL;
  g_autoptr(JsonObject) nothing = NULL;
  g_autoptr(SjKnowledge) plain = NULL;
  g_autoptr(JsonObject) synths_only = NULL;
  JsonArray *items;

  /* A sound cached by an earlier run, found in the cache directory. */
  write_cached (fixture, "dirt-samples", CROW, "RIFF");

  for (guint f = 0; f < G_N_ELEMENTS (forms); f++)
    {
      g_autoptr(JsonObject) answer = ask_json (fixture->knowledge, forms[f]);
      JsonObject *first;

      g_test_message ("%s", forms[f]);
      g_assert_cmpstr (json_object_get_string_member (answer, "mode"), ==, "list");
      g_assert_cmpstr (json_object_get_string_member (answer, "domain"), ==, "sounds");
      items = json_object_get_array_member (answer, "items");
      g_assert_cmpuint (json_array_get_length (items), ==, 100);

      /* The cached sound first, then the kit's drums, then the synths. */
      first = json_array_get_object_element (items, 0);
      g_assert_cmpstr (json_object_get_string_member (first, "name"), ==, "crow");
      g_assert_cmpstr (json_object_get_string_member (first, "offline"), ==, "cached");
      g_assert_cmpstr (json_object_get_string_member (first, "availability"), ==, "cached");
      g_assert_cmpstr (json_object_get_string_member (find_item (answer, "bd"), "offline"), ==, "kit");
      g_assert_cmpstr (json_object_get_string_member (find_item (answer, "bd"), "availability"), ==, "kit");
      g_assert_cmpstr (json_object_get_string_member (find_item (answer, "sawtooth"), "offline"), ==, "built-in");
      g_assert_null (find_item (answer, "casio"));
      g_assert_nonnull (strstr (json_object_get_string_member (answer, "answer"), "1 cached"));
    }

  /* The limit bounds it; the answer counts them all. */
  small = ask (fixture->knowledge, "sounds:offline");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (small, "items")), ==, 5);
  g_assert_nonnull (strstr (json_object_get_string_member (small, "answer"), "on the built-in drum kit"));

  /* A category narrows it; other words keep what plays among their
   * matches. */
  drums = ask_json (fixture->knowledge, "{\"q\": \"offline drums\", \"limit\": 100}");
  g_assert_nonnull (find_item (drums, "bd"));
  g_assert_null (find_item (drums, "sawtooth"));
  g_assert_null (find_item (drums, "crow"));
  machine = ask (fixture->knowledge, "offline 808");
  items = json_object_get_array_member (machine, "items");
  g_assert_cmpuint (json_array_get_length (items), >, 0);
  for (guint i = 0; i < json_array_get_length (items); i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (items, i), "offline"), ==, "kit");
  nothing = ask (fixture->knowledge, "offline casio");
  g_assert_null (find_item (nothing, "casio"));

  /* Without a cache only the synthesizers are sure. */
  plain = sj_knowledge_new (sj_reference_index_get_bundled (), fixture->sounds);
  synths_only = ask_json (plain, "{\"q\": \"sounds:offline\", \"limit\": 100}");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (synths_only, "items")), ==, 25);
  g_assert_null (find_item (synths_only, "bd"));
}

/* A file written into the cache and announced changes the listing. */
static void
test_file_cached_invalidates (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(JsonObject) before = NULL;
  g_autoptr(JsonObject) after = NULL;
  g_autoptr(JsonObject) casio = NULL;

  before = ask_json (fixture->knowledge, "{\"q\": \"sounds:offline\", \"limit\": 100}");
  g_assert_null (find_item (before, "casio"));
  casio = lookup (fixture->knowledge, "casio");
  assert_availability (casio, "unavailable", 3, 0);

  write_cached (fixture, "dirt-samples", "casio/high.wav", "RIFF");
  g_signal_emit_by_name (fixture->cache, "file-cached", "dirt-samples", "casio/high.wav", (guint64)4);
  g_assert_cmpuint (fixture->changed, ==, 1);

  after = ask_json (fixture->knowledge, "{\"q\": \"sounds:offline\", \"limit\": 100}");
  g_assert_cmpstr (json_object_get_string_member (find_item (after, "casio"), "offline"), ==, "cached");
  g_clear_pointer (&casio, json_object_unref);
  casio = lookup (fixture->knowledge, "casio");
  assert_availability (casio, "cached", 3, 1);
  g_assert_cmpint (json_object_get_int_member (casio, "cachedBytes"), ==, 4);
}

/* This thread's CPU time, in µs: what a query costs, whatever else the
 * machine runs meanwhile (the suite runs tests side by side). */
static gint64
thread_cpu_time (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* Within the budget, a cache and the full library included. */
static void
test_fast (Fixture       *fixture,
           gconstpointer  data)
{
  const char *queries[] = {
    "{\"q\": \"sounds:offline\", \"limit\": 100}", "{\"q\": \"list drums\", \"limit\": 100}",
    "{\"q\": \"list samples\", \"limit\": 100}", "{\"q\": \"offline 808\", \"limit\": 100}",
    "{\"q\": \"piano\", \"limit\": 100}", "\"is bd available\"", "\"gm_pian\"", "\"offline synths\"",
  };
  gint64 worst = 0;

  write_cached (fixture, "dirt-samples", CROW, "RIFF");
  write_cached (fixture, "uzu-drumkit", BD3, "RIFF");

  for (guint i = 0; i < G_N_ELEMENTS (queries); i++)
    {
      gint64 spent = G_MAXINT64;

      /* The best of three, each after the cache said something changed:
       * the query's own cost with nothing remembered. */
      for (guint run = 0; run < 3; run++)
        {
          g_autoptr(JsonObject) answer = NULL;
          gint64 start;

          g_signal_emit_by_name (fixture->cache, "file-cached", "uzu-drumkit", BD3, (guint64)4);
          start = thread_cpu_time ();
          answer = ask_json (fixture->knowledge, queries[i]);
          spent = MIN (spent, thread_cpu_time () - start);
        }
      g_test_message ("%s: %" G_GINT64_FORMAT " µs", queries[i], spent);
      worst = MAX (worst, spent);
    }

  g_assert_cmpint (worst, <, QUERY_BUDGET);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, fn) g_test_add ("/knowledge-availability/" name, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("values", test_values);
  ADD ("follows-the-cache", test_follows_the_cache);
  ADD ("offline-listing", test_offline_listing);
  ADD ("file-cached-invalidates", test_file_cached_invalidates);
  ADD ("fast", test_fast);
#undef ADD

  return g_test_run ();
}
