/* sj-sound-cache-availability.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Whether a sound can play now, and from where: cached on disk, to be
 * downloaded on first use, the built-in drum kit's voice, or not at all.
 * The agent, the apply pipeline and the Sounds page ask before a change
 * lands, so nothing that cannot sound is played as if it would. Which
 * sounds have files in the cache at all is found by reading the cache
 * directory, not by asking about each of the library's 7,700 files.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "sj-sound-cache-private.h"

/* After the sound hosts could not be reached, the app counts as offline for
 * this long: each new sound then falls back at once instead of waiting for
 * its own connection to fail. */
#define UNREACHABLE_US (30 * G_USEC_PER_SEC)

static const char * const availability_names[] = {
  [SJ_SOUND_AVAILABILITY_BUILT_IN] = "built-in",
  [SJ_SOUND_AVAILABILITY_CACHED] = "cached",
  [SJ_SOUND_AVAILABILITY_DOWNLOAD] = "download",
  [SJ_SOUND_AVAILABILITY_KIT] = "kit",
  [SJ_SOUND_AVAILABILITY_UNAVAILABLE] = "unavailable",
};

const char *
sj_sound_availability_to_string (SjSoundAvailability availability)
{
  g_return_val_if_fail (availability <= SJ_SOUND_AVAILABILITY_UNAVAILABLE, NULL);

  return availability_names[availability];
}

/* Called by the downloads: a connection that could not even be made. */
void
_sj_sound_cache_set_unreachable (SjSoundCache *self,
                                 gboolean      unreachable)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  self->unreachable_until = unreachable ? g_get_monotonic_time () + UNREACHABLE_US : 0;
}

/**
 * sj_sound_cache_get_online:
 *
 * Returns: whether a sound that is not cached can be downloaded now:
 *   downloads are allowed and the sound hosts were not found unreachable
 *   in the last half minute
 */
gboolean
sj_sound_cache_get_online (SjSoundCache *self)
{
  g_assert (SJ_IS_SOUND_CACHE (self));

  return self->allow_downloads && g_get_monotonic_time () >= self->unreachable_until;
}

static gboolean
is_cached (SjSoundCache        *self,
           const SjLibraryFile *file,
           goffset             *size)
{
  g_autoptr(GFile) target = _sj_sound_cache_get_target (self, file);
  g_autofree char *path = g_file_get_path (target);
  GStatBuf st;

  if (path == NULL || g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
    return FALSE;
  if (size != NULL)
    *size = st.st_size;
  return TRUE;
}

/**
 * sj_sound_cache_get_file_availability:
 * @file: a file of the library
 *
 * Returns: how @file would play now
 */
SjSoundAvailability
sj_sound_cache_get_file_availability (SjSoundCache        *self,
                                      const SjLibraryFile *file)
{
  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (file != NULL, SJ_SOUND_AVAILABILITY_UNAVAILABLE);

  if (is_cached (self, file, NULL))
    return SJ_SOUND_AVAILABILITY_CACHED;
  if (sj_sound_cache_get_online (self))
    return SJ_SOUND_AVAILABILITY_DOWNLOAD;
  if (self->fallback != NULL && sj_sound_cache_get_fallback_voice (file) != NULL)
    return SJ_SOUND_AVAILABILITY_KIT;
  return SJ_SOUND_AVAILABILITY_UNAVAILABLE;
}

/* Counting a sound's files looks at each one on disk; the files of a sound
 * that was never played are in a folder that does not exist, which one
 * look tells for all of them (a listing asks about hundreds of files). */
typedef struct
{
  const char *base;         /* the cache directory's path, or NULL */
  char       *missing_dir;  /* a folder known not to exist, or NULL */
} Counting;

static gboolean
count_cached (SjSoundCache        *self,
              Counting            *counting,
              const SjLibraryFile *file,
              goffset             *size)
{
  g_autofree char *path = NULL;
  const char *slash;
  GStatBuf st;

  if (counting->base == NULL)
    return is_cached (self, file, size);

  path = g_build_filename (counting->base, file->pack, file->local_path, NULL);
  slash = strrchr (path, G_DIR_SEPARATOR);
  if (counting->missing_dir != NULL && slash != NULL &&
      strlen (counting->missing_dir) == (gsize)(slash - path) &&
      strncmp (counting->missing_dir, path, slash - path) == 0)
    return FALSE;

  if (g_stat (path, &st) == 0)
    {
      if (!S_ISREG (st.st_mode) || st.st_size == 0)
        return FALSE;
      *size = st.st_size;
      return TRUE;
    }

  if (slash != NULL)
    {
      g_autofree char *dir = g_strndup (path, slash - path);

      if (g_stat (dir, &st) != 0)
        {
          g_free (counting->missing_dir);
          counting->missing_dir = g_steal_pointer (&dir);
        }
    }
  return FALSE;
}

static void
count_file (SjSoundCache         *self,
            Counting             *counting,
            const SjLibrarySound *sound,
            const char           *path,
            SjSoundFiles         *files)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (self->library, sound->pack, path);
  goffset size = 0;

  if (file == NULL)
    return;
  files->n_files++;
  if (count_cached (self, counting, file, &size))
    {
      files->n_cached++;
      files->cached_bytes += size;
    }
  if (files->fallback_voice == NULL)
    files->fallback_voice = sj_sound_cache_get_fallback_voice (file);
}

