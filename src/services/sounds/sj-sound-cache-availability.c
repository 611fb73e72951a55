/* sj-sound-cache-availability.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Whether a sound can play now, and from where: cached on disk, to be
 * downloaded on first use, the built-in drum kit's voice, or not at all.
 * The agent, the apply pipeline and the Sounds page ask before a change
 * lands, so nothing that cannot sound is played as if it would.
 */

#include "config.h"

#include <glib/gstdio.h>

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

static void
count_file (SjSoundCache         *self,
            const SjLibrarySound *sound,
            const char           *path,
            SjSoundFiles         *files)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (self->library, sound->pack, path);
  goffset size = 0;

  if (file == NULL)
    return;
  files->n_files++;
  if (is_cached (self, file, &size))
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
    count_file (self, sound, sound->files[i], &counted);
  for (guint i = 0; i < sound->n_notes; i++)
    for (guint j = 0; j < sound->notes[i].n_files; j++)
      count_file (self, sound, sound->notes[i].files[j], &counted);
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
