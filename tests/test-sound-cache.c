/* test-sound-cache.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjSoundCache against a loopback server standing in for the sample hosts
 * (STRUDEL_JAM_SOUNDS_URL points the downloads at it): a SoupServer that
 * serves generated WAV files (or 404s, 503s, slowly), and raw sockets for
 * what a well-behaved server never does (a body cut short, no answer at
 * all). Every test has a cache directory of its own.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "sj-sound-cache-private.h"
#include "sj-test-files.h"
#include "sj-test-samples.h"

#define BD3  "bd/13_bd_mot4i.wav"
#define HAT  "AkaiLinn/akailinn-hh/Closed Hat.wav"

typedef enum
{
  SERVE_WAV,
  SERVE_404,
  SERVE_503,          /* fail_first requests, then WAV */
  SERVE_CHUNKED,      /* WAV without Content-Length */
} ServeMode;

typedef struct
{
  SoupServer   *server;
  char         *url;
  ServeMode     mode;
  guint         fail_first;
  guint         delay_ms;      /* hold each answer this long */
  gsize         wav_size;
  GBytes       *body;          /* served instead of a WAV, when set */
  GHashTable   *counts;        /* path → requests */
  guint         requests;
  guint         active;
  guint         max_active;
} Server;

typedef struct
{
  char          *dir;
  GFile         *directory;
  Server         server;
  SjSoundCache  *cache;
  GPtrArray     *failures;     /* console lines (load-failed) */
  guint          cached;       /* file-cached signals */
} Fixture;

typedef struct
{
  GAsyncResult *result;
} Wait;

/* The WAV files ---------------------------------------------------------- */

/* The loopback server ------------------------------------------------------ */

static gboolean
answer_later_cb (gpointer user_data)
{
  SoupServerMessage *msg = user_data;
  Server *server = g_object_get_data (G_OBJECT (msg), "sj-server");

  server->active--;
  soup_server_message_unpause (msg);
  g_object_unref (msg);
  return G_SOURCE_REMOVE;
}

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Server *server = user_data;
  const char *raw_path = g_uri_get_path (soup_server_message_get_uri (msg));  /* decoded */
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (server->counts, raw_path)) + 1;
  g_autoptr(GBytes) wav = sj_test_samples_make_wav_seeded (path, server->wav_size);

  g_hash_table_replace (server->counts, g_strdup (raw_path), GUINT_TO_POINTER (count));
  server->requests++;

  if (server->mode == SERVE_404)
    soup_server_message_set_status (msg, 404, NULL);
  else if (server->mode == SERVE_503 && server->requests <= server->fail_first)
    soup_server_message_set_status (msg, 503, NULL);
  else
    {
      SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

      soup_server_message_set_status (msg, 200, NULL);
      if (server->mode == SERVE_CHUNKED)
        soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
      soup_message_headers_set_content_type (headers, "audio/wav", NULL);
      soup_message_body_append_bytes (soup_server_message_get_response_body (msg),
                                      server->body != NULL ? server->body : wav);
      /* A chunked body ends with its last chunk. */
      soup_message_body_complete (soup_server_message_get_response_body (msg));
    }

  if (server->delay_ms > 0)
    {
      server->active++;
      server->max_active = MAX (server->max_active, server->active);
      g_object_set_data (G_OBJECT (msg), "sj-server", server);
      soup_server_message_pause (msg);
      g_timeout_add (server->delay_ms, answer_later_cb, g_object_ref (msg));
    }
}

static void
server_start (Server *server)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;
  g_autofree char *base = NULL;

  server->server = soup_server_new (NULL, NULL);
  server->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  server->wav_size = 4096;
  soup_server_add_handler (server->server, NULL, (SoupServerCallback)server_cb, server, NULL);
  g_assert_true (soup_server_listen_local (server->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server->server);
  base = g_uri_to_string (uris->data);
  server->url = g_strdup (base);
}

static void
server_stop (Server *server)
{
  if (server->server != NULL)
    soup_server_disconnect (server->server);
  g_clear_object (&server->server);
  g_clear_pointer (&server->counts, g_hash_table_unref);
  g_clear_pointer (&server->url, g_free);
  g_clear_pointer (&server->body, g_bytes_unref);
}

static guint
server_count (Server     *server,
              const char *path)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (server->counts, path));
}

/* A raw socket server: @reply (or nothing at all) to each request, then
 * the connection is closed (or kept open forever). It runs in threads of
 * its own: the client is on the main loop, which must not block. */
typedef struct
{
  GSocketService *service;
  char           *url;
  const char     *reply;
  GMutex          lock;
  GPtrArray      *held;
  int             connections;
} RawServer;

static gboolean
raw_run_cb (GThreadedSocketService *service,
            GSocketConnection      *connection,
            GObject                *source,
            gpointer                user_data)
{
  RawServer *raw = user_data;
  char buffer[4096];

  /* The request is small: one read takes it. */
  g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (connection)), buffer, sizeof buffer, NULL, NULL);
  g_atomic_int_inc (&raw->connections);
  if (raw->reply == NULL)
    {
      g_mutex_lock (&raw->lock);
      g_ptr_array_add (raw->held, g_object_ref (connection));
      g_mutex_unlock (&raw->lock);
      return TRUE;
    }
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                             raw->reply, strlen (raw->reply), NULL, NULL, NULL);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

static void
raw_start (RawServer  *raw,
           const char *reply)
{
  g_autoptr(GError) error = NULL;
  guint16 port;

  raw->reply = reply;
  g_mutex_init (&raw->lock);
  raw->held = g_ptr_array_new_with_free_func (g_object_unref);
  raw->service = g_threaded_socket_service_new (4);
  port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (raw->service), NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (raw->service, "run", G_CALLBACK (raw_run_cb), raw);
  g_socket_service_start (raw->service);
  raw->url = g_strdup_printf ("http://127.0.0.1:%u", port);
}

