/* test-remote-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjRemoteSamples (the sample maps the code's own samples() loads from the
 * network, and their files) and SjRemoteMap (reading such a map as
 * superdough does) against a loopback server standing in for
 * raw.githubusercontent.com and any other host: STRUDEL_JAM_REMOTE_URL
 * points https://<host>/<path> at <server>/<host>/<path>. Every test has a
 * cache directory of its own.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "sj-address-policy.h"
#include "sj-remote-samples.h"
#include "sj-sound-cache-private.h"
#include "sj-test-files.h"

#define MAP_URL   "https://raw.githubusercontent.com/user/repo/main/strudel.json"
#define MAP_PATH  "/raw.githubusercontent.com/user/repo/main/strudel.json"
#define MAP_JSON  "{\"_base\": \"https://raw.githubusercontent.com/user/repo/main/\"," \
                  " \"RBd\": [\"bd/one.wav\", \"bd/two.wav\"], \"r sd\": \"sd/x y.wav\"," \
                  " \"rpiano\": {\"c4\": \"p/c4.wav\", \"e4\": [\"p/e4.wav\"]}}"

typedef struct
{
  SoupServer *server;
  char       *url;
  GHashTable *counts;        /* decoded path → requests */
  gboolean    files_missing; /* every file answers 404 */
} Server;

typedef struct
{
  char            *dir;
  GFile           *directory;
  Server           server;
  SjSoundCache    *cache;
  SjRemoteSamples *remote;
  GPtrArray       *failures;   /* load-failed messages */
  guint            maps_cached;
  guint            files_cached;
} Fixture;

/* The server ------------------------------------------------------------------ */

static GBytes *
make_wav (void)
{
  static const guint8 header[44] = {
    'R', 'I', 'F', 'F', 36 + 8, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0, 1, 0,
    0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a', 8, 0, 0, 0,
  };
  GByteArray *wav = g_byte_array_new ();

  g_byte_array_append (wav, header, sizeof header);
  g_byte_array_append (wav, (const guint8 *)"\1\0\2\0\3\0\4\0", 8);
  return g_byte_array_free_to_bytes (wav);
}

/* "[[[[…]]]]", @depth deep. */
static char *
make_deep (guint depth)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

/* A map of 3 MiB: one sound with many files. */
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

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Server *server = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (server->counts, path)) + 1;
  g_autofree char *text = NULL;

  g_hash_table_replace (server->counts, g_strdup (path), GUINT_TO_POINTER (count));

  if (g_str_equal (path, MAP_PATH))
    text = g_strdup (MAP_JSON);
  else if (g_str_equal (path, "/host.test/deep.json"))
    text = make_deep (100000);
  else if (g_str_equal (path, "/host.test/huge.json"))
    text = make_huge ();
  else if (g_str_equal (path, "/host.test/list.json"))
    text = g_strdup ("[\"a.wav\"]");
  else if (g_str_equal (path, "/host.test/kit/strudel.json"))
    text = g_strdup ("{\"kick\": [\"kick.wav\"]}");
  else if (g_str_equal (path, "/host.test/portal.wav"))
    /* A captive portal's page, answered 200 for a sound. */
    text = g_strdup ("<!DOCTYPE html><html><body>Sign in first</body></html>");
  else if (g_str_equal (path, "/host.test/page.json"))
    text = g_strdup ("<!DOCTYPE html><html><body>Moved</body></html>");
  else if (g_str_equal (path, "/host.test/evil/strudel.json"))
    /* File names that climb out of the map's folder, and a base that would
     * climb out of the host's. */
    text = g_strdup ("{\"_base\": \"https://host.test/evil/\","
                     " \"up\": [\"../../../../../../../../../../tmp/evil.wav\", \"%2e%2e/%2E%2E/%2e%2e/up.wav\"],"
                     " \"away\": {\"_base\": \"https://../\", \"c4\": \"etc/away.wav\"}}");
  else if (g_str_has_prefix (path, "/host.test/drop."))
    {
      drop_connection (msg, NULL);
      return;
    }
  else if (g_str_has_prefix (path, "/host.test/cut."))
    {
      drop_connection (msg, g_str_has_suffix (path, ".json") ? "{\"cut\": [" : "RIFF");
      return;
    }

  if (text != NULL)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (headers, "application/json", NULL);
      soup_message_body_append (body, SOUP_MEMORY_COPY, text, strlen (text));
      return;
    }

  if (server->files_missing || !g_str_has_suffix (path, ".wav"))
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "audio/wav", NULL);
  soup_message_body_append_bytes (body, make_wav ());
}

static void
server_start (Server *server)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  server->server = soup_server_new (NULL, NULL);
  server->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  soup_server_add_handler (server->server, NULL, (SoupServerCallback)server_cb, server, NULL);
  g_assert_true (soup_server_listen_local (server->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server->server);
  server->url = g_uri_to_string (uris->data);
}

static void
server_stop (Server *server)
{
  if (server->server != NULL)
    soup_server_disconnect (server->server);
  g_clear_object (&server->server);
  g_clear_pointer (&server->counts, g_hash_table_unref);
  g_clear_pointer (&server->url, g_free);
}

