/* sj-sound-cache-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sound cache's insides, shared by sj-sound-cache.c (the API, the
 * disk), sj-sound-cache-load.c (loads), sj-sound-cache-download.c and
 * sj-sound-cache-body.c (downloads), sj-sound-cache-failures.c (what is
 * said when a sound cannot be had) and sj-sound-cache-offline.c (downloads
 * asked for, for offline use), and the setters the tests use.
 */

#pragma once

#include <libsoup/soup.h>

#include "sj-sound-cache.h"

G_BEGIN_DECLS

typedef struct _SjSoundDownload SjSoundDownload;
typedef struct _SjFetchGuard SjFetchGuard;

/* A download reads its body this many bytes at a time. */
#define SJ_SOUND_CACHE_CHUNK_SIZE (64 * 1024)

/* The most redirects one download follows. */
#define SJ_SOUND_CACHE_MAX_REDIRECTS 5

struct _SjSoundCache
{
  GObject               parent_instance;

  SjSoundLibrary       *library;
  GFile                *directory;
  SoupSession          *session;
  char                 *base_override;   /* STRUDEL_JAM_SOUNDS_URL, for tests */
  char                 *remote_override; /* STRUDEL_JAM_REMOTE_URL, for tests */

  GHashTable           *downloads;       /* "pack/local path" → SjSoundDownload */
  GQueue                queue;           /* downloads waiting for a slot */
  guint                 active;          /* downloads running */
  GHashTable           *reported;        /* "pack/local path" → error code + 1 */
  SjSoundCacheFallback  fallback;

  guint                 max_active;
  gsize                 max_size;
  guint                 timeout_s;
  guint                 retry_delay_ms;
  guint                 max_attempts;
  gint64                unreachable_until; /* monotonic µs: the hosts could not be reached */
  guint                 allow_downloads : 1;
  guint                 allow_local_hosts : 1;

  /* The quota (sj-sound-cache-quota.c). */
  guint                 limit_mb;
  GStrv                 kept_dirs;        /* absolute paths, each ending in "/" */
  gint64                usage_estimate;   /* bytes, or -1 before the first trim */
  guint64               trim_floor;       /* no trim below this: what stayed over the limit, and some */
  guint                 trimming : 1;
  guint                 trim_again : 1;
};

/* One download of one file, however many wait for it
 * (sj-sound-cache-download.c, sj-sound-cache-body.c). */
struct _SjSoundDownload
{
  SjSoundCache        *cache;          /* owned: a download keeps its cache alive */
  char                *key;
  const SjLibraryFile *file;           /* or NULL for sj_sound_cache_fetch_async() */
  char                *url;
  gsize                max_size;
  gboolean             audio;          /* a sound: sniffed before it is kept */
  GFile               *target;
  GFile               *part;
  GPtrArray           *waiters;        /* of Waiter */
  GList               *link;           /* in the cache's queue, while queued */

  /* The current attempt. */
  guint                attempt;
  GCancellable        *cancellable;
  guint                retry_source;
  guint                deadline_source;
  gboolean             timed_out;
  SoupMessage         *message;
  SjFetchGuard        *guard;          /* judges each hop's address (sj-sound-cache-guard.c) */
  GInputStream        *body;
  GOutputStream       *out;
  GBytes              *chunk;          /* being written */
  GByteArray          *data;
  gboolean             sniffed;
  goffset              expected;       /* Content-Length, or -1 */
};

/* sj-sound-cache-download.c */
void     _sj_sound_download_finish       (SjSoundDownload     *self,
                                          GBytes              *bytes,
                                          const GError        *error);
void     _sj_sound_download_retry_or_finish (SjSoundDownload  *self,
                                          GError              *error,
                                          gboolean             retryable);
void     _sj_sound_download_fail_attempt (SjSoundDownload     *self,
                                          const GError        *error);
void     _sj_sound_download_fail_io      (SjSoundDownload     *self,
                                          const GError        *error);
GError  *_sj_sound_download_too_large    (SjSoundDownload     *self);
void     _sj_sound_cache_download_join   (SjSoundCache        *self,
                                          const SjLibraryFile *file,
                                          const char          *key,
                                          GTask               *task);
void     _sj_sound_cache_download_join_full (SjSoundCache     *self,
                                          const char          *key,
                                          const SjLibraryFile *file,
                                          const char          *url,
                                          GFile               *target,
                                          gsize                max_size,
                                          gboolean             audio,
                                          GTask               *task);

/* sj-sound-cache-body.c */
void     _sj_sound_download_read_next    (SjSoundDownload     *self);
gboolean _sj_sound_download_prepare_part (SjSoundDownload     *self,
                                          GError             **error);
void     _sj_sound_download_part_created_cb (GObject          *object,
                                          GAsyncResult        *result,
                                          gpointer             user_data);

/* sj-sound-cache-fetch.c */
void     _sj_sound_cache_fetch_answer    (GTask               *task,
                                          GBytes              *bytes,
                                          const GError        *error);

/* sj-sound-cache-guard.c: the network boundary (sj-address-policy.c) */
void          _sj_sound_cache_guard_init   (SjSoundCache   *self);
SjFetchGuard *_sj_fetch_guard_new          (SjSoundCache   *cache,
                                            const char     *url);
void          _sj_fetch_guard_free         (SjFetchGuard   *self);
void          _sj_fetch_guard_watch        (SjFetchGuard   *self,
                                            SoupMessage    *message);
gboolean      _sj_fetch_guard_check_first  (SjFetchGuard   *self,
                                            const char     *url,
                                            GError        **error);
char         *_sj_fetch_guard_redirect     (SjFetchGuard   *self,
                                            SoupMessage    *message,
                                            GError        **error);
GError       *_sj_fetch_guard_take_refusal (SjFetchGuard   *self);

/* sj-sound-cache-failures.c */
void     _sj_sound_cache_report_failure  (SjSoundCache        *self,
                                          const char          *pack,
                                          const char          *path,
                                          const char          *key,
                                          const GError        *error,
                                          const char          *fallback_voice);

/* sj-sound-cache.c */
GFile   *_sj_sound_cache_get_target      (SjSoundCache        *self,
                                          const SjLibraryFile *file);
void     _sj_sound_cache_answer          (SjSoundCache        *self,
                                          GTask               *task,
                                          GBytes              *bytes,
                                          const GError        *error);
void     _sj_sound_cache_file_cached     (SjSoundCache        *self,
                                          const SjLibraryFile *file,
                                          const char          *key,
                                          gsize                size);

/* sj-sound-cache-offline.c */
void     _sj_sound_cache_answer_download (SjSoundCache        *self,
                                          GTask               *task,
                                          GBytes              *bytes,
                                          const GError        *error);

/* sj-sound-cache-quota.c */
void     _sj_sound_cache_downloaded      (SjSoundCache        *self,
                                          gsize                size);
gboolean _sj_sound_cache_file_is_audio   (const SjLibraryFile *file);
GError  *_sj_sound_cache_not_audio       (const guint8        *data,
                                          gsize                length);

/* sj-sound-cache-availability.c */
void     _sj_sound_cache_set_unreachable (SjSoundCache        *self,
                                          gboolean             unreachable);

/* For tests: a short timeout (seconds), quick retries, small limits. */
void     _sj_sound_cache_set_timeout     (SjSoundCache        *self,
                                          guint                seconds);
void     _sj_sound_cache_set_retry_delay (SjSoundCache        *self,
                                          guint                milliseconds,
                                          guint                max_attempts);
void     _sj_sound_cache_set_limits      (SjSoundCache        *self,
                                          guint                max_active,
                                          gsize                max_size);

G_END_DECLS
