/* sj-sound-downloads-queue.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The download queue of SjSoundDownloads: sj_sound_downloads_start(),
 * _cancel() and _suspend(), and how far the downloads are.
 *
 * There is no second downloader: each missing file goes through
 * SjSoundCache (sj_sound_cache_download_async()), which downloads it once
 * however many ask, a few at a time, with its timeouts and retries, into a
 * ".part" renamed into place only when whole. The packs feed it a few
 * files at a time (MAX_IN_FLIGHT), so a sound being played never waits
 * behind a thousand files; a pack after another, in the order they were
 * asked for. A file that fails in a way that may heal (a server error, a
 * timeout, a cut) is tried once more at the end of the pack, then reported
 * by name; a pack whose files keep failing stops rather than report them
 * all.
 *
 * A download (a Run) first finds, in a thread, which of its pack's files
 * are missing from the cache, and fetches only those: that is what lets a
 * pack resume where it stopped (sj-sound-downloads-resume.c keeps the list
 * of packs to resume). It lives here alone, so that the rest of the object
 * never sees a Run's insides.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-downloads-private.h"

/* Files of packs asked of the cache at once: it downloads four at a time,
 * and one stays free for a sound being played. */
#define MAX_IN_FLIGHT (SJ_SOUND_CACHE_MAX_DOWNLOADS - 1)

/* A pack whose files fail this many times in a row stops: the hosts are
 * down or unreachable, and listing every file would say nothing more. */
#define MAX_FAILURES_IN_A_ROW 8

struct _Run
{
  Pack               *pack;
  GCancellable       *cancellable;
  GArray             *todo;             /* slots to fetch, in order */
  guint               next;
  guint               in_flight;
  GArray             *retry;            /* slots to try once more at the end */
  gboolean            retrying;
  gboolean            counting;         /* finding what is missing, in a thread */
  guint               failures_in_a_row;
  gboolean            stopping;
  SjSoundPackOutcome  outcome;          /* why, when stopping */
};

typedef struct
{
  SjSoundDownloads *self;
  Run              *run;
  guint             slot;
} FileRequest;

static void pump (SjSoundDownloads *self);

static void
run_free (Run *run)
{
  g_clear_object (&run->cancellable);
  g_array_unref (run->todo);
  g_array_unref (run->retry);
  g_free (run);
}

/* "bd:3", or "piano (C4)" for a note of a pitched map: as the console
 * names a file that cannot be had. */
static char *
name_file (const SjLibraryFile *file)
{
  if (file->note != NULL)
    return g_strdup_printf ("%s (%s)", file->sound->name, file->note);
  return g_strdup_printf ("%s:%u", file->sound->name, file->variant);
}

/* Downloads ----------------------------------------------------------------- */

static gboolean
is_retryable (const GError *error)
{
  return g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK) ||
         g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TIMEOUT) ||
         g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TRUNCATED) ||
         g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_IO);
}

static void
stop_run (Run                *run,
          SjSoundPackOutcome  outcome)
{
  if (run->stopping)
    return;
  run->stopping = TRUE;
  run->outcome = outcome;
  g_cancellable_cancel (run->cancellable);
}

static void
file_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autofree FileRequest *request = user_data;
  g_autoptr(SjSoundDownloads) self = request->self;
  g_autoptr(GError) error = NULL;
  Run *run = request->run;
  Pack *pack = run->pack;
  gboolean downloaded = FALSE;
  gint64 size;

  size = sj_sound_cache_download_finish (SJ_SOUND_CACHE (object), result, &downloaded, &error);
  run->in_flight--;
  self->in_flight--;

  if (size >= 0)
    {
      run->failures_in_a_row = 0;
      pack->info.n_done++;
      if (downloaded)
        pack->info.downloaded_bytes += size;
      /* Cached meanwhile by a sound being played: the counts learn it here. */
      if (g_array_index (self->sizes, gint64, request->slot) < 0)
        _sj_sound_downloads_set_size (self, request->slot, size);
      _sj_sound_downloads_emit_progress (self, pack);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      const SjLibraryFile *file = g_ptr_array_index (self->files, request->slot);

      run->failures_in_a_row++;
      if (!run->retrying && is_retryable (error))
        g_array_append_val (run->retry, request->slot);
      else
        {
          SjSoundPackFailure *failure = g_new0 (SjSoundPackFailure, 1);

          failure->name = name_file (file);
          failure->message = sj_sound_cache_describe_failure (self->cache, file->pack, file->path, error);
          g_ptr_array_add (pack->failures, failure);
          pack->info.n_failed++;
          pack->info.n_done++;
          _sj_sound_downloads_emit_progress (self, pack);
        }

      if (run->failures_in_a_row >= MAX_FAILURES_IN_A_ROW && !run->stopping)
        {
          g_free (pack->message);
          pack->message = g_strdup_printf (_("Stopped: %u files in a row could not be downloaded (%s)"),
                                           run->failures_in_a_row, error->message);
          pack->info.message = pack->message;
          stop_run (run, SJ_SOUND_PACK_STOPPED);
        }
    }

  pump (self);
}