static guint
server_count (Server     *server,
              const char *path)
{
  return server->counts != NULL ? GPOINTER_TO_UINT (g_hash_table_lookup (server->counts, path)) : 0;
}

/* The fixture ----------------------------------------------------------------- */

static void
load_failed_cb (SjRemoteSamples *remote,
                const char      *url,
                const GError    *error,
                const char      *message,
                Fixture         *fixture)
{
  g_ptr_array_add (fixture->failures, g_strdup (message));
}

static void
map_cached_cb (SjRemoteSamples *remote,
               const char      *url,
               Fixture         *fixture)
{
  fixture->maps_cached++;
}

static void
file_cached_cb (SjRemoteSamples *remote,
                const char      *url,
                guint64          size,
                Fixture         *fixture)
{
  g_assert_cmpuint (size, >, 0);
  fixture->files_cached++;
}

/* A cache and remote samples over @fixture's directory, as a new run of the
 * app makes them. */
static void
open_cache (Fixture *fixture)
{
  g_autoptr(GFile) sounds = g_file_get_child (fixture->directory, "sounds");
  g_autoptr(GFile) remote = g_file_get_child (fixture->directory, "remote");
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSoundLibrary) library = sj_sound_library_new_bundled (&error);

  g_assert_no_error (error);
  g_clear_object (&fixture->remote);
  g_clear_object (&fixture->cache);
  fixture->cache = sj_sound_cache_new (library, sounds);
  _sj_sound_cache_set_retry_delay (fixture->cache, 10, 2);
  fixture->remote = sj_remote_samples_new (fixture->cache, remote);
  g_signal_connect (fixture->remote, "load-failed", G_CALLBACK (load_failed_cb), fixture);
  g_signal_connect (fixture->remote, "map-cached", G_CALLBACK (map_cached_cb), fixture);
  g_signal_connect (fixture->remote, "file-cached", G_CALLBACK (file_cached_cb), fixture);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-remote-XXXXXX", NULL);
  fixture->directory = g_file_new_for_path (fixture->dir);
  fixture->failures = g_ptr_array_new_with_free_func (g_free);
  server_start (&fixture->server);
  /* Read when the remote samples are made. */
  g_setenv (SJ_REMOTE_SAMPLES_URL_ENV, fixture->server.url, TRUE);
  open_cache (fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->remote);
  g_clear_object (&fixture->cache);
  server_stop (&fixture->server);
  g_unsetenv (SJ_REMOTE_SAMPLES_URL_ENV);
  sj_test_remove_tree (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
  g_clear_object (&fixture->directory);
  g_clear_pointer (&fixture->failures, g_ptr_array_unref);
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **)user_data = g_object_ref (result);
}

