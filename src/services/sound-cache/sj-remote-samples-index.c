/* sj-remote-samples-index.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sample maps SjRemoteSamples has fetched, remembered across runs in
 * <directory>/.index (one address a line: nothing to parse but lines; a
 * host name never starts with a dot) and read back with the maps
 * themselves from the cache, so that what a map registers is known before
 * the page loads it again: the dry-run reports those sounds as known, the
 * knowledge says how they would play. A map is looked up by where it is
 * cached, so that the dry-run's spelling of an address and the page's
 * (percent-encoded) one meet.
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sj-remote-samples-private.h"

#define INDEX_NAME     ".index"
#define MAX_INDEX_SIZE (1024 * 1024)

/* The layout of the folder: "2" is <scheme>/<host>/<path>. Without it the
 * folder is the first layout, <host>/<path>. */
#define LAYOUT_NAME    ".layout"
#define LAYOUT         "2\n"
#define OLD_NAME       ".old-layout"

/* Removes a folder and all it holds; symbolic links are removed, never
 * followed. */
static void
delete_tree (const char *path,
             guint       depth)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (depth <= 32 && (dir = g_dir_open (path, 0, NULL)) != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);
        GStatBuf st;

        if (g_lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
          delete_tree (child, depth + 1);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static void
delete_old_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  delete_tree (task_data, 0);
  g_task_return_boolean (task, TRUE);
}

/* The first layout kept http:// and https:// of one address in one file,
 * so any file of it may have come over plain http (written by a captive
 * portal, or by anyone on the way) and nothing says which. Moving them
 * under https/ would serve such a file for an https address: they are
 * dropped instead, and what is played again is downloaded again, over the
 * scheme its address names. The folders are moved aside at once (a rename
 * each), and deleted in a thread. */
static void
migrate_layout (SjRemoteSamples *self)
{
  const char *base = g_file_peek_path (self->directory);
  g_autofree char *layout = g_build_filename (base, LAYOUT_NAME, NULL);
  g_autofree char *old = g_build_filename (base, OLD_NAME, NULL);
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;
  guint moved = 0;

  if (g_file_test (layout, G_FILE_TEST_EXISTS))
    return;

  if ((dir = g_dir_open (base, 0, NULL)) != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = NULL;
        g_autofree char *aside = NULL;

        if (name[0] == '.')
          continue;
        child = g_build_filename (base, name, NULL);
        aside = g_build_filename (old, name, NULL);
        if (g_mkdir_with_parents (old, 0700) == 0 && g_rename (child, aside) == 0)
          moved++;
        else
          g_message ("Sounds: %s (cached before http and https were kept apart) could not be removed", child);
      }

  if (g_mkdir_with_parents (base, 0700) != 0 ||
      !g_file_set_contents (layout, LAYOUT, -1, &error))
    g_message ("Sounds: %s could not be written: %s", layout, error != NULL ? error->message : g_strerror (errno));

  if (moved > 0 || g_file_test (old, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);

      g_message ("Sounds: dropping %u folders of downloaded samples cached before http and https were kept apart; "
                 "they are downloaded again when played", moved);
      g_task_set_task_data (task, g_steal_pointer (&old), g_free);
      g_task_run_in_thread (task, delete_old_thread);
    }
}

static GFile *
index_file (SjRemoteSamples *self)
{
  return g_file_get_child (self->directory, INDEX_NAME);
}

/* The cache path of @url, the key of its map; NULL for no usable address. */
static char *
key_of (SjRemoteSamples *self,
        const char      *url)
{
  SjRemoteLocation location;
  char *key;

  if (!_sj_remote_samples_locate (self, url, &location, NULL))
    return NULL;
  key = g_file_get_path (location.file);
  _sj_remote_location_clear (&location);

  return key;
}

static void
save_index (SjRemoteSamples *self)
{
  g_autoptr(GFile) file = index_file (self);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < self->order->len; i++)
    {
      const SjRemoteMap *map = g_hash_table_lookup (self->maps, g_ptr_array_index (self->order, i));

      g_string_append_printf (text, "%s\n", map->url);
    }

  /* Atomic: a crash leaves the previous index. Losing it costs only the
   * dry-run's knowledge of the maps until the page loads them again. */
  if (g_mkdir_with_parents (g_file_peek_path (self->directory), 0700) != 0 ||
      !g_file_set_contents (g_file_peek_path (file), text->str, text->len, &error))
    g_message ("The index of sample maps %s could not be written: %s", g_file_peek_path (file),
               error != NULL ? error->message : g_strerror (errno));
}

