/* sj-sound-library.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sound library: every sound the Strudel website registers at start-up,
 * from the sample maps vendored in data/sounds and compiled into the binary,
 * plus the General MIDI soundfonts the build lists. Knowing what exists never
 * needs the network, and it is the one registry in C: the sounds index, the
 * knowledge, the dry-run report and the sound cache all ask it.
 *
 * It registers the maps as superdough's samples() does (names lower-cased,
 * whitespace made "_"; "wt_" names are wavetables; aliasBank() after the
 * packs), and resolves a played note to its file as getCommonSampleInfo()
 * does: getSoundIndex() is n rounded, modulo the number of files; pitched
 * maps (the piano) take the note key closest to the note first.
 *
 * It is loaded once, on first use (sj_sound_library_get_default()), and
 * never changes after.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-sound-library-private.h"

G_DEFINE_FINAL_TYPE (SjSoundLibrary, sj_sound_library, G_TYPE_OBJECT)

static void
sj_sound_library_finalize (GObject *object)
{
  SjSoundLibrary *self = (SjSoundLibrary *)object;

  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_clear_pointer (&self->files, g_hash_table_unref);
  g_clear_pointer (&self->bases, g_hash_table_unref);
  g_clear_pointer (&self->sounds, g_ptr_array_unref);
  g_clear_pointer (&self->packs, g_ptr_array_unref);
  g_clear_pointer (&self->banks, g_ptr_array_unref);
  g_clear_pointer (&self->allocations, g_ptr_array_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);

  G_OBJECT_CLASS (sj_sound_library_parent_class)->finalize (object);
}

static void
sj_sound_library_class_init (SjSoundLibraryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_sound_library_finalize;
}

static void
sj_sound_library_init (SjSoundLibrary *self)
{
  self->strings = g_string_chunk_new (64 * 1024);
  self->sounds = g_ptr_array_new_with_free_func (g_free);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->files = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  self->bases = g_hash_table_new (g_str_hash, g_str_equal);
  self->packs = g_ptr_array_new ();
  self->banks = g_ptr_array_new ();
  self->allocations = g_ptr_array_new_with_free_func (g_free);
}

/* Notes and numbers as superdough reads them ------------------------------ */

/**
 * sj_sound_library_note_to_midi:
 * @note: a note name such as "c3", "Ds1" or "a#-1"
 *
 * superdough's noteToMidi(): a letter, accidentals (# and s sharpen, b and
 * f flatten) and an optional octave (3 when missing).
 *
 * Returns: the MIDI number, or NAN when @note is not a note
 */
double
sj_sound_library_note_to_midi (const char *note)
{
  static const int chromas[] = { 9, 11, 0, 2, 4, 5, 7 }; /* a … g */
  const char *p = note;
  int midi, offset = 0, octave = 3;

  if (p == NULL || !g_ascii_isalpha (*p) || g_ascii_tolower (*p) < 'a' || g_ascii_tolower (*p) > 'g')
    return NAN;
  midi = chromas[g_ascii_tolower (*p) - 'a'];
  for (p++; *p == '#' || *p == 'b' || *p == 's' || *p == 'f'; p++)
    offset += (*p == '#' || *p == 's') ? 1 : -1;
  if (*p != '\0')
    {
      const char *digits = *p == '-' ? p + 1 : p;
      char *end = NULL;
      gint64 value;

      if (!g_ascii_isdigit (*digits))
        return NAN;
      value = g_ascii_strtoll (p, &end, 10);
      if (*end != '\0' || value < -100 || value > 100)
        return NAN;
      octave = (int)value;
    }

  return (octave + 1) * 12 + midi + offset;
}

/* JavaScript's Math.round: halves go up, also for negative numbers. */
static double
js_round (double x)
{
  double r = floor (x);

  return x - r >= 0.5 ? r + 1 : r;
}

/* getSoundIndex(): n rounded, modulo the number of sounds (never negative);
 * what is not a number counts as 0. */
static guint
sound_index (double n,
             guint  count)
{
  double m;

  if (count == 0 || !isfinite (n))
    return 0;
  m = fmod (js_round (n), count);
  return (guint)(m < 0 ? m + count : m);
}

