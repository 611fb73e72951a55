/* sj-sound-downloads-resume.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What of SjSoundDownloads outlives the app: the packs being downloaded,
 * listed in a state file, "downloads.json" in the cache directory, so that
 * sj_sound_downloads_resume() takes them up again at the next start, after
 * a quit, a crash or a kill. The file is written whole and renamed into
 * place, as the sounds themselves are, and rewritten each time a pack is
 * asked for or is done with.
 *
 * The file also lists the packs downloaded for offline ("offline"): asked
 * for and not removed since. The sound cache never evicts their files
 * (sj_sound_cache_set_kept_dirs()).
 *
 * Only the list is kept, not how far each pack got: a pack resumes where it
 * stopped because its download fetches only the files missing from the
 * cache (sj-sound-downloads-queue.c), and a file is in the cache only once
 * whole, so nothing half-written is ever counted or skipped.
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sj-json.h"
#include "sj-sound-downloads-private.h"

#define STATE_FILE_NAME "downloads.json"

/* The state file is ours and tiny. */
#define MAX_STATE_BYTES (64 * 1024)

/* The state file ----------------------------------------------------------- */

/* Returns: (transfer full): the ids the state file lists, in its order;
 *   empty when there is no state file or it cannot be read */
static GPtrArray *
load_state (SjSoundDownloads *self,
            const char       *member)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);
  const SjJsonLimits limits = { 0, MAX_STATE_BYTES };
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  JsonObject *root;
  JsonArray *packs;
  gsize length;

  if (!g_file_load_contents (self->state_file, NULL, &contents, &length, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_message ("Sounds: the download state %s cannot be read: %s", g_file_peek_path (self->state_file),
                   error->message);
      return ids;
    }

  if ((node = sj_json_parse (contents, length, &limits, NULL)) == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_message ("Sounds: the download state %s is not valid; nothing resumes", g_file_peek_path (self->state_file));
      return ids;
    }

  root = json_node_get_object (node);
  packs = json_object_has_member (root, member) && JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, member))
            ? json_object_get_array_member (root, member) : NULL;
  for (guint i = 0; packs != NULL && i < json_array_get_length (packs); i++)
    {
      const char *id = json_node_get_string (json_array_get_element (packs, i));

      if (id != NULL)
        g_ptr_array_add (ids, g_strdup (id));
    }

  return ids;
}

/* Written whole next to it and renamed over it: a crash leaves the old
 * state or the new one, never half of one. */
static void
save_state (SjSoundDownloads *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GFile) parent = g_file_get_parent (self->state_file);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "packs");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->wanted->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->wanted, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "offline");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->kept->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->kept, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);

  if (g_mkdir_with_parents (g_file_peek_path (parent), 0700) != 0 ||
      !g_file_set_contents_full (g_file_peek_path (self->state_file), text, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    g_message ("Sounds: the download state %s cannot be written: %s", g_file_peek_path (self->state_file),
               error != NULL ? error->message : g_strerror (errno));
}

/* Puts @id in @ids or takes it out. Returns: whether @ids changed */
static gboolean
set_listed (GPtrArray  *ids,
            const char *id,
            gboolean    listed)
{
  guint index;

  if (g_ptr_array_find_with_equal_func (ids, id, g_str_equal, &index) == listed)
    return FALSE;
  if (listed)
    g_ptr_array_add (ids, g_strdup (id));
  else
    g_ptr_array_remove_index (ids, index);
  return TRUE;
}

/* Lists a pack to resume, or forgets it, and says so on the disk at once. */
void
_sj_sound_downloads_want (SjSoundDownloads *self,
                          const char       *id,
                          gboolean          wanted)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (set_listed (self->wanted, id, wanted))
    save_state (self);
}

/* Tells the cache which folders it must never evict from. */
static void
sync_kept (SjSoundDownloads *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) dirs = NULL;

  for (guint i = 0; i < self->kept->len; i++)
    {
      Pack *pack = _sj_sound_downloads_lookup_pack (self, g_ptr_array_index (self->kept, i));

      if (pack != NULL)
        g_strv_builder_add (builder, pack->dir);
    }
  dirs = g_strv_builder_end (builder);
  sj_sound_cache_set_kept_dirs (self->cache, (const char * const *)dirs);
}

/* Marks a pack as downloaded for offline (its files never evicted), or no
 * longer, and says so on the disk at once. */
void
_sj_sound_downloads_keep (SjSoundDownloads *self,
                          const char       *id,
                          gboolean          kept)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (!set_listed (self->kept, id, kept))
    return;
  sync_kept (self);
  save_state (self);
}

/* Resuming ------------------------------------------------------------------ */

/**
 * sj_sound_downloads_resume:
 *
 * Takes up the downloads the state file lists: those that were running
 * when the app last quit, crashed or was killed. Files already cached are
 * not fetched again.
 *
 * Returns: how many packs resume
 */
guint
sj_sound_downloads_resume (SjSoundDownloads *self)
{
  g_autoptr(GPtrArray) ids = NULL;
  guint n = 0;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  ids = load_state (self, "packs");
  for (guint i = 0; i < ids->len; i++)
    {
      const char *id = g_ptr_array_index (ids, i);

      if (_sj_sound_downloads_lookup_pack (self, id) == NULL)
        {
          g_debug ("Sounds: no pack %s to resume", id);
          continue;
        }
      if (sj_sound_downloads_start (self, id))
        n++;
    }

  /* Packs the library no longer has are forgotten. */
  if (n != ids->len)
    save_state (self);

  return n;
}

/* Returns: (transfer none): where the packs to resume are listed */
GFile *
sj_sound_downloads_get_state_file (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return self->state_file;
}

/* Called once, by sj_sound_downloads_new(). */
void
_sj_sound_downloads_init_state (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  g_assert (self->state_file == NULL);

  self->state_file = g_file_get_child (sj_sound_cache_get_directory (self->cache), STATE_FILE_NAME);

  /* The packs kept for offline by earlier runs (the pack list is built). */
  g_ptr_array_unref (self->kept);
  self->kept = load_state (self, "offline");
  sync_kept (self);
}
