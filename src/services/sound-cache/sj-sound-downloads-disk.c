/* sj-sound-downloads-disk.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjSoundDownloads does on the disk: sj_sound_downloads_remove_async()
 * and sj_sound_downloads_refresh_async(). In a thread: removing a pack's
 * folder (or every pack's), counting which files of some packs are cached
 * (a stat each, one look for a folder that does not exist) and measuring
 * everything under the cache directory; the results are applied on the
 * main thread, where a file cached meanwhile (SjSoundCache::file-cached,
 * newer than the job) keeps what it said. The same jobs find what a
 * download has still to fetch (sj-sound-downloads-queue.c).
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "sj-sound-downloads-private.h"

/* Packs nest files a few folders deep; symbolic links are never followed. */
#define MAX_DEPTH 16

/* Jobs --------------------------------------------------------------------- */

SjSoundDownloadsJob *
_sj_sound_downloads_job_new (SjSoundDownloads *self,
                             GPtrArray        *packs,
                             gboolean          walk)
{
  SjSoundDownloadsJob *job = g_new0 (SjSoundDownloadsJob, 1);

  job->base = g_file_get_path (sj_sound_cache_get_directory (self->cache));
  job->slots = g_array_new (FALSE, FALSE, sizeof (guint));
  job->files = g_ptr_array_new ();
  job->sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
  job->walk = walk;
  job->generation = self->generation;
  job->packs = g_ptr_array_ref (packs);

  for (guint p = 0; p < packs->len; p++)
    {
      Pack *pack = g_ptr_array_index (packs, p);

      for (guint i = 0; i < pack->info.n_files; i++)
        {
          guint slot = pack->first + i;

          g_array_append_val (job->slots, slot);
          g_ptr_array_add (job->files, g_ptr_array_index (self->files, slot));
        }
    }

  return job;
}

void
_sj_sound_downloads_job_free (SjSoundDownloadsJob *job)
{
  g_free (job->base);
  g_clear_pointer (&job->remove_dirs, g_ptr_array_unref);
  g_array_unref (job->slots);
  g_ptr_array_unref (job->files);
  g_array_unref (job->sizes);
  g_ptr_array_unref (job->packs);
  g_free (job);
}

static void
delete_tree (const char   *path,
             guint         depth,
             GCancellable *cancellable)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return;

  if (S_ISDIR (st.st_mode) && depth <= MAX_DEPTH)
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL &&
             !g_cancellable_is_cancelled (cancellable))
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          delete_tree (child, depth + 1, cancellable);
        }
      g_rmdir (path);
    }
  else if (!S_ISDIR (st.st_mode))
    g_unlink (path);
}

static guint64
walk_tree (const char   *path,
           guint         depth,
           GCancellable *cancellable)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint64 total = 0;

  if (depth > MAX_DEPTH || (dir = g_dir_open (path, 0, NULL)) == NULL)
    return 0;

  while ((name = g_dir_read_name (dir)) != NULL && !g_cancellable_is_cancelled (cancellable))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_lstat (child, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        total += walk_tree (child, depth + 1, cancellable);
      else if (S_ISREG (st.st_mode))
        total += st.st_size;
    }

  return total;
}

/* A file that is cached is there under its own name, whole (SjSoundCache
 * renames only complete files into place); an empty one is not a sound. */
static gint64
stat_file (const char          *base,
           const SjLibraryFile *file,
           char               **missing_dir)
{
  g_autofree char *path = g_build_filename (base, file->pack, file->local_path, NULL);
  const char *slash = strrchr (path, G_DIR_SEPARATOR);
  GStatBuf st;

  /* The files of a folder that does not exist: one look for all of them. */
  if (*missing_dir != NULL && slash != NULL && strlen (*missing_dir) == (gsize)(slash - path) &&
      strncmp (*missing_dir, path, slash - path) == 0)
    return SIZE_MISSING;

  if (g_stat (path, &st) == 0)
    return S_ISREG (st.st_mode) && st.st_size > 0 ? st.st_size : SIZE_MISSING;

  if (slash != NULL)
    {
      g_autofree char *dir = g_strndup (path, slash - path);

      if (g_stat (dir, &st) != 0)
        {
          g_free (*missing_dir);
          *missing_dir = g_steal_pointer (&dir);
        }
    }
  return SIZE_MISSING;
}

