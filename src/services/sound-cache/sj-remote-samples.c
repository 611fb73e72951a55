/* sj-remote-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sample maps the musician's code loads from the network
 * (samples('github:user/repo'), samples('https://…/strudel.json'),
 * samples({…}, 'https://…/')) and their files, behind the page's
 * strudel-jam://remote/<kind>/<scheme>/<host>/<path> requests: the page
 * never talks to the network itself. Each map and file is downloaded once,
 * the first time it is asked for while downloads are allowed, with the
 * sound cache's machinery (sj_sound_cache_fetch_async(): the same queue,
 * timeouts, retries and atomic writes, the same "download-sounds"
 * setting), and kept in the sound cache's own folder, under
 * remote/<scheme>/<host>/<path> ($XDG_CACHE_HOME/strudel-jam/sounds/remote/…, where
 * no pack of the library is named "remote"), so that whatever tends the
 * cache (its stale .part files) tends these too; from then on each is
 * served from there, online or not. A map is checked
 * before it is kept (SjRemoteMap: its size, its nesting, its shape) and
 * remembered (sj-remote-samples-index.c), so that the dry-run and the
 * knowledge know what it registers before the page has loaded it. A file
 * is kept and served only when its first bytes say it is audio
 * (SJ_SOUND_CACHE_FETCH_AUDIO), and counts against the cache's quota. Only
 * http and https addresses are fetched.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-remote-samples-private.h"

G_DEFINE_FINAL_TYPE (SjRemoteSamples, sj_remote_samples, G_TYPE_OBJECT)

enum {
  MAP_CACHED,
  FILE_CACHED,
  LOAD_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  SjRemoteKind     kind;
  SjRemoteLocation location;
  GFile           *unchecked;  /* a map, downloaded but not yet checked */
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *load = data;

  _sj_remote_location_clear (&load->location);
  g_clear_object (&load->unchecked);
  g_free (load);
}

static void
sj_remote_samples_finalize (GObject *object)
{
  SjRemoteSamples *self = (SjRemoteSamples *)object;

  g_clear_pointer (&self->maps, g_hash_table_unref);
  g_clear_pointer (&self->order, g_ptr_array_unref);
  g_clear_pointer (&self->reported, g_hash_table_unref);
  g_clear_pointer (&self->url_override, g_free);
  g_clear_object (&self->directory);
  g_clear_object (&self->cache);

  G_OBJECT_CLASS (sj_remote_samples_parent_class)->finalize (object);
}

static void
sj_remote_samples_class_init (SjRemoteSamplesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_remote_samples_finalize;

  /**
   * SjRemoteSamples::map-cached:
   * @url: the map's address
   *
   * A map was downloaded, checked and remembered: the sounds it registers
   * are known now (sj_remote_samples_lookup_sound()).
   */
  signals[MAP_CACHED] =
    g_signal_new ("map-cached", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjRemoteSamples::file-cached:
   * @url: the file's address
   * @size: its size in bytes
   */
  signals[FILE_CACHED] =
    g_signal_new ("file-cached", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT64);

  /**
   * SjRemoteSamples::load-failed:
   * @url: the file's address
   * @error: why
   * @message: one sentence for the console, naming the sound
   *
   * A file a map lists could not be had; said once per file and kind of
   * failure. (A map that cannot be had is the page's to say: the page
   * reads the same sentence in the answer to its request.)
   */
  signals[LOAD_FAILED] =
    g_signal_new ("load-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_ERROR, G_TYPE_STRING);
}

static void
sj_remote_samples_init (SjRemoteSamples *self)
{
  const char *override = g_getenv (SJ_REMOTE_SAMPLES_URL_ENV);

  self->maps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) sj_remote_map_free);
  self->order = g_ptr_array_new_with_free_func (g_free);
  self->reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* Tests point every remote host at a loopback server. */
  if (override != NULL && *override != '\0')
    {
      self->url_override = g_strdup (override);
      while (g_str_has_suffix (self->url_override, "/"))
        self->url_override[strlen (self->url_override) - 1] = '\0';
    }
}

/**
 * sj_remote_samples_new:
 * @cache: the sound cache whose downloads (and setting) it uses
 * @directory: (nullable): where, or %NULL for the folder "remote" in @cache's
 */
SjRemoteSamples *
sj_remote_samples_new (SjSoundCache *cache,
                       GFile        *directory)
{
  SjRemoteSamples *self;

  g_return_val_if_fail (SJ_IS_SOUND_CACHE (cache), NULL);
  g_return_val_if_fail (directory == NULL || G_IS_FILE (directory), NULL);

  self = g_object_new (SJ_TYPE_REMOTE_SAMPLES, NULL);
  self->cache = g_object_ref (cache);
  self->directory = directory != NULL
    ? g_object_ref (directory)
    : g_file_get_child (sj_sound_cache_get_directory (cache), "remote");

  return self;
}

GFile *
sj_remote_samples_get_directory (SjRemoteSamples *self)
{
  g_assert (SJ_IS_REMOTE_SAMPLES (self));

  return self->directory;
}

