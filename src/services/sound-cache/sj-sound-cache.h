/* sj-sound-cache.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-sound-library.h"

G_BEGIN_DECLS

#define SJ_SOUND_CACHE_ERROR (sj_sound_cache_error_quark ())

typedef enum
{
  SJ_SOUND_CACHE_ERROR_OFFLINE,    /* not cached, and downloads are off */
  SJ_SOUND_CACHE_ERROR_NOT_FOUND,  /* not a file of the library, or the server answered 404 */
  SJ_SOUND_CACHE_ERROR_NETWORK,    /* no connection, or the server failed (after retries) */
  SJ_SOUND_CACHE_ERROR_TIMEOUT,    /* the server did not answer in time */
  SJ_SOUND_CACHE_ERROR_TRUNCATED,  /* the body ended before its Content-Length */
  SJ_SOUND_CACHE_ERROR_TOO_LARGE,  /* larger than the cache takes */
  SJ_SOUND_CACHE_ERROR_IO,         /* the cache could not be written or read */
  SJ_SOUND_CACHE_ERROR_NOT_AUDIO,  /* the body is not a sound (an HTML page, JSON, text…) */
} SjSoundCacheError;

/* What sj_sound_cache_fetch_async() checks of a body before it keeps it. */
typedef enum
{
  SJ_SOUND_CACHE_FETCH_NONE  = 0,
  SJ_SOUND_CACHE_FETCH_AUDIO = 1 << 0, /* a sound: its first bytes must say so */
} SjSoundCacheFetchFlags;

/* Where a loaded file came from. */
typedef enum
{
  SJ_SOUND_SOURCE_CACHE,
  SJ_SOUND_SOURCE_DOWNLOAD,
  SJ_SOUND_SOURCE_FALLBACK,        /* the built-in drum kit's voice (never cached) */
} SjSoundSource;

typedef enum
{
  SJ_SOUND_STATE_NOT_CACHED,
  SJ_SOUND_STATE_CACHED,
} SjSoundState;

/**
 * SjSoundCacheFallback:
 * @voice: a standard drum voice: bd sd hh oh cp rim lt mt ht cr rd cb sh
 * @variant: the file's index in its sound
 *
 * What serves a drum that cannot be had (sj_drum_kit_lookup() has this
 * signature).
 *
 * Returns: (transfer full) (nullable): WAV bytes, or %NULL with @error set
 */
typedef GBytes *(*SjSoundCacheFallback) (const char  *voice,
                                         guint        variant,
                                         GError     **error);

/* How a sound or a file would play now (sj-sound-cache-availability.c). */
typedef enum
{
  SJ_SOUND_AVAILABILITY_BUILT_IN,    /* made by the page: a synthesizer, ZZFX */
  SJ_SOUND_AVAILABILITY_CACHED,      /* on disk: plays offline */
  SJ_SOUND_AVAILABILITY_DOWNLOAD,    /* downloaded once, on first use */
  SJ_SOUND_AVAILABILITY_KIT,         /* cannot be had: the built-in drum kit plays */
  SJ_SOUND_AVAILABILITY_UNAVAILABLE, /* not cached and cannot be downloaded now */
} SjSoundAvailability;

/* What sj_sound_cache_get_sound_availability() counted. */
typedef struct
{
  guint       n_files;
  guint       n_cached;
  goffset     cached_bytes;
  const char *fallback_voice;        /* the kit's voice for this sound, or NULL */
} SjSoundFiles;

#define SJ_SOUND_CACHE_MAX_DOWNLOADS 4
#define SJ_SOUND_CACHE_MAX_FILE_SIZE (50 * 1024 * 1024)
#define SJ_SOUND_CACHE_TIMEOUT_S     15
#define SJ_SOUND_CACHE_DEFAULT_LIMIT_MB 4096
/* A file served or downloaded this recently is in use: never evicted. */
#define SJ_SOUND_CACHE_IN_USE_S      120

#define SJ_TYPE_SOUND_CACHE (sj_sound_cache_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundCache, sj_sound_cache, SJ, SOUND_CACHE, GObject)

GQuark        sj_sound_cache_error_quark          (void);
SjSoundCache *sj_sound_cache_new                  (SjSoundLibrary       *library,
                                                   GFile                *directory);