static int
raw_connections (RawServer *raw)
{
  return g_atomic_int_get (&raw->connections);
}

static void
raw_stop (RawServer *raw)
{
  g_socket_service_stop (raw->service);
  g_socket_listener_close (G_SOCKET_LISTENER (raw->service));
  g_mutex_lock (&raw->lock);
  g_clear_pointer (&raw->held, g_ptr_array_unref);
  g_mutex_unlock (&raw->lock);
  g_clear_object (&raw->service);
  g_clear_pointer (&raw->url, g_free);
}

/* Fixture ------------------------------------------------------------------ */

static void
load_failed_cb (SjSoundCache *cache,
                const char   *pack,
                const char   *path,
                const GError *error,
                const char   *message,
                Fixture      *fixture)
{
  g_assert_nonnull (error);
  g_ptr_array_add (fixture->failures, g_strdup (message));
}

static void
file_cached_cb (SjSoundCache *cache,
                const char   *pack,
                const char   *path,
                guint64       size,
                Fixture      *fixture)
{
  fixture->cached++;
}

static SjSoundCache *
new_cache (Fixture    *fixture,
           const char *url)
{
  SjSoundCache *cache;

  g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);
  cache = sj_sound_cache_new (sj_sound_library_get_default (), fixture->directory);
  _sj_sound_cache_set_retry_delay (cache, 10, 3);
  g_signal_connect (cache, "load-failed", G_CALLBACK (load_failed_cb), fixture);
  g_signal_connect (cache, "file-cached", G_CALLBACK (file_cached_cb), fixture);
  return cache;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-sound-cache-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->directory = g_file_new_for_path (fixture->dir);
  fixture->failures = g_ptr_array_new_with_free_func (g_free);
  server_start (&fixture->server);
  fixture->cache = new_cache (fixture, fixture->server.url);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->cache);
  server_stop (&fixture->server);
  sj_test_remove_tree (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
  g_clear_object (&fixture->directory);
  g_clear_pointer (&fixture->failures, g_ptr_array_unref);
  g_unsetenv ("STRUDEL_JAM_SOUNDS_URL");
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
}

static gboolean
timeout_cb (gpointer data)
{
  g_error ("Timed out waiting for %s", (const char *)data);
  return G_SOURCE_REMOVE;
}

static void
spin_until_result (Wait *wait)
{
  guint timeout = g_timeout_add_seconds (30, timeout_cb, (gpointer)"a load");

  while (wait->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

/* Loads and waits; returns the bytes or NULL with @error set. */
static GBytes *
load (SjSoundCache   *cache,
      const char     *pack,
      const char     *path,
      SjSoundSource  *source,
      GError        **error)
{
  Wait wait = { NULL };
  const char *content_type = NULL;
  GBytes *bytes;

  sj_sound_cache_load_async (cache, pack, path, NULL, store_result_cb, &wait);
  spin_until_result (&wait);
  bytes = sj_sound_cache_load_finish (cache, wait.result, &content_type, source, error);
  if (bytes != NULL)
    g_assert_nonnull (content_type);
  g_object_unref (wait.result);
  return bytes;
}

/* Every file under the cache directory, relative to it. */
static void
list_tree (GFile     *root,
           GFile     *dir,
           GPtrArray *out)
{
  g_autoptr(GFileEnumerator) children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                                                   G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                                                   G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFileInfo *info;

  while (children != NULL && (info = g_file_enumerator_next_file (children, NULL, NULL)) != NULL)
    {
      g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        list_tree (root, child, out);
      else
        g_ptr_array_add (out, g_file_get_relative_path (root, child));
      g_object_unref (info);
    }
}

static guint
n_cached_files (Fixture *fixture)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  list_tree (fixture->directory, fixture->directory, files);
  for (guint i = 0; i < files->len; i++)
    g_test_message ("in the cache: %s", (char *)g_ptr_array_index (files, i));
  return files->len;
}

static void
assert_fails (Fixture    *fixture,
              const char *pack,
              const char *path,
              int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = load (fixture->cache, pack, path, NULL, &error);

  g_assert_null (bytes);
  g_assert_error (error, SJ_SOUND_CACHE_ERROR, code);
}

/* Tests -------------------------------------------------------------------- */

/* The first load downloads, writes the cache and serves; the next one comes
 * from the disk; a second cache object, with the server gone, too. */
static void
test_download_once_then_disk (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(GBytes) expected = sj_test_samples_make_wav_seeded ("/uzu-drumkit/" BD3, 4096);
  g_autoptr(GBytes) first = NULL;
  g_autoptr(GBytes) second = NULL;
  g_autoptr(GBytes) third = NULL;
  g_autoptr(GBytes) hat = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(SjSoundCache) offline = NULL;
  g_autofree char *contents = NULL;
  SjSoundSource source;
  goffset size;
  gsize length;

  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "uzu-drumkit", BD3, &size), ==, SJ_SOUND_STATE_NOT_CACHED);
  g_assert_cmpint (size, ==, -1);

  first = load (fixture->cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_DOWNLOAD);
  g_assert_true (g_bytes_equal (first, expected));
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 1);
  g_assert_cmpuint (fixture->cached, ==, 1);

  /* Written where the cache lives, whole. */
  file = sj_sound_cache_get_file (fixture->cache, "uzu-drumkit", BD3);
  g_assert_true (g_str_has_prefix (g_file_peek_path (file), fixture->dir));
  g_assert_true (g_str_has_suffix (g_file_peek_path (file), "/uzu-drumkit/" BD3));
  g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, &length, NULL));
  g_assert_cmpmem (contents, length, g_bytes_get_data (expected, NULL), g_bytes_get_size (expected));
  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "uzu-drumkit", BD3, &size), ==, SJ_SOUND_STATE_CACHED);
  g_assert_cmpint (size, ==, 4096);
  g_assert_cmpuint (n_cached_files (fixture), ==, 1);

  second = load (fixture->cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_CACHE);
  g_assert_true (g_bytes_equal (second, expected));
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 1);

  /* A path with a space: escaped in the URL (see /sound-cache/urls), plain
   * on the disk. */
  hat = load (fixture->cache, "tidal-drum-machines", "AkaiLinn/akailinn-hh/Closed%20Hat.wav", &source, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (server_count (&fixture->server, "/tidal-drum-machines/" HAT), ==, 1);
  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "tidal-drum-machines", HAT, NULL), ==, SJ_SOUND_STATE_CACHED);

  /* Another cache object on the same directory, the server gone and
   * downloads off: the disk still answers. */
  server_stop (&fixture->server);
  offline = new_cache (fixture, "http://127.0.0.1:9");
  sj_sound_cache_set_allow_downloads (offline, FALSE);
  third = load (offline, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_CACHE);
  g_assert_true (g_bytes_equal (third, expected));
  g_assert_cmpuint (fixture->failures->len, ==, 0);
}

