/* sj-sound-downloads-packs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The packs of SjSoundDownloads, as the musician knows them: each pack of
 * the sound library that is downloaded from a host (Dirt-Samples,
 * uzu-drumkit, the piano, VCSL, mridangam, uzu-wavetables, the General MIDI
 * soundfonts), except tidal-drum-machines, whose machines (RolandTR808,
 * LinnDrum…) are packs of their own: each keeps its files in a folder of
 * its name. A file several sounds list belongs to the first; an alias
 * shares the files of its sound. Each file gets a slot, the files of a pack
 * side by side.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-sound-downloads-private.h"

/* The packs whose names are not their ids, in the order they are listed. */
static const struct {
  const char *id;
  const char *title;
  gboolean    translatable;
} known_packs[] = {
  { "dirt-samples", "Dirt-Samples", FALSE },
  { "uzu-drumkit", "uzu-drumkit", FALSE },
  { "piano", N_("Piano"), TRUE },
  { "vcsl", "VCSL", FALSE },
  { "mridangam", N_("Mridangam"), TRUE },
  { "uzu-wavetables", "uzu-wavetables", FALSE },
  { SJ_SOUND_LIBRARY_SOUNDFONTS, N_("General MIDI Soundfonts"), TRUE },
};

void
_sj_sound_downloads_pack_free (gpointer data)
{
  Pack *pack = data;

  g_assert (pack->run == NULL);
  g_free (pack->id);
  g_free (pack->title);
  g_free (pack->dir);
  g_free (pack->message);
  g_ptr_array_unref (pack->failures);
  g_free (pack);
}

/* Only packs downloaded from a host: a pack of files on the computer has
 * nothing to download. */
static gboolean
is_downloadable (SjSoundLibrary      *library,
                 const SjLibraryFile *file)
{
  g_autofree char *url = sj_sound_library_get_url (library, file->pack, file->path);

  return url != NULL && (g_str_has_prefix (url, "https://") || g_str_has_prefix (url, "http://"));
}

static void
add_file (SjSoundDownloads *self,
          SjSoundLibrary   *library,
          GHashTable       *groups,
          GPtrArray        *order,
          GHashTable       *downloadable,
          const char       *pack,
          const char       *path)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (library, pack, path);
  g_autofree char *id = NULL;
  gpointer known;
  GPtrArray *group;

  if (file == NULL || g_hash_table_contains (self->slots, file))
    return;
  /* Marked as seen; its slot is given once the packs are ordered. */
  g_hash_table_insert (self->slots, (gpointer)file, NULL);

  if (!g_hash_table_lookup_extended (downloadable, file->pack, NULL, &known))
    {
      known = GINT_TO_POINTER (is_downloadable (library, file));
      g_hash_table_insert (downloadable, (gpointer)file->pack, known);
    }
  if (!GPOINTER_TO_INT (known))
    return;

  /* tidal-drum-machines keeps each machine in a folder of its name. */
  if (g_str_equal (file->pack, SJ_SOUND_DOWNLOADS_DRUM_MACHINES) && strchr (file->local_path, '/') != NULL)
    {
      g_autofree char *machine = g_strndup (file->local_path, strchr (file->local_path, '/') - file->local_path);

      id = g_strconcat (file->pack, "/", machine, NULL);
    }
  else
    id = g_strdup (file->pack);

  if ((group = g_hash_table_lookup (groups, id)) == NULL)
    {
      group = g_ptr_array_new ();
      g_ptr_array_add (order, g_strdup (id));
      g_hash_table_insert (groups, g_steal_pointer (&id), group);
    }
  g_ptr_array_add (group, (gpointer)file);
}

