/* test-sound-downloads.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjSoundDownloads ("Download for offline") against a loopback server
 * standing in for the sample hosts (STRUDEL_JAM_SOUNDS_URL): a SoupServer
 * that serves generated WAV files, each told apart by its bytes, and can
 * answer 404 or 503 for chosen files, hold every answer a while, or send
 * half of a file and stall. Each test has a cache directory of its own.
 *
 * The packs are the library's own (drum machines of tidal-drum-machines,
 * small and real). What is checked: a pack downloads with its progress in
 * order and ends complete, even with "download-sounds" off; cancelling
 * leaves only whole files; a file that fails is retried and one that
 * cannot be had is reported by name; removal per pack and of everything;
 * the disk usage; a pack whose hosts are down stops and stays to resume;
 * and a download killed with SIGKILL in the middle of a file (a child
 * process of this test) resumes in a new SjSoundDownloads on the same
 * directory and completes, fetching nothing twice, with every file served
 * from the cache byte for byte the server's.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <sys/wait.h>

#include "sj-sound-cache-private.h"
#include "sj-sound-downloads-private.h"
#include "sj-test-files.h"
#include "sj-test-samples.h"

#define SMALL_MACHINE  "tidal-drum-machines/AJKPercusyn"     /* 5 files */
#define MACHINE        "tidal-drum-machines/RolandTR909"     /* 74 files */
#define LARGE_MACHINE  "tidal-drum-machines/RolandTR808"     /* 122 files */
#define WAV_SIZE       4096
#define WAIT_TIMEOUT_S 60

typedef struct
{
  SoupServer *server;
  char       *url;
  guint       delay_ms;      /* hold each answer this long */
  GHashTable *fail;          /* path → 404, or how many 503s before the file */
  GHashTable *counts;        /* path → requests */
  char       *stall;         /* (nullable): the path whose answer stops half-way */
  gboolean    stalled;       /* the stalled answer was sent */
} Server;

typedef struct
{
  char             *dir;
  GFile            *directory;
  Server            server;
  SjSoundCache     *cache;
  SjSoundDownloads *downloads;
  GArray           *progress;     /* n_done of each progress signal */
  guint             total;        /* n_total they said */
  guint64           bytes;        /* bytes the last said */
  char             *finished;     /* the last pack that finished */
  int               outcome;
  guint             n_finished;
} Fixture;

/* The WAV files ------------------------------------------------------------ */

/* The server's path of a file: "/<pack>/<local path>", as the cache asks. */
static char *
server_path (const SjLibraryFile *file)
{
  return g_strconcat ("/", file->pack, "/", file->local_path, NULL);
}

/* The loopback server -------------------------------------------------------- */

/* A client that went away (cancelled, killed) has nothing to be answered. */
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
  Server *server = user_data;
  const char *decoded = g_uri_get_path (soup_server_message_get_uri (msg));
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (server->counts, decoded)) + 1;
  guint fail = GPOINTER_TO_UINT (g_hash_table_lookup (server->fail, decoded));
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  g_autoptr(GBytes) wav = sj_test_samples_make_wav_seeded (decoded, WAV_SIZE);

  g_hash_table_replace (server->counts, g_strdup (decoded), GUINT_TO_POINTER (count));

  if (fail == 404)
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  if (count <= fail)
    {
      soup_server_message_set_status (msg, 503, NULL);
      return;
    }

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "audio/wav", NULL);

  /* Half of the file, and then nothing: the client is killed meanwhile. */
  if (server->stall != NULL && g_str_equal (decoded, server->stall))
    {
      soup_message_headers_set_content_length (headers, WAV_SIZE);
      soup_message_body_append (body, SOUP_MEMORY_COPY, g_bytes_get_data (wav, NULL), WAV_SIZE / 2);
      server->stalled = TRUE;
      return;
    }

  soup_message_body_append_bytes (body, wav);
  soup_message_body_complete (body);
  if (server->delay_ms > 0)
    {
      g_signal_connect (msg, "disconnected", G_CALLBACK (message_gone_cb), NULL);
      g_signal_connect (msg, "finished", G_CALLBACK (message_gone_cb), NULL);
      soup_server_message_pause (msg);
      g_timeout_add_once (server->delay_ms, answer_later_cb, g_object_ref (msg));
    }
}

static void
server_start (Server *server)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  server->server = soup_server_new (NULL, NULL);
  server->fail = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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
  g_clear_pointer (&server->fail, g_hash_table_unref);
  g_clear_pointer (&server->counts, g_hash_table_unref);
  g_clear_pointer (&server->url, g_free);
  g_clear_pointer (&server->stall, g_free);
}