/* A 404 is NOT_FOUND at once (no retry), leaves nothing, and is said once. */
static void
test_not_found (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->server.mode = SERVE_404;

  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_NOT_FOUND);
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 1);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==, "bd:3 could not be downloaded: the server answered 404");

  /* Asked again, it is asked again, but the console hears it once. */
  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_NOT_FOUND);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "uzu-drumkit", BD3, NULL), ==, SJ_SOUND_STATE_NOT_CACHED);
}

/* 5xx answers are retried with backoff; when they never stop, NETWORK. */
static void
test_server_errors_retried (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  fixture->server.mode = SERVE_503;
  fixture->server.fail_first = 2;
  bytes = load (fixture->cache, "uzu-drumkit", BD3, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 3);

  fixture->server.fail_first = 1000;
  assert_fails (fixture, "uzu-drumkit", "bd/14_bd_switchangel.wav", SJ_SOUND_CACHE_ERROR_NETWORK);
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/bd/14_bd_switchangel.wav"), ==, 3);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==, "bd:4 could not be downloaded: the server answered 503");
  g_assert_cmpuint (n_cached_files (fixture), ==, 1);
}

/* A body shorter than its Content-Length, then the connection closed. */
static void
test_truncated (Fixture       *fixture,
                gconstpointer  data)
{
  RawServer raw = { 0 };

  raw_start (&raw, "HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nContent-Length: 10000\r\n\r\n"
                   "RIFF$$$$WAVE and then nothing more");
  g_clear_object (&fixture->cache);
  fixture->cache = new_cache (fixture, raw.url);

  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_TRUNCATED);
  g_assert_cmpint (raw_connections (&raw), ==, 1);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "bd:3 could not be downloaded: the server sent less than it announced");
  raw_stop (&raw);
}

/* A server that accepts and never answers: the timeout gives up. */
static void
test_timeout (Fixture       *fixture,
              gconstpointer  data)
{
  RawServer raw = { 0 };
  gint64 start;

  raw_start (&raw, NULL);
  g_clear_object (&fixture->cache);
  fixture->cache = new_cache (fixture, raw.url);
  _sj_sound_cache_set_timeout (fixture->cache, 1);

  start = g_get_monotonic_time ();
  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_TIMEOUT);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpint (raw_connections (&raw), ==, 1);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "bd:3 could not be downloaded: the connection timed out");
  raw_stop (&raw);
}

/* Downloads off: strictly offline. A stale .part is never served, and the
 * next download replaces it. */
static void
test_offline_and_stale_part (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(GFile) file = sj_sound_cache_get_file (fixture->cache, "uzu-drumkit", BD3);
  g_autofree char *part = g_strconcat (g_file_peek_path (file), ".part", NULL);
  g_autofree char *parent = g_path_get_dirname (part);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjSoundSource source;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (part, "half a file", -1, NULL));

  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);
  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_OFFLINE);
  g_assert_cmpuint (fixture->server.requests, ==, 0);
  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "uzu-drumkit", BD3, NULL), ==, SJ_SOUND_STATE_NOT_CACHED);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "bd:3 is not downloaded and the app is offline (“Download sounds when first played” is off)");

  g_object_set (fixture->cache, "allow-downloads", TRUE, NULL);
  bytes = load (fixture->cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_DOWNLOAD);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 4096);
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (n_cached_files (fixture), ==, 1);
}

static void
plant (const char *path,
       gint64      age_s)
{
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, "x", -1, NULL));
  g_assert_true (g_file_set_attribute_uint64 (file, G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                              g_get_real_time () / G_USEC_PER_SEC - age_s,
                                              G_FILE_QUERY_INFO_NONE, NULL, NULL));
}

/* What a crash left behind goes; a download in progress (a young .part)
 * and cached files stay. */
static void
test_clean_stale_parts (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *stale = g_build_filename (fixture->dir, "uzu-drumkit", "bd", "13_bd_mot4i.wav.part", NULL);
  g_autofree char *deep = g_build_filename (fixture->dir, "vcsl", "a b", "c'd", "e#1.wav.part", NULL);
  g_autofree char *young = g_build_filename (fixture->dir, "uzu-drumkit", "sd", "10_sd.wav.part", NULL);
  g_autofree char *kept = g_build_filename (fixture->dir, "uzu-drumkit", "bd", "10_bd_switchangel.wav", NULL);
  g_autoptr(GError) error = NULL;
  Wait wait = { NULL };

  plant (stale, 2 * 60 * 60);
  plant (deep, 3 * 60 * 60);
  plant (young, 60);
  plant (kept, 5 * 60 * 60);

  sj_sound_cache_clean_parts_async (fixture->cache, NULL, store_result_cb, &wait);
  spin_until_result (&wait);
  g_assert_cmpint (sj_sound_cache_clean_parts_finish (fixture->cache, wait.result, &error), ==, 2);
  g_assert_no_error (error);
  g_object_unref (wait.result);

  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (deep, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (young, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_EXISTS));
}

