/* sj-sound-downloads-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the parts of SjSoundDownloads share: sj-sound-downloads.c (the
 * object, its signals and properties, the files' sizes),
 * sj-sound-downloads-packs.c (which files make which pack),
 * sj-sound-downloads-queue.c (the download queue),
 * sj-sound-downloads-resume.c (the state file that lets downloads resume)
 * and sj-sound-downloads-disk.c (what runs in a thread: counting what is
 * cached, measuring the directory, removing).
 */

#pragma once

#include "sj-sound-downloads.h"

G_BEGIN_DECLS

/* A file's size in the cache (SjSoundDownloads.sizes). */
#define SIZE_UNKNOWN  (-2)
#define SIZE_MISSING  (-1)

/* A pack's download; what it holds is known to sj-sound-downloads-queue.c
 * alone. */
typedef struct _Run Run;

typedef struct
{
  SjSoundPackInfo  info;         /* what sj_sound_downloads_get_pack() answers */
  char            *id;
  char            *title;
  char            *dir;          /* relative to the cache: what holds its files and nothing else */
  char            *message;
  guint            first;        /* its files are the slots first … first + n_files - 1 */
  GPtrArray       *failures;     /* of SjSoundPackFailure */
  Run             *run;          /* its download, while one runs */
  guint            removals;     /* removals asked for and not done */
} Pack;

struct _SjSoundDownloads
{
  GObject       parent_instance;

  SjSoundCache *cache;
  GFile        *state_file;
  GPtrArray    *packs;          /* of Pack, in the order the page lists them */
  GPtrArray    *ids;            /* their ids, NULL-terminated */
  GHashTable   *by_id;          /* id → Pack */
  GPtrArray    *files;          /* slot → const SjLibraryFile * */
  GPtrArray    *file_packs;     /* slot → Pack */
  GArray       *sizes;          /* slot → gint64: its size, SIZE_MISSING or SIZE_UNKNOWN */
  GArray       *changed;        /* slot → guint: the generation that last set its size */
  GHashTable   *slots;          /* const SjLibraryFile * → slot + 1 */
  guint         generation;
  GQueue        runs;           /* of Run: the downloads, in the order they were asked for */
  guint         in_flight;
  GPtrArray    *wanted;         /* ids of the packs to resume at the next start */
  GPtrArray    *kept;           /* ids of the packs downloaded for offline: never evicted */
  GPtrArray    *removals;       /* of GTask: removals waiting for their packs' downloads to stop */
  guint64       other_bytes;    /* what the directory holds besides the packs' files */
  gboolean      usage_known;
};

/* The work a thread does (sj-sound-downloads-disk.c). */
typedef struct
{
  char       *base;             /* the cache directory */
  GPtrArray  *remove_dirs;      /* (nullable): folders to delete, relative to base */
  GArray     *slots;            /* the slots to look at */
  GPtrArray  *files;            /* their files */
  GArray     *sizes;            /* out: their sizes, SIZE_MISSING when not cached */
  gboolean    walk;             /* also measure everything under base */
  guint64     walked;           /* out: what the walk found */
  guint       generation;       /* when the job was made */
  GPtrArray  *packs;            /* the Packs it counts (read on the main thread only) */
} SjSoundDownloadsJob;

/* sj-sound-downloads-packs.c */
void                 _sj_sound_downloads_build_packs (SjSoundDownloads    *self);
void                 _sj_sound_downloads_pack_free  (gpointer              data);

/* sj-sound-downloads-queue.c */
void                 _sj_sound_downloads_cancel_pack (SjSoundDownloads    *self,
                                                      Pack                *pack);
void                 _sj_sound_downloads_pump       (SjSoundDownloads     *self);

/* sj-sound-downloads-resume.c */
void                 _sj_sound_downloads_init_state (SjSoundDownloads     *self);
void                 _sj_sound_downloads_keep       (SjSoundDownloads     *self,
                                                     const char           *id,
                                                     gboolean              kept);
void                 _sj_sound_downloads_want       (SjSoundDownloads     *self,
                                                     const char           *id,
                                                     gboolean              wanted);

/* sj-sound-downloads-disk.c */
void                 _sj_sound_downloads_start_removals (SjSoundDownloads *self);
SjSoundDownloadsJob *_sj_sound_downloads_job_new    (SjSoundDownloads     *self,
                                                     GPtrArray            *packs,
                                                     gboolean              walk);
void                 _sj_sound_downloads_job_free   (SjSoundDownloadsJob  *job);
void                 _sj_sound_downloads_job_run    (GTask                *task,
                                                     gpointer              source_object,
                                                     gpointer              task_data,
                                                     GCancellable         *cancellable);
void                 _sj_sound_downloads_job_apply  (SjSoundDownloads     *self,
                                                     SjSoundDownloadsJob  *job);

/* sj-sound-downloads.c */
Pack                *_sj_sound_downloads_lookup_pack (SjSoundDownloads    *self,
                                                      const char          *id);
void                 _sj_sound_downloads_count_pack (SjSoundDownloads     *self,
                                                     Pack                 *pack);
void                 _sj_sound_downloads_set_size   (SjSoundDownloads     *self,
                                                     guint                 slot,
                                                     gint64                size);
void                 _sj_sound_downloads_emit_pack_changed (SjSoundDownloads *self,
                                                            Pack             *pack);
void                 _sj_sound_downloads_emit_progress (SjSoundDownloads  *self,
                                                        Pack              *pack);
void                 _sj_sound_downloads_emit_finished (SjSoundDownloads   *self,
                                                        Pack               *pack,
                                                        SjSoundPackOutcome  outcome);
void                 _sj_sound_downloads_notify_active (SjSoundDownloads  *self);
void                 _sj_sound_downloads_notify_fraction (SjSoundDownloads *self);
void                 _sj_sound_downloads_notify_usage (SjSoundDownloads   *self);

/* For tests. */
GPtrArray           *_sj_sound_downloads_get_files  (SjSoundDownloads     *self,
                                                     const char           *id);

G_END_DECLS
