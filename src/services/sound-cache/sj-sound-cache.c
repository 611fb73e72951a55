/* sj-sound-cache.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The native cache behind the page's strudel-jam://sounds/<pack>/<path>
 * requests. A file of the sound library is answered from
 * $XDG_CACHE_HOME/strudel-jam/sounds/<pack>/<path>; when it is not there
 * and downloads are allowed (the "download-sounds" setting), it is
 * downloaded once from its upstream host (sj-sound-cache-download.c),
 * written atomically and served. Only files the library lists are ever
 * served or fetched, so a path cannot leave the cache directory.
 *
 * A file that cannot be had is reported once (SjSoundCache::load-failed,
 * with a sentence for the console), and a standard drum is then served by
 * the fallback (the built-in drum kit) when one is set, never cached.
 * Loading and answering are in sj-sound-cache-load.c.
 */

#include "config.h"

#include <string.h>

#include "sj-sound-cache-private.h"

G_DEFINE_FINAL_TYPE (SjSoundCache, sj_sound_cache, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-sound-cache-error-quark, sj_sound_cache_error)

enum {
  PROP_0,
  PROP_ALLOW_DOWNLOADS,
  PROP_ALLOW_LOCAL_HOSTS,
  PROP_LIMIT_MB,
  N_PROPS
};

enum {
  FILE_CACHED,
  LOAD_FAILED,
  TRIMMED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
sj_sound_cache_finalize (GObject *object)
{
  SjSoundCache *self = (SjSoundCache *)object;

  /* Every download holds a reference: none is left. */
  g_assert (g_hash_table_size (self->downloads) == 0);

  g_clear_pointer (&self->downloads, g_hash_table_unref);
  g_clear_pointer (&self->reported, g_hash_table_unref);
  g_clear_pointer (&self->kept_dirs, g_strfreev);
  g_clear_pointer (&self->base_override, g_free);
  g_clear_pointer (&self->remote_override, g_free);
  g_clear_object (&self->session);
  g_clear_object (&self->directory);
  g_clear_object (&self->library);

  G_OBJECT_CLASS (sj_sound_cache_parent_class)->finalize (object);
}

static void
sj_sound_cache_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  SjSoundCache *self = SJ_SOUND_CACHE (object);