/**
 * sj_sound_cache_get_sound_availability:
 * @name: a sound's name, in any case
 * @files: (out caller-allocates) (optional): its files, how many are
 *   cached and their size
 *
 * A sound the library does not know (a synthesizer, a ZZFX sound) is made
 * by the page itself: %SJ_SOUND_AVAILABILITY_BUILT_IN. A library sound is
 * cached when all its files are, or when some are and no more can be had
 * (the cached variants play); otherwise it downloads, or falls back to the
 * drum kit, or cannot play.
 *
 * Returns: how @name would play now
 */
SjSoundAvailability
sj_sound_cache_get_sound_availability (SjSoundCache *self,
                                       const char   *name,
                                       SjSoundFiles *files)
{
  SjSoundFiles counted = { 0 };
  Counting counting = { g_file_peek_path (self->directory), NULL };
  const SjLibrarySound *sound;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (name != NULL, SJ_SOUND_AVAILABILITY_UNAVAILABLE);

  if (files != NULL)
    *files = counted;
  if ((sound = sj_sound_library_lookup (self->library, name)) == NULL)
    return SJ_SOUND_AVAILABILITY_BUILT_IN;
  if (sound->alias_of != NULL)
    sound = sound->alias_of;

  for (guint i = 0; i < sound->n_files; i++)
    count_file (self, &counting, sound, sound->files[i], &counted);
  for (guint i = 0; i < sound->n_notes; i++)
    for (guint j = 0; j < sound->notes[i].n_files; j++)
      count_file (self, &counting, sound, sound->notes[i].files[j], &counted);
  g_free (counting.missing_dir);
  if (files != NULL)
    *files = counted;

  if (counted.n_files > 0 && counted.n_cached == counted.n_files)
    return SJ_SOUND_AVAILABILITY_CACHED;
  if (sj_sound_cache_get_online (self))
    return SJ_SOUND_AVAILABILITY_DOWNLOAD;
  if (counted.n_cached > 0)
    return SJ_SOUND_AVAILABILITY_CACHED;
  if (self->fallback != NULL && counted.fallback_voice != NULL)
    return SJ_SOUND_AVAILABILITY_KIT;
  return SJ_SOUND_AVAILABILITY_UNAVAILABLE;
}

/* Cached sounds ----------------------------------------------------------- */

/* Packs nest files a few folders deep; symbolic links are not followed. */
#define MAX_DEPTH 16

static void
collect_cached (SjSoundCache *self,
                const char   *pack,
                const char   *path,
                const char   *relative,
                guint         depth,
                GHashTable   *sounds)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (depth > MAX_DEPTH || (dir = g_dir_open (path, 0, NULL)) == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      g_autofree char *child_relative = relative != NULL ? g_strconcat (relative, "/", name, NULL) : g_strdup (name);
      GStatBuf st;

      if (g_lstat (child, &st) != 0)
        continue;

      if (S_ISDIR (st.st_mode))
        collect_cached (self, pack, child, child_relative, depth + 1, sounds);
      else if (S_ISREG (st.st_mode) && st.st_size > 0 && !g_str_has_suffix (name, ".part"))
        {
          /* The library looks paths up percent-decoded: escape the local
           * path so that a "%" in a file name stays itself. */
          g_autofree char *escaped = g_uri_escape_string (child_relative, "/", TRUE);
          const SjLibraryFile *file = sj_sound_library_lookup_file (self->library, pack, escaped);

          if (file != NULL)
            g_hash_table_add (sounds, (gpointer)file->sound);
        }
    }
}

/**
 * sj_sound_cache_list_cached_sounds:
 *
 * The library sounds with at least one file in the cache, found by reading
 * the cache directory: a few directory reads when little is cached, where
 * asking sj_sound_cache_get_sound_availability() about every sound would
 * look for every file of the library. A file several sounds share counts
 * for the first sound that lists it; an alias shares its sound's files.
 *
 * Returns: (transfer container) (element-type SjLibrarySound): the sounds,
 *   in no particular order
 */
GPtrArray *
sj_sound_cache_list_cached_sounds (SjSoundCache *self)
{
  g_autoptr(GHashTable) sounds = g_hash_table_new (NULL, NULL);
  const char * const *packs;
  GPtrArray *result;
  GHashTableIter iter;
  gpointer sound;

  g_assert (SJ_IS_SOUND_CACHE (self));

  packs = sj_sound_library_get_packs (self->library);
  for (guint i = 0; packs[i] != NULL; i++)
    {
      g_autoptr(GFile) pack = g_file_get_child (self->directory, packs[i]);
      const char *path = g_file_peek_path (pack);

      if (path != NULL)
        collect_cached (self, packs[i], path, NULL, 0, sounds);
    }

  result = g_ptr_array_sized_new (g_hash_table_size (sounds));
  g_hash_table_iter_init (&iter, sounds);
  while (g_hash_table_iter_next (&iter, &sound, NULL))
    g_ptr_array_add (result, sound);

  return result;
}