/**
 * _sj_remote_samples_remember:
 * @map: (transfer full): a map that was fetched and checked
 * @save: whether to write the index
 */
void
_sj_remote_samples_remember (SjRemoteSamples *self,
                             SjRemoteMap     *map,
                             gboolean         save)
{
  g_autofree char *key = key_of (self, map->url);

  if (key == NULL)
    {
      sj_remote_map_free (map);
      return;
    }

  for (guint i = 0; i < self->order->len; i++)
    if (g_str_equal (g_ptr_array_index (self->order, i), key))
      {
        g_ptr_array_remove_index (self->order, i);
        break;
      }
  g_hash_table_replace (self->maps, g_strdup (key), map);
  g_ptr_array_add (self->order, g_steal_pointer (&key));

  while (self->order->len > SJ_REMOTE_SAMPLES_MAX_MAPS)
    {
      g_hash_table_remove (self->maps, g_ptr_array_index (self->order, 0));
      g_ptr_array_remove_index (self->order, 0);
    }

  if (save)
    save_index (self);
}

static void
read_map (SjRemoteSamples *self,
          const char      *url)
{
  g_autoptr(GFile) file = sj_remote_samples_get_file (self, url, NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjRemoteMap *map;

  if (file == NULL || (bytes = g_file_load_bytes (file, NULL, NULL, &error)) == NULL)
    return;
  if ((map = sj_remote_map_parse (bytes, url, &error)) == NULL)
    {
      g_message ("Forgetting the sample map %s: %s", url, error->message);
      return;
    }
  _sj_remote_samples_remember (self, map, FALSE);
}

/**
 * _sj_remote_samples_load_index:
 *
 * Reads the maps remembered by an earlier run, once.
 */
void
_sj_remote_samples_load_index (SjRemoteSamples *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  gsize length = 0;

  if (self->index_loaded)
    return;
  self->index_loaded = TRUE;

  migrate_layout (self);

  file = index_file (self);
  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, NULL) || length > MAX_INDEX_SIZE ||
      !g_utf8_validate (contents, length, NULL))
    return;

  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*g_strstrip (lines[i]) != '\0')
      read_map (self, lines[i]);
}

/* Lookups -------------------------------------------------------------------- */

/**
 * sj_remote_samples_lookup_map:
 * @url: a map's address, as the page or the dry-run spells it
 *
 * Returns: (nullable): the map fetched from @url, or %NULL when it has not
 *   been (yet)
 */
const SjRemoteMap *
sj_remote_samples_lookup_map (SjRemoteSamples *self,
                              const char      *url)
{
  g_autofree char *key = NULL;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (url != NULL, NULL);

  _sj_remote_samples_load_index (self);
  key = key_of (self, url);
  return key != NULL ? g_hash_table_lookup (self->maps, key) : NULL;
}

/**
 * sj_remote_samples_lookup_sound:
 * @name: a sound's name, in any case
 * @map: (out) (optional) (nullable): the map that registers it
 *
 * Returns: (nullable): the sound of that name in the maps fetched (the
 *   latest map's, when several have it)
 */
const SjRemoteSound *
sj_remote_samples_lookup_sound (SjRemoteSamples    *self,
                                const char         *name,
                                const SjRemoteMap **map)
{
  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (name != NULL, NULL);

  _sj_remote_samples_load_index (self);
  for (guint i = self->order->len; i > 0; i--)
    {
      const SjRemoteMap *found = g_hash_table_lookup (self->maps, g_ptr_array_index (self->order, i - 1));
      const SjRemoteSound *sound = sj_remote_map_lookup (found, name);

      if (sound != NULL)
        {
          if (map != NULL)
            *map = found;
          return sound;
        }
    }

  if (map != NULL)
    *map = NULL;
  return NULL;
}

/**
 * sj_remote_samples_list_maps:
 *
 * Returns: (transfer container) (element-type SjRemoteMap): the maps
 *   fetched, the oldest first
 */