static guint
server_count (Server              *server,
              const SjLibraryFile *file)
{
  g_autofree char *path = server_path (file);

  return GPOINTER_TO_UINT (g_hash_table_lookup (server->counts, path));
}

static void
server_fail (Server              *server,
             const SjLibraryFile *file,
             guint                how)
{
  g_hash_table_replace (server->fail, server_path (file), GUINT_TO_POINTER (how));
}

/* Waiting ------------------------------------------------------------------- */

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Iterates the main loop until @done says so; a short timer wakes it up
 * for what happens outside it (a child process writing files). */
static void
spin_until (gboolean   (*done) (gpointer),
            gpointer     data,
            const char  *what)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_TIMEOUT_S * G_USEC_PER_SEC;
  guint wake = g_timeout_add (10, wake_cb, NULL);

  while (!done (data))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("Timed out waiting for %s", what);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (wake);
}

/* The fixture --------------------------------------------------------------- */

static void
progress_cb (SjSoundDownloads *downloads,
             const char       *id,
             guint             n_done,
             guint             n_total,
             guint64           bytes,
             Fixture          *fixture)
{
  g_array_append_val (fixture->progress, n_done);
  fixture->total = n_total;
  fixture->bytes = bytes;
}

static void
finished_cb (SjSoundDownloads *downloads,
             const char       *id,
             int               outcome,
             Fixture          *fixture)
{
  g_free (fixture->finished);
  fixture->finished = g_strdup (id);
  fixture->outcome = outcome;
  fixture->n_finished++;
}

static void
new_downloads (Fixture *fixture)
{
  g_setenv ("STRUDEL_JAM_SOUNDS_URL", fixture->server.url, TRUE);
  fixture->cache = sj_sound_cache_new (sj_sound_library_get_default (), fixture->directory);
  _sj_sound_cache_set_retry_delay (fixture->cache, 10, 3);
  fixture->downloads = sj_sound_downloads_new (fixture->cache);
  g_signal_connect (fixture->downloads, "progress", G_CALLBACK (progress_cb), fixture);
  g_signal_connect (fixture->downloads, "finished", G_CALLBACK (finished_cb), fixture);
}

static gboolean
cache_idle (gpointer data)
{
  Fixture *fixture = data;

  return g_hash_table_size (fixture->cache->downloads) == 0;
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *)data == NULL;
}

static void
free_downloads (Fixture *fixture)
{
  /* The cache's own downloads end on the main loop after a cancel. */
  spin_until (cache_idle, fixture, "the cache's downloads to end");
  g_assert_false (sj_sound_downloads_get_active (fixture->downloads));
  /* A thread's task lets go of its object on the main loop. */
  g_object_add_weak_pointer (G_OBJECT (fixture->downloads), (gpointer *)&fixture->downloads);
  g_object_unref (fixture->downloads);
  spin_until (is_null, &fixture->downloads, "the downloads to be finalized");
  g_assert_finalize_object (fixture->cache);
  fixture->cache = NULL;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-sound-downloads-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->directory = g_file_new_for_path (fixture->dir);
  fixture->progress = g_array_new (FALSE, FALSE, sizeof (guint));
  server_start (&fixture->server);
  new_downloads (fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->downloads != NULL)
    free_downloads (fixture);
  server_stop (&fixture->server);
  sj_test_remove_tree (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
  g_clear_object (&fixture->directory);
  g_clear_pointer (&fixture->progress, g_array_unref);
  g_clear_pointer (&fixture->finished, g_free);
  g_unsetenv ("STRUDEL_JAM_SOUNDS_URL");
}

typedef struct
{
  Fixture    *fixture;
  guint       n_finished;
} Finished;

static gboolean
has_finished (gpointer data)
{
  Finished *wait = data;

  return wait->fixture->n_finished > wait->n_finished;
}

/* Starts @id and waits for it to end; returns the outcome. */
static int
download_pack (Fixture    *fixture,
               const char *id)
{
  Finished wait = { fixture, fixture->n_finished };

  g_array_set_size (fixture->progress, 0);
  g_assert_true (sj_sound_downloads_start (fixture->downloads, id));
  spin_until (has_finished, &wait, id);
  g_assert_cmpstr (fixture->finished, ==, id);
  return fixture->outcome;
}

typedef struct
{
  GAsyncResult *result;
} Wait;

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
}

static gboolean
has_result (gpointer data)
{
  return ((Wait *)data)->result != NULL;
}

static void
refresh (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  Wait wait = { NULL };

  sj_sound_downloads_refresh_async (fixture->downloads, NULL, store_result_cb, &wait);
  spin_until (has_result, &wait, "the count");
  g_assert_true (sj_sound_downloads_refresh_finish (fixture->downloads, wait.result, &error));
  g_assert_no_error (error);
  g_object_unref (wait.result);
}