/* Returns: (transfer none): the sound cache it downloads with */
SjSoundCache *
sj_remote_samples_get_cache (SjRemoteSamples *self)
{
  g_assert (SJ_IS_REMOTE_SAMPLES (self));

  return self->cache;
}

/* Whether what is not cached can be downloaded now. */
gboolean
sj_remote_samples_get_online (SjRemoteSamples *self)
{
  g_assert (SJ_IS_REMOTE_SAMPLES (self));

  return sj_sound_cache_get_online (self->cache);
}

/* Failures ------------------------------------------------------------------ */

/**
 * sj_remote_samples_describe_failure:
 *
 * Returns: (transfer full): one sentence for the console, naming the map
 *   or the sound, and saying why it cannot be had
 */
char *
sj_remote_samples_describe_failure (SjRemoteSamples *self,
                                    SjRemoteKind     kind,
                                    const char      *url,
                                    const GError    *error)
{
  g_autofree char *what = NULL;
  gboolean offline = g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE);
  const char *why = sj_sound_cache_get_allow_downloads (self->cache)
                      ? _("the sound hosts cannot be reached")
                      : _("“Download sounds when first played” is off");

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (error != NULL, NULL);

  if (kind == SJ_REMOTE_KIND_MAP)
    {
      if (offline)
        return g_strdup_printf (_("The sample map %s is not downloaded and the app is offline (%s)"), url, why);
      return g_strdup_printf (_("The sample map %s could not be loaded: %s"), url, error->message);
    }

  what = _sj_remote_samples_describe_url (self, url);
  if (offline)
    return g_strdup_printf (_("%s is not downloaded and the app is offline (%s)"), what, why);
  if (g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_IO))
    return g_strdup_printf (_("%s could not be kept in the sound cache: %s"), what, error->message);
  return g_strdup_printf (_("%s could not be downloaded: %s"), what, error->message);
}

/* The load fails with one sentence; a file's failure is also said once. */
static void
fail (GTask        *task,
      const GError *error)
{
  SjRemoteSamples *self = g_task_get_source_object (task);
  LoadData *load = g_task_get_task_data (task);
  const char *url = load->location.url;
  g_autofree char *message = NULL;
  gpointer code = GINT_TO_POINTER (error->code + 1);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_error_copy (error));
      return;
    }

  message = sj_remote_samples_describe_failure (self, load->kind, url, error);
  if (load->kind == SJ_REMOTE_KIND_FILE && g_hash_table_lookup (self->reported, url) != code)
    {
      g_hash_table_replace (self->reported, g_strdup (url), code);
      g_message ("Sounds: %s", message);
      g_signal_emit (self, signals[LOAD_FAILED], 0, url, error, message);
    }

  g_task_return_new_error (task, error->domain, error->code, "%s", message);
}

/* Loading ------------------------------------------------------------------- */

static gboolean
answer_map (GTask   *task,
            GBytes  *bytes,
            GError **error)
{
  SjRemoteSamples *self = g_task_get_source_object (task);
  LoadData *load = g_task_get_task_data (task);
  g_autoptr(SjRemoteMap) map = NULL;

  /* Another load of the same download got here first and put the map in
   * place. (One fetched anew, its file deleted meanwhile, replaces it.) */
  if (sj_remote_samples_lookup_map (self, load->location.url) != NULL &&
      (load->unchecked == NULL || !g_file_query_exists (load->unchecked, NULL)))
    return TRUE;

  if ((map = sj_remote_map_parse (bytes, load->location.url, error)) == NULL)
    return FALSE;

  if (load->unchecked != NULL &&
      !g_file_move (load->unchecked, load->location.file, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                    NULL, NULL, NULL, error))
    {
      GError *io = g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_IO, "%s", (*error)->message);

      g_clear_error (error);
      g_propagate_error (error, io);
      return FALSE;
    }

  _sj_remote_samples_remember (self, g_steal_pointer (&map), TRUE);
  g_signal_emit (self, signals[MAP_CACHED], 0, load->location.url);
  return TRUE;
}

static void
answer (GTask  *task,
        GBytes *bytes)
{
  LoadData *load = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (load->kind == SJ_REMOTE_KIND_MAP && !answer_map (task, bytes, &error))
    {
      /* Never kept: a map that is not one is fetched again next time. */
      g_file_delete (load->unchecked != NULL ? load->unchecked : load->location.file, NULL, NULL);
      fail (task, error);
      return;
    }

  g_task_return_pointer (task, g_bytes_ref (bytes), (GDestroyNotify) g_bytes_unref);
}

static void
fetched_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjRemoteSamples *self = g_task_get_source_object (task);
  LoadData *load = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  if ((bytes = sj_sound_cache_fetch_finish (SJ_SOUND_CACHE (object), result, &error)) == NULL)
    {
      fail (task, error);
      return;
    }

  if (load->kind == SJ_REMOTE_KIND_FILE)
    {
      g_hash_table_remove (self->reported, load->location.url);
      g_signal_emit (self, signals[FILE_CACHED], 0, load->location.url, (guint64) g_bytes_get_size (bytes));
    }
  answer (task, bytes);
}

