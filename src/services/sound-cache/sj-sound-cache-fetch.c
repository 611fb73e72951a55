/* sj-sound-cache-fetch.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Downloads of files that are not the library's, through the sound cache's
 * own machinery (sj-sound-cache-download.c): the same queue of at most
 * four downloads, the same timeouts, retries and atomic writes, and the
 * same "download-sounds" setting. SjRemoteSamples fetches the sample maps
 * that the musician's code loads, and their files, with it. The caller
 * chooses where the file goes and how large it may be; nothing else about
 * it is known here (no drum-kit fallback, no SjSoundCache::load-failed).
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-cache-private.h"

/* A download's end, for one waiter of a fetch. */
void
_sj_sound_cache_fetch_answer (GTask        *task,
                              GBytes       *bytes,
                              const GError *error)
{
  if (bytes != NULL)
    g_task_return_pointer (task, g_bytes_ref (bytes), (GDestroyNotify) g_bytes_unref);
  else
    g_task_return_error (task, g_error_copy (error));
}

/**
 * sj_sound_cache_fetch_async:
 * @url: an http(s) URL
 * @target: where the body is kept: written to "@target.part", then renamed
 * @max_size: the most bytes the body may have
 * @flags: %SJ_SOUND_CACHE_FETCH_AUDIO for a sound: a body that is not
 *   audio fails with %SJ_SOUND_CACHE_ERROR_NOT_AUDIO and is not kept
 *
 * Downloads @url once into @target, however many ask for the same target
 * at the same time. The cache is not looked at first: that is the
 * caller's business. Fails with %SJ_SOUND_CACHE_ERROR_OFFLINE at once
 * while downloads are off.
 */
void
sj_sound_cache_fetch_async (SjSoundCache        *self,
                            const char          *url,
                            GFile               *target,
                            gsize                max_size,
                            SjSoundCacheFetchFlags flags,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *key = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_if_fail (url != NULL);
  g_return_if_fail (G_IS_FILE (target));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_cache_fetch_async);

  if (!self->allow_downloads)
    {
      g_task_return_new_error (task, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE,
                               "%s", _("downloading sounds is off"));
      return;
    }
  if (!g_str_has_prefix (url, "https://") && !g_str_has_prefix (url, "http://"))
    {
      g_task_return_new_error (task, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND,
                               "%s", _("only http and https addresses can be downloaded"));
      return;
    }

  /* A library file's key is "pack/path"; a target's path is absolute, so
   * the two never meet. */
  key = g_file_get_path (target);
  _sj_sound_cache_download_join_full (self, key, NULL, url, target, max_size,
                                      (flags & SJ_SOUND_CACHE_FETCH_AUDIO) != 0, task);
}

/**
 * sj_sound_cache_fetch_finish:
 *
 * Returns: (transfer full): the body, now in the target file, or %NULL
 *   with @error set (%SJ_SOUND_CACHE_ERROR, or %G_IO_ERROR_CANCELLED)
 */
GBytes *
sj_sound_cache_fetch_finish (SjSoundCache  *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_sound_cache_fetch_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
