/* sj-sound-downloads.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Download for offline": the sound library's files by pack, as the
 * musician knows them (Dirt-Samples, uzu-drumkit, the piano, VCSL,
 * mridangam, the wavetables, the General MIDI soundfonts, and each drum
 * machine of tidal-drum-machines on its own), how much of each is cached,
 * and downloading a whole pack so that it plays with no network.
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
 * The packs being downloaded are listed in a state file in the cache
 * directory (sj-sound-downloads-disk.c); sj_sound_downloads_resume() takes
 * them up again at the next start. A pack resumes where it stopped because
 * only the files missing from the cache are fetched: a file is in the cache
 * only once whole, so nothing half-written is ever counted or skipped.
 *
 * Sizes: the maps do not say how large a file is, so only what is cached is
 * measured (a stat per file, in a thread) and a pack's size is known once
 * it is downloaded. "Download for offline" is an explicit request: it
 * downloads even while the "download-sounds" setting (downloads when a
 * sound is first played) is off.
 *
 * This file runs the downloads and holds the API; which files make which
 * pack is in sj-sound-downloads-packs.c, removing and counting (in a
 * thread) and the state file in sj-sound-downloads-disk.c.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-sound-downloads-private.h"

/* Files of packs asked of the cache at once: it downloads four at a time,
 * and one stays free for a sound being played. */
#define MAX_IN_FLIGHT (SJ_SOUND_CACHE_MAX_DOWNLOADS - 1)

/* A pack whose files fail this many times in a row stops: the hosts are
 * down or unreachable, and listing every file would say nothing more. */
#define MAX_FAILURES_IN_A_ROW 8

#define STATE_FILE_NAME "downloads.json"

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

G_DEFINE_FINAL_TYPE (SjSoundDownloads, sj_sound_downloads, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ACTIVE,
  PROP_FRACTION,
  PROP_DISK_USAGE,
  PROP_USAGE_KNOWN,
  N_PROPS
};

enum {
  PACK_CHANGED,
  PROGRESS,
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void pump (SjSoundDownloads *self);

void
sj_sound_pack_failure_free (SjSoundPackFailure *failure)
{
  if (failure == NULL)
    return;
  g_free (failure->name);
  g_free (failure->message);
  g_free (failure);
}

static void
run_free (Run *run)
{
  g_clear_object (&run->cancellable);
  g_array_unref (run->todo);
  g_array_unref (run->retry);
  g_free (run);
}

/* The packs ----------------------------------------------------------------- */

/* "bd:3", or "piano (C4)" for a note of a pitched map: as the console
 * names a file that cannot be had. */
static char *
name_file (const SjLibraryFile *file)
{
  if (file->note != NULL)
    return g_strdup_printf ("%s (%s)", file->sound->name, file->note);
  return g_strdup_printf ("%s:%u", file->sound->name, file->variant);
}

static Pack *
lookup_pack (SjSoundDownloads *self,
             const char       *id)
{
  return id != NULL ? g_hash_table_lookup (self->by_id, id) : NULL;
}

static void
emit_pack_changed (SjSoundDownloads *self,
                   Pack             *pack)
{
  g_signal_emit (self, signals[PACK_CHANGED], 0, pack->id);
}

Pack *
_sj_sound_downloads_lookup_pack (SjSoundDownloads *self,
                                 const char       *id)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return lookup_pack (self, id);
}

void
_sj_sound_downloads_emit_pack_changed (SjSoundDownloads *self,
                                       Pack             *pack)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  emit_pack_changed (self, pack);
}

/* Counts a pack's cached files from what is known of their sizes. */
void
_sj_sound_downloads_count_pack (SjSoundDownloads *self,
                                Pack             *pack)
{
  guint64 bytes = 0;
  guint n = 0;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  for (guint i = 0; i < pack->info.n_files; i++)
    {
      gint64 size = g_array_index (self->sizes, gint64, pack->first + i);

      if (size >= 0)
        {
          n++;
          bytes += size;
        }
    }
  pack->info.n_cached = n;
  pack->info.cached_bytes = bytes;
  emit_pack_changed (self, pack);
}

void
_sj_sound_downloads_notify_usage (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USAGE_KNOWN]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DISK_USAGE]);
}

static void
set_size (SjSoundDownloads *self,
          guint             slot,
          gint64            size)
{
  Pack *pack = g_ptr_array_index (self->file_packs, slot);

  g_array_index (self->sizes, gint64, slot) = size;
  g_array_index (self->changed, guint, slot) = ++self->generation;
  _sj_sound_downloads_count_pack (self, pack);
  _sj_sound_downloads_notify_usage (self);
}

/* A file was downloaded, by a pack or by a sound being played. */
static void
file_cached_cb (SjSoundDownloads *self,
                const char       *pack,
                const char       *path,
                guint64           size,
                SjSoundCache     *cache)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (sj_sound_cache_get_library (cache), pack, path);
  guint slot;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (file == NULL || (slot = GPOINTER_TO_UINT (g_hash_table_lookup (self->slots, file))) == 0)
    return;
  set_size (self, slot - 1, (gint64)size);
}