static void
remove_pack (Fixture    *fixture,
             const char *id)
{
  g_autoptr(GError) error = NULL;
  Wait wait = { NULL };

  sj_sound_downloads_remove_async (fixture->downloads, id, NULL, store_result_cb, &wait);
  spin_until (has_result, &wait, "the removal");
  g_assert_true (sj_sound_downloads_remove_finish (fixture->downloads, wait.result, &error));
  g_assert_no_error (error);
  g_object_unref (wait.result);
}

/* The cache directory -------------------------------------------------------- */

/* Every file under @dir, relative to @root, with its size. */
static void
list_tree (GFile      *root,
           GFile      *dir,
           GHashTable *out)
{
  g_autoptr(GFileEnumerator) children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                                                   G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                                                   G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                                   G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFileInfo *info;

  while (children != NULL && (info = g_file_enumerator_next_file (children, NULL, NULL)) != NULL)
    {
      g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        list_tree (root, child, out);
      else
        g_hash_table_insert (out, g_file_get_relative_path (root, child), GINT_TO_POINTER (g_file_info_get_size (info)));
      g_object_unref (info);
    }
}

static GHashTable *
cached_files (Fixture *fixture)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  list_tree (fixture->directory, fixture->directory, files);
  return files;
}

static guint64
tree_size (Fixture *fixture)
{
  g_autoptr(GHashTable) files = cached_files (fixture);
  GHashTableIter iter;
  gpointer size;
  guint64 total = 0;

  g_hash_table_iter_init (&iter, files);
  while (g_hash_table_iter_next (&iter, NULL, &size))
    total += GPOINTER_TO_INT (size);
  return total;
}

/* Every file in the cache is whole: byte for byte what the server sends.
 * Returns how many sounds there are, and the .part files in @parts. */
static guint
assert_only_whole_files (Fixture *fixture,
                         guint   *parts)
{
  g_autoptr(GHashTable) files = cached_files (fixture);
  GHashTableIter iter;
  gpointer key;
  guint n = 0;

  *parts = 0;
  g_hash_table_iter_init (&iter, files);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *relative = key;
      g_autofree char *path = g_build_filename (fixture->dir, relative, NULL);
      g_autofree char *server = g_strconcat ("/", relative, NULL);
      g_autoptr(GBytes) expected = NULL;
      g_autofree char *contents = NULL;
      gsize length;

      if (g_str_equal (relative, "downloads.json"))
        continue;
      if (g_str_has_suffix (relative, ".part"))
        {
          (*parts)++;
          continue;
        }

      expected = sj_test_samples_make_wav_seeded (server, WAV_SIZE);
      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      g_assert_cmpmem (contents, length, g_bytes_get_data (expected, NULL), g_bytes_get_size (expected));
      n++;
    }

  return n;
}

static gboolean
state_lists (Fixture    *fixture,
             const char *id)
{
  g_autofree char *contents = NULL;
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", id);
  char *offline;

  if (!g_file_get_contents (g_file_peek_path (sj_sound_downloads_get_state_file (fixture->downloads)),
                            &contents, NULL, NULL))
    return FALSE;
  /* Only the packs to resume, not those kept for offline. */
  if ((offline = strstr (contents, "\"offline\"")) != NULL)
    *offline = '\0';
  return strstr (contents, quoted) != NULL;
}

/* Tests --------------------------------------------------------------------- */

/* The packs as the musician knows them, each drum machine on its own. */
static void
test_packs (Fixture       *fixture,
            gconstpointer  data)
{
  const char * const *packs = sj_sound_downloads_get_packs (fixture->downloads);
  const char * const expected[] = {
    "dirt-samples", "uzu-drumkit", "piano", "vcsl", "mridangam", "uzu-wavetables", "soundfonts",
  };
  const SjSoundPackInfo *info;
  guint n_machines = 0, n_files = 0;

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (packs[i], ==, expected[i]);
  for (guint i = G_N_ELEMENTS (expected); packs[i] != NULL; i++)
    {
      info = sj_sound_downloads_get_pack (fixture->downloads, packs[i]);
      g_assert_cmpstr (info->collection, ==, "tidal-drum-machines");
      g_assert_true (g_str_has_prefix (info->id, "tidal-drum-machines/"));
      if (i > G_N_ELEMENTS (expected))
        g_assert_cmpint (g_ascii_strcasecmp (packs[i - 1], packs[i]), <, 0);
      n_machines++;
    }
  g_assert_cmpuint (n_machines, ==, 71);
  for (guint i = 0; packs[i] != NULL; i++)
    n_files += sj_sound_downloads_get_pack (fixture->downloads, packs[i])->n_files;
  g_test_message ("%u files in %u packs", n_files, g_strv_length ((char **)packs));

  info = sj_sound_downloads_get_pack (fixture->downloads, "dirt-samples");
  g_assert_cmpstr (info->title, ==, "Dirt-Samples");
  g_assert_null (info->collection);
  g_assert_false (info->counted);
  info = sj_sound_downloads_get_pack (fixture->downloads, LARGE_MACHINE);
  g_assert_cmpstr (info->title, ==, "RolandTR808");
  g_assert_cmpuint (info->n_files, ==, 122);
  info = sj_sound_downloads_get_pack (fixture->downloads, "soundfonts");
  g_assert_cmpstr (info->title, ==, "General MIDI Soundfonts");
  g_assert_null (sj_sound_downloads_get_pack (fixture->downloads, "tidal-drum-machines"));

  /* Nothing is cached in a new directory, and it holds nothing. */
  refresh (fixture);
  info = sj_sound_downloads_get_pack (fixture->downloads, "dirt-samples");
  g_assert_true (info->counted);
  g_assert_cmpuint (info->n_cached, ==, 0);
  g_assert_true (sj_sound_downloads_get_usage_known (fixture->downloads));
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), ==, 0);
}

