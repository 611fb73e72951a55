/* sj-sound-cache-quota.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjSoundCache keeps, and how much of it. A sound's body is kept and
 * served only when its first bytes say it is audio (sj_sample_format_sniff(),
 * shared with the user's own samples): an HTML page, JSON or text is an
 * error, said once in the console like any other failure.
 *
 * The cache holds at most "limit-mb" MiB (the "sound-cache-limit-mb"
 * setting). The least recently used files go first: a file's modification
 * time is set to now each time it is served (sj_sound_cache_note_used();
 * atime is not reliable under relatime, and an index file would be one
 * more thing to keep in step), so the oldest time is the least recent use.
 * Never evicted: the files of a pack downloaded for offline (the folders
 * SjSoundDownloads names with sj_sound_cache_set_kept_dirs()), a file
 * served or downloaded in the last SJ_SOUND_CACHE_IN_USE_S seconds (it is
 * playing now), the cache's own bookkeeping (dot files, downloads.json)
 * and .part files being written. The user's own samples are never in the
 * cache: their folders are the user's.
 *
 * The cache is measured (a walk, in a thread) after the first download of
 * a run, and then only when what it is known to hold plus what was
 * downloaded since goes over the limit, so that a pack's thousands of
 * files do not each walk the whole folder. When what may not be evicted
 * alone is over the limit (packs kept for offline), the next walk waits
 * until another TRIM_SLACK_PART of the limit has come.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sj-sound-cache-private.h"
#include "sj-user-samples.h"

#define MIB (1024 * 1024)

/* At least this much (1/16 of the limit, or 64 MiB) comes between two
 * walks of a cache that could not be brought under its limit. */
#define TRIM_SLACK_PART 16
#define TRIM_SLACK_MIN  (64 * (guint64)MIB)

/* Audio ----------------------------------------------------------------------- */

/* Whether a library file is a sound: soundfonts are JavaScript. */
gboolean
_sj_sound_cache_file_is_audio (const SjLibraryFile *file)
{
  g_autofree char *lower = g_ascii_strdown (file->local_path, -1);

  return !g_str_has_suffix (lower, ".js");
}

/* What a body that is not audio looks like, in a few words. */
static const char *
describe_body (const guint8 *data,
               gsize         length)
{
  gsize i = 0;
  g_autofree char *head = NULL;

  /* A UTF-8 byte order mark, then blanks. */
  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  while (i < length && g_ascii_isspace (data[i]))
    i++;
  if (i == length)
    return length == 0 ? _("an empty body") : _("blank text");

  head = g_ascii_strdown ((const char *)data + i, MIN (length - i, 64));
  if (g_str_has_prefix (head, "<!doctype html") || g_str_has_prefix (head, "<html") ||
      g_str_has_prefix (head, "<head") || g_str_has_prefix (head, "<body") ||
      g_str_has_prefix (head, "<!--"))
    return _("an HTML page");
  if (g_str_has_prefix (head, "<?xml") || g_str_has_prefix (head, "<"))
    return _("XML or HTML");
  if (data[i] == '{' || data[i] == '[')
    return _("JSON");
  if (g_utf8_validate ((const char *)data, MIN (length, 512), NULL))
    return _("text");

  return _("something else");
}

/* The error for a body that is not a sound, saying what it is and how
 * large ("the server sent an HTML page (74 bytes), not a sound"). */
GError *
_sj_sound_cache_not_audio (const guint8 *data,
                           gsize         length)
{
  g_autofree char *size = g_format_size_full (length, G_FORMAT_SIZE_LONG_FORMAT);

  if (length < 1000)
    {
      g_free (size);
      size = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u byte", "%u bytes", length), (guint)length);
    }

  return g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_AUDIO,
                      _("the server sent %s (%s), not a sound"), describe_body (data, length), size);
}

/**
 * sj_sound_cache_is_audio:
 *
 * Whether @bytes start as a sound does: WAV (RIFF or RF64), FLAC, Ogg,
 * MP3 (an ID3 tag or an MPEG frame), AIFF or MP4.
 *
 * Returns: %TRUE for audio, else %FALSE with @error set
 *   (%SJ_SOUND_CACHE_ERROR_NOT_AUDIO, saying what the bytes look like)
 */
gboolean
sj_sound_cache_is_audio (GBytes  *bytes,
                         GError **error)
{
  gsize length = 0;
  const guint8 *data;

  g_return_val_if_fail (bytes != NULL, FALSE);

  data = g_bytes_get_data (bytes, &length);
  if (sj_sample_format_sniff (data, length) != SJ_SAMPLE_FORMAT_NONE)
    return TRUE;

  g_propagate_error (error, _sj_sound_cache_not_audio (data, length));
  return FALSE;
}

/* The limit -------------------------------------------------------------------- */

guint
sj_sound_cache_get_limit_mb (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->limit_mb;
}

