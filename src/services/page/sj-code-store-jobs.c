/* sj-code-store-jobs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The writes of SjCodeStore, in their threads: a write job holds the bytes
 * and its place in the order of writes; the thread writes it unless a newer
 * text is on disk already, one write at a time (the store's write_lock),
 * and wakes whoever waits on it (the flush, with its deadline). Also the
 * copy written elsewhere (sj_code_store_save_copy_async()). When to write
 * (the debounce, the retries, the flush) is decided in sj-code-store.c; how
 * bytes reach the disk atomically is sj-code-store-write.c.
 */

#include "config.h"

#include <string.h>

#include "sj-code-store-private.h"

/* Writing ----------------------------------------------------------------- */

SjCodeStoreWriteJob *
_sj_code_store_write_job_new (SjCodeStore *self,
                              const char  *code)
{
  SjCodeStoreWriteJob *job = g_atomic_rc_box_new0 (SjCodeStoreWriteJob);

  job->bytes = g_bytes_new (code, strlen (code));
  job->seq = ++self->next_seq;
  g_mutex_init (&job->mutex);
  g_cond_init (&job->cond);

  return job;
}

static void
write_job_clear (SjCodeStoreWriteJob *job)
{
  g_bytes_unref (job->bytes);
  g_mutex_clear (&job->mutex);
  g_cond_clear (&job->cond);
  g_clear_error (&job->error);
}

void
_sj_code_store_write_job_unref (SjCodeStoreWriteJob *job)
{
  g_atomic_rc_box_release_full (job, (GDestroyNotify)write_job_clear);
}

static SjCodeStoreWriteJob *
write_job_ref (SjCodeStoreWriteJob *job)
{
  return g_atomic_rc_box_acquire (job);
}

/* In a thread: writes @job unless a newer text is on disk already. */
static void
write_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  SjCodeStore *self = source_object;
  SjCodeStoreWriteJob *job = task_data;
  g_autoptr(GError) error = NULL;
  gboolean skipped = FALSE;
  gboolean ok = TRUE;

  g_mutex_lock (&self->write_lock);
  if (job->seq < self->written_seq)
    skipped = TRUE;
  else if (g_file_peek_path (self->file) != NULL)
    ok = _sj_code_store_write_file (g_file_peek_path (self->file), job->bytes,
                                    self->write_hook, self->write_hook_data, &error);
  else
    ok = g_file_replace_contents (self->file, g_bytes_get_size (job->bytes) > 0 ? g_bytes_get_data (job->bytes, NULL) : "",
                                  g_bytes_get_size (job->bytes), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, &error);
  if (ok && !skipped)
    self->written_seq = job->seq;
  g_mutex_unlock (&self->write_lock);

  g_mutex_lock (&job->mutex);
  job->skipped = skipped;
  if (!ok)
    job->error = g_error_copy (error);
  job->done = TRUE;
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->mutex);

  if (!ok)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
_sj_code_store_run_write (SjCodeStore         *self,
                          SjCodeStoreWriteJob *job,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  if (!self->temps_removed && g_file_peek_path (self->file) != NULL)
    {
      _sj_code_store_remove_temps (g_file_peek_path (self->file));
      self->temps_removed = TRUE;
    }

  /* The task keeps the store alive until the thread is done, even when the
   * flush gave up waiting for it. */
  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, _sj_code_store_run_write);
  g_task_set_task_data (task, write_job_ref (job), (GDestroyNotify)_sj_code_store_write_job_unref);
  g_task_run_in_thread (task, write_thread);
}

/* Copies ------------------------------------------------------------------ */

static void
copy_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GFile *file = g_object_get_data (G_OBJECT (task), "file");
  GBytes *bytes = task_data;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (g_file_peek_path (file) != NULL)
    ok = _sj_code_store_write_file (g_file_peek_path (file), bytes, NULL, NULL, &error);
  else
    ok = g_file_replace_contents (file, g_bytes_get_size (bytes) > 0 ? g_bytes_get_data (bytes, NULL) : "",
                                  g_bytes_get_size (bytes), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, cancellable, &error);
  if (!ok)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * sj_code_store_save_copy_async:
 * @file: where the copy goes
 * @code: the text to write there
 *
 * Writes @code to @file atomically in a thread: the way out when the code
 * file cannot be saved.
 */
void
sj_code_store_save_copy_async (GFile               *file,
                               const char          *code,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (code != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_code_store_save_copy_async);
  g_task_set_task_data (task, g_bytes_new (code, strlen (code)), (GDestroyNotify)g_bytes_unref);
  g_object_set_data_full (G_OBJECT (task), "file", g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, copy_thread);
}

gboolean
sj_code_store_save_copy_finish (GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