/* The state file ------------------------------------------------------------ */

static void
want (SjSoundDownloads *self,
      const char       *id,
      gboolean          wanted)
{
  guint index;
  gboolean found = g_ptr_array_find_with_equal_func (self->wanted, id, g_str_equal, &index);

  if (found == wanted)
    return;
  if (wanted)
    g_ptr_array_add (self->wanted, g_strdup (id));
  else
    g_ptr_array_remove_index (self->wanted, index);
  _sj_sound_downloads_save_state (self);
}

/* Downloads ----------------------------------------------------------------- */

static void
update_active (SjSoundDownloads *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
}

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
emit_progress (SjSoundDownloads *self,
               Pack             *pack)
{
  g_signal_emit (self, signals[PROGRESS], 0, pack->id, pack->info.n_done, pack->info.n_total,
                 pack->info.downloaded_bytes);
  emit_pack_changed (self, pack);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
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
        set_size (self, request->slot, size);
      emit_progress (self, pack);
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
          emit_progress (self, pack);
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
      emit_pack_changed (self, run->pack);
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
    want (self, pack->id, FALSE);

  g_debug ("Sounds: %s downloaded %u of %u files (%u failed), outcome %d", pack->id, pack->info.n_done,
           pack->info.n_total, pack->info.n_failed, outcome);
  emit_pack_changed (self, pack);
  g_signal_emit (self, signals[FINISHED], 0, pack->id, (int)outcome);
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
    update_active (self);
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
      emit_pack_changed (self, pack);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
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
  pack = lookup_pack (self, id);
  g_return_val_if_fail (pack != NULL, FALSE);

  if (pack->run != NULL)
    return TRUE;
  if (pack->removals > 0)
    return FALSE;

  want (self, pack->id, TRUE);

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
  emit_pack_changed (self, pack);
  if (self->runs.length == 1)
    update_active (self);

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
  pack = lookup_pack (self, id);
  g_return_if_fail (pack != NULL);

  if (pack->run == NULL)
    return;
  stop_run (pack->run, SJ_SOUND_PACK_CANCELLED);
  pump (self);
}

/**
 * sj_sound_downloads_resume:
 *
 * Takes up the downloads the state file lists: those that were running
 * when the app last quit, crashed or was killed. Files already cached are
 * not fetched again.
 *
 * Returns: how many packs resume
 */
guint
sj_sound_downloads_resume (SjSoundDownloads *self)
{
  g_autoptr(GPtrArray) ids = NULL;
  guint n = 0;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  ids = _sj_sound_downloads_load_state (self);
  for (guint i = 0; i < ids->len; i++)
    {
      const char *id = g_ptr_array_index (ids, i);

      if (lookup_pack (self, id) == NULL)
        {
          g_debug ("Sounds: no pack %s to resume", id);
          continue;
        }
      if (sj_sound_downloads_start (self, id))
        n++;
    }

  /* Packs the library no longer has are forgotten. */
  if (n != ids->len)
    _sj_sound_downloads_save_state (self);

  return n;
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

/* Getters ------------------------------------------------------------------- */

SjSoundCache *
sj_sound_downloads_get_cache (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return self->cache;
}

/* Returns: (transfer none): the packs' ids, in the order they are listed */
const char * const *
sj_sound_downloads_get_packs (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return (const char * const *)self->ids->pdata;
}

/* Returns: (nullable): the pack, as it is now; valid while @self is */
const SjSoundPackInfo *
sj_sound_downloads_get_pack (SjSoundDownloads *self,
                             const char       *id)
{
  Pack *pack;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  pack = lookup_pack (self, id);
  return pack != NULL ? &pack->info : NULL;
}

/**
 * sj_sound_downloads_get_failures:
 *
 * Returns: (transfer none) (element-type SjSoundPackFailure) (nullable):
 *   the files of the pack's last download that failed for good
 */
GPtrArray *
sj_sound_downloads_get_failures (SjSoundDownloads *self,
                                 const char       *id)
{
  Pack *pack;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  pack = lookup_pack (self, id);
  return pack != NULL ? pack->failures : NULL;
}

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

/* Returns: whether the cache directory was measured */
gboolean
sj_sound_downloads_get_usage_known (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return self->usage_known;
}

/* Returns: the bytes under the cache directory, once measured */
guint64
sj_sound_downloads_get_disk_usage (SjSoundDownloads *self)
{
  guint64 total;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (!self->usage_known)
    return 0;
  total = self->other_bytes;
  for (guint i = 0; i < self->packs->len; i++)
    total += ((Pack *)g_ptr_array_index (self->packs, i))->info.cached_bytes;
  return total;
}

/* Returns: (transfer none): where the packs to resume are listed */
GFile *
sj_sound_downloads_get_state_file (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return self->state_file;
}

/**
 * _sj_sound_downloads_get_files:
 *
 * Returns: (transfer container) (element-type SjLibraryFile): the files
 *   of a pack, in order
 */
GPtrArray *
_sj_sound_downloads_get_files (SjSoundDownloads *self,
                               const char       *id)
{
  Pack *pack;
  GPtrArray *files;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  pack = lookup_pack (self, id);
  g_return_val_if_fail (pack != NULL, NULL);

  files = g_ptr_array_sized_new (pack->info.n_files);
  for (guint i = 0; i < pack->info.n_files; i++)
    g_ptr_array_add (files, g_ptr_array_index (self->files, pack->first + i));
  return files;
}

/* GObject ------------------------------------------------------------------- */

static void
sj_sound_downloads_dispose (GObject *object)
{
  SjSoundDownloads *self = (SjSoundDownloads *)object;

  if (self->cache != NULL)
    {
      sj_sound_downloads_suspend (self);
      g_signal_handlers_disconnect_by_data (self->cache, self);
    }

  G_OBJECT_CLASS (sj_sound_downloads_parent_class)->dispose (object);
}

static void
sj_sound_downloads_finalize (GObject *object)
{
  SjSoundDownloads *self = (SjSoundDownloads *)object;

  /* Every file asked for and every removal holds a reference. */
  g_assert (g_queue_is_empty (&self->runs));
  g_assert (self->removals->len == 0);

  g_clear_pointer (&self->packs, g_ptr_array_unref);
  g_clear_pointer (&self->ids, g_ptr_array_unref);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->files, g_ptr_array_unref);
  g_clear_pointer (&self->file_packs, g_ptr_array_unref);
  g_clear_pointer (&self->sizes, g_array_unref);
  g_clear_pointer (&self->changed, g_array_unref);
  g_clear_pointer (&self->slots, g_hash_table_unref);
  g_clear_pointer (&self->wanted, g_ptr_array_unref);
  g_clear_pointer (&self->removals, g_ptr_array_unref);
  g_clear_object (&self->state_file);
  g_clear_object (&self->cache);

  G_OBJECT_CLASS (sj_sound_downloads_parent_class)->finalize (object);
}