static void
add_pack (SjSoundDownloads *self,
          const char       *id,
          GPtrArray        *files)
{
  Pack *pack = g_new0 (Pack, 1);
  const char *slash = strchr (id, '/');

  pack->id = g_strdup (id);
  pack->dir = g_strdup (id);
  pack->failures = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_sound_pack_failure_free);
  pack->first = self->files->len;

  if (slash != NULL)
    pack->title = g_strdup (slash + 1);
  for (guint i = 0; pack->title == NULL && i < G_N_ELEMENTS (known_packs); i++)
    if (g_str_equal (id, known_packs[i].id))
      pack->title = g_strdup (known_packs[i].translatable ? _(known_packs[i].title) : known_packs[i].title);
  if (pack->title == NULL)
    pack->title = g_strdup (id);

  pack->info.id = pack->id;
  pack->info.title = pack->title;
  pack->info.collection = slash != NULL ? SJ_SOUND_DOWNLOADS_DRUM_MACHINES : NULL;
  pack->info.n_files = files->len;

  for (guint i = 0; i < files->len; i++)
    {
      gint64 unknown = SIZE_UNKNOWN;
      guint zero = 0;

      g_hash_table_insert (self->slots, g_ptr_array_index (files, i), GUINT_TO_POINTER (self->files->len + 1));
      g_ptr_array_add (self->files, g_ptr_array_index (files, i));
      g_ptr_array_add (self->file_packs, pack);
      g_array_append_val (self->sizes, unknown);
      g_array_append_val (self->changed, zero);
    }

  g_ptr_array_add (self->packs, pack);
  g_ptr_array_add (self->ids, pack->id);
  g_hash_table_insert (self->by_id, pack->id, pack);
}

static int
compare_titles (gconstpointer a,
                gconstpointer b)
{
  const char *x = strchr (*(const char * const *)a, '/');
  const char *y = strchr (*(const char * const *)b, '/');

  return g_ascii_strcasecmp (x != NULL ? x + 1 : "", y != NULL ? y + 1 : "");
}

static void
add_sound_files (SjSoundDownloads     *self,
                 SjSoundLibrary       *library,
                 const SjLibrarySound *sound,
                 GHashTable           *groups,
                 GPtrArray            *order,
                 GHashTable           *downloadable)
{
  for (guint f = 0; f < sound->n_files; f++)
    add_file (self, library, groups, order, downloadable, sound->pack, sound->files[f]);
  for (guint n = 0; n < sound->n_notes; n++)
    for (guint f = 0; f < sound->notes[n].n_files; f++)
      add_file (self, library, groups, order, downloadable, sound->pack, sound->notes[n].files[f]);
}

/* Every file of the library in its pack: the known packs first, then any
 * other, then the drum machines by name. */
void
_sj_sound_downloads_build_packs (SjSoundDownloads *self)
{
  SjSoundLibrary *library = sj_sound_cache_get_library (self->cache);
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GHashTable) downloadable = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) machines = g_ptr_array_new ();

  for (guint i = 0; i < sj_sound_library_get_n_sounds (library); i++)
    {
      const SjLibrarySound *sound = sj_sound_library_get_sound (library, i);

      /* An alias shares the files of the sound it names. */
      if (sound->alias_of == NULL)
        add_sound_files (self, library, sound, groups, order, downloadable);
    }

  for (guint i = 0; i < G_N_ELEMENTS (known_packs); i++)
    if (g_hash_table_contains (groups, known_packs[i].id))
      add_pack (self, known_packs[i].id, g_hash_table_lookup (groups, known_packs[i].id));

  for (guint i = 0; i < order->len; i++)
    {
      const char *id = g_ptr_array_index (order, i);

      if (strchr (id, '/') != NULL)
        g_ptr_array_add (machines, (gpointer)id);
      else if (!g_hash_table_contains (self->by_id, id))
        add_pack (self, id, g_hash_table_lookup (groups, id));
    }

  g_ptr_array_sort (machines, compare_titles);
  for (guint i = 0; i < machines->len; i++)
    add_pack (self, g_ptr_array_index (machines, i), g_hash_table_lookup (groups, g_ptr_array_index (machines, i)));

  g_ptr_array_add (self->ids, NULL);
}