static GBytes *
load (Fixture       *fixture,
      SjRemoteKind   kind,
      const char    *url,
      const char   **content_type,
      GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_remote_samples_load_async (fixture->remote, kind, url, NULL, store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return sj_remote_samples_load_finish (fixture->remote, result, content_type, error);
}

static gboolean
exists (Fixture    *fixture,
        const char *relative)
{
  g_autofree char *path = g_build_filename (fixture->dir, "remote", "https", relative, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* The regular files under @path, however deep, but the cache's own
 * bookkeeping (.layout, .index). */
static guint
count_files (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint n = 0;

  if (dir == NULL)
    return g_file_test (path, G_FILE_TEST_IS_REGULAR) ? 1 : 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = NULL;

      if (name[0] == '.')
        continue;
      child = g_build_filename (path, name, NULL);
      n += count_files (child);
    }

  return n;
}

/* Addresses ------------------------------------------------------------------- */

static void
assert_file (Fixture    *fixture,
             const char *url,
             const char *relative)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = sj_remote_samples_get_file (fixture->remote, url, &error);
  g_autofree char *expected = NULL;

  g_assert_no_error (error);
  /* Each scheme has its own folder. */
  expected = g_build_filename (fixture->dir, "remote", g_str_has_prefix (url, "http:") ? "http" : "https", relative, NULL);
  g_assert_cmpstr (g_file_peek_path (file), ==, expected);
}

static void
assert_refused (Fixture    *fixture,
                const char *url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = sj_remote_samples_get_file (fixture->remote, url, &error);

  g_assert_null (file);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

/* Refused as this computer or the local network, however it is spelt
 * (sj-address-policy.c; test-address-policy checks what reaches a server). */
static void
assert_local (Fixture    *fixture,
              const char *url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = sj_remote_samples_get_file (fixture->remote, url, &error);

  g_assert_null (file);
  g_assert_nonnull (error);
  g_assert_true (error->domain == SJ_ADDRESS_POLICY_ERROR);
}

/* What follows strudel-jam://remote/<kind> names an http(s) address; each
 * address has one place in the cache, under its host, and none outside. */
static void
test_addresses (Fixture       *fixture,
                gconstpointer  data)
{
  const char *bad_paths[] = { "/ftp/host/a.wav", "/https//a.wav", "https/host/a.wav", "/https/host", "/", "" };
  g_autofree char *url = NULL;

  url = sj_remote_samples_url_for_path ("/https/raw.githubusercontent.com/user/repo/main/strudel.json", NULL, NULL);
  g_assert_cmpstr (url, ==, MAP_URL);
  g_clear_pointer (&url, g_free);
  url = sj_remote_samples_url_for_path ("/https/shabda.ndre.gr/bass.json", "strudel=1", NULL);
  g_assert_cmpstr (url, ==, "https://shabda.ndre.gr/bass.json?strudel=1");
  g_clear_pointer (&url, g_free);
  url = sj_remote_samples_url_for_path ("/http/127.0.0.1:8080/a/b.wav", NULL, NULL);
  g_assert_cmpstr (url, ==, "http://127.0.0.1:8080/a/b.wav");
  for (guint i = 0; i < G_N_ELEMENTS (bad_paths); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *bad = sj_remote_samples_url_for_path (bad_paths[i], NULL, &error);

      g_assert_null (bad);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    }

  assert_file (fixture, MAP_URL, "raw.githubusercontent.com/user/repo/main/strudel.json");
  assert_file (fixture, "https://Host.Test:8443/a%20b/c.wav", "host.test:8443/a b/c.wav");
  assert_file (fixture, "https://host.test:443/a/c.wav", "host.test/a/c.wav");
  assert_file (fixture, "https://host.test/a/x y.wav", "host.test/a/x y.wav");
  assert_file (fixture, "https://host.test/a//b.wav#frag", "host.test/a/b.wav");
  assert_file (fixture, "https://host.test/a/../b.wav", "host.test/b.wav");
  assert_file (fixture, "https://shabda.ndre.gr/bass.json?strudel=1", "shabda.ndre.gr/bass.json?strudel=1");

  assert_refused (fixture, "ftp://host.test/a.wav");
  assert_refused (fixture, "file:///etc/passwd");
  assert_refused (fixture, "https://user@host.test/a.wav");
  /* Dot segments, even encoded, are resolved within the host's folder. */
  assert_file (fixture, "https://host.test/a/%2e%2e/%2e%2e/etc/passwd", "host.test/etc/passwd");
  assert_refused (fixture, "https://host.test/a%2Fb.wav");
  assert_refused (fixture, "https://host.test/folder/");
  assert_refused (fixture, "https://host.test");
  assert_refused (fixture, "not a url");
  /* Nothing on this computer or the local network. */
  assert_local (fixture, "http://localhost:5432/strudel.json");
  assert_local (fixture, "http://127.0.0.1:8080/a.wav");
  assert_local (fixture, "http://192.168.1.1/admin.wav");
  assert_local (fixture, "http://10.0.0.2/a.wav");
  assert_local (fixture, "http://[::1]/a.wav");
  assert_local (fixture, "http://[fd00::1]/a.wav");
  assert_local (fixture, "http://printer.local/a.wav");
  assert_local (fixture, "http://[::ffff:127.0.0.1]:8080/a.wav");
  assert_local (fixture, "http://[::ffff:7f00:1]:8080/a.wav");
  assert_local (fixture, "http://[::ffff:192.168.1.1]/a.wav");
  assert_local (fixture, "http://[64:ff9b::7f00:1]/a.wav");
  assert_local (fixture, "http://[64:ff9b::c0a8:101]/a.wav");
  assert_local (fixture, "http://100.64.0.1/a.wav");
  assert_local (fixture, "http://nas/a.wav");
  assert_local (fixture, "http://nas.lan/a.wav");
  assert_local (fixture, "http://router.home.arpa/a.wav");
  assert_local (fixture, "http://db.internal/a.wav");
  /* A host is a name: never one that climbs out of the cache. */
  assert_refused (fixture, "https://../a.wav");
  assert_refused (fixture, "https://./a.wav");
  assert_refused (fixture, "https://%2e%2e/a.wav");
  assert_refused (fixture, "https://.hidden/a.wav");
  assert_refused (fixture, "https://a\\b/c.wav");
}

/* By default the code's maps live in the sound cache's own folder, where
 * no pack of the library could meet them. */
static void
test_default_directory (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(SjRemoteSamples) remote = sj_remote_samples_new (fixture->cache, NULL);
  g_autoptr(GFile) expected = g_file_get_child (sj_sound_cache_get_directory (fixture->cache), "remote");
  const char * const *packs = sj_sound_library_get_packs (sj_sound_cache_get_library (fixture->cache));

  g_assert_true (g_file_equal (sj_remote_samples_get_directory (remote), expected));
  g_assert_false (g_strv_contains (packs, "remote"));
}

/* Maps ---------------------------------------------------------------------- */

static SjRemoteMap *
parse (const char  *json,
       const char  *url,
       GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (json, strlen (json));

  return sj_remote_map_parse (bytes, url, error);
}

static void
assert_invalid (const char *json,
                int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjRemoteMap) map = parse (json, "https://host.test/m.json", &error);

  g_assert_null (map);
  g_assert_error (error, SJ_REMOTE_MAP_ERROR, code);
}

/* A map is read as superdough's samples() reads it. */
static void
test_map_rules (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjRemoteMap) map = parse (MAP_JSON, MAP_URL, &error);
  g_autoptr(SjRemoteMap) github = NULL;
  g_autoptr(SjRemoteMap) bubo = NULL;
  g_autoptr(SjRemoteMap) inherited = NULL;
  g_autofree char *deep = NULL;
  g_autofree char *shallow = NULL;
  g_autofree char *huge = NULL;
  g_autofree char *base = NULL;
  const SjRemoteSound *sound;

  g_assert_no_error (error);
  g_assert_cmpstr (map->base, ==, "https://raw.githubusercontent.com/user/repo/main/");
  g_assert_cmpuint (map->sounds->len, ==, 3);
  g_assert_cmpuint (map->n_files, ==, 5);
  sound = sj_remote_map_lookup (map, "RBD");
  g_assert_nonnull (sound);
  g_assert_cmpstr (sound->name, ==, "rbd");
  g_assert_cmpstr (sound->type, ==, "sample");
  g_assert_cmpuint (sound->n_files, ==, 2);
  g_assert_cmpstr (sound->files[1], ==, "https://raw.githubusercontent.com/user/repo/main/bd/two.wav");
  /* superdough's registerSound(): lower case, blanks as "_". */
  g_assert_nonnull (sj_remote_map_lookup (map, "r_sd"));
  g_assert_cmpuint (sj_remote_map_lookup (map, "rpiano")->n_files, ==, 2);
  g_assert_null (sj_remote_map_lookup (map, "_base"));

  /* github: and bubo: bases, as githubPath() makes them. */
  github = parse ("{\"_base\": \"github:u/r\", \"a\": \"x.wav\", \"wt_saw\": [\"saw.wav\"]}", "https://h/m.json", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_remote_map_lookup (github, "a")->files[0], ==, "https://raw.githubusercontent.com/u/r/main/x.wav");
  g_assert_cmpstr (sj_remote_map_lookup (github, "wt_saw")->type, ==, "wavetable");
  bubo = parse ("{\"_base\": \"bubo:waveforms\", \"a\": \"x.wav\"}", "https://h/m.json", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_remote_map_lookup (bubo, "a")->files[0], ==,
                   "https://raw.githubusercontent.com/Bubobubobubobubo/dough-waveforms/main/x.wav");
  base = sj_remote_map_resolve_base ("github:u/r/b/sub");
  g_assert_cmpstr (base, ==, "https://raw.githubusercontent.com/u/r/b/sub/");

  /* Without _base, the folder without its "/" (getBaseURL()); an entry's
   * own _base holds for the entries after it. */
  inherited = parse ("{\"a\": \"1.wav\", \"b\": {\"_base\": \"https://o/\", \"c4\": \"2.wav\"}, \"c\": \"3.wav\"}",
                     "https://h/dir/m.json?x=1", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (inherited->base, ==, "https://h/dir");
  g_assert_cmpstr (sj_remote_map_lookup (inherited, "a")->files[0], ==, "https://h/dir1.wav");
  g_assert_cmpstr (sj_remote_map_lookup (inherited, "b")->files[0], ==, "https://o/2.wav");
  g_assert_cmpstr (sj_remote_map_lookup (inherited, "c")->files[0], ==, "https://o/3.wav");
  g_clear_pointer (&base, g_free);
  base = sj_remote_map_base_of_url ("https://h");
  g_assert_cmpstr (base, ==, "https://h");

  /* What superdough refuses, and what is too much. */
  assert_invalid ("[\"a.wav\"]", SJ_REMOTE_MAP_ERROR_INVALID);
  assert_invalid ("{\"a\": 3}", SJ_REMOTE_MAP_ERROR_INVALID);
  assert_invalid ("{\"a\": [\"x.wav\", 2]}", SJ_REMOTE_MAP_ERROR_INVALID);
  assert_invalid ("{\"a\": {\"c4\": {\"x\": \"y.wav\"}}}", SJ_REMOTE_MAP_ERROR_INVALID);
  assert_invalid ("{\"a\": null}", SJ_REMOTE_MAP_ERROR_INVALID);
  assert_invalid ("", SJ_REMOTE_MAP_ERROR_INVALID);
  assert_invalid ("{\"a\": ", SJ_REMOTE_MAP_ERROR_INVALID);
  deep = make_deep (100000);
  assert_invalid (deep, SJ_REMOTE_MAP_ERROR_TOO_DEEP);
  shallow = make_deep (SJ_REMOTE_MAP_MAX_DEPTH + 1);
  assert_invalid (shallow, SJ_REMOTE_MAP_ERROR_TOO_DEEP);
  /* Brackets in strings are no nesting. */
  g_clear_pointer (&map, sj_remote_map_free);
  map = parse ("{\"a\": \"[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[[[[[.wav\"}", "https://h/m.json", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_remote_map_lookup (map, "a")->files[0], ==, "https://h[[[[[[[[[[[[[[[[[[[[[[[[\"[[[[[[.wav");
  huge = make_huge ();
  assert_invalid (huge, SJ_REMOTE_MAP_ERROR_TOO_LARGE);
}

/* Loading ---------------------------------------------------------------------- */

#define FILE_URL(path) "https://raw.githubusercontent.com/user/repo/main/" path
#define FILE_PATH(path) "/raw.githubusercontent.com/user/repo/main/" path

static void
assert_loads (Fixture      *fixture,
              SjRemoteKind  kind,
              const char   *url,
              const char   *type)
{
  g_autoptr(GError) error = NULL;
  const char *content_type = NULL;
  g_autoptr(GBytes) bytes = load (fixture, kind, url, &content_type, &error);

  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_cmpuint (g_bytes_get_size (bytes), >, 0);
  g_assert_cmpstr (content_type, ==, type);
}

static void
assert_availability (Fixture             *fixture,
                     const char          *name,
                     SjSoundAvailability  expected,
                     guint                n_files,
                     guint                n_cached)
{
  SjSoundAvailability availability;
  SjSoundFiles files;

  g_assert_true (sj_remote_samples_get_sound_availability (fixture->remote, name, &availability, &files));
  g_assert_cmpstr (sj_sound_availability_to_string (availability), ==, sj_sound_availability_to_string (expected));
  g_assert_cmpuint (files.n_files, ==, n_files);
  g_assert_cmpuint (files.n_cached, ==, n_cached);
}

/* samples('github:user/repo'): the map and each file are downloaded once,
 * and a later run plays them from the cache with the host gone. */
static void
test_map_and_files_once (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GPtrArray) maps = NULL;
  g_autofree char *index = NULL;
  g_autofree char *index_path = g_build_filename (fixture->dir, "remote", ".index", NULL);
  const SjRemoteMap *map = NULL;
  const char *content_type = NULL;
  SjSoundAvailability availability;

  g_assert_null (sj_remote_samples_lookup_map (fixture->remote, MAP_URL));
  g_assert_false (sj_remote_samples_get_sound_availability (fixture->remote, "rbd", &availability, NULL));

  bytes = load (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, &content_type, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), MAP_JSON, strlen (MAP_JSON));
  g_assert_cmpstr (content_type, ==, "application/json");
  g_assert_cmpuint (server_count (&fixture->server, MAP_PATH), ==, 1);
  g_assert_cmpuint (fixture->maps_cached, ==, 1);
  g_assert_true (exists (fixture, "raw.githubusercontent.com/user/repo/main/strudel.json"));
  g_assert_false (exists (fixture, "raw.githubusercontent.com/user/repo/main/strudel.json.unchecked"));
  g_assert_true (g_file_get_contents (index_path, &index, NULL, NULL));
  g_assert_cmpstr (index, ==, MAP_URL "\n");

  /* What it registers is known now, and would be downloaded. */
  g_assert_nonnull (sj_remote_samples_lookup_map (fixture->remote, MAP_URL));
  g_assert_nonnull (sj_remote_samples_lookup_sound (fixture->remote, "RBD", &map));
  g_assert_cmpstr (map->url, ==, MAP_URL);
  assert_availability (fixture, "rbd", SJ_SOUND_AVAILABILITY_DOWNLOAD, 2, 0);

  assert_loads (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("bd/one.wav"), "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("bd/two.wav"), "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("bd/one.wav"), "audio/wav");
  /* The page asks for "x y.wav" percent-encoded; the map lists it as is. */
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("sd/x%20y.wav"), "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
  g_assert_cmpuint (server_count (&fixture->server, FILE_PATH ("bd/one.wav")), ==, 1);
  g_assert_cmpuint (server_count (&fixture->server, FILE_PATH ("bd/two.wav")), ==, 1);
  g_assert_cmpuint (server_count (&fixture->server, FILE_PATH ("sd/x y.wav")), ==, 1);
  g_assert_cmpuint (server_count (&fixture->server, MAP_PATH), ==, 1);
  g_assert_cmpuint (fixture->files_cached, ==, 3);
  g_assert_true (exists (fixture, "raw.githubusercontent.com/user/repo/main/sd/x y.wav"));
  assert_availability (fixture, "rbd", SJ_SOUND_AVAILABILITY_CACHED, 2, 2);
  assert_availability (fixture, "r_sd", SJ_SOUND_AVAILABILITY_CACHED, 1, 1);
  assert_availability (fixture, "rpiano", SJ_SOUND_AVAILABILITY_DOWNLOAD, 2, 0);
  g_assert_cmpint (sj_remote_samples_get_file_availability (fixture->remote, FILE_URL ("bd/one.wav")), ==,
                   SJ_SOUND_AVAILABILITY_CACHED);
  g_assert_cmpint (sj_remote_samples_get_file_availability (fixture->remote, FILE_URL ("p/c4.wav")), ==,
                   SJ_SOUND_AVAILABILITY_DOWNLOAD);

  /* A new run, the host gone and downloads off: the map is known from the
   * index, and it and its files play from the cache. */
  server_stop (&fixture->server);
  open_cache (fixture);
  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);
  maps = sj_remote_samples_list_maps (fixture->remote);
  g_assert_cmpuint (maps->len, ==, 1);
  assert_availability (fixture, "rbd", SJ_SOUND_AVAILABILITY_CACHED, 2, 2);
  assert_availability (fixture, "rpiano", SJ_SOUND_AVAILABILITY_UNAVAILABLE, 2, 0);
  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("bd/two.wav"), "audio/wav");

  /* What was never downloaded cannot be: one line, said once. */
  g_clear_pointer (&bytes, g_bytes_unref);
  bytes = load (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("p/c4.wav"), NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE);
  g_clear_error (&error);
  bytes = load (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("p/c4.wav"), NULL, &error);
  g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "rpiano:0 is not downloaded and the app is offline (“Download sounds when first played” is off)");
}