static gboolean
is_active (gpointer data)
{
  return sj_sound_downloads_get_active (data);
}

/* A pack downloads, with "download-sounds" off (an explicit request), its
 * progress one file at a time, and ends complete; a second time there is
 * nothing to fetch. */
static void
test_download (Fixture       *fixture,
               gconstpointer  data)
{
  const SjSoundPackInfo *info = sj_sound_downloads_get_pack (fixture->downloads, MACHINE);
  g_autoptr(GPtrArray) files = _sj_sound_downloads_get_files (fixture->downloads, MACHINE);
  guint parts;

  sj_sound_cache_set_allow_downloads (fixture->cache, FALSE);

  g_assert_true (sj_sound_downloads_start (fixture->downloads, MACHINE));
  g_assert_true (sj_sound_downloads_get_active (fixture->downloads));
  g_assert_cmpint (info->state, ==, SJ_SOUND_PACK_QUEUED);
  g_assert_true (state_lists (fixture, MACHINE));
  spin_until (has_finished, &(Finished) { fixture, 0 }, "the pack");

  g_assert_cmpint (fixture->outcome, ==, SJ_SOUND_PACK_COMPLETE);
  g_assert_cmpuint (fixture->progress->len, ==, 74);
  for (guint i = 0; i < fixture->progress->len; i++)
    g_assert_cmpuint (g_array_index (fixture->progress, guint, i), ==, i + 1);
  g_assert_cmpuint (fixture->total, ==, 74);
  g_assert_cmpuint (fixture->bytes, ==, 74 * WAV_SIZE);

  g_assert_cmpint (info->state, ==, SJ_SOUND_PACK_IDLE);
  g_assert_true (info->counted);
  g_assert_cmpuint (info->n_cached, ==, 74);
  g_assert_cmpuint (info->cached_bytes, ==, 74 * WAV_SIZE);
  g_assert_cmpuint (info->n_failed, ==, 0);
  g_assert_false (sj_sound_downloads_get_active (fixture->downloads));
  g_assert_false (state_lists (fixture, MACHINE));
  g_assert_cmpuint (assert_only_whole_files (fixture, &parts), ==, 74);
  g_assert_cmpuint (parts, ==, 0);
  for (guint i = 0; i < files->len; i++)
    g_assert_cmpuint (server_count (&fixture->server, g_ptr_array_index (files, i)), ==, 1);

  /* The disk usage: the files and the small state file. */
  refresh (fixture);
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), ==, tree_size (fixture));
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), >=, 74 * WAV_SIZE);

  /* Again: nothing is missing, nothing is fetched. */
  g_assert_cmpint (download_pack (fixture, MACHINE), ==, SJ_SOUND_PACK_COMPLETE);
  g_assert_cmpuint (info->n_total, ==, 0);
  for (guint i = 0; i < files->len; i++)
    g_assert_cmpuint (server_count (&fixture->server, g_ptr_array_index (files, i)), ==, 1);
  g_assert_false (is_active (fixture->downloads));
}