/**
 * sj_sound_library_new_bundled:
 *
 * Reads data/sounds/library.json and its maps from the binary's resources
 * and registers them as the Strudel website does. Use
 * sj_sound_library_get_default() rather than reading them again.
 *
 * Returns: (transfer full) (nullable): the library, or %NULL with @error set
 */
SjSoundLibrary *
sj_sound_library_new_bundled (GError **error)
{
  g_autoptr(SjSoundLibrary) self = g_object_new (SJ_TYPE_SOUND_LIBRARY, NULL);
  gint64 start = g_get_monotonic_time ();

  if (!_sj_sound_library_load (self, error))
    return NULL;
  self->load_time_us = g_get_monotonic_time () - start;

  return g_steal_pointer (&self);
}

/**
 * sj_sound_library_get_default:
 *
 * The library of the sounds compiled into the binary, read on first use.
 *
 * Returns: (transfer none): the library
 */
SjSoundLibrary *
sj_sound_library_get_default (void)
{
  static SjSoundLibrary *library;
  static gsize loaded_once;

  if (g_once_init_enter (&loaded_once))
    {
      g_autoptr(GError) error = NULL;
      SjSoundLibrary *loaded = sj_sound_library_new_bundled (&error);

      /* The data is compiled in: failing to read it is a build bug. */
      if (loaded == NULL)
        g_error ("The bundled sound library cannot be read: %s", error->message);
      g_debug ("Sound library: %u sounds, %u files, loaded in %.1f ms", loaded->sounds->len,
               g_hash_table_size (loaded->files), loaded->load_time_us / 1000.0);
      library = loaded;
      g_once_init_leave (&loaded_once, 1);
    }

  return library;
}

/* Returns: how long reading and registering the library took, in µs. */
gint64
sj_sound_library_get_load_time (SjSoundLibrary *self)
{
  g_assert (SJ_IS_SOUND_LIBRARY (self));

  return self->load_time_us;
}

/* Lookups ------------------------------------------------------------------ */

guint
sj_sound_library_get_n_sounds (SjSoundLibrary *self)
{
  g_assert (SJ_IS_SOUND_LIBRARY (self));

  return self->sounds->len;
}

/* In registration order; an alias that replaced a name is listed twice. */
const SjLibrarySound *
sj_sound_library_get_sound (SjSoundLibrary *self,
                            guint           position)
{
  g_assert (SJ_IS_SOUND_LIBRARY (self));
  g_return_val_if_fail (position < self->sounds->len, NULL);

  return g_ptr_array_index (self->sounds, position);
}

/* getSound(): names are looked up lower-cased. */
const SjLibrarySound *
sj_sound_library_lookup (SjSoundLibrary *self,
                         const char     *name)
{
  g_autofree char *lower = NULL;
  const SjLibrarySound *sound;

  g_assert (SJ_IS_SOUND_LIBRARY (self));

  if (name == NULL)
    return NULL;
  if ((sound = g_hash_table_lookup (self->by_name, name)) != NULL)
    return sound;
  lower = g_utf8_strdown (name, -1);
  return g_hash_table_lookup (self->by_name, lower);
}

gboolean
sj_sound_library_has_pack (SjSoundLibrary *self,
                           const char     *pack)
{
  g_assert (SJ_IS_SOUND_LIBRARY (self));

  return pack != NULL && g_hash_table_contains (self->bases, pack);
}

/* Returns: (transfer none): the pack ids, the soundfonts last */
const char * const *
sj_sound_library_get_packs (SjSoundLibrary *self)
{
  g_assert (SJ_IS_SOUND_LIBRARY (self));

  return (const char * const *)self->packs->pdata;
}

/* Returns: (nullable): the bank a library sound belongs to */
const char *
sj_sound_library_get_bank (SjSoundLibrary *self,
                           const char     *name)
{
  const SjLibrarySound *sound = sj_sound_library_lookup (self, name);

  return sound != NULL ? sound->bank : NULL;
}

/* Returns: (transfer none): the banks .bank() takes, sorted (the
 * machines of tidal-drum-machines and their aliases). */
const char * const *
sj_sound_library_get_banks (SjSoundLibrary *self)
{
  g_assert (SJ_IS_SOUND_LIBRARY (self));

  return (const char * const *)self->banks->pdata;
}

