/* sj-sounds-index-files.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Where the sounds index gets its sounds besides the live page: the bundled
 * ones (the build's synths and soundfonts, and the sound library), a
 * snapshot file the user names, and the cache of the page's last snapshot,
 * which is written atomically.
 */

#include "config.h"

#include "sj-bundled-data.h"
#include "sj-page-message.h"
#include "sj-json.h"
#include "sj-sound-library.h"
#include "sj-sounds-index.h"

/* What the page's prebake registers without any network: the synths, ZZFX
 * sounds and General MIDI soundfonts listed at build time, and the sound
 * library. */
static JsonObject *
dup_bundled_snapshot (void)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *snapshot, *scope_sounds;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  bytes = sj_bundled_data_lookup ("runtime-scope.json", &error);
  if (bytes == NULL)
    g_error ("The bundled runtime scope is missing: %s", error->message);

  if ((root = sj_json_parse_bytes (bytes, NULL, &error)) == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      (scope_sounds = json_object_get_object_member (json_node_get_object (root), "sounds")) == NULL)
    g_error ("The bundled sounds cannot be read: %s", error != NULL ? error->message : "no “sounds”");

  snapshot = sj_sound_library_dup_snapshot (sj_sound_library_get_default ());
  json_object_iter_init (&iter, scope_sounds);
  while (json_object_iter_next (&iter, &name, &node))
    json_object_set_member (snapshot, name, json_node_copy (node));

  return snapshot;
}

/**
 * sj_sounds_index_load_bundled:
 *
 * Loads the sounds that the page registers without any network (synths,
 * ZZFX, General MIDI soundfonts, and the sample maps of the sound
 * library): what lookups know before the page has ever reported its
 * registry.
 */
void
sj_sounds_index_load_bundled (SjSoundsIndex *self)
{
  g_autoptr(JsonObject) snapshot = dup_bundled_snapshot ();
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  if (!sj_sounds_index_load_snapshot (self, snapshot, &error))
    g_error ("The bundled sounds are invalid: %s", error->message);
}

/**
 * sj_sounds_index_new_for_lookup:
 * @path: (nullable): a snapshot file named by the user
 *
 * The sounds a lookup outside the window uses (the command line): the
 * file the user named, which must be readable; else the page's cached
 * snapshot; else, where the page never ran, the sounds it registers
 * offline.
 *
 * Returns: (transfer full) (nullable): the index, or %NULL with @error set
 */
SjSoundsIndex *
sj_sounds_index_new_for_lookup (const char  *path,
                                GError     **error)
{
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(GFile) file = path != NULL ? g_file_new_for_commandline_arg (path)
                                       : sj_sounds_index_get_cache_file ();
  g_autoptr(GError) local_error = NULL;

  if (!(path != NULL ? sj_sounds_index_load_file (sounds, file, &local_error)
                     : sj_sounds_index_load_cache (sounds, file, &local_error)))
    {
      if (path != NULL || !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      sj_sounds_index_load_bundled (sounds);
    }

  return g_steal_pointer (&sounds);
}

/**
 * sj_sounds_index_get_cache_file:
 *
 * Returns: (transfer full): where the last snapshot is kept between runs.
 */
GFile *
sj_sounds_index_get_cache_file (void)
{
  return g_file_new_build_filename (g_get_user_cache_dir (), "strudel-jam", "sounds.json", NULL);
}

static JsonObject *
read_snapshot_file (GFile   *file,
                    GError **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, error))
    return NULL;
  if (length > SJ_PAGE_MESSAGE_MAX_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "The sound snapshot is larger than %d bytes", SJ_PAGE_MESSAGE_MAX_BYTES);
      return NULL;
    }
  if ((root = sj_json_parse (contents, length, NULL, error)) == NULL)
    return NULL;

  json_node_seal (root);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "The sound snapshot is not a JSON object");
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

/* Replaces the sounds with exactly the snapshot in @file. */
gboolean
sj_sounds_index_load_file (SjSoundsIndex  *self,
                           GFile          *file,
                           GError        **error)
{
  g_autoptr(JsonObject) snapshot = NULL;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  if ((snapshot = read_snapshot_file (file, error)) == NULL)
    return FALSE;

  return sj_sounds_index_load_snapshot (self, snapshot, error);
}

/**
 * sj_sounds_index_load_cache:
 * @file: the page's last snapshot (sj_sounds_index_get_cache_file())
 *
 * The bundled sounds with the cached snapshot over them: what the page
 * registered last time (the user's own samples() too) never hides what its
 * prebake registers in this version, even when the cache was written by an
 * older one.
 */
gboolean
sj_sounds_index_load_cache (SjSoundsIndex  *self,
                            GFile          *file,
                            GError        **error)
{
  g_autoptr(JsonObject) cached = NULL;
  g_autoptr(JsonObject) snapshot = NULL;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  if ((cached = read_snapshot_file (file, error)) == NULL ||
      !sj_sound_snapshot_validate (cached, error))
    return FALSE;

  snapshot = dup_bundled_snapshot ();
  json_object_iter_init (&iter, cached);
  while (json_object_iter_next (&iter, &name, &node))
    json_object_set_member (snapshot, name, json_node_copy (node));

  return sj_sounds_index_load_snapshot (self, snapshot, error);
}

/**
 * sj_sounds_index_save_file:
 *
 * Writes the snapshot atomically, so that a crash or a full disk leaves
 * the previous one in place.
 */
gboolean
sj_sounds_index_save_file (SjSoundsIndex  *self,
                           GFile          *file,
                           GError        **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *data = NULL;
  gsize length;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  json_builder_begin_object (builder);
  for (guint i = 0; i < sj_sounds_index_get_n_sounds (self); i++)
    {
      const SjSound *sound = sj_sounds_index_get_sound (self, i);

      json_builder_set_member_name (builder, sound->name);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, sound->type);
      if (sound->tag != NULL)
        {
          json_builder_set_member_name (builder, "tag");
          json_builder_add_string_value (builder, sound->tag);
        }
      json_builder_set_member_name (builder, "prebake");
      json_builder_add_boolean_value (builder, sound->prebake);
      if (sound->count >= 0)
        {
          json_builder_set_member_name (builder, "count");
          json_builder_add_int_value (builder, sound->count);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  data = json_generator_to_data (generator, &length);

  if (!g_file_make_directory_with_parents (parent, NULL, &local_error) &&
      !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  return g_file_replace_contents (file, data, length, NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
