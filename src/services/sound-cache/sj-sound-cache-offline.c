/* sj-sound-cache-offline.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Putting a file in SjSoundCache on request, for offline use (a pack
 * downloaded by SjSoundDownloads). It is the cache's own download (one per
 * file, shared with any load waiting for the same file, bounded, retried,
 * written atomically through "<file>.part"); only the answer differs from a
 * load's: the size instead of the bytes, no fallback, and no
 * SjSoundCache::load-failed, since whoever asked reports the failure in
 * its own place. It is an explicit request, so it downloads whatever the
 * "allow-downloads" property says.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sj-sound-cache-private.h"

typedef struct
{
  gint64   size;
  gboolean downloaded;
} DownloadResult;

static void
return_result (GTask    *task,
               gint64    size,
               gboolean  downloaded)
{
  DownloadResult *result = g_new0 (DownloadResult, 1);

  result->size = size;
  result->downloaded = downloaded;
  g_task_return_pointer (task, result, g_free);
}

/* A download's end, for a waiter that asked through
 * sj_sound_cache_download_async() (see _sj_sound_cache_answer()). */
void
_sj_sound_cache_answer_download (SjSoundCache *self,
                                 GTask        *task,
                                 GBytes       *bytes,
                                 const GError *error)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  if (bytes != NULL)
    return_result (task, g_bytes_get_size (bytes), TRUE);
  else
    g_task_return_error (task, g_error_copy (error));
}

/**
 * sj_sound_cache_download_async:
 * @pack: a pack of the library
 * @path: a file of the pack, percent-encoded or not
 *
 * Makes sure a file is in the cache: downloads it unless it is there
 * already, even while "allow-downloads" is off (this is an explicit
 * request, not a sound being played). Nothing is read into memory for a
 * cached file, a failure is not reported with SjSoundCache::load-failed
 * and the drum kit never stands in. A successful download emits
 * SjSoundCache::file-cached, as any other.
 */
void
sj_sound_cache_download_async (SjSoundCache        *self,
                               const char          *pack,
                               const char          *path,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GFile) target = NULL;
  g_autofree char *key = NULL;
  const SjLibraryFile *file;
  GStatBuf st;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_cache_download_async);

  if ((file = sj_sound_library_lookup_file (self->library, pack, path)) == NULL)
    {
      g_task_return_new_error (task, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND,
                               _("%s/%s is not a file of the sound library"), pack, path);
      return;
    }

  if (g_task_return_error_if_cancelled (task))
    return;

  /* A file that is complete is there under its own name (a download only
   * ever renames a whole file into place); an empty one is not a sound. */
  target = _sj_sound_cache_get_target (self, file);
  if (g_stat (g_file_peek_path (target), &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0 &&
      (gsize)st.st_size <= self->max_size)
    {
      return_result (task, st.st_size, FALSE);
      return;
    }

  key = g_strconcat (file->pack, "/", file->local_path, NULL);
  _sj_sound_cache_download_join (self, file, key, task);
}

/**
 * sj_sound_cache_download_finish:
 * @downloaded: (out) (optional): whether it had to be downloaded
 *
 * Returns: the file's size in bytes, or -1 with @error set
 *   (%SJ_SOUND_CACHE_ERROR, or %G_IO_ERROR_CANCELLED)
 */
gint64
sj_sound_cache_download_finish (SjSoundCache  *self,
                                GAsyncResult  *result,
                                gboolean      *downloaded,
                                GError       **error)
{
  g_autofree DownloadResult *done = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (g_task_is_valid (result, self), -1);

  if (downloaded != NULL)
    *downloaded = FALSE;
  if ((done = g_task_propagate_pointer (G_TASK (result), error)) == NULL)
    return -1;

  if (downloaded != NULL)
    *downloaded = done->downloaded;
  return done->size;
}
