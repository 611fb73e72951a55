/* sj-sound-cache-failures.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjSoundCache says when a sound cannot be had: one sentence for the
 * console naming the sound ("bd:3 could not be downloaded: the server
 * answered 404"), once per file and kind of failure; and which standard
 * drum voice a file plays, for the built-in drum kit's fallback.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-cache-private.h"

/* Failures ---------------------------------------------------------------- */

/**
 * sj_sound_cache_get_fallback_voice:
 *
 * Returns: (nullable): the standard drum voice a file plays ("bd" for
 *   uzu-drumkit's bd or for rolandtr909_bd), or %NULL
 */
const char *
sj_sound_cache_get_fallback_voice (const SjLibraryFile *file)
{
  static const char * const voices[] = {
    "bd", "sd", "hh", "oh", "cp", "rim", "lt", "mt", "ht", "cr", "rd", "cb", "sh", NULL
  };
  const char *name;

  if (file == NULL || file->sound == NULL || !g_str_equal (file->sound->type, "sample"))
    return NULL;

  name = file->sound->bank != NULL ? file->sound->bank_sound : file->sound->name;
  for (guint i = 0; voices[i] != NULL; i++)
    if (g_str_equal (name, voices[i]))
      return voices[i];

  return NULL;
}

/* "bd:3", "gm_piano:1", or "piano (C4)" for a note of a pitched map. */
static char *
describe_file (const SjLibraryFile *file)
{
  if (file->note != NULL)
    return g_strdup_printf ("%s (%s)", file->sound->name, file->note);
  return g_strdup_printf ("%s:%u", file->sound->name, file->variant);
}

/**
 * sj_sound_cache_describe_failure:
 *
 * Returns: (transfer full): one sentence for the console, naming the
 *   sound and saying why it cannot be played
 */
char *
sj_sound_cache_describe_failure (SjSoundCache *self,
                                 const char   *pack,
                                 const char   *path,
                                 const GError *error)
{
  const SjLibraryFile *file;
  g_autofree char *what = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (error != NULL, NULL);

  file = sj_sound_library_lookup_file (self->library, pack, path);
  if (file == NULL)
    return g_strdup_printf (_("%s/%s is not a file of the sound library"), pack, path);

  what = describe_file (file);
  if (!g_error_matches (error, SJ_SOUND_CACHE_ERROR, error->code))
    return g_strdup_printf (_("%s could not be loaded: %s"), what, error->message);

  switch ((SjSoundCacheError)error->code)
    {
    case SJ_SOUND_CACHE_ERROR_OFFLINE:
      if (self->allow_downloads)
        return g_strdup_printf (_("%s is not downloaded and the app is offline "
                                  "(the sound hosts cannot be reached)"), what);
      return g_strdup_printf (_("%s is not downloaded and the app is offline "
                                "(“Download sounds when first played” is off)"), what);
    case SJ_SOUND_CACHE_ERROR_IO:
      return g_strdup_printf (_("%s could not be kept in the sound cache: %s"), what, error->message);
    case SJ_SOUND_CACHE_ERROR_NOT_FOUND:
    case SJ_SOUND_CACHE_ERROR_NETWORK:
    case SJ_SOUND_CACHE_ERROR_TIMEOUT:
    case SJ_SOUND_CACHE_ERROR_TRUNCATED:
    case SJ_SOUND_CACHE_ERROR_TOO_LARGE:
    default:
      return g_strdup_printf (_("%s could not be downloaded: %s"), what, error->message);
    }
}

/* Emits SjSoundCache::load-failed once per file and kind of failure. */
void
_sj_sound_cache_report_failure (SjSoundCache  *self,
                                const char    *pack,
                                const char    *path,
                                const char    *key,
                                const GError  *error,
                                const char    *fallback_voice)
{
  gpointer code = GINT_TO_POINTER (error->code + 1);
  g_autofree char *message = NULL;

  if (g_hash_table_lookup (self->reported, key) == code)
    return;
  g_hash_table_replace (self->reported, g_strdup (key), code);

  message = sj_sound_cache_describe_failure (self, pack, path, error);
  if (fallback_voice != NULL)
    {
      g_autofree char *sentence = g_steal_pointer (&message);

      message = g_strdup_printf (_("%s; the built-in %s plays instead"), sentence, fallback_voice);
    }
  /* Also in the log, for whoever reads the app's output rather than its
   * Console (once per file, like the Console line). */
  g_message ("Sounds: %s", message);
  g_signal_emit_by_name (self, "load-failed", pack, path, error, message);
}
