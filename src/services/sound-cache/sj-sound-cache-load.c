/* sj-sound-cache-load.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * How SjSoundCache answers a load (sj_sound_cache_load_async()): from the
 * cache directory when the file is there and is audio, else by joining
 * the file's download (sj-sound-cache-download.c); and how each waiter is
 * answered, with the bytes and their MIME type, or, for a load that
 * failed, with the drum kit's voice when there is one (the failure said
 * once, sj-sound-cache-failures.c) or the error. Kept apart from
 * sj-sound-cache.c, which holds the object, its settings and where files
 * go on the disk.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-cache-private.h"

/* What a load answers. */
typedef struct
{
  GBytes        *bytes;
  const char    *content_type;
  SjSoundSource  source;
} LoadResult;

typedef struct
{
  const SjLibraryFile *file;
  char                *key;
} LoadData;

static void
load_result_free (gpointer data)
{
  LoadResult *result = data;

  g_bytes_unref (result->bytes);
  g_free (result);
}

static void
load_data_free (gpointer data)
{
  LoadData *load = data;

  g_free (load->key);
  g_free (load);
}

static const char *
content_type_for (const char *path)
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
    { ".js", "text/javascript" },
  };
  g_autofree char *lower = g_ascii_strdown (path, -1);

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (lower, types[i].suffix))
      return types[i].type;

  return "application/octet-stream";
}

static void
return_bytes (GTask         *task,
              GBytes        *bytes,
              SjSoundSource  source)
{
  LoadData *load = g_task_get_task_data (task);
  LoadResult *result = g_new0 (LoadResult, 1);

  result->bytes = g_bytes_ref (bytes);
  result->source = source;
  result->content_type = source == SJ_SOUND_SOURCE_FALLBACK ? "audio/wav" : content_type_for (load->file->path);
  g_task_return_pointer (task, result, load_result_free);
}

/* A load that failed: reported once, then the drum kit's voice when there
 * is one for this file, else the error. */
static void
fail (SjSoundCache *self,
      GTask        *task,
      const GError *error)
{
  LoadData *load = g_task_get_task_data (task);
  const char *voice = NULL;
  g_autoptr(GBytes) bytes = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_error_copy (error));
      return;
    }

  if (self->fallback != NULL && (voice = sj_sound_cache_get_fallback_voice (load->file)) != NULL)
    {
      g_autoptr(GError) kit_error = NULL;

      if ((bytes = self->fallback (voice, load->file->variant, &kit_error)) == NULL)
        {
          g_debug ("The drum kit has no %s: %s", voice, kit_error ? kit_error->message : "no reason");
          voice = NULL;
        }
    }

  /* The notes of a pitched map (piano) are one sound, "piano:0" to the
   * page: a failure is said once for all of them, not once a note. */
  if (load->file->note != NULL)
    {
      g_autofree char *key = g_strconcat (load->file->pack, "/", load->file->sound->name, "#notes", NULL);

      _sj_sound_cache_report_failure (self, load->file->pack, load->file->path, key, error, voice);
    }
  else
    _sj_sound_cache_report_failure (self, load->file->pack, load->file->path, load->key, error, voice);
  if (bytes != NULL)
    return_bytes (task, bytes, SJ_SOUND_SOURCE_FALLBACK);
  else
    g_task_return_error (task, g_error_copy (error));
}

/* A download's end, for each of its waiters. */
void
_sj_sound_cache_answer (SjSoundCache *self,
                        GTask        *task,
                        GBytes       *bytes,
                        const GError *error)
{
  if (g_task_get_source_tag (task) == sj_sound_cache_download_async)
    _sj_sound_cache_answer_download (self, task, bytes, error);
  else if (bytes != NULL)
    return_bytes (task, bytes, SJ_SOUND_SOURCE_DOWNLOAD);
  else
    fail (self, task, error);
}

/* Loading ----------------------------------------------------------------- */

static void
disk_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjSoundCache *self = g_task_get_source_object (task);
  LoadData *load = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = g_file_load_bytes_finish (G_FILE (object), result, NULL, &error);
  if (bytes != NULL && g_bytes_get_size (bytes) <= self->max_size)
    {
      /* A body kept before bodies were checked (a captive portal's page, a
       * 404 page served with 200) is never served: it is removed and
       * downloaded again, and a second one is said in the console. */
      if (_sj_sound_cache_file_is_audio (load->file) && !sj_sound_cache_is_audio (bytes, NULL))
        {
          g_debug ("Sounds: %s in the cache is not audio; downloading it again", load->key);
          g_file_delete (G_FILE (object), NULL, NULL);
        }
      else
        {
          sj_sound_cache_note_used (self, G_FILE (object));
          return_bytes (task, bytes, SJ_SOUND_SOURCE_CACHE);
          return;
        }
    }

  if (bytes == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_autoptr(GError) io_error = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      io_error = g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_IO, "%s", error->message);
      fail (self, task, io_error);
      return;
    }

  /* Not cached (or a file too large to be ours, which a download replaces). */
  if (!sj_sound_cache_get_online (self))
    {
      g_autoptr(GError) offline = g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE,
                                                       self->allow_downloads
                                                         ? _("the sound hosts cannot be reached")
                                                         : _("downloading sounds is off"));
      fail (self, task, offline);
      return;
    }

  _sj_sound_cache_download_join (self, load->file, load->key, task);
}

/**
 * sj_sound_cache_load_async:
 * @pack: a pack of the library
 * @path: a file of the pack, percent-encoded or not
 *
 * Loads a file: from the cache, else (when downloads are allowed) by
 * downloading it once, however many ask for it at the same time.
 */
void
sj_sound_cache_load_async (SjSoundCache        *self,
                           const char          *pack,
                           const char          *path,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GFile) target = NULL;
  const SjLibraryFile *file;
  LoadData *load;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_cache_load_async);

  /* Only what the maps list: no other path, no "..", no unknown pack. */
  if ((file = sj_sound_library_lookup_file (self->library, pack, path)) == NULL)
    {
      g_autofree char *key = g_strconcat (pack ? pack : "", "/", path ? path : "", NULL);
      g_autoptr(GError) error = g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND,
                                             _("%s is not a file of the sound library"), key);

      _sj_sound_cache_report_failure (self, pack ? pack : "", path ? path : "", key, error, NULL);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  load = g_new0 (LoadData, 1);
  load->file = file;
  load->key = g_strconcat (file->pack, "/", file->local_path, NULL);
  g_task_set_task_data (task, load, load_data_free);

  target = _sj_sound_cache_get_target (self, file);
  g_file_load_bytes_async (target, cancellable, disk_loaded_cb, g_steal_pointer (&task));
}

/**
 * sj_sound_cache_load_finish:
 * @content_type: (out) (optional): the file's MIME type
 * @source: (out) (optional): where it came from
 *
 * Returns: (transfer full): the file's bytes, or %NULL with @error set
 *   (%SJ_SOUND_CACHE_ERROR, or %G_IO_ERROR_CANCELLED)
 */
GBytes *
sj_sound_cache_load_finish (SjSoundCache  *self,
                            GAsyncResult  *result,
                            const char   **content_type,
                            SjSoundSource *source,
                            GError       **error)
{
  LoadResult *loaded;
  GBytes *bytes;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if ((loaded = g_task_propagate_pointer (G_TASK (result), error)) == NULL)
    return NULL;

  if (content_type != NULL)
    *content_type = loaded->content_type;
  if (source != NULL)
    *source = loaded->source;
  bytes = g_steal_pointer (&loaded->bytes);
  g_free (loaded);

  return bytes;
}