/* Larger than the cache takes: refused from the Content-Length, or while
 * reading a body that has none. */
static void
test_too_large (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GBytes) small = NULL;
  g_autoptr(GError) error = NULL;

  _sj_sound_cache_set_limits (fixture->cache, 4, 1000);
  fixture->server.wav_size = 5000;

  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_TOO_LARGE);
  fixture->server.mode = SERVE_CHUNKED;
  fixture->server.wav_size = 300 * 1024;
  assert_fails (fixture, "uzu-drumkit", "bd/14_bd_switchangel.wav", SJ_SOUND_CACHE_ERROR_TOO_LARGE);
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/bd/14_bd_switchangel.wav"), ==, 1);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);

  /* Chunked and small enough is fine. */
  fixture->server.wav_size = 900;
  small = load (fixture->cache, "uzu-drumkit", "bd/15_bd_switchangel.wav", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (small), ==, 900);
  g_assert_cmpuint (n_cached_files (fixture), ==, 1);
}

/* Ten files at once: never more than four downloads at a time. */
static void
test_concurrency_bounded (Fixture       *fixture,
                          gconstpointer  data)
{
  const SjLibrarySound *sound = sj_sound_library_lookup (sj_sound_library_get_default (), "rolandtr808_bd");
  Wait waits[10] = { { NULL } };
  guint n = MIN (G_N_ELEMENTS (waits), sound->n_files);

  g_assert_cmpuint (n, ==, 10);
  fixture->server.delay_ms = 150;
  for (guint i = 0; i < n; i++)
    sj_sound_cache_load_async (fixture->cache, "tidal-drum-machines", sound->files[i], NULL, store_result_cb, &waits[i]);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;

      spin_until_result (&waits[i]);
      bytes = sj_sound_cache_load_finish (fixture->cache, waits[i].result, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (bytes);
      g_object_unref (waits[i].result);
    }

  g_test_message ("at most %u requests at once", fixture->server.max_active);
  g_assert_cmpuint (fixture->server.requests, ==, n);
  g_assert_cmpuint (fixture->server.max_active, <=, SJ_SOUND_CACHE_MAX_DOWNLOADS);
  g_assert_cmpuint (fixture->server.max_active, >=, 2);
  g_assert_cmpuint (n_cached_files (fixture), ==, n);
}

/* The same file asked ten times at once is downloaded once. */
static void
test_shared_download (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GBytes) expected = sj_test_samples_make_wav_seeded ("/uzu-drumkit/" BD3, 4096);
  Wait waits[10] = { { NULL } };

  fixture->server.delay_ms = 100;
  for (guint i = 0; i < G_N_ELEMENTS (waits); i++)
    sj_sound_cache_load_async (fixture->cache, "uzu-drumkit", i % 2 ? BD3 : "bd%2F13_bd_mot4i.wav", NULL,
                               store_result_cb, &waits[i]);
  for (guint i = 0; i < G_N_ELEMENTS (waits); i++)
    {
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      SjSoundSource source;

      spin_until_result (&waits[i]);
      bytes = sj_sound_cache_load_finish (fixture->cache, waits[i].result, NULL, &source, &error);
      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (bytes, expected));
      g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_DOWNLOAD);
      g_object_unref (waits[i].result);
    }

  g_assert_cmpuint (fixture->server.requests, ==, 1);
  g_assert_cmpuint (fixture->cached, ==, 1);
}

/* Only files of the library: nothing else is fetched or touched. */
static void
test_path_traversal (Fixture       *fixture,
                     gconstpointer  data)
{
  static const char * const paths[][2] = {
    { "uzu-drumkit", "../../../etc/passwd" },
    { "uzu-drumkit", "bd/../../tidal-drum-machines/x.wav" },
    { "uzu-drumkit", "bd/%2E%2E/%2E%2E/x.wav" },
    { "uzu-drumkit", "/etc/passwd" },
    { "uzu-drumkit", "bd/nope.wav" },
    { "uzu-drumkit", "" },
    { "..", "uzu-drumkit/" BD3 },
    { "nope", BD3 },
    { "soundfonts", "../../x.js" },
    { "soundfonts", "not_a_font.js" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    assert_fails (fixture, paths[i][0], paths[i][1], SJ_SOUND_CACHE_ERROR_NOT_FOUND);

  g_assert_cmpuint (fixture->server.requests, ==, 0);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
  g_assert_null (sj_sound_cache_get_file (fixture->cache, "uzu-drumkit", "../x"));
  g_assert_cmpuint (fixture->failures->len, ==, G_N_ELEMENTS (paths));
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 4), ==, "uzu-drumkit/bd/nope.wav is not a file of the sound library");
}

/* A cancelled load answers at once; the download goes on for the others
 * and stops when nobody waits. */