static void trim (SjSoundCache *self);

/**
 * sj_sound_cache_set_limit_mb:
 * @limit_mb: the most the cache may hold, in MiB, or 0 for no limit
 *
 * A lower limit trims the cache at once.
 */
void
sj_sound_cache_set_limit_mb (SjSoundCache *self,
                             guint         limit_mb)
{
  gboolean lower;

  g_assert (SJ_IS_SOUND_CACHE (self));

  if (self->limit_mb == limit_mb)
    return;

  lower = limit_mb != 0 && (self->limit_mb == 0 || limit_mb < self->limit_mb);
  self->limit_mb = limit_mb;
  self->trim_floor = 0;
  g_object_notify (G_OBJECT (self), "limit-mb");
  if (lower && self->usage_estimate >= 0)
    trim (self);
}

/**
 * sj_sound_cache_set_kept_dirs:
 * @dirs: (nullable) (array zero-terminated=1): folders relative to the
 *   cache directory whose files are never evicted: the packs downloaded
 *   for offline
 */
void
sj_sound_cache_set_kept_dirs (SjSoundCache       *self,
                              const char * const *dirs)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_assert (SJ_IS_SOUND_CACHE (self));

  for (guint i = 0; dirs != NULL && dirs[i] != NULL; i++)
    {
      g_autoptr(GFile) dir = g_file_resolve_relative_path (self->directory, dirs[i]);
      g_autofree char *path = g_file_get_path (dir);
      g_autofree char *prefix = NULL;

      /* Only folders inside the cache: never the cache itself. */
      if (path == NULL || !g_file_has_prefix (dir, self->directory))
        continue;
      prefix = g_strconcat (path, G_DIR_SEPARATOR_S, NULL);
      g_strv_builder_add (builder, prefix);
    }

  g_clear_pointer (&self->kept_dirs, g_strfreev);
  self->kept_dirs = g_strv_builder_end (builder);
}

static gboolean
is_kept_path (const char * const *kept_dirs,
              const char         *path)
{
  for (guint i = 0; kept_dirs != NULL && kept_dirs[i] != NULL; i++)
    if (g_str_has_prefix (path, kept_dirs[i]))
      return TRUE;

  return FALSE;
}

/* Returns: whether @file belongs to a pack kept for offline */
gboolean
sj_sound_cache_is_kept (SjSoundCache *self,
                        GFile        *file)
{
  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  return is_kept_path ((const char * const *)self->kept_dirs, g_file_peek_path (file));
}

/**
 * sj_sound_cache_note_used:
 * @file: a file of the cache that was just served
 *
 * Records the use (the file's modification time is set to now), which
 * puts the file last in the line for eviction.
 */
void
sj_sound_cache_note_used (SjSoundCache *self,
                          GFile        *file)
{
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_if_fail (G_IS_FILE (file));

  if (!g_file_set_attribute_uint64 (file, G_FILE_ATTRIBUTE_TIME_MODIFIED, g_get_real_time () / G_USEC_PER_SEC,
                                    G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, &error))
    g_debug ("Sounds: the use of %s could not be recorded: %s", g_file_peek_path (file), error->message);
}

/* Trimming --------------------------------------------------------------------- */

typedef struct
{
  char    *path;
  guint64  size;
  gint64   used;          /* seconds */
} Entry;

typedef struct
{
  char     *base;
  GStrv     kept_dirs;
  guint64   limit;        /* bytes, 0 for none */
  gint64    now;
  guint64   used;         /* out */
  guint     removed;      /* out */
} TrimJob;

static void
trim_job_free (gpointer data)
{
  TrimJob *job = data;

  g_free (job->base);
  g_strfreev (job->kept_dirs);
  g_free (job);
}

static void
entry_clear (gpointer data)
{
  g_free (((Entry *)data)->path);
}

static gboolean
is_bookkeeping (const char *name,
                guint       depth)
{
  return name[0] == '.' || g_str_has_suffix (name, ".part") || g_str_has_suffix (name, ".unchecked") ||
         (depth == 0 && g_str_equal (name, "downloads.json"));
}

/* Every regular file under @path: all counted, the evictable ones listed.
 * Symbolic links are neither followed nor removed. */
static void
walk (TrimJob      *job,
      const char   *path,
      guint         depth,
      GArray       *entries,
      GCancellable *cancellable)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (depth > 16 || (dir = g_dir_open (path, 0, NULL)) == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL && !g_cancellable_is_cancelled (cancellable))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_lstat (child, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        walk (job, child, depth + 1, entries, cancellable);
      else if (S_ISREG (st.st_mode))
        {
          job->used += st.st_size;
          if (!is_bookkeeping (name, depth) && st.st_mtime < job->now - SJ_SOUND_CACHE_IN_USE_S &&
              !is_kept_path ((const char * const *)job->kept_dirs, child))
            {
              Entry entry = { g_steal_pointer (&child), st.st_size, st.st_mtime };

              g_array_append_val (entries, entry);
            }
        }
    }
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const Entry *x = a, *y = b;

  if (x->used != y->used)
    return x->used < y->used ? -1 : 1;
  return strcmp (x->path, y->path);
}