/* A file played meanwhile counts at once; one the cache has is skipped. */
static void
test_counts_follow_the_cache (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(GPtrArray) files = _sj_sound_downloads_get_files (fixture->downloads, SMALL_MACHINE);
  const SjLibraryFile *first = g_ptr_array_index (files, 0);
  const SjSoundPackInfo *info = sj_sound_downloads_get_pack (fixture->downloads, SMALL_MACHINE);
  g_autoptr(GError) error = NULL;
  Wait wait = { NULL };
  gboolean downloaded = TRUE;

  refresh (fixture);
  sj_sound_cache_download_async (fixture->cache, first->pack, first->path, NULL, store_result_cb, &wait);
  spin_until (has_result, &wait, "a file");
  g_assert_cmpint (sj_sound_cache_download_finish (fixture->cache, wait.result, &downloaded, &error), ==, WAV_SIZE);
  g_assert_no_error (error);
  g_assert_true (downloaded);
  g_clear_object (&wait.result);
  g_assert_cmpuint (info->n_cached, ==, 1);
  g_assert_cmpuint (info->cached_bytes, ==, WAV_SIZE);
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), ==, WAV_SIZE);

  /* Cached: answered from the disk, not downloaded. */
  sj_sound_cache_download_async (fixture->cache, first->pack, first->path, NULL, store_result_cb, &wait);
  spin_until (has_result, &wait, "a cached file");
  g_assert_cmpint (sj_sound_cache_download_finish (fixture->cache, wait.result, &downloaded, &error), ==, WAV_SIZE);
  g_assert_false (downloaded);
  g_clear_object (&wait.result);

  g_assert_cmpint (download_pack (fixture, SMALL_MACHINE), ==, SJ_SOUND_PACK_COMPLETE);
  g_assert_cmpuint (info->n_total, ==, files->len - 1);
  g_assert_cmpuint (info->n_cached, ==, files->len);
  g_assert_cmpuint (server_count (&fixture->server, first), ==, 1);
}

static gboolean
progressed_to (gpointer data)
{
  Fixture *fixture = data;

  return fixture->progress->len >= 10;
}

/* Cancelled half-way: the files downloaded stay, whole; nothing half
 * written is left; the pack does not resume. */
static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  const SjSoundPackInfo *info = sj_sound_downloads_get_pack (fixture->downloads, LARGE_MACHINE);
  Finished wait = { fixture, 0 };
  guint parts, n;

  fixture->server.delay_ms = 20;
  g_assert_true (sj_sound_downloads_start (fixture->downloads, LARGE_MACHINE));
  spin_until (progressed_to, fixture, "ten files");
  g_assert_cmpint (info->state, ==, SJ_SOUND_PACK_DOWNLOADING);
  g_assert_cmpfloat (sj_sound_downloads_get_fraction (fixture->downloads), >, 0.0);
  g_assert_cmpfloat (sj_sound_downloads_get_fraction (fixture->downloads), <, 1.0);

  sj_sound_downloads_cancel (fixture->downloads, LARGE_MACHINE);
  spin_until (has_finished, &wait, "the cancel");
  g_assert_cmpint (fixture->outcome, ==, SJ_SOUND_PACK_CANCELLED);
  g_assert_cmpint (info->state, ==, SJ_SOUND_PACK_IDLE);
  g_assert_false (sj_sound_downloads_get_active (fixture->downloads));
  g_assert_false (state_lists (fixture, LARGE_MACHINE));
  spin_until (cache_idle, fixture, "the cache's downloads to end");

  n = assert_only_whole_files (fixture, &parts);
  g_assert_cmpuint (parts, ==, 0);
  g_assert_cmpuint (n, >=, 10);
  g_assert_cmpuint (n, <, 122);
  refresh (fixture);
  g_assert_cmpuint (info->n_cached, ==, n);

  /* Nothing to resume. */
  free_downloads (fixture);
  new_downloads (fixture);
  g_assert_cmpuint (sj_sound_downloads_resume (fixture->downloads), ==, 0);
}

/* A file the server refuses a while is retried (by the cache, then once
 * more by the pack); one it does not have is reported by name. */
static void
test_failures (Fixture       *fixture,
               gconstpointer  data)
{
  const SjSoundPackInfo *info = sj_sound_downloads_get_pack (fixture->downloads, SMALL_MACHINE);
  g_autoptr(GPtrArray) files = _sj_sound_downloads_get_files (fixture->downloads, SMALL_MACHINE);
  const SjLibraryFile *flaky = g_ptr_array_index (files, 0);
  const SjLibraryFile *down = g_ptr_array_index (files, 1);
  const SjLibraryFile *gone = g_ptr_array_index (files, 2);
  g_autofree char *name = g_strdup_printf ("%s:%u", gone->sound->name, gone->variant);
  SjSoundPackFailure *failure;
  GPtrArray *failures;

  server_fail (&fixture->server, flaky, 1);   /* the cache's second attempt has it */
  server_fail (&fixture->server, down, 3);    /* the cache gives up; the pack's retry has it */
  server_fail (&fixture->server, gone, 404);

  g_assert_cmpint (download_pack (fixture, SMALL_MACHINE), ==, SJ_SOUND_PACK_INCOMPLETE);
  g_assert_cmpuint (server_count (&fixture->server, flaky), ==, 2);
  g_assert_cmpuint (server_count (&fixture->server, down), ==, 4);
  g_assert_cmpuint (server_count (&fixture->server, gone), ==, 1);

  g_assert_cmpuint (info->n_failed, ==, 1);
  g_assert_cmpuint (info->n_done, ==, info->n_total);
  g_assert_cmpuint (info->n_cached, ==, files->len - 1);
  failures = sj_sound_downloads_get_failures (fixture->downloads, SMALL_MACHINE);
  g_assert_cmpuint (failures->len, ==, 1);
  failure = g_ptr_array_index (failures, 0);
  g_assert_cmpstr (failure->name, ==, name);
  g_assert_nonnull (strstr (failure->message, name));
  g_assert_nonnull (strstr (failure->message, "404"));
  /* Progress never went back nor beyond the total. */
  for (guint i = 0; i < fixture->progress->len; i++)
    g_assert_cmpuint (g_array_index (fixture->progress, guint, i), ==, i + 1);
  g_assert_false (state_lists (fixture, SMALL_MACHINE));
}