static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  RawServer raw = { 0 };
  g_autoptr(GCancellable) first = g_cancellable_new ();
  g_autoptr(GCancellable) second = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  Wait a = { NULL }, b = { NULL };

  raw_start (&raw, NULL);
  g_clear_object (&fixture->cache);
  fixture->cache = new_cache (fixture, raw.url);

  sj_sound_cache_load_async (fixture->cache, "uzu-drumkit", BD3, first, store_result_cb, &a);
  sj_sound_cache_load_async (fixture->cache, "uzu-drumkit", BD3, second, store_result_cb, &b);
  while (raw_connections (&raw) == 0)
    g_main_context_iteration (NULL, FALSE);

  g_cancellable_cancel (first);
  spin_until_result (&a);
  g_assert_null (sj_sound_cache_load_finish (fixture->cache, a.result, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_null (b.result);

  g_cancellable_cancel (second);
  spin_until_result (&b);
  g_assert_null (sj_sound_cache_load_finish (fixture->cache, b.result, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (fixture->failures->len, ==, 0);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);

  g_object_unref (a.result);
  g_object_unref (b.result);
  /* The download let go of the cache. */
  g_object_add_weak_pointer (G_OBJECT (fixture->cache), (gpointer *)&fixture->cache);
  g_object_unref (fixture->cache);
  {
    guint timeout = g_timeout_add_seconds (10, timeout_cb, (gpointer)"the cache to be let go");

    while (fixture->cache != NULL)
      g_main_context_iteration (NULL, TRUE);
    g_source_remove (timeout);
  }
  raw_stop (&raw);
}

static GBytes *
fake_kit (const char  *voice,
          guint        variant,
          GError     **error)
{
  if (g_str_equal (voice, "cp"))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no clap");
      return NULL;
    }
  return g_bytes_new_take (g_strdup_printf ("kit %s %u", voice, variant), strlen (voice) + 6);
}

/* A standard drum that cannot be had plays the drum kit's voice, which is
 * never written to the cache. */
static void
test_drum_kit_fallback (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) machine = NULL;
  g_autoptr(GError) error = NULL;
  SjSoundSource source;

  sj_sound_cache_set_fallback (fixture->cache, fake_kit);
  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);

  bytes = load (fixture->cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_FALLBACK);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "kit bd 3", 8);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "bd:3 is not downloaded and the app is offline (“Download sounds when first played” is off); "
                   "the built-in bd plays instead");

  /* A bank's drum is the same voice. */
  machine = load (fixture->cache, "tidal-drum-machines", "RolandTR909/rolandtr909-sd/naredrum.wav", &source, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (machine, NULL), g_bytes_get_size (machine), "kit sd 0", 8);

  /* No voice, or the kit has none: the error stands. */
  assert_fails (fixture, "dirt-samples", "casio/high.wav", SJ_SOUND_CACHE_ERROR_OFFLINE);
  assert_fails (fixture, "uzu-drumkit", "cp/10_cp_switchangel.wav", SJ_SOUND_CACHE_ERROR_OFFLINE);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
  g_assert_cmpuint (fixture->server.requests, ==, 0);

  g_assert_cmpstr (sj_sound_cache_get_fallback_voice (sj_sound_library_lookup_file (sj_sound_library_get_default (),
                                                                                   "tidal-drum-machines",
                                                                                   "RolandTR808/rolandtr808-oh/OH00.WAV")),
                   ==, "oh");
  g_assert_null (sj_sound_cache_get_fallback_voice (sj_sound_library_lookup_file (sj_sound_library_get_default (),
                                                                                 "vcsl", "Idiophones/Struck%20Idiophones/Sleigh%20Bells/Sleighbells_Hit_rr1_Mid.wav")));
}

/* How a sound would play now: built in, cached (wholly or, offline, in
 * part), downloaded, the kit's voice, or not at all. */
static void
test_availability (Fixture       *fixture,
                   gconstpointer  data)
{
  const SjLibraryFile *bd3 = sj_sound_library_lookup_file (sj_sound_library_get_default (), "uzu-drumkit", BD3);
  const SjLibraryFile *casio = sj_sound_library_lookup_file (sj_sound_library_get_default (), "dirt-samples", "casio/high.wav");
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjSoundFiles files;

  sj_sound_cache_set_fallback (fixture->cache, fake_kit);

  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "sawtooth", &files), ==,
                   SJ_SOUND_AVAILABILITY_BUILT_IN);
  g_assert_cmpuint (files.n_files, ==, 0);
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "BD", &files), ==,
                   SJ_SOUND_AVAILABILITY_DOWNLOAD);
  g_assert_cmpuint (files.n_files, ==, 8);
  g_assert_cmpuint (files.n_cached, ==, 0);
  g_assert_cmpstr (files.fallback_voice, ==, "bd");
  g_assert_cmpint (sj_sound_cache_get_file_availability (fixture->cache, bd3), ==, SJ_SOUND_AVAILABILITY_DOWNLOAD);

  bytes = load (fixture->cache, "uzu-drumkit", BD3, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sj_sound_cache_get_file_availability (fixture->cache, bd3), ==, SJ_SOUND_AVAILABILITY_CACHED);
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "bd", &files), ==,
                   SJ_SOUND_AVAILABILITY_DOWNLOAD);
  g_assert_cmpuint (files.n_cached, ==, 1);
  g_assert_cmpint (files.cached_bytes, ==, (goffset)g_bytes_get_size (bytes));

  /* Offline: the cached variant plays; the rest of bd is the kit's,
   * casio cannot play, and a bank's alias counts as its machine. */
  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);
  g_assert_false (sj_sound_cache_get_online (fixture->cache));
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "bd", NULL), ==, SJ_SOUND_AVAILABILITY_CACHED);
  g_assert_cmpint (sj_sound_cache_get_file_availability (fixture->cache, bd3), ==, SJ_SOUND_AVAILABILITY_CACHED);
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "hh", NULL), ==, SJ_SOUND_AVAILABILITY_KIT);
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "tr909_bd", &files), ==,
                   SJ_SOUND_AVAILABILITY_KIT);
  g_assert_cmpuint (files.n_files, >, 0);
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "casio", NULL), ==,
                   SJ_SOUND_AVAILABILITY_UNAVAILABLE);
  g_assert_cmpint (sj_sound_cache_get_file_availability (fixture->cache, casio), ==, SJ_SOUND_AVAILABILITY_UNAVAILABLE);
  g_assert_cmpstr (sj_sound_availability_to_string (SJ_SOUND_AVAILABILITY_KIT), ==, "kit");

  /* Without a kit, a drum that cannot be had cannot play either. */
  sj_sound_cache_set_fallback (fixture->cache, NULL);
  g_assert_cmpint (sj_sound_cache_get_sound_availability (fixture->cache, "hh", NULL), ==,
                   SJ_SOUND_AVAILABILITY_UNAVAILABLE);
}