static void
assert_map_refused (Fixture    *fixture,
                    const char *url,
                    GQuark      domain,
                    int         code,
                    const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = load (fixture, SJ_REMOTE_KIND_MAP, url, NULL, &error);
  g_autoptr(GFile) file = sj_remote_samples_get_file (fixture->remote, url, NULL);
  g_autofree char *unchecked = NULL;

  g_assert_null (bytes);
  g_assert_error (error, domain, code);
  g_assert_cmpstr (error->message, ==, message);
  g_assert_null (sj_remote_samples_lookup_map (fixture->remote, url));
  if (file != NULL)
    {
      unchecked = g_strconcat (g_file_peek_path (file), ".unchecked", NULL);
      g_assert_false (g_file_query_exists (file, NULL));
      g_assert_false (g_file_test (unchecked, G_FILE_TEST_EXISTS));
    }
}

/* A map too deep, too large or not a map is refused with one sentence,
 * and nothing of it is kept. */
static void
test_refused_maps (Fixture       *fixture,
                   gconstpointer  data)
{
  assert_map_refused (fixture, "https://host.test/deep.json", SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_TOO_DEEP,
                      "The sample map https://host.test/deep.json could not be loaded: "
                      "it is nested more than 16 levels deep");
  assert_map_refused (fixture, "https://host.test/huge.json", SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TOO_LARGE,
                      "The sample map https://host.test/huge.json could not be loaded: the file is larger than 2.0\302\240MiB");
  assert_map_refused (fixture, "https://host.test/list.json", SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_INVALID,
                      "The sample map https://host.test/list.json could not be loaded: "
                      "it is not a sample map (a JSON object of sounds)");
  assert_map_refused (fixture, "https://host.test/none.json", SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND,
                      "The sample map https://host.test/none.json could not be loaded: the server answered 404");
  assert_map_refused (fixture, "ftp://host.test/a.json", G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                      "The sample map ftp://host.test/a.json could not be loaded: "
                      "it is not an http or https address of a file");
  assert_map_refused (fixture, "https://host.test/page.json", SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_INVALID,
                      "The sample map https://host.test/page.json could not be loaded: "
                      "it is not valid JSON: <data>:1:1: Parse error: unexpected character `<', expected value");
  /* A map's failure is the page's to say (it reads the sentence). */
  g_assert_cmpuint (fixture->failures->len, ==, 0);
  g_assert_cmpuint (fixture->maps_cached, ==, 0);

  /* A good map from the same host is still welcome. */
  assert_loads (fixture, SJ_REMOTE_KIND_MAP, "https://host.test/kit/strudel.json", "application/json");
  g_assert_nonnull (sj_remote_samples_lookup_sound (fixture->remote, "kick", NULL));
}