static void
issue (SjSoundDownloads *self,
       Run              *run,
       guint             slot)
{
  const SjLibraryFile *file = g_ptr_array_index (self->files, slot);
  FileRequest *request = g_new0 (FileRequest, 1);

  if (run->pack->info.state == SJ_SOUND_PACK_QUEUED)
    {
      run->pack->info.state = SJ_SOUND_PACK_DOWNLOADING;
      _sj_sound_downloads_emit_pack_changed (self, run->pack);
    }

  request->self = g_object_ref (self);
  request->run = run;
  request->slot = slot;
  run->in_flight++;
  self->in_flight++;
  sj_sound_cache_download_async (self->cache, file->pack, file->path, run->cancellable, file_done_cb, request);
}

static void
finish_run (SjSoundDownloads *self,
            Run              *run)
{
  Pack *pack = run->pack;
  SjSoundPackOutcome outcome;

  if (run->stopping)
    outcome = run->outcome;
  else
    outcome = pack->info.n_failed > 0 ? SJ_SOUND_PACK_INCOMPLETE : SJ_SOUND_PACK_COMPLETE;

  g_queue_remove (&self->runs, run);
  pack->run = NULL;
  run_free (run);
  pack->info.state = pack->removals > 0 ? SJ_SOUND_PACK_REMOVING : SJ_SOUND_PACK_IDLE;

  /* A pack stopped by the hosts, or by the app quitting, resumes at the
   * next start; one that ended or was cancelled does not. */
  if (outcome != SJ_SOUND_PACK_STOPPED && outcome != SJ_SOUND_PACK_SUSPENDED)
    _sj_sound_downloads_want (self, pack->id, FALSE);

  g_debug ("Sounds: %s downloaded %u of %u files (%u failed), outcome %d", pack->id, pack->info.n_done,
           pack->info.n_total, pack->info.n_failed, outcome);
  _sj_sound_downloads_emit_pack_changed (self, pack);
  _sj_sound_downloads_emit_finished (self, pack, outcome);
}

/* Gives the cache the next files, pack after pack, and ends the downloads
 * that are done. */
static void
pump (SjSoundDownloads *self)
{
  gboolean was_active = !g_queue_is_empty (&self->runs);

again:
  for (GList *l = self->runs.head; l != NULL; l = l->next)
    {
      Run *run = l->data;

      if (run->counting)
        continue;

      if (!run->stopping)
        {
          while (self->in_flight < MAX_IN_FLIGHT && run->next < run->todo->len)
            issue (self, run, g_array_index (run->todo, guint, run->next++));

          /* The files that may have healed, once more. */
          if (run->next == run->todo->len && run->in_flight == 0 && !run->retrying && run->retry->len > 0)
            {
              g_array_set_size (run->todo, 0);
              g_array_append_vals (run->todo, run->retry->data, run->retry->len);
              g_array_set_size (run->retry, 0);
              run->next = 0;
              run->retrying = TRUE;
              goto again;
            }
        }

      if (run->in_flight == 0 && (run->stopping || run->next == run->todo->len))
        {
          finish_run (self, run);
          goto again;
        }
    }

  _sj_sound_downloads_start_removals (self);
  if (was_active != !g_queue_is_empty (&self->runs))
    _sj_sound_downloads_notify_active (self);
}

static void
counted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  SjSoundDownloads *self = SJ_SOUND_DOWNLOADS (object);
  Run *run = user_data;
  SjSoundDownloadsJob *job = g_task_get_task_data (G_TASK (result));
  Pack *pack = run->pack;

  run->counting = FALSE;
  if (g_task_propagate_boolean (G_TASK (result), NULL))
    {
      _sj_sound_downloads_job_apply (self, job);
      for (guint i = 0; i < pack->info.n_files; i++)
        {
          guint slot = pack->first + i;

          if (g_array_index (self->sizes, gint64, slot) < 0)
            g_array_append_val (run->todo, slot);
        }
      pack->info.n_total = run->todo->len;
      _sj_sound_downloads_emit_pack_changed (self, pack);
      _sj_sound_downloads_notify_fraction (self);
    }

  pump (self);
}