/**
 * sj_sound_library_resolve:
 * @sound: the sound name (`s`, with its bank already prefixed)
 * @n: the hap's `n` (NAN or anything not finite: 0)
 * @midi: the hap's pitch as valueToMidi() gives it (NAN: 36, superdough's
 *   default); only pitched maps use it
 * @file: (out caller-allocates): the file that plays
 *
 * Resolves a note to a file exactly as superdough's getCommonSampleInfo()
 * does. @file->sound is the sound the file belongs to (for an alias, the
 * aliased sound) and @file->variant its index there.
 *
 * Returns: %FALSE when @sound is not in the library
 */
gboolean
sj_sound_library_resolve (SjSoundLibrary *self,
                          const char     *sound,
                          double          n,
                          double          midi,
                          SjLibraryFile  *file)
{
  const SjLibrarySound *found;
  const SjLibraryFile *entry;
  const char *path;

  g_assert (SJ_IS_SOUND_LIBRARY (self));
  g_return_val_if_fail (file != NULL, FALSE);

  if ((found = sj_sound_library_lookup (self, sound)) == NULL)
    return FALSE;

  if (isnan (midi))
    midi = 36;

  if (found->notes != NULL)
    {
      const SjLibraryNote *closest = &found->notes[0];

      /* The first of equally close keys wins, as in the reduce(). */
      for (guint i = 1; i < found->n_notes; i++)
        if (fabs (found->notes[i].midi - midi) < fabs (closest->midi - midi))
          closest = &found->notes[i];
      path = closest->files[sound_index (n, closest->n_files)];
    }
  else if (found->n_files > 0)
    path = found->files[sound_index (n, found->n_files)];
  else
    return FALSE;

  entry = sj_sound_library_lookup_file (self, found->pack, path);
  g_return_val_if_fail (entry != NULL, FALSE);
  *file = *entry;

  return TRUE;
}

/**
 * sj_sound_library_lookup_file:
 * @pack: a pack id
 * @path: a path in the pack, percent-encoded or not
 *
 * Returns: (nullable): the file, or %NULL when the pack does not list it
 */
const SjLibraryFile *
sj_sound_library_lookup_file (SjSoundLibrary *self,
                              const char     *pack,
                              const char     *path)
{
  g_autofree char *local = NULL;
  g_autofree char *key = NULL;

  g_assert (SJ_IS_SOUND_LIBRARY (self));

  if (pack == NULL || path == NULL || (local = g_uri_unescape_string (path, NULL)) == NULL)
    return NULL;

  key = _sj_sound_library_file_key (pack, local);
  return g_hash_table_lookup (self->files, key);
}

/**
 * sj_sound_library_get_url:
 *
 * Returns: (transfer full) (nullable): where @path of @pack is downloaded
 *   from upstream (the map's base and the path, escaped as a browser
 *   would), or %NULL for a file no pack lists
 */
char *
sj_sound_library_get_url (SjSoundLibrary *self,
                          const char     *pack,
                          const char     *path)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (self, pack, path);
  g_autofree char *escaped = NULL;

  if (file == NULL)
    return NULL;

  /* Spaces and "#" must not reach the server raw; "/" stays a separator. */
  escaped = g_uri_escape_string (file->local_path, G_URI_RESERVED_CHARS_ALLOWED_IN_PATH, FALSE);
  return g_strconcat (g_hash_table_lookup (self->bases, file->pack), escaped, NULL);
}

/**
 * sj_sound_library_dup_snapshot:
 *
 * The library as the page's sound snapshot writes it: name →
 * `{type, tag?, prebake, count}`.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
sj_sound_library_dup_snapshot (SjSoundLibrary *self)
{
  JsonObject *snapshot = json_object_new ();
  GHashTableIter iter;
  gpointer value;

  g_assert (SJ_IS_SOUND_LIBRARY (self));

  g_hash_table_iter_init (&iter, self->by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const SjLibrarySound *sound = value;
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "type", sound->type);
      if (sound->tag != NULL)
        json_object_set_string_member (entry, "tag", sound->tag);
      json_object_set_boolean_member (entry, "prebake", sound->prebake);
      json_object_set_int_member (entry, "count", sound->count);
      json_object_set_object_member (snapshot, sound->name, entry);
    }

  return snapshot;
}