/* Downloads off and nothing cached: a clear sentence, and no request. */
static void
test_offline (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);
  bytes = load (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE);
  g_assert_cmpstr (error->message, ==,
                   "The sample map " MAP_URL " is not downloaded and the app is offline "
                   "(“Download sounds when first played” is off)");
  g_assert_cmpuint (server_count (&fixture->server, MAP_PATH), ==, 0);
  g_assert_null (sj_remote_samples_lookup_map (fixture->remote, MAP_URL));

  sj_sound_cache_set_allow_downloads (fixture->cache, TRUE);
  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
}

/* A file the host does not have: one line naming the sound, said once. */
static void
test_missing_file (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
  fixture->server.files_missing = TRUE;
  for (guint i = 0; i < 2; i++)
    {
      g_clear_error (&error);
      g_clear_pointer (&bytes, g_bytes_unref);
      bytes = load (fixture, SJ_REMOTE_KIND_FILE, FILE_URL ("bd/two.wav"), NULL, &error);
      g_assert_null (bytes);
      g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND);
    }
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==, "rbd:1 could not be downloaded: the server answered 404");
  g_assert_false (exists (fixture, "raw.githubusercontent.com/user/repo/main/bd/two.wav"));
  g_assert_false (exists (fixture, "raw.githubusercontent.com/user/repo/main/bd/two.wav.part"));
}