static void
sj_sound_downloads_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  SjSoundDownloads *self = SJ_SOUND_DOWNLOADS (object);

  switch (prop_id)
    {
    case PROP_ACTIVE:
      g_value_set_boolean (value, sj_sound_downloads_get_active (self));
      break;

    case PROP_FRACTION:
      g_value_set_double (value, sj_sound_downloads_get_fraction (self));
      break;

    case PROP_DISK_USAGE:
      g_value_set_uint64 (value, sj_sound_downloads_get_disk_usage (self));
      break;

    case PROP_USAGE_KNOWN:
      g_value_set_boolean (value, self->usage_known);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_sound_downloads_class_init (SjSoundDownloadsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_sound_downloads_dispose;
  object_class->finalize = sj_sound_downloads_finalize;
  object_class->get_property = sj_sound_downloads_get_property;

  properties[PROP_ACTIVE] =
    g_param_spec_boolean ("active", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_DISK_USAGE] =
    g_param_spec_uint64 ("disk-usage", NULL, NULL, 0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_USAGE_KNOWN] =
    g_param_spec_boolean ("usage-known", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjSoundDownloads::pack-changed:
   * @id: the pack
   *
   * Anything sj_sound_downloads_get_pack() answers for it changed.
   */
  signals[PACK_CHANGED] =
    g_signal_new ("pack-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjSoundDownloads::progress:
   * @id: the pack
   * @n_done: files done in its download
   * @n_total: files it has to fetch
   * @bytes: bytes it downloaded
   *
   * A file of a pack's download is done: downloaded, or failed for good.
   */
  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_UINT64);

  /**
   * SjSoundDownloads::finished:
   * @id: the pack
   * @outcome: a #SjSoundPackOutcome
   */
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_INT);
}

static void
sj_sound_downloads_init (SjSoundDownloads *self)
{
  self->packs = g_ptr_array_new_with_free_func (_sj_sound_downloads_pack_free);
  self->ids = g_ptr_array_new ();
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->files = g_ptr_array_new ();
  self->file_packs = g_ptr_array_new ();
  self->sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->changed = g_array_new (FALSE, FALSE, sizeof (guint));
  self->slots = g_hash_table_new (NULL, NULL);
  self->wanted = g_ptr_array_new_with_free_func (g_free);
  self->removals = g_ptr_array_new ();
  g_queue_init (&self->runs);
}

/**
 * sj_sound_downloads_new:
 * @cache: the cache the packs are downloaded into
 *
 * Nothing is counted or resumed yet: see sj_sound_downloads_refresh_async()
 * and sj_sound_downloads_resume().
 */
SjSoundDownloads *
sj_sound_downloads_new (SjSoundCache *cache)
{
  SjSoundDownloads *self;

  g_return_val_if_fail (SJ_IS_SOUND_CACHE (cache), NULL);

  self = g_object_new (SJ_TYPE_SOUND_DOWNLOADS, NULL);
  self->cache = g_object_ref (cache);
  self->state_file = g_file_get_child (sj_sound_cache_get_directory (cache), STATE_FILE_NAME);
  _sj_sound_downloads_build_packs (self);
  g_signal_connect_object (cache, "file-cached", G_CALLBACK (file_cached_cb), self, G_CONNECT_SWAPPED);

  return self;
}