/* Hosts that refuse every file: the pack stops rather than list them all,
 * and stays to resume at the next start. */
static void
test_hosts_down (Fixture       *fixture,
                 gconstpointer  data)
{
  const SjSoundPackInfo *info;
  g_autoptr(SoupServer) closed = soup_server_new (NULL, NULL);
  g_autoslist(GUri) uris = NULL;
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;

  /* A port nobody listens on any more. */
  g_assert_true (soup_server_listen_local (closed, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  uris = soup_server_get_uris (closed);
  url = g_uri_to_string (uris->data);
  soup_server_disconnect (closed);

  free_downloads (fixture);
  g_free (fixture->server.url);
  fixture->server.url = g_strdup (url);
  new_downloads (fixture);
  info = sj_sound_downloads_get_pack (fixture->downloads, LARGE_MACHINE);

  g_assert_cmpint (download_pack (fixture, LARGE_MACHINE), ==, SJ_SOUND_PACK_STOPPED);
  g_assert_nonnull (info->message);
  g_assert_nonnull (strstr (info->message, "Stopped"));
  g_assert_cmpuint (info->n_cached, ==, 0);
  g_assert_true (state_lists (fixture, LARGE_MACHINE));
}

/* Removing a pack removes its folder and nothing else; removing everything
 * removes every pack; the counts and the disk usage follow. */
static void
test_remove (Fixture       *fixture,
             gconstpointer  data)
{
  const SjSoundPackInfo *small = sj_sound_downloads_get_pack (fixture->downloads, SMALL_MACHINE);
  const SjSoundPackInfo *machine = sj_sound_downloads_get_pack (fixture->downloads, MACHINE);
  g_autofree char *small_dir = g_build_filename (fixture->dir, SMALL_MACHINE, NULL);
  g_autofree char *machines_dir = g_build_filename (fixture->dir, "tidal-drum-machines", NULL);
  guint parts;

  g_assert_cmpint (download_pack (fixture, SMALL_MACHINE), ==, SJ_SOUND_PACK_COMPLETE);
  g_assert_cmpint (download_pack (fixture, MACHINE), ==, SJ_SOUND_PACK_COMPLETE);
  refresh (fixture);
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), ==, tree_size (fixture));

  remove_pack (fixture, SMALL_MACHINE);
  g_assert_false (g_file_test (small_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (small->n_cached, ==, 0);
  g_assert_cmpuint (small->cached_bytes, ==, 0);
  g_assert_cmpint (small->state, ==, SJ_SOUND_PACK_IDLE);
  g_assert_cmpuint (machine->n_cached, ==, 74);
  g_assert_cmpuint (assert_only_whole_files (fixture, &parts), ==, 74);
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), ==, tree_size (fixture));

  /* Removing a pack while it downloads cancels it first. */
  fixture->server.delay_ms = 20;
  g_array_set_size (fixture->progress, 0);
  g_assert_true (sj_sound_downloads_start (fixture->downloads, LARGE_MACHINE));
  spin_until (progressed_to, fixture, "ten files");
  remove_pack (fixture, NULL);
  g_assert_cmpint (fixture->outcome, ==, SJ_SOUND_PACK_CANCELLED);
  g_assert_false (state_lists (fixture, LARGE_MACHINE));
  spin_until (cache_idle, fixture, "the cache's downloads to end");

  g_assert_false (g_file_test (machines_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (machine->n_cached, ==, 0);
  g_assert_cmpuint (sj_sound_downloads_get_pack (fixture->downloads, LARGE_MACHINE)->n_cached, ==, 0);
  g_assert_cmpuint (assert_only_whole_files (fixture, &parts), ==, 0);
  /* What is left is the state file. */
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), ==, tree_size (fixture));
  g_assert_cmpuint (sj_sound_downloads_get_disk_usage (fixture->downloads), <, 1024);
}