/* A map's file deleted while the app runs (to have it anew): the next
 * load fetches it again and puts it back in place, nothing left aside. */
static void
test_map_deleted (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *unchecked = NULL;

  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
  file = sj_remote_samples_get_file (fixture->remote, MAP_URL, NULL);
  unchecked = g_strconcat (g_file_peek_path (file), ".unchecked", NULL);
  g_assert_true (g_file_delete (file, NULL, NULL));

  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
  g_assert_cmpuint (server_count (&fixture->server, MAP_PATH), ==, 2);
  g_assert_cmpuint (fixture->maps_cached, ==, 2);
  g_assert_true (g_file_query_exists (file, NULL));
  g_assert_false (g_file_test (unchecked, G_FILE_TEST_EXISTS));
  g_assert_nonnull (sj_remote_samples_lookup_sound (fixture->remote, "rbd", NULL));

  /* And from the disk, the next time. */
  assert_loads (fixture, SJ_REMOTE_KIND_MAP, MAP_URL, "application/json");
  g_assert_cmpuint (server_count (&fixture->server, MAP_PATH), ==, 2);
}

/* A host that drops the connection, before answering or halfway through:
 * a clear sentence, nothing kept (no map, no .part, no .unchecked), and the
 * next try asks the host again. */
static void
test_dropped_connection (Fixture       *fixture,
                         gconstpointer  data)
{
  const char *maps[] = { "https://host.test/drop.json", "https://host.test/cut.json" };
  const char *files[] = { "https://host.test/drop.wav", "https://host.test/cut.wav" };

  for (guint i = 0; i < G_N_ELEMENTS (maps); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = load (fixture, SJ_REMOTE_KIND_MAP, maps[i], NULL, &error);
      g_autofree char *prefix = g_strdup_printf ("The sample map %s could not be loaded: ", maps[i]);

      g_assert_null (bytes);
      g_assert_true (g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK) ||
                     g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TRUNCATED));
      g_assert_true (g_str_has_prefix (error->message, prefix));
      g_assert_null (sj_remote_samples_lookup_map (fixture->remote, maps[i]));
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = load (fixture, SJ_REMOTE_KIND_FILE, files[i], NULL, &error);
      g_autofree char *sentence = g_strdup_printf ("%s could not be downloaded: ", files[i]);

      g_assert_null (bytes);
      g_assert_true (g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK) ||
                     g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TRUNCATED));
      g_assert_true (g_str_has_prefix (error->message, sentence));
    }
  g_assert_cmpuint (fixture->failures->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "https://host.test/drop.wav could not be downloaded: the server closed the connection without answering");
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/drop.wav"), ==, 2);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (fixture->failures, 1),
                                   "https://host.test/cut.wav could not be downloaded: the server sent less than it announced"));
  g_assert_cmpuint (count_files (fixture->dir), ==, 0);
  g_assert_cmpuint (fixture->maps_cached, ==, 0);
  g_assert_cmpuint (fixture->files_cached, ==, 0);

  /* Nothing was kept: asking again asks the host again. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) bytes = load (fixture, SJ_REMOTE_KIND_MAP, maps[1], NULL, &error);
    guint before = server_count (&fixture->server, "/host.test/cut.json");

    g_assert_null (bytes);
    g_clear_error (&error);
    g_clear_pointer (&bytes, g_bytes_unref);
    bytes = load (fixture, SJ_REMOTE_KIND_MAP, maps[1], NULL, &error);
    g_assert_null (bytes);
    g_assert_cmpuint (server_count (&fixture->server, "/host.test/cut.json"), >, before);
  }

  /* The host still serves what it has. */
  assert_loads (fixture, SJ_REMOTE_KIND_MAP, "https://host.test/kit/strudel.json", "application/json");
}