/* Hosts that cannot be reached (nobody listens): one attempt, no retries,
 * and for a while every other sound falls back at once, without a
 * connection of its own, with a line that says the app is offline. */
static void
test_unreachable (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SjSoundCache) cache = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjSoundSource source;
  gint64 start;

  server_stop (&fixture->server);
  cache = new_cache (fixture, "http://127.0.0.1:9");
  sj_sound_cache_set_fallback (cache, fake_kit);
  g_assert_true (sj_sound_cache_get_online (cache));

  start = g_get_monotonic_time ();
  bytes = load (cache, "dirt-samples", "casio/high.wav", NULL, &error);
  g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK);
  g_assert_null (bytes);
  /* No retry with its back-off (a second at least). */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 900 * 1000);
  g_assert_false (sj_sound_cache_get_online (cache));
  g_assert_cmpint (sj_sound_cache_get_sound_availability (cache, "hh", NULL), ==, SJ_SOUND_AVAILABILITY_KIT);

  g_clear_error (&error);
  bytes = load (cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_FALLBACK);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, fixture->failures->len - 1), ==,
                   "bd:3 is not downloaded and the app is offline (the sound hosts cannot be reached); "
                   "the built-in bd plays instead");
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
}

/* Where files come from: upstream, or the test server. */
static void
test_urls (Fixture       *fixture,
           gconstpointer  data)
{
  g_autofree char *font = sj_sound_cache_get_url (fixture->cache, "soundfonts", "0000_JCLive_sf2_file.js");
  g_autofree char *hat = sj_sound_cache_get_url (fixture->cache, "tidal-drum-machines", HAT);
  g_autofree char *expected_font = g_strconcat (fixture->server.url, "soundfonts/0000_JCLive_sf2_file.js", NULL);
  g_autofree char *expected_hat = g_strconcat (fixture->server.url, "tidal-drum-machines/AkaiLinn/akailinn-hh/Closed%20Hat.wav", NULL);
  g_autoptr(SjSoundCache) upstream = NULL;
  g_autofree char *real = NULL;

  g_assert_cmpstr (font, ==, expected_font);
  g_assert_cmpstr (hat, ==, expected_hat);
  g_assert_null (sj_sound_cache_get_url (fixture->cache, "soundfonts", "nope.js"));

  g_unsetenv ("STRUDEL_JAM_SOUNDS_URL");
  upstream = sj_sound_cache_new (sj_sound_library_get_default (), NULL);
  real = sj_sound_cache_get_url (upstream, "soundfonts", "0000_JCLive_sf2_file.js");
  g_assert_cmpstr (real, ==, "https://felixroos.github.io/webaudiofontdata/sound/0000_JCLive_sf2_file.js");
  g_assert_true (g_str_has_suffix (g_file_peek_path (sj_sound_cache_get_directory (upstream)), "/strudel-jam/sounds"));
}

/* Audio and quota ------------------------------------------------------------ */

/* The first bytes of each format a sound may have, and of what it may not. */
static const struct {
  const char *name;
  const char *head;
  gsize       length;
} audio_heads[] = {
  { "WAV", "RIFF\x24\x00\x00\x00WAVEfmt ", 16 },
  { "RF64", "RF64\xff\xff\xff\xffWAVEds64", 16 },
  { "FLAC", "fLaC\x00\x00\x00\x22\x10\x00\x10\x00", 12 },
  { "Ogg", "OggS\x00\x02\x00\x00\x00\x00\x00\x00", 12 },
  { "MP3 (ID3)", "ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00", 12 },
  { "MP3 (frame)", "\xff\xfb\x90\x64\x00\x00\x00\x00\x00\x00\x00\x00", 12 },
  { "AIFF", "FORM\x00\x00\x10\x00" "AIFFCOMM", 16 },
  { "M4A", "\x00\x00\x00\x20" "ftypM4A \x00\x00\x00\x00", 16 },
};

static const struct {
  const char *head;
  const char *says;
} other_heads[] = {
  { "<!DOCTYPE html><html><head><title>Sign in to the Wi-Fi</title></head><body></body></html>", "an HTML page" },
  { "\n  <html><body>404 Not Found</body></html>", "an HTML page" },
  { "{\"error\": \"not found\"}", "JSON" },
  { "404: Not Found", "text" },
  { "", "an empty body" },
};

/* WAV, FLAC, Ogg, MP3, AIFF and M4A are sounds; a page, JSON or text is not,
 * and the error says what it is. */
static void
test_formats (Fixture       *fixture,
              gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (audio_heads); i++)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (audio_heads[i].head, audio_heads[i].length);
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", audio_heads[i].name);
      g_assert_true (sj_sound_cache_is_audio (bytes, &error));
      g_assert_no_error (error);
    }

  for (guint i = 0; i < G_N_ELEMENTS (other_heads); i++)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (other_heads[i].head, strlen (other_heads[i].head));
      g_autoptr(GError) error = NULL;

      g_assert_false (sj_sound_cache_is_audio (bytes, &error));
      g_assert_error (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_AUDIO);
      g_assert_nonnull (strstr (error->message, other_heads[i].says));
    }
}

/* A 200 answer that is not a sound (a captive portal's page) is refused:
 * not kept, not served, said once; a page kept by an older version is not
 * served either, but downloaded again. */
