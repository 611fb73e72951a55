/* sj-sound-downloads.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-sound-cache.h"

G_BEGIN_DECLS

/* The collection whose machines are packs of their own. */
#define SJ_SOUND_DOWNLOADS_DRUM_MACHINES "tidal-drum-machines"

typedef enum
{
  SJ_SOUND_PACK_IDLE,
  SJ_SOUND_PACK_QUEUED,        /* waiting for another pack's download */
  SJ_SOUND_PACK_DOWNLOADING,
  SJ_SOUND_PACK_REMOVING,
} SjSoundPackState;

/* How a pack's download ended (SjSoundDownloads::finished). */
typedef enum
{
  SJ_SOUND_PACK_COMPLETE,      /* every file it had to fetch is cached */
  SJ_SOUND_PACK_INCOMPLETE,    /* some files failed: see sj_sound_downloads_get_failures() */
  SJ_SOUND_PACK_CANCELLED,     /* cancelled, or removed while downloading */
  SJ_SOUND_PACK_STOPPED,       /* the hosts failed file after file; it resumes at the next start */
  SJ_SOUND_PACK_SUSPENDED,     /* sj_sound_downloads_suspend(): it resumes at the next start */
} SjSoundPackOutcome;

/**
 * SjSoundPackInfo:
 * @id: "dirt-samples", "tidal-drum-machines/RolandTR808"…
 * @title: what the musician calls it: "Dirt-Samples", "RolandTR808"
 * @collection: %SJ_SOUND_DOWNLOADS_DRUM_MACHINES for a drum machine, else %NULL
 * @n_files: the files of the pack
 * @counted: whether @n_cached and @cached_bytes were counted on disk
 * @n_cached: how many are in the cache
 * @cached_bytes: their size
 * @state: what the pack is doing
 * @n_total: files the current (or last) download had to fetch, once counted
 * @n_done: of those, how many are done (downloaded, or failed for good)
 * @downloaded_bytes: bytes the current (or last) download fetched
 * @n_failed: files that failed for good in it
 * @message: (nullable): why the last download stopped, when it did
 *
 * A pack as the Sounds page shows it. The sizes of files that are not
 * downloaded are not known (the maps do not say them).
 */
typedef struct
{
  const char       *id;
  const char       *title;
  const char       *collection;
  guint             n_files;
  gboolean          counted;
  guint             n_cached;
  guint64           cached_bytes;
  SjSoundPackState  state;
  guint             n_total;
  guint             n_done;
  guint64           downloaded_bytes;
  guint             n_failed;
  const char       *message;
} SjSoundPackInfo;

/* A file that could not be downloaded, by name ("bd:3", "piano (C4)"). */
typedef struct
{
  char *name;
  char *message;   /* the sentence SjSoundCache says for it */
} SjSoundPackFailure;

#define SJ_TYPE_SOUND_DOWNLOADS (sj_sound_downloads_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundDownloads, sj_sound_downloads, SJ, SOUND_DOWNLOADS, GObject)

SjSoundDownloads      *sj_sound_downloads_new             (SjSoundCache         *cache);
SjSoundCache          *sj_sound_downloads_get_cache       (SjSoundDownloads     *self);
const char * const    *sj_sound_downloads_get_packs       (SjSoundDownloads     *self);
const SjSoundPackInfo *sj_sound_downloads_get_pack        (SjSoundDownloads     *self,
                                                           const char           *id);
GPtrArray             *sj_sound_downloads_get_failures    (SjSoundDownloads     *self,
                                                           const char           *id);
gboolean               sj_sound_downloads_start           (SjSoundDownloads     *self,
                                                           const char           *id);
void                   sj_sound_downloads_cancel          (SjSoundDownloads     *self,
                                                           const char           *id);
guint                  sj_sound_downloads_resume          (SjSoundDownloads     *self);
void                   sj_sound_downloads_suspend         (SjSoundDownloads     *self);
gboolean               sj_sound_downloads_get_active      (SjSoundDownloads     *self);
double                 sj_sound_downloads_get_fraction    (SjSoundDownloads     *self);
gboolean               sj_sound_downloads_get_usage_known (SjSoundDownloads     *self);
guint64                sj_sound_downloads_get_disk_usage  (SjSoundDownloads     *self);
GFile                 *sj_sound_downloads_get_state_file  (SjSoundDownloads     *self);
void                   sj_sound_downloads_refresh_async   (SjSoundDownloads     *self,
                                                           GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
gboolean               sj_sound_downloads_refresh_finish  (SjSoundDownloads     *self,
                                                           GAsyncResult         *result,
                                                           GError              **error);
void                   sj_sound_downloads_remove_async    (SjSoundDownloads     *self,
                                                           const char           *id,
                                                           GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
gboolean               sj_sound_downloads_remove_finish   (SjSoundDownloads     *self,
                                                           GAsyncResult         *result,
                                                           GError              **error);

void                   sj_sound_pack_failure_free         (SjSoundPackFailure   *failure);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjSoundPackFailure, sj_sound_pack_failure_free)

G_END_DECLS