GPtrArray *
sj_remote_samples_list_maps (SjRemoteSamples *self)
{
  GPtrArray *maps;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));

  _sj_remote_samples_load_index (self);
  maps = g_ptr_array_sized_new (self->order->len);
  for (guint i = 0; i < self->order->len; i++)
    g_ptr_array_add (maps, g_hash_table_lookup (self->maps, g_ptr_array_index (self->order, i)));

  return maps;
}

/* "name:2" for a file a map lists, else its address. */
char *
_sj_remote_samples_describe_url (SjRemoteSamples *self,
                                 const char      *url)
{
  g_autofree char *wanted = g_uri_unescape_string (url, NULL);

  for (guint i = self->order->len; i > 0; i--)
    {
      const SjRemoteMap *map = g_hash_table_lookup (self->maps, g_ptr_array_index (self->order, i - 1));

      for (guint s = 0; s < map->sounds->len; s++)
        {
          const SjRemoteSound *sound = g_ptr_array_index (map->sounds, s);

          for (guint f = 0; f < sound->n_files; f++)
            {
              g_autofree char *file = g_uri_unescape_string (sound->files[f], NULL);

              if (g_strcmp0 (file != NULL ? file : sound->files[f], wanted != NULL ? wanted : url) == 0)
                return g_strdup_printf ("%s:%u", sound->name, f);
            }
        }
    }

  return g_strdup (url);
}

/* Availability --------------------------------------------------------------- */

static gboolean
is_cached (SjRemoteSamples *self,
           const char      *url,
           goffset         *size)
{
  g_autoptr(GFile) file = sj_remote_samples_get_file (self, url, NULL);
  GStatBuf st;

  if (file == NULL || g_stat (g_file_peek_path (file), &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
    return FALSE;
  if (size != NULL)
    *size = st.st_size;
  return TRUE;
}

/**
 * sj_remote_samples_get_file_availability:
 *
 * Returns: how the file at @url would play now: cached, downloaded on
 *   first use, or not at all
 */
SjSoundAvailability
sj_remote_samples_get_file_availability (SjRemoteSamples *self,
                                         const char      *url)
{
  g_autoptr(GFile) file = NULL;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (url != NULL, SJ_SOUND_AVAILABILITY_UNAVAILABLE);

  if (is_cached (self, url, NULL))
    return SJ_SOUND_AVAILABILITY_CACHED;
  if (sj_remote_samples_get_online (self) && (file = sj_remote_samples_get_file (self, url, NULL)) != NULL)
    return SJ_SOUND_AVAILABILITY_DOWNLOAD;
  return SJ_SOUND_AVAILABILITY_UNAVAILABLE;
}

/**
 * sj_remote_samples_get_sound_availability:
 * @name: a sound's name, in any case
 * @availability: (out): how it would play now
 * @files: (out caller-allocates) (optional): its files, how many are
 *   cached and their size
 *
 * As sj_sound_cache_get_sound_availability() says it of the library's
 * sounds, for a sound of a map the code fetched.
 *
 * Returns: whether a map fetched registers @name
 */
gboolean
sj_remote_samples_get_sound_availability (SjRemoteSamples     *self,
                                          const char          *name,
                                          SjSoundAvailability *availability,
                                          SjSoundFiles        *files)
{
  SjSoundFiles counted = { 0 };
  const SjRemoteSound *sound;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (availability != NULL, FALSE);

  if ((sound = sj_remote_samples_lookup_sound (self, name, NULL)) == NULL)
    return FALSE;

  for (guint i = 0; i < sound->n_files; i++)
    {
      goffset size = 0;

      counted.n_files++;
      if (is_cached (self, sound->files[i], &size))
        {
          counted.n_cached++;
          counted.cached_bytes += size;
        }
    }
  if (files != NULL)
    *files = counted;

  if (counted.n_files > 0 && counted.n_cached == counted.n_files)
    *availability = SJ_SOUND_AVAILABILITY_CACHED;
  else if (sj_remote_samples_get_online (self))
    *availability = SJ_SOUND_AVAILABILITY_DOWNLOAD;
  else if (counted.n_cached > 0)
    *availability = SJ_SOUND_AVAILABILITY_CACHED;
  else
    *availability = SJ_SOUND_AVAILABILITY_UNAVAILABLE;

  return TRUE;
}