GFile        *sj_sound_cache_get_directory        (SjSoundCache         *self);
SjSoundLibrary *sj_sound_cache_get_library        (SjSoundCache         *self);
gboolean      sj_sound_cache_get_allow_downloads  (SjSoundCache         *self);
void          sj_sound_cache_set_allow_downloads  (SjSoundCache         *self,
                                                   gboolean              allow_downloads);
gboolean      sj_sound_cache_get_allow_local_hosts (SjSoundCache        *self);
void          sj_sound_cache_set_fallback         (SjSoundCache         *self,
                                                   SjSoundCacheFallback  fallback);
SjSoundCacheFallback sj_sound_cache_get_fallback  (SjSoundCache         *self);
void          sj_sound_cache_load_async           (SjSoundCache         *self,
                                                   const char           *pack,
                                                   const char           *path,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
GBytes       *sj_sound_cache_load_finish          (SjSoundCache         *self,
                                                   GAsyncResult         *result,
                                                   const char          **content_type,
                                                   SjSoundSource        *source,
                                                   GError              **error);
SjSoundState  sj_sound_cache_lookup_state         (SjSoundCache         *self,
                                                   const char           *pack,
                                                   const char           *path,
                                                   goffset              *size);
GFile        *sj_sound_cache_get_file             (SjSoundCache         *self,
                                                   const char           *pack,
                                                   const char           *path);
char         *sj_sound_cache_get_url              (SjSoundCache         *self,
                                                   const char           *pack,
                                                   const char           *path);
char         *sj_sound_cache_describe_failure     (SjSoundCache         *self,
                                                   const char           *pack,
                                                   const char           *path,
                                                   const GError         *error);
const char   *sj_sound_cache_get_fallback_voice   (const SjLibraryFile  *file);
gboolean      sj_sound_cache_get_online           (SjSoundCache         *self);
SjSoundAvailability sj_sound_cache_get_file_availability  (SjSoundCache         *self,
                                                         const SjLibraryFile  *file);
SjSoundAvailability sj_sound_cache_get_sound_availability (SjSoundCache         *self,
                                                         const char           *name,
                                                         SjSoundFiles         *files);
const char   *sj_sound_availability_to_string     (SjSoundAvailability   availability);
GPtrArray    *sj_sound_cache_list_cached_sounds   (SjSoundCache         *self);
void          sj_sound_cache_fetch_async          (SjSoundCache         *self,
                                                   const char           *url,
                                                   GFile                *target,
                                                   gsize                 max_size,
                                                   SjSoundCacheFetchFlags flags,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
GBytes       *sj_sound_cache_fetch_finish         (SjSoundCache         *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
void          sj_sound_cache_clean_parts_async    (SjSoundCache         *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gint          sj_sound_cache_clean_parts_finish   (SjSoundCache         *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
void          sj_sound_cache_download_async       (SjSoundCache         *self,
                                                   const char           *pack,
                                                   const char           *path,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gint64        sj_sound_cache_download_finish      (SjSoundCache         *self,
                                                   GAsyncResult         *result,
                                                   gboolean             *downloaded,
                                                   GError              **error);

/* The quota (sj-sound-cache-quota.c). */
guint         sj_sound_cache_get_limit_mb         (SjSoundCache         *self);
void          sj_sound_cache_set_limit_mb         (SjSoundCache         *self,
                                                   guint                 limit_mb);
void          sj_sound_cache_set_kept_dirs        (SjSoundCache         *self,
                                                   const char * const   *dirs);
gboolean      sj_sound_cache_is_kept              (SjSoundCache         *self,
                                                   GFile                *file);
void          sj_sound_cache_note_used            (SjSoundCache         *self,
                                                   GFile                *file);
gboolean      sj_sound_cache_is_audio             (GBytes               *bytes,
                                                   GError              **error);
void          sj_sound_cache_trim_async           (SjSoundCache         *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean      sj_sound_cache_trim_finish          (SjSoundCache         *self,
                                                   GAsyncResult         *result,
                                                   guint64              *used_bytes,
                                                   guint               *n_removed,
                                                   GError              **error);

G_END_DECLS