/**
 * sj_sound_downloads_start:
 * @id: a pack's id
 *
 * Downloads the files of a pack that are not in the cache, after the packs
 * asked for before it; the pack resumes at the next start
 * (sj_sound_downloads_resume()) until it is done or cancelled.
 *
 * Returns: %FALSE when the pack is being removed
 */
gboolean
sj_sound_downloads_start (SjSoundDownloads *self,
                          const char       *id)
{
  g_autoptr(GPtrArray) packs = NULL;
  g_autoptr(GTask) task = NULL;
  Pack *pack;
  Run *run;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  pack = _sj_sound_downloads_lookup_pack (self, id);
  g_return_val_if_fail (pack != NULL, FALSE);

  if (pack->run != NULL)
    return TRUE;
  if (pack->removals > 0)
    return FALSE;

  _sj_sound_downloads_want (self, pack->id, TRUE);
  _sj_sound_downloads_keep (self, pack->id, TRUE);

  run = g_new0 (Run, 1);
  run->pack = pack;
  run->cancellable = g_cancellable_new ();
  run->todo = g_array_new (FALSE, FALSE, sizeof (guint));
  run->retry = g_array_new (FALSE, FALSE, sizeof (guint));
  run->counting = TRUE;
  pack->run = run;
  g_queue_push_tail (&self->runs, run);

  g_ptr_array_set_size (pack->failures, 0);
  g_clear_pointer (&pack->message, g_free);
  pack->info.message = NULL;
  pack->info.state = SJ_SOUND_PACK_QUEUED;
  pack->info.n_done = pack->info.n_total = pack->info.n_failed = 0;
  pack->info.downloaded_bytes = 0;
  _sj_sound_downloads_emit_pack_changed (self, pack);
  if (self->runs.length == 1)
    _sj_sound_downloads_notify_active (self);

  /* What is missing is found in a thread: a pack has up to 2,000 files. */
  packs = g_ptr_array_new ();
  g_ptr_array_add (packs, pack);
  task = g_task_new (self, run->cancellable, counted_cb, run);
  g_task_set_source_tag (task, sj_sound_downloads_start);
  g_task_set_task_data (task, _sj_sound_downloads_job_new (self, packs, FALSE),
                        (GDestroyNotify)_sj_sound_downloads_job_free);
  g_task_run_in_thread (task, _sj_sound_downloads_job_run);

  return TRUE;
}

/**
 * sj_sound_downloads_cancel:
 * @id: a pack's id
 *
 * Stops a pack's download and forgets it: it does not resume. The files
 * already downloaded stay; a file being written is dropped (its ".part").
 */
void
sj_sound_downloads_cancel (SjSoundDownloads *self,
                           const char       *id)
{
  Pack *pack;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  pack = _sj_sound_downloads_lookup_pack (self, id);
  g_return_if_fail (pack != NULL);

  if (pack->run == NULL)
    return;
  stop_run (pack->run, SJ_SOUND_PACK_CANCELLED);
  pump (self);
}

/**
 * sj_sound_downloads_suspend:
 *
 * Stops every download without forgetting it, for the app quitting: they
 * resume at the next sj_sound_downloads_resume().
 */
void
sj_sound_downloads_suspend (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  for (GList *l = self->runs.head; l != NULL; l = l->next)
    stop_run (l->data, SJ_SOUND_PACK_SUSPENDED);
  pump (self);
}

/* Stops a pack's download, cancelled: a removal waits for it. */
void
_sj_sound_downloads_cancel_pack (SjSoundDownloads *self,
                                 Pack             *pack)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (pack->run != NULL)
    stop_run (pack->run, SJ_SOUND_PACK_CANCELLED);
}

void
_sj_sound_downloads_pump (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  pump (self);
}

/* How far ------------------------------------------------------------------- */

/* Returns: whether any pack is downloading or waiting to */
gboolean
sj_sound_downloads_get_active (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return !g_queue_is_empty (&self->runs);
}

/* Returns: how far the downloads running are, from 0 to 1 */
double
sj_sound_downloads_get_fraction (SjSoundDownloads *self)
{
  guint done = 0, total = 0;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  for (GList *l = self->runs.head; l != NULL; l = l->next)
    {
      Run *run = l->data;

      done += run->pack->info.n_done;
      total += run->pack->info.n_total;
    }

  return total > 0 ? CLAMP ((double)done / total, 0.0, 1.0) : 0.0;
}