/* Killed in the middle of a file ---------------------------------------------- */

static char *test_program;

/* The child: downloads @id into @dir from @url until it is killed. */
static int
run_child (const char *dir,
           const char *url,
           const char *id)
{
  g_autoptr(GFile) directory = g_file_new_for_path (dir);
  g_autoptr(SjSoundCache) cache = NULL;
  g_autoptr(SjSoundDownloads) downloads = NULL;

  g_setenv ("STRUDEL_JAM_SOUNDS_URL", url, TRUE);
  cache = sj_sound_cache_new (sj_sound_library_get_default (), directory);
  downloads = sj_sound_downloads_new (cache);
  g_assert_true (sj_sound_downloads_start (downloads, id));
  for (;;)
    g_main_context_iteration (NULL, TRUE);

  return 1;
}

typedef struct
{
  Fixture *fixture;
  char    *part;
} Stalled;

/* The child wrote part of the stalled file, in its .part. */
static gboolean
part_written (gpointer data)
{
  Stalled *stalled = data;
  GStatBuf st;

  return stalled->fixture->server.stalled && g_stat (stalled->part, &st) == 0 && st.st_size > 0;
}

static void
test_resume_after_kill (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GPtrArray) files = _sj_sound_downloads_get_files (fixture->downloads, LARGE_MACHINE);
  const SjLibraryFile *stalled_file = g_ptr_array_index (files, 20);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autofree char *part = NULL;
  g_autoptr(GFile) target = NULL;
  const SjSoundPackInfo *info;
  Stalled stalled = { fixture, NULL };
  guint parts, n_before;

  /* The parent's objects stay out of the way: the child downloads. */
  free_downloads (fixture);

  target = g_file_new_build_filename (fixture->dir, stalled_file->pack, stalled_file->local_path, NULL);
  part = g_strconcat (g_file_peek_path (target), ".part", NULL);
  stalled.part = part;
  fixture->server.delay_ms = 5;
  fixture->server.stall = server_path (stalled_file);

  child = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, test_program, "--child-download",
                            fixture->dir, fixture->server.url, LARGE_MACHINE, NULL);
  g_assert_no_error (error);
  spin_until (part_written, &stalled, "the child to write half of a file");

  /* kill -9, in the middle of a file. */
  g_subprocess_force_exit (child);
  g_assert_true (g_subprocess_wait (child, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (child));
  g_assert_cmpint (g_subprocess_get_term_sig (child), ==, SIGKILL);

  /* What it left: whole files under their names, the half file only as a
   * .part, and the pack still listed to resume. */
  n_before = assert_only_whole_files (fixture, &parts);
  g_assert_cmpuint (parts, >=, 1);
  g_assert_true (g_file_test (part, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_query_exists (target, NULL));
  g_test_message ("killed with %u of 122 files whole and %u .part", n_before, parts);
  g_assert_cmpuint (n_before, >=, 3);
  g_assert_cmpuint (n_before, <, 122);
  before = cached_files (fixture);

  /* A new start on the same directory resumes the pack and completes it. */
  g_clear_pointer (&fixture->server.stall, g_free);
  fixture->server.delay_ms = 0;
  new_downloads (fixture);
  info = sj_sound_downloads_get_pack (fixture->downloads, LARGE_MACHINE);
  g_assert_cmpuint (sj_sound_downloads_resume (fixture->downloads), ==, 1);
  spin_until (has_finished, &(Finished) { fixture, 0 }, "the resumed pack");
  g_assert_cmpstr (fixture->finished, ==, LARGE_MACHINE);
  g_assert_cmpint (fixture->outcome, ==, SJ_SOUND_PACK_COMPLETE);
  g_assert_cmpuint (info->n_total, ==, 122 - n_before);
  g_assert_cmpuint (info->n_cached, ==, 122);
  g_assert_false (state_lists (fixture, LARGE_MACHINE));

  /* Only what was missing was fetched again; every file is whole, none is
   * left half-written. */
  for (guint i = 0; i < files->len; i++)
    {
      const SjLibraryFile *file = g_ptr_array_index (files, i);
      g_autofree char *relative = g_strconcat (file->pack, "/", file->local_path, NULL);

      /* A file the child had asked for and not finished is asked again. */
      if (g_hash_table_contains (before, relative))
        g_assert_cmpuint (server_count (&fixture->server, file), ==, 1);
      else
        g_assert_cmpuint (server_count (&fixture->server, file), >=, 1);
    }
  g_assert_cmpuint (assert_only_whole_files (fixture, &parts), ==, 122);
  g_assert_cmpuint (parts, ==, 0);

  /* And what the cache serves is the server's, byte for byte. */
  for (guint i = 0; i < files->len; i++)
    {
      const SjLibraryFile *file = g_ptr_array_index (files, i);
      g_autofree char *path = server_path (file);
      g_autoptr(GBytes) expected = sj_test_samples_make_wav_seeded (path, WAV_SIZE);
      g_autoptr(GBytes) bytes = NULL;
      SjSoundSource source;
      Wait wait = { NULL };

      sj_sound_cache_load_async (fixture->cache, file->pack, file->path, NULL, store_result_cb, &wait);
      spin_until (has_result, &wait, "a load");
      bytes = sj_sound_cache_load_finish (fixture->cache, wait.result, NULL, &source, &error);
      g_assert_no_error (error);
      g_assert_cmpint (source, ==, SJ_SOUND_SOURCE_CACHE);
      g_assert_true (g_bytes_equal (bytes, expected));
      g_object_unref (wait.result);
    }
}

/* A pack downloaded for offline is kept: the cache's quota never evicts its
 * files, in this run or the next, until the pack is removed. */
static void
test_kept_for_offline (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GPtrArray) files = _sj_sound_downloads_get_files (fixture->downloads, SMALL_MACHINE);
  const SjLibraryFile *first = g_ptr_array_index (files, 0);
  g_autoptr(GFile) file = sj_sound_cache_get_file (fixture->cache, first->pack, first->path);
  g_autoptr(GFile) other = sj_sound_cache_get_file (fixture->cache, "uzu-drumkit", "bd/13_bd_mot4i.wav");
  g_autofree char *contents = NULL;
  guint64 used = 0;
  guint removed = 0;
  Wait wait = { NULL };

  g_assert_false (sj_sound_cache_is_kept (fixture->cache, file));
  g_assert_cmpint (download_pack (fixture, SMALL_MACHINE), ==, SJ_SOUND_PACK_COMPLETE);
  g_assert_true (sj_sound_cache_is_kept (fixture->cache, file));
  g_assert_false (sj_sound_cache_is_kept (fixture->cache, other));
  g_assert_true (g_file_get_contents (g_file_peek_path (sj_sound_downloads_get_state_file (fixture->downloads)),
                                      &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"offline\""));

  /* The next run knows it. */
  free_downloads (fixture);
  new_downloads (fixture);
  g_assert_true (sj_sound_cache_is_kept (fixture->cache, file));

  /* Over any limit, and old: still kept. */
  g_assert_true (g_file_set_attribute_uint64 (file, G_FILE_ATTRIBUTE_TIME_MODIFIED, 1000,
                                              G_FILE_QUERY_INFO_NONE, NULL, NULL));
  sj_sound_cache_set_limit_mb (fixture->cache, 0);
  sj_sound_cache_trim_async (fixture->cache, NULL, store_result_cb, &wait);
  spin_until (has_result, &wait, "the trim");
  g_object_unref (g_steal_pointer (&wait.result));
  sj_sound_cache_set_limit_mb (fixture->cache, 1);
  sj_sound_cache_trim_async (fixture->cache, NULL, store_result_cb, &wait);
  spin_until (has_result, &wait, "the trim");
  g_assert_true (sj_sound_cache_trim_finish (fixture->cache, wait.result, &used, &removed, NULL));
  g_clear_object (&wait.result);
  g_assert_cmpuint (removed, ==, 0);
  g_assert_true (g_file_query_exists (file, NULL));

  /* Removed: no longer kept. */
  remove_pack (fixture, SMALL_MACHINE);
  g_assert_false (sj_sound_cache_is_kept (fixture->cache, file));
  free_downloads (fixture);
  new_downloads (fixture);
  g_assert_false (sj_sound_cache_is_kept (fixture->cache, file));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  if (argc == 5 && g_str_equal (argv[1], "--child-download"))
    return run_child (argv[2], argv[3], argv[4]);

  test_program = g_canonicalize_filename (argv[0], NULL);
  g_test_init (&argc, &argv, NULL);

#define ADD(name, fn) g_test_add ("/sound-downloads/" name, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("packs", test_packs);
  ADD ("download", test_download);
  ADD ("counts-follow-the-cache", test_counts_follow_the_cache);
  ADD ("cancel", test_cancel);
  ADD ("failures", test_failures);
  ADD ("hosts-down", test_hosts_down);
  ADD ("remove", test_remove);
  ADD ("kept-for-offline", test_kept_for_offline);
  ADD ("resume-after-kill", test_resume_after_kill);
#undef ADD

  ret = g_test_run ();
  g_free (test_program);

  return ret;
}