  switch (prop_id)
    {
    case PROP_ALLOW_DOWNLOADS:
      g_value_set_boolean (value, self->allow_downloads);
      break;

    case PROP_ALLOW_LOCAL_HOSTS:
      g_value_set_boolean (value, self->allow_local_hosts);
      break;

    case PROP_LIMIT_MB:
      g_value_set_uint (value, self->limit_mb);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_sound_cache_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  SjSoundCache *self = SJ_SOUND_CACHE (object);

  switch (prop_id)
    {
    case PROP_ALLOW_DOWNLOADS:
      sj_sound_cache_set_allow_downloads (self, g_value_get_boolean (value));
      break;

    case PROP_ALLOW_LOCAL_HOSTS:
      if (self->allow_local_hosts != g_value_get_boolean (value))
        {
          self->allow_local_hosts = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    case PROP_LIMIT_MB:
      sj_sound_cache_set_limit_mb (self, g_value_get_uint (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_sound_cache_class_init (SjSoundCacheClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_sound_cache_finalize;
  object_class->get_property = sj_sound_cache_get_property;
  object_class->set_property = sj_sound_cache_set_property;

  /**
   * SjSoundCache:allow-downloads:
   *
   * Whether a file that is not cached may be downloaded (the
   * "download-sounds" setting). Off, the cache is strictly offline.
   */
  properties[PROP_ALLOW_DOWNLOADS] =
    g_param_spec_boolean ("allow-downloads", NULL, NULL, TRUE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SjSoundCache:allow-local-hosts:
   *
   * Whether downloads may reach this computer and the local network (the
   * "allow-local-sample-hosts" setting, for samples kept on a NAS). Off,
   * the page's code reaches only the internet (sj-address-policy.c).
   */
  properties[PROP_ALLOW_LOCAL_HOSTS] =
    g_param_spec_boolean ("allow-local-hosts", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* The most the cache holds, in MiB (0: no limit); the least recently
   * used files go first, never a pack kept for offline (sj-sound-cache-quota.c). */
  properties[PROP_LIMIT_MB] =
    g_param_spec_uint ("limit-mb", NULL, NULL, 0, G_MAXUINT, SJ_SOUND_CACHE_DEFAULT_LIMIT_MB,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjSoundCache::file-cached:
   * @pack: the pack
   * @path: the file's path in the pack, as the library lists it
   * @size: its size in bytes
   *
   * A file was downloaded and is in the cache now.
   */
  /**
   * SjSoundCache::trimmed:
   * @used_bytes: what the cache holds now
   * @n_removed: how many files were evicted
   *
   * The cache was measured against its limit, and its least recently used
   * files evicted when it was over.
   */
  signals[TRIMMED] =
    g_signal_new ("trimmed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT);

  signals[FILE_CACHED] =
    g_signal_new ("file-cached", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_UINT64);

  /**
   * SjSoundCache::load-failed:
   * @pack: the pack
   * @path: the path that was asked for
   * @error: why (%SJ_SOUND_CACHE_ERROR)
   * @message: one sentence for the console, naming the sound
   *
   * A file could not be had. Emitted once per file and kind of failure,
   * until the file is cached or downloads are switched.
   */
  signals[LOAD_FAILED] =
    g_signal_new ("load-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_ERROR, G_TYPE_STRING);
}

static void
sj_sound_cache_init (SjSoundCache *self)
{
  const char *override = g_getenv ("STRUDEL_JAM_SOUNDS_URL");

  self->allow_downloads = TRUE;
  self->limit_mb = SJ_SOUND_CACHE_DEFAULT_LIMIT_MB;
  self->usage_estimate = -1;
  self->max_active = SJ_SOUND_CACHE_MAX_DOWNLOADS;
  self->max_size = SJ_SOUND_CACHE_MAX_FILE_SIZE;
  self->timeout_s = SJ_SOUND_CACHE_TIMEOUT_S;
  self->retry_delay_ms = 1000;
  self->max_attempts = 3;
  self->downloads = g_hash_table_new (g_str_hash, g_str_equal);
  self->reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&self->queue);

  /* The timeout covers connecting and every read: a server that never
   * answers gives up. Several downloads at once may go to one host. */
  self->session = soup_session_new_with_options ("timeout", self->timeout_s,
                                                 "max-conns-per-host", self->max_active,
                                                 "user-agent", "StrudelJam/" PACKAGE_VERSION " ",
                                                 NULL);

  /* Tests point the downloads at a loopback server. */
  if (override != NULL && *override != '\0')
    {
      self->base_override = g_strdup (override);
      while (g_str_has_suffix (self->base_override, "/"))
        self->base_override[strlen (self->base_override) - 1] = '\0';
    }
  _sj_sound_cache_guard_init (self);
}

/**
 * sj_sound_cache_new:
 * @library: the sounds whose files may be cached
 * @directory: (nullable): where, or %NULL for
 *   $XDG_CACHE_HOME/strudel-jam/sounds
 */
SjSoundCache *
sj_sound_cache_new (SjSoundLibrary *library,
                    GFile          *directory)
{
  SjSoundCache *self;

  g_return_val_if_fail (SJ_IS_SOUND_LIBRARY (library), NULL);
  g_return_val_if_fail (directory == NULL || G_IS_FILE (directory), NULL);

  self = g_object_new (SJ_TYPE_SOUND_CACHE, NULL);
  self->library = g_object_ref (library);
  self->directory = directory != NULL
    ? g_object_ref (directory)
    : g_file_new_build_filename (g_get_user_cache_dir (), "strudel-jam", "sounds", NULL);

  return self;
}

GFile *
sj_sound_cache_get_directory (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->directory;
}

/**
 * sj_sound_cache_get_library:
 *
 * Returns: (transfer none): the library whose files the cache serves
 */
SjSoundLibrary *
sj_sound_cache_get_library (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->library;
}

/**
 * sj_sound_cache_get_allow_local_hosts:
 *
 * Returns: whether downloads may reach this computer and the local network
 */
gboolean
sj_sound_cache_get_allow_local_hosts (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->allow_local_hosts;
}

gboolean
sj_sound_cache_get_allow_downloads (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->allow_downloads;
}

void
sj_sound_cache_set_allow_downloads (SjSoundCache *self,
                                    gboolean      allow_downloads)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  allow_downloads = !!allow_downloads;
  if (self->allow_downloads == allow_downloads)
    return;

  self->allow_downloads = allow_downloads;
  /* What failed before may fail for another reason now: say it again. */
  g_hash_table_remove_all (self->reported);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALLOW_DOWNLOADS]);
}

/**
 * sj_sound_cache_set_fallback:
 * @fallback: (nullable): what serves a standard drum that cannot be had
 *
 * The hook for the built-in drum kit: with sj-drum-kit,
 * `sj_sound_cache_set_fallback (cache, sj_drum_kit_lookup)`.
 */
void
sj_sound_cache_set_fallback (SjSoundCache         *self,
                             SjSoundCacheFallback  fallback)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  self->fallback = fallback;
}

/* Returns: (nullable): what serves a standard drum that cannot be had */
SjSoundCacheFallback
sj_sound_cache_get_fallback (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->fallback;
}

void
_sj_sound_cache_set_timeout (SjSoundCache *self,
                             guint         seconds)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  self->timeout_s = MAX (seconds, 1);
  g_object_set (self->session, "timeout", self->timeout_s, NULL);
}

void
_sj_sound_cache_set_retry_delay (SjSoundCache *self,
                                 guint         milliseconds,
                                 guint         max_attempts)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  self->retry_delay_ms = milliseconds;
  self->max_attempts = MAX (max_attempts, 1);
}

void
_sj_sound_cache_set_limits (SjSoundCache *self,
                            guint         max_active,
                            gsize         max_size)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  /* The session's connections per host were set for the default. */
  self->max_active = CLAMP (max_active, 1, SJ_SOUND_CACHE_MAX_DOWNLOADS);
  self->max_size = max_size;
}

/* Files ------------------------------------------------------------------- */

GFile *
_sj_sound_cache_get_target (SjSoundCache        *self,
                            const SjLibraryFile *file)
{
  g_autoptr(GFile) pack = g_file_get_child (self->directory, file->pack);

  /* local_path is relative and has no "." or ".." segments (the library
   * checked every path of its maps). No scheme in the path: every pack's
   * base is https (sj-sound-library-load.c refuses any other), so a pack's
   * file only ever comes over https; the code's own addresses, which may be
   * http, are kept apart by scheme (sj-remote-samples-address.c). */
  return g_file_resolve_relative_path (pack, file->local_path);
}

/**
 * sj_sound_cache_get_file:
 *
 * Returns: (transfer full) (nullable): where the file is (or would be)
 *   cached, or %NULL for a file the library does not list
 */
GFile *
sj_sound_cache_get_file (SjSoundCache *self,
                         const char   *pack,
                         const char   *path)
{
  const SjLibraryFile *file;

  g_assert (SJ_IS_SOUND_CACHE (self));

  file = sj_sound_library_lookup_file (self->library, pack, path);
  return file != NULL ? _sj_sound_cache_get_target (self, file) : NULL;
}

/**
 * sj_sound_cache_get_url:
 *
 * Returns: (transfer full) (nullable): where the file is downloaded from:
 *   upstream, or under STRUDEL_JAM_SOUNDS_URL when that is set
 */
char *
sj_sound_cache_get_url (SjSoundCache *self,
                        const char   *pack,
                        const char   *path)
{
  const SjLibraryFile *file;
  g_autofree char *escaped = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));

  if ((file = sj_sound_library_lookup_file (self->library, pack, path)) == NULL)
    return NULL;
  if (self->base_override == NULL)
    return sj_sound_library_get_url (self->library, pack, path);

  escaped = g_uri_escape_string (file->local_path, G_URI_RESERVED_CHARS_ALLOWED_IN_PATH, FALSE);
  return g_strconcat (self->base_override, "/", file->pack, "/", escaped, NULL);
}

/**
 * sj_sound_cache_lookup_state:
 * @size: (out) (optional): the cached file's size, when it is cached
 *
 * Whether a file is in the cache (a stat of one file).
 */
SjSoundState
sj_sound_cache_lookup_state (SjSoundCache *self,
                             const char   *pack,
                             const char   *path,
                             goffset      *size)
{
  g_autoptr(GFile) target = NULL;
  g_autoptr(GFileInfo) info = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));

  if (size != NULL)
    *size = -1;
  if ((target = sj_sound_cache_get_file (self, pack, path)) == NULL ||
      (info = g_file_query_info (target, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                 G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL)) == NULL ||
      g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    return SJ_SOUND_STATE_NOT_CACHED;

  if (size != NULL)
    *size = g_file_info_get_size (info);
  return SJ_SOUND_STATE_CACHED;
}

void
_sj_sound_cache_file_cached (SjSoundCache        *self,
                             const SjLibraryFile *file,
                             const char          *key,
                             gsize                size)
{
  g_hash_table_remove (self->reported, key);
  if (file->note != NULL)
    {
      g_autofree char *notes = g_strconcat (file->pack, "/", file->sound->name, "#notes", NULL);

      g_hash_table_remove (self->reported, notes);
    }
  g_signal_emit (self, signals[FILE_CACHED], 0, file->pack, file->path, (guint64)size);
}