void
_sj_sound_downloads_job_run (GTask        *task,
                             gpointer      source_object,
                             gpointer      task_data,
                             GCancellable *cancellable)
{
  SjSoundDownloadsJob *job = task_data;
  g_autofree char *missing_dir = NULL;

  for (guint i = 0; job->remove_dirs != NULL && i < job->remove_dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (job->base, g_ptr_array_index (job->remove_dirs, i), NULL);

      delete_tree (path, 0, NULL);
    }

  for (guint i = 0; i < job->files->len; i++)
    {
      gint64 size;

      if (g_task_return_error_if_cancelled (task))
        return;
      size = stat_file (job->base, g_ptr_array_index (job->files, i), &missing_dir);
      g_array_append_val (job->sizes, size);
    }

  if (job->walk)
    job->walked = walk_tree (job->base, 0, cancellable);

  if (!g_task_return_error_if_cancelled (task))
    g_task_return_boolean (task, TRUE);
}

/* On the main thread: the sizes found, but not over a size a file-cached
 * signal set after the job was made. */
void
_sj_sound_downloads_job_apply (SjSoundDownloads    *self,
                               SjSoundDownloadsJob *job)
{
  guint64 in_packs = 0;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  g_return_if_fail (job->sizes->len == job->slots->len);

  for (guint i = 0; i < job->slots->len; i++)
    {
      guint slot = g_array_index (job->slots, guint, i);
      gint64 size = g_array_index (job->sizes, gint64, i);

      if (size > 0)
        in_packs += size;
      if (g_array_index (self->changed, guint, slot) > job->generation)
        continue;
      g_array_index (self->sizes, gint64, slot) = size;
    }

  for (guint p = 0; p < job->packs->len; p++)
    {
      Pack *pack = g_ptr_array_index (job->packs, p);

      pack->info.counted = TRUE;
      _sj_sound_downloads_count_pack (self, pack);
    }

  /* A walk that counted every pack tells what else the directory holds:
   * .part files being written, the state file, files no map lists. */
  if (job->walk && job->packs->len == self->packs->len)
    {
      self->other_bytes = job->walked > in_packs ? job->walked - in_packs : 0;
      self->usage_known = TRUE;
    }
  _sj_sound_downloads_notify_usage (self);
}

/* Removing ------------------------------------------------------------------ */

typedef struct
{
  GTask               *task;
  GPtrArray           *packs;   /* the packs removed */
  SjSoundDownloadsJob *job;     /* the removal, and then counting every pack */
} Removal;