static void
trim_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  TrimJob *job = task_data;
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));

  g_array_set_clear_func (entries, entry_clear);
  walk (job, job->base, 0, entries, cancellable);

  if (job->limit > 0 && job->used > job->limit)
    {
      g_array_sort (entries, compare_entries);
      for (guint i = 0; i < entries->len && job->used > job->limit; i++)
        {
          Entry *entry = &g_array_index (entries, Entry, i);

          if (g_cancellable_is_cancelled (cancellable))
            break;
          if (g_unlink (entry->path) == 0)
            {
              job->used -= MIN (entry->size, job->used);
              job->removed++;
            }
        }
    }

  g_task_return_boolean (task, TRUE);
}

/**
 * sj_sound_cache_trim_async:
 *
 * Measures the cache and, when it holds more than its limit, evicts the
 * least recently used files until it does not (never a pack kept for
 * offline, nor a file in use), in a thread. Emits SjSoundCache::trimmed.
 */
static void
run_trim (SjSoundCache        *self,
          GObject             *source_object,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  TrimJob *job;

  job = g_new0 (TrimJob, 1);
  job->base = g_file_get_path (self->directory);
  job->kept_dirs = g_strdupv (self->kept_dirs);
  job->limit = (guint64)self->limit_mb * MIB;
  job->now = g_get_real_time () / G_USEC_PER_SEC;

  task = g_task_new (source_object, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_cache_trim_async);
  g_task_set_task_data (task, job, trim_job_free);
  g_task_run_in_thread (task, trim_thread);
}

void
sj_sound_cache_trim_async (SjSoundCache        *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  run_trim (self, G_OBJECT (self), cancellable, callback, user_data);
}

static gboolean
trim_job_result (GAsyncResult  *result,
                 guint64       *used_bytes,
                 guint         *n_removed,
                 GError       **error)
{
  TrimJob *job;

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;

  job = g_task_get_task_data (G_TASK (result));
  if (used_bytes != NULL)
    *used_bytes = job->used;
  if (n_removed != NULL)
    *n_removed = job->removed;
  return TRUE;
}

/**
 * sj_sound_cache_trim_finish:
 * @used_bytes: (out) (optional): what the cache holds now
 * @n_removed: (out) (optional): how many files were evicted
 */
gboolean
sj_sound_cache_trim_finish (SjSoundCache  *self,
                            GAsyncResult  *result,
                            guint64       *used_bytes,
                            guint         *n_removed,
                            GError       **error)
{
  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return trim_job_result (result, used_bytes, n_removed, error);
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* The cache's own trims hold it weakly: a cache let go of meanwhile is
 * finalized at once, and the trim's end is nobody's business. */
static void
trimmed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(SjSoundCache) self = g_weak_ref_get (user_data);
  g_autoptr(GError) error = NULL;
  guint64 used = 0;
  guint64 limit;
  guint removed = 0;

  weak_ref_free (user_data);
  if (self == NULL)
    return;

  self->trimming = FALSE;
  if (!trim_job_result (result, &used, &removed, &error))
    {
      g_debug ("Sounds: the cache could not be trimmed: %s", error->message);
      return;
    }

  self->usage_estimate = used;
  limit = (guint64)self->limit_mb * MIB;
  self->trim_floor = limit > 0 && used > limit ? used + MAX (limit / TRIM_SLACK_PART, TRIM_SLACK_MIN) : 0;
  if (removed > 0)
    g_debug ("Sounds: %u files evicted from the cache, %" G_GUINT64_FORMAT " bytes left", removed, used);
  g_signal_emit_by_name (self, "trimmed", used, removed);

  if (self->trim_again)
    trim (self);
}

/* One trim at a time; one asked for meanwhile runs after it. */
static void
trim (SjSoundCache *self)
{
  GWeakRef *ref;

  if (self->trimming)
    {
      self->trim_again = TRUE;
      return;
    }

  self->trimming = TRUE;
  self->trim_again = FALSE;
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  run_trim (self, NULL, NULL, trimmed_cb, ref);
}

/* A file of @size bytes was kept: the cache is measured the first time, and
 * then again only when it may be over its limit. */
void
_sj_sound_cache_downloaded (SjSoundCache *self,
                            gsize         size)
{
  if (self->usage_estimate >= 0)
    self->usage_estimate += size;

  if (self->limit_mb == 0 && self->usage_estimate >= 0)
    return;
  if (self->usage_estimate < 0 ||
      (guint64)self->usage_estimate > MAX ((guint64)self->limit_mb * MIB, self->trim_floor))
    trim (self);
}