static void
disk_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjRemoteSamples *self = g_task_get_source_object (task);
  LoadData *load = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  gsize max_size = load->kind == SJ_REMOTE_KIND_MAP ? SJ_REMOTE_MAP_MAX_SIZE : SJ_SOUND_CACHE_MAX_FILE_SIZE;
  GCancellable *cancellable;
  GFile *target;

  bytes = g_file_load_bytes_finish (G_FILE (object), result, NULL, &error);
  /* A file kept before bodies were checked and that is not a sound is
   * removed and downloaded again (and refused then, said once). */
  if (bytes != NULL && load->kind == SJ_REMOTE_KIND_FILE && !sj_sound_cache_is_audio (bytes, NULL))
    {
      g_file_delete (G_FILE (object), NULL, NULL);
      g_clear_pointer (&bytes, g_bytes_unref);
    }
  if (bytes != NULL && g_bytes_get_size (bytes) > 0 && g_bytes_get_size (bytes) <= max_size)
    {
      sj_sound_cache_note_used (self->cache, G_FILE (object));
      answer (task, bytes);
      return;
    }
  if (bytes == NULL && error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          GError *io = g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_IO, "%s", error->message);

          g_clear_error (&error);
          error = io;
        }
      fail (task, error);
      return;
    }

  if (!sj_remote_samples_get_online (self))
    {
      g_clear_error (&error);
      error = g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE,
                                   _("it is not downloaded and the app is offline"));
      fail (task, error);
      return;
    }

  /* A map is checked before it takes its real name. */
  if (load->kind == SJ_REMOTE_KIND_MAP)
    {
      g_autofree char *unchecked = g_strconcat (g_file_peek_path (load->location.file), ".unchecked", NULL);

      load->unchecked = g_file_new_for_path (unchecked);
    }
  target = load->unchecked != NULL ? load->unchecked : load->location.file;
  cancellable = g_task_get_cancellable (task);
  sj_sound_cache_fetch_async (self->cache, load->location.download, target, max_size,
                              load->kind == SJ_REMOTE_KIND_FILE ? SJ_SOUND_CACHE_FETCH_AUDIO : SJ_SOUND_CACHE_FETCH_NONE,
                              cancellable, fetched_cb, g_steal_pointer (&task));
}

/**
 * sj_remote_samples_load_async:
 * @kind: a sample map or a file
 * @url: its http(s) address
 *
 * Loads a map or a file: from the cache, else (when downloads are
 * allowed) by downloading it once. A map is checked (SjRemoteMap) before
 * it is kept, and remembered once it is.
 */
void
sj_remote_samples_load_async (SjRemoteSamples     *self,
                              SjRemoteKind         kind,
                              const char          *url,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  LoadData *load;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_if_fail (url != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_remote_samples_load_async);
  load = g_new0 (LoadData, 1);
  load->kind = kind;
  g_task_set_task_data (task, load, load_data_free);

  if (!_sj_remote_samples_locate (self, url, &load->location, &error))
    {
      load->location.url = g_strdup (url);
      fail (task, error);
      return;
    }

  _sj_remote_samples_load_index (self);
  g_file_load_bytes_async (load->location.file, cancellable, disk_loaded_cb, g_steal_pointer (&task));
}

static const char *
content_type_for (SjRemoteKind  kind,
                  const char   *url)
{
  static const struct {
    const char *suffix;
    const char *type;
  } types[] = {
    { ".wav", "audio/wav" },
    { ".mp3", "audio/mpeg" },
    { ".ogg", "audio/ogg" },
    { ".flac", "audio/flac" },
    { ".m4a", "audio/mp4" },
  };
  g_autofree char *lower = g_ascii_strdown (url, strcspn (url, "?#"));

  if (kind == SJ_REMOTE_KIND_MAP)
    return "application/json";
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (lower, types[i].suffix))
      return types[i].type;

  return "application/octet-stream";
}

/**
 * sj_remote_samples_load_finish:
 * @content_type: (out) (optional): its MIME type
 *
 * Returns: (transfer full): the map's or file's bytes, or %NULL with
 *   @error set: its message one sentence for the console
 *   (%SJ_SOUND_CACHE_ERROR, %SJ_REMOTE_MAP_ERROR, %G_IO_ERROR)
 */
GBytes *
sj_remote_samples_load_finish (SjRemoteSamples  *self,
                               GAsyncResult     *result,
                               const char      **content_type,
                               GError          **error)
{
  LoadData *load;
  GBytes *bytes;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  load = g_task_get_task_data (G_TASK (result));
  if ((bytes = g_task_propagate_pointer (G_TASK (result), error)) != NULL && content_type != NULL)
    *content_type = content_type_for (load->kind, load->location.url);

  return bytes;
}