static void
test_not_audio (Fixture       *fixture,
                gconstpointer  data)
{
  const char *page = other_heads[0].head;
  g_autoptr(GFile) file = sj_sound_cache_get_file (fixture->cache, "uzu-drumkit", BD3);
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) expected = sj_test_samples_make_wav_seeded ("/uzu-drumkit/" BD3, 4096);
  g_autoptr(GError) error = NULL;
  SjSoundSource source;

  fixture->server.body = g_bytes_new_static (page, strlen (page));
  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_NOT_AUDIO);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);
  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "uzu-drumkit", BD3, NULL), ==, SJ_SOUND_STATE_NOT_CACHED);
  g_assert_cmpuint (fixture->cached, ==, 0);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->failures, 0), ==,
                   "bd:3 could not be downloaded: the server sent an HTML page (89 bytes), not a sound");

  /* Asked again, it is fetched again (no retries in between), and not said
   * again. */
  assert_fails (fixture, "uzu-drumkit", BD3, SJ_SOUND_CACHE_ERROR_NOT_AUDIO);
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 2);
  g_assert_cmpuint (fixture->failures->len, ==, 1);
  g_assert_cmpuint (n_cached_files (fixture), ==, 0);

  /* The "loaded 74 B" case: a page already in the cache is never served. */
  g_clear_pointer (&fixture->server.body, g_bytes_unref);
  parent = g_file_get_parent (file);
  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (parent), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), page, -1, NULL));
  bytes = load (fixture->cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_DOWNLOAD);
  g_assert_true (g_bytes_equal (bytes, expected));
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 3);
}

/* A body in each audio format is kept and served. */
static void
test_audio_formats_kept (Fixture       *fixture,
                         gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (audio_heads); i++)
    {
      const SjLibrarySound *sound = sj_sound_library_lookup (sj_sound_library_get_default (), "bd");
      g_autoptr(GByteArray) body = g_byte_array_new ();
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      SjSoundSource source;
      const char *path;

      /* Any file of the library will do: the server answers each alike. */
      g_assert_nonnull (sound);
      g_assert_cmpuint (sound->n_files, >, i);
      path = sound->files[i];

      g_byte_array_append (body, (const guint8 *)audio_heads[i].head, audio_heads[i].length);
      g_byte_array_append (body, (const guint8 *)"0123456789abcdef", 16);
      g_clear_pointer (&fixture->server.body, g_bytes_unref);
      fixture->server.body = g_bytes_new (body->data, body->len);

      g_test_message ("%s as %s/%s", audio_heads[i].name, sound->pack, path);
      bytes = load (fixture->cache, sound->pack, path, &source, &error);
      g_assert_no_error (error);
      g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_DOWNLOAD);
      g_assert_true (g_bytes_equal (bytes, fixture->server.body));
      g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, sound->pack, path, NULL), ==, SJ_SOUND_STATE_CACHED);
    }
  g_assert_cmpuint (fixture->failures->len, ==, 0);
}

#define MIB (1024 * 1024)

/* Writes @mib MiB at @relative, last used @age seconds ago. */
static char *
put_file (Fixture    *fixture,
          const char *relative,
          guint       mib,
          gint64      age)
{
  char *path = g_build_filename (fixture->dir, relative, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree guint8 *data = g_malloc0 ((gsize)mib * MIB);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  memcpy (data, "RIFF\x24\x00\x00\x00WAVE", MIN ((gsize)mib * MIB, 12));
  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, (const char *)data, (gssize)mib * MIB, NULL));
  g_assert_true (g_file_set_attribute_uint64 (file, G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                              g_get_real_time () / G_USEC_PER_SEC - age,
                                              G_FILE_QUERY_INFO_NONE, NULL, NULL));
  return path;
}

static gboolean
trim (SjSoundCache *cache,
      guint64      *used,
      guint        *removed)
{
  Wait wait = { NULL };
  g_autoptr(GError) error = NULL;
  gboolean ok;

  sj_sound_cache_trim_async (cache, NULL, store_result_cb, &wait);
  spin_until_result (&wait);
  ok = sj_sound_cache_trim_finish (cache, wait.result, used, removed, &error);
  g_assert_no_error (error);
  g_object_unref (wait.result);
  return ok;
}

/* Over its limit, the cache evicts the least recently used files first, and
 * never a pack kept for offline, a file in use or its own bookkeeping. */