/* A map whose file names climb out of its folder (or whose base climbs out
 * of its host) is read as superdough reads it, but every file it names is
 * kept inside its host's folder of the cache, or refused. */
static void
test_path_traversal (Fixture       *fixture,
                     gconstpointer  data)
{
  const SjRemoteSound *up;
  const SjRemoteSound *away;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *outside = g_build_filename (fixture->dir, "evil.wav", NULL);

  assert_loads (fixture, SJ_REMOTE_KIND_MAP, "https://host.test/evil/strudel.json", "application/json");
  up = sj_remote_samples_lookup_sound (fixture->remote, "up", NULL);
  away = sj_remote_samples_lookup_sound (fixture->remote, "away", NULL);
  g_assert_nonnull (up);
  g_assert_nonnull (away);

  /* The page asks for what its URL parser made of the names. */
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, up->files[0], "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/tmp/evil.wav", "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, up->files[1], "audio/wav");
  g_assert_true (exists (fixture, "host.test/tmp/evil.wav"));
  g_assert_true (exists (fixture, "host.test/up.wav"));
  g_assert_false (g_file_test (outside, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test ("/tmp/evil.wav", G_FILE_TEST_EXISTS) &&
                  server_count (&fixture->server, "/tmp/evil.wav") > 0);

  /* A file on the host ".." is no file at all: one sentence, said once. */
  g_assert_cmpstr (away->files[0], ==, "https://../etc/away.wav");
  bytes = load (fixture, SJ_REMOTE_KIND_FILE, away->files[0], NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "away:0 could not be downloaded: it is not an http or https address of a file");
  g_assert_cmpint (sj_remote_samples_get_file_availability (fixture->remote, away->files[0]), ==,
                   SJ_SOUND_AVAILABILITY_UNAVAILABLE);
  g_assert_cmpuint (server_count (&fixture->server, "/../etc/away.wav"), ==, 0);
  g_assert_cmpuint (server_count (&fixture->server, "/etc/away.wav"), ==, 0);
}

/* samples({…}, 'https://host/base/'): no map to fetch, only its files,
 * each downloaded once and played from the cache in a later run, offline. */
static void
test_inline_map_files (Fixture       *fixture,
                       gconstpointer  data)
{
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/base/clap.wav", "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/base/clap.wav", "audio/wav");
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/base/clap.wav"), ==, 1);
  g_assert_true (exists (fixture, "host.test/base/clap.wav"));
  g_assert_cmpint (sj_remote_samples_get_file_availability (fixture->remote, "https://host.test/base/clap.wav"), ==,
                   SJ_SOUND_AVAILABILITY_CACHED);

  server_stop (&fixture->server);
  open_cache (fixture);
  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/base/clap.wav", "audio/wav");
  g_assert_cmpuint (fixture->failures->len, ==, 0);
}

/* http:// and https:// of one address are two files: what plain http
 * brought is never served for the https address. */
static void
test_scheme_split (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GFile) http = sj_remote_samples_get_file (fixture->remote, "http://host.test/a.wav", NULL);
  g_autoptr(GFile) https = sj_remote_samples_get_file (fixture->remote, "https://host.test/a.wav", NULL);

  g_assert_false (g_file_equal (http, https));
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "http://host.test/a.wav", "audio/wav");
  g_assert_true (g_file_query_exists (http, NULL));
  g_assert_false (g_file_query_exists (https, NULL));

  /* The https address is fetched, not answered from the http file. */
  fixture->server.files_missing = TRUE;
  bytes = load (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/a.wav", NULL, &error);
  g_assert_null (bytes);
  g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND);
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/a.wav"), ==, 2);
  g_assert_false (g_file_query_exists (https, NULL));

  fixture->server.files_missing = FALSE;
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/a.wav", "audio/wav");
  g_assert_true (g_file_query_exists (https, NULL));
  g_assert_true (g_file_query_exists (http, NULL));
  /* Each is served from its own file from now on. */
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "http://host.test/a.wav", "audio/wav");
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/a.wav", "audio/wav");
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/a.wav"), ==, 3);
}