static void
removed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  SjSoundDownloads *self = SJ_SOUND_DOWNLOADS (object);
  Removal *removal = user_data;
  g_autoptr(GTask) task = removal->task;
  g_autoptr(GError) error = NULL;

  for (guint p = 0; p < removal->packs->len; p++)
    {
      Pack *pack = g_ptr_array_index (removal->packs, p);

      pack->removals--;
      if (pack->removals == 0 && pack->run == NULL)
        pack->info.state = SJ_SOUND_PACK_IDLE;
      g_ptr_array_set_size (pack->failures, 0);
      g_clear_pointer (&pack->message, g_free);
      pack->info.message = NULL;
      pack->info.n_done = pack->info.n_total = pack->info.n_failed = 0;
      pack->info.downloaded_bytes = 0;
    }

  /* The job was not cancellable: it always counts. */
  if (g_task_propagate_boolean (G_TASK (result), &error))
    _sj_sound_downloads_job_apply (self, removal->job);
  g_ptr_array_unref (removal->packs);
  g_free (removal);

  if (error != NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/* A removal starts once its packs have stopped downloading. */
void
_sj_sound_downloads_start_removals (SjSoundDownloads *self)
{
  for (guint i = 0; i < self->removals->len; )
    {
      Removal *removal = g_ptr_array_index (self->removals, i);
      g_autoptr(GTask) thread_task = NULL;
      gboolean busy = FALSE;

      for (guint p = 0; p < removal->packs->len && !busy; p++)
        busy = ((Pack *)g_ptr_array_index (removal->packs, p))->run != NULL;
      if (busy)
        {
          i++;
          continue;
        }

      g_ptr_array_remove_index (self->removals, i);
      /* What the cache says after this moment is newer than the removal. */
      removal->job->generation = self->generation;
      thread_task = g_task_new (self, NULL, removed_cb, removal);
      g_task_set_source_tag (thread_task, _sj_sound_downloads_start_removals);
      g_task_set_task_data (thread_task, removal->job, (GDestroyNotify)_sj_sound_downloads_job_free);
      g_task_run_in_thread (thread_task, _sj_sound_downloads_job_run);
    }
}

/**
 * sj_sound_downloads_remove_async:
 * @id: (nullable): a pack's id, or %NULL for every pack
 *
 * Removes the downloaded files of a pack, or every downloaded sound, in a
 * thread. A pack being downloaded is cancelled first, and removed once its
 * last file has stopped. Every pack is counted again afterwards, and the
 * disk usage measured.
 */
void
sj_sound_downloads_remove_async (SjSoundDownloads    *self,
                                 const char          *id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) packs = g_ptr_array_new ();
  Removal *removal;
  Pack *pack = NULL;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_downloads_remove_async);

  if (id != NULL && (pack = _sj_sound_downloads_lookup_pack (self, id)) == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no pack %s", id);
      return;
    }

  if (pack != NULL)
    g_ptr_array_add (packs, pack);
  else
    g_ptr_array_extend (packs, self->packs, NULL, NULL);

  removal = g_new0 (Removal, 1);
  removal->task = g_steal_pointer (&task);
  removal->packs = g_ptr_array_ref (packs);
  /* Every pack is counted again, so that the disk usage is whole. */
  removal->job = _sj_sound_downloads_job_new (self, self->packs, TRUE);
  removal->job->remove_dirs = g_ptr_array_new_with_free_func (g_free);
  for (guint p = 0; p < packs->len; p++)
    {
      Pack *removed = g_ptr_array_index (packs, p);
      const char *slash = strchr (removed->dir, '/');
      g_autofree char *dir = slash != NULL && pack == NULL ? g_strndup (removed->dir, slash - removed->dir)
                                                           : g_strdup (removed->dir);

      /* Everything of a pack is under its folder, .part files too. */
      if (!g_ptr_array_find_with_equal_func (removal->job->remove_dirs, dir, g_str_equal, NULL))
        g_ptr_array_add (removal->job->remove_dirs, g_steal_pointer (&dir));
      removed->removals++;
      /* Removed: no longer kept for offline, nor protected from eviction. */
      _sj_sound_downloads_keep (self, removed->id, FALSE);
      if (removed->run != NULL)
        _sj_sound_downloads_cancel_pack (self, removed);
      else
        removed->info.state = SJ_SOUND_PACK_REMOVING;
      _sj_sound_downloads_emit_pack_changed (self, removed);
    }
  g_ptr_array_add (self->removals, removal);

  _sj_sound_downloads_pump (self);
}

gboolean
sj_sound_downloads_remove_finish (SjSoundDownloads  *self,
                                  GAsyncResult      *result,
                                  GError           **error)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Counting ------------------------------------------------------------------ */

static void
refreshed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SjSoundDownloads *self = SJ_SOUND_DOWNLOADS (object);
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  _sj_sound_downloads_job_apply (self, g_task_get_task_data (G_TASK (result)));
  g_task_return_boolean (task, TRUE);
}

/**
 * sj_sound_downloads_refresh_async:
 *
 * Counts what the cache holds of every pack and measures the whole cache
 * directory, in a thread; SjSoundDownloads::pack-changed follows for each
 * pack, and the disk usage is known once it is done.
 */
void
sj_sound_downloads_refresh_async (SjSoundDownloads    *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) thread_task = NULL;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_downloads_refresh_async);

  thread_task = g_task_new (self, cancellable, refreshed_cb, g_steal_pointer (&task));
  g_task_set_source_tag (thread_task, sj_sound_downloads_refresh_async);
  g_task_set_task_data (thread_task, _sj_sound_downloads_job_new (self, self->packs, TRUE),
                        (GDestroyNotify)_sj_sound_downloads_job_free);
  g_task_run_in_thread (thread_task, _sj_sound_downloads_job_run);
}

gboolean
sj_sound_downloads_refresh_finish (SjSoundDownloads  *self,
                                   GAsyncResult      *result,
                                   GError           **error)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