static void
test_quota (Fixture       *fixture,
            gconstpointer  data)
{
  g_autofree char *oldest = put_file (fixture, "uzu-drumkit/bd/a.wav", 1, 4000);
  g_autofree char *older = put_file (fixture, "remote/https/host.test/b.wav", 1, 3000);
  g_autofree char *old = put_file (fixture, "uzu-drumkit/sd/c.wav", 1, 2000);
  g_autofree char *kept = put_file (fixture, "tidal-drum-machines/RolandTR909/bd/k.wav", 1, 9000);
  g_autofree char *playing = put_file (fixture, "uzu-drumkit/hh/r.wav", 1, 5);
  g_autofree char *state = put_file (fixture, "downloads.json", 1, 9999);
  g_autofree char *part = put_file (fixture, "uzu-drumkit/bd/x.wav.part", 1, 9999);
  const char * const kept_dirs[] = { "tidal-drum-machines/RolandTR909", NULL };
  g_autoptr(GFile) kept_file = g_file_new_for_path (kept);
  guint64 used = 0;
  guint removed = 0;

  sj_sound_cache_set_limit_mb (fixture->cache, 0);
  g_assert_true (trim (fixture->cache, &used, &removed));
  g_assert_cmpuint (used, ==, 7 * MIB);
  g_assert_cmpuint (removed, ==, 0);

  sj_sound_cache_set_kept_dirs (fixture->cache, kept_dirs);
  g_assert_true (sj_sound_cache_is_kept (fixture->cache, kept_file));
  sj_sound_cache_set_limit_mb (fixture->cache, 5);
  g_assert_cmpuint (sj_sound_cache_get_limit_mb (fixture->cache), ==, 5);
  g_assert_true (trim (fixture->cache, &used, &removed));
  g_assert_cmpuint (removed, ==, 2);
  g_assert_cmpuint (used, ==, 5 * MIB);
  g_assert_false (g_file_test (oldest, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (older, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (old, G_FILE_TEST_EXISTS));

  /* Far over the limit: what may go goes, what may not stays. */
  sj_sound_cache_set_limit_mb (fixture->cache, 1);
  g_assert_true (trim (fixture->cache, &used, &removed));
  g_assert_cmpuint (removed, ==, 1);
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (playing, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (state, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (part, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (used, ==, 4 * MIB);

  /* No longer kept for offline: it may go too. */
  sj_sound_cache_set_kept_dirs (fixture->cache, NULL);
  g_assert_false (sj_sound_cache_is_kept (fixture->cache, kept_file));
  g_assert_true (trim (fixture->cache, &used, &removed));
  g_assert_cmpuint (removed, ==, 1);
  g_assert_false (g_file_test (kept, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (playing, G_FILE_TEST_EXISTS));
}

static void
trimmed_cb (SjSoundCache *cache,
            guint64       used,
            guint         removed,
            guint        *n_removed)
{
  *n_removed = removed + 1;
}

/* A download that takes the cache over its limit evicts, by itself. */
static void
test_quota_after_download (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autofree char *old = put_file (fixture, "uzu-drumkit/bd/a.wav", 2, 4000);
  g_autofree char *kept = put_file (fixture, "dirt-samples/bd/k.wav", 2, 9000);
  const char * const kept_dirs[] = { "dirt-samples", NULL };
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  guint n_removed = 0;

  sj_sound_cache_set_kept_dirs (fixture->cache, kept_dirs);
  sj_sound_cache_set_limit_mb (fixture->cache, 3);
  g_signal_connect (fixture->cache, "trimmed", G_CALLBACK (trimmed_cb), &n_removed);
  fixture->server.wav_size = MIB;
  bytes = load (fixture->cache, "uzu-drumkit", BD3, NULL, &error);
  g_assert_no_error (error);
  while (n_removed == 0)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpuint (n_removed - 1, ==, 1);
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_EXISTS));
  g_assert_cmpint (sj_sound_cache_lookup_state (fixture->cache, "uzu-drumkit", BD3, NULL), ==, SJ_SOUND_STATE_CACHED);
}

/* Kept packs alone over the limit: nothing is evicted, and the next
 * downloads do not each walk the cache again. */
static void
test_quota_kept_over_limit (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autofree char *kept = put_file (fixture, "dirt-samples/bd/k.wav", 4, 9000);
  const char * const kept_dirs[] = { "dirt-samples", NULL };
  g_autoptr(GBytes) first = NULL;
  g_autoptr(GBytes) second = NULL;
  g_autoptr(GError) error = NULL;
  guint n_removed = 0;

  sj_sound_cache_set_kept_dirs (fixture->cache, kept_dirs);
  sj_sound_cache_set_limit_mb (fixture->cache, 3);
  g_signal_connect (fixture->cache, "trimmed", G_CALLBACK (trimmed_cb), &n_removed);
  first = load (fixture->cache, "uzu-drumkit", BD3, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fixture->cache->trimming);
  while (n_removed == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (n_removed - 1, ==, 0);
  g_assert_true (g_file_test (kept, G_FILE_TEST_EXISTS));

  second = load (fixture->cache, "tidal-drum-machines", HAT, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (fixture->cache->trimming);
}

/* Serving a file from the cache records its use (its modification time):
 * it goes last. */
static void
test_use_recorded (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GFile) file = sj_sound_cache_get_file (fixture->cache, "uzu-drumkit", BD3);
  g_autofree char *relative = g_file_get_relative_path (fixture->directory, file);
  g_autofree char *path = put_file (fixture, relative, 1, 4000);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjSoundSource source;

  bytes = load (fixture->cache, "uzu-drumkit", BD3, &source, &error);
  g_assert_no_error (error);
  g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_CACHE);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_TIME_MODIFIED, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  g_assert_cmpuint (g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED), >=,
                    g_get_real_time () / G_USEC_PER_SEC - 60);
  g_assert_cmpuint (server_count (&fixture->server, "/uzu-drumkit/" BD3), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, fn) g_test_add ("/sound-cache/" name, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("download-once-then-disk", test_download_once_then_disk);
  ADD ("not-found", test_not_found);
  ADD ("server-errors-retried", test_server_errors_retried);
  ADD ("truncated", test_truncated);
  ADD ("timeout", test_timeout);
  ADD ("offline-and-stale-part", test_offline_and_stale_part);
  ADD ("clean-stale-parts", test_clean_stale_parts);
  ADD ("too-large", test_too_large);
  ADD ("concurrency-bounded", test_concurrency_bounded);
  ADD ("shared-download", test_shared_download);
  ADD ("path-traversal", test_path_traversal);
  ADD ("cancel", test_cancel);
  ADD ("drum-kit-fallback", test_drum_kit_fallback);
  ADD ("availability", test_availability);
  ADD ("unreachable", test_unreachable);
  ADD ("urls", test_urls);
  ADD ("formats", test_formats);
  ADD ("not-audio", test_not_audio);
  ADD ("audio-formats-kept", test_audio_formats_kept);
  ADD ("quota", test_quota);
  ADD ("quota-after-download", test_quota_after_download);
  ADD ("quota-kept-over-limit", test_quota_kept_over_limit);
  ADD ("use-recorded", test_use_recorded);
#undef ADD

  return g_test_run ();
}