/* A sound's address answered with a page: refused, not kept, said once. A
 * page an older version kept is not served, but fetched again. */
static void
test_not_audio (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GFile) kept = sj_remote_samples_get_file (fixture->remote, "https://host.test/a.wav", NULL);
  g_autoptr(GFile) parent = g_file_get_parent (kept);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 2; i++)
    {
      g_clear_error (&error);
      g_clear_pointer (&bytes, g_bytes_unref);
      bytes = load (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/portal.wav", NULL, &error);
      g_assert_null (bytes);
      g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_AUDIO);
    }
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/portal.wav"), ==, 2);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->failures, 0), "could not be downloaded: the server sent an HTML page"));
  g_assert_false (exists (fixture, "host.test/portal.wav"));
  g_assert_false (exists (fixture, "host.test/portal.wav.part"));
  g_assert_cmpuint (fixture->files_cached, ==, 0);

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (parent), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (kept), "<html>404</html>", -1, NULL));
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/a.wav", "audio/wav");
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/a.wav"), ==, 1);
  g_clear_pointer (&bytes, g_bytes_unref);
  bytes = g_file_load_bytes (kept, NULL, NULL, NULL);
  g_assert_true (sj_sound_cache_is_audio (bytes, NULL));
}

static gboolean
quit_timeout_cb (gpointer data)
{
  g_error ("Timed out waiting for %s", (const char *)data);
  return G_SOURCE_REMOVE;
}

/* What the first layout (<host>/<path>, http and https in one file) kept
 * is dropped, never served for an https address; it is fetched anew. */
static void
test_old_layout_dropped (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *remote = g_build_filename (fixture->dir, "remote", NULL);
  g_autofree char *old_host = g_build_filename (remote, "host.test", NULL);
  g_autofree char *old_file = g_build_filename (old_host, "a.wav", NULL);
  g_autofree char *layout = g_build_filename (remote, ".layout", NULL);
  g_autofree char *aside = g_build_filename (remote, ".old-layout", NULL);
  guint timeout;

  g_clear_object (&fixture->remote);
  g_assert_cmpint (g_mkdir_with_parents (old_host, 0700), ==, 0);
  g_assert_true (g_file_set_contents (old_file, "RIFF$$$$WAVE from plain http, perhaps", -1, NULL));
  open_cache (fixture);

  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/a.wav", "audio/wav");
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/a.wav"), ==, 1);
  g_assert_false (g_file_test (old_host, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (layout, G_FILE_TEST_IS_REGULAR));
  g_assert_true (exists (fixture, "host.test/a.wav"));

  /* The folders moved aside are deleted in a thread. */
  timeout = g_timeout_add_seconds (30, quit_timeout_cb, (gpointer)"the old layout to be deleted");
  while (g_file_test (aside, G_FILE_TEST_EXISTS))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);

  /* Once done, never again: a later run keeps what is there. */
  open_cache (fixture);
  assert_loads (fixture, SJ_REMOTE_KIND_FILE, "https://host.test/a.wav", "audio/wav");
  g_assert_cmpuint (server_count (&fixture->server, "/host.test/a.wav"), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/remote-samples/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("addresses", test_addresses);
  ADD ("map-rules", test_map_rules);
  ADD ("map-and-files-once", test_map_and_files_once);
  ADD ("refused-maps", test_refused_maps);
  ADD ("offline", test_offline);
  ADD ("missing-file", test_missing_file);
  ADD ("default-directory", test_default_directory);
  ADD ("map-deleted", test_map_deleted);
  ADD ("dropped-connection", test_dropped_connection);
  ADD ("path-traversal", test_path_traversal);
  ADD ("inline-map-files", test_inline_map_files);
  ADD ("scheme-split", test_scheme_split);
  ADD ("not-audio", test_not_audio);
  ADD ("old-layout-dropped", test_old_layout_dropped);
#undef ADD

  return g_test_run ();
}
