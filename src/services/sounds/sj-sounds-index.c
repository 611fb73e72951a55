/* sj-sounds-index.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sounds the page has registered, from the bridge's sound snapshot,
 * with the categories of Strudel's sounds tab.  The last snapshot is kept
 * on disk so that lookups work while the page is not running; a new
 * snapshot replaces it.
 */

#include "config.h"

#include <string.h>

#include "sj-fuzzy.h"
#include "sj-bundled-data.h"
#include "sj-page-message.h"
#include "sj-sounds-index.h"

struct _SjSoundsIndex
{
  GObject     parent_instance;

  GPtrArray  *sounds;    /* of SjSound, sorted by lower-cased name */
  GHashTable *by_name;   /* name → SjSound */
  GPtrArray  *banks;     /* of SjSoundBank, sorted */
  GHashTable *bank_by_name; /* lower-cased bank name → SjSoundBank */
  guint       counts[SJ_N_SOUND_CATEGORIES];
  gboolean    loaded;
};

G_DEFINE_FINAL_TYPE (SjSoundsIndex, sj_sounds_index, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char * const category_names[SJ_N_SOUND_CATEGORIES] = {
  "all", "user", "drum-machines", "samples", "synths", "wavetables",
};

static void
sound_free (gpointer data)
{
  SjSound *sound = data;

  g_free (sound->name);
  g_free (sound->lower);
  g_free (sound->type);
  g_free (sound->tag);
  g_free (sound->bank);
  g_free (sound->bank_sound);
  g_free (sound);
}

static void
bank_free (gpointer data)
{
  SjSoundBank *bank = data;

  g_free (bank->name);
  g_free (bank->lower);
  g_ptr_array_unref (bank->sounds);
  g_free (bank);
}

static void
sj_sounds_index_finalize (GObject *object)
{
  SjSoundsIndex *self = (SjSoundsIndex *)object;

  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_clear_pointer (&self->bank_by_name, g_hash_table_unref);
  g_clear_pointer (&self->banks, g_ptr_array_unref);
  g_clear_pointer (&self->sounds, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_sounds_index_parent_class)->finalize (object);
}

static void
sj_sounds_index_class_init (SjSoundsIndexClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_sounds_index_finalize;

  /**
   * SjSoundsIndex::changed:
   *
   * Emitted when a new snapshot replaced the sounds.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_sounds_index_init (SjSoundsIndex *self)
{
  self->sounds = g_ptr_array_new_with_free_func (sound_free);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->banks = g_ptr_array_new_with_free_func (bank_free);
  self->bank_by_name = g_hash_table_new (g_str_hash, g_str_equal);
}

SjSoundsIndex *
sj_sounds_index_new (void)
{
  return g_object_new (SJ_TYPE_SOUNDS_INDEX, NULL);
}

/**
 * sj_sound_in_category:
 *
 * The sounds tab's filters, to the letter.
 */
gboolean
sj_sound_in_category (const SjSound   *sound,
                      SjSoundCategory  category)
{
  switch (category)
    {
    case SJ_SOUND_CATEGORY_ALL:
      return sound->name[0] != '_';
    case SJ_SOUND_CATEGORY_USER:
      return !sound->prebake;
    case SJ_SOUND_CATEGORY_DRUMS:
      return g_str_equal (sound->type, "sample") && g_strcmp0 (sound->tag, "drum-machines") == 0;
    case SJ_SOUND_CATEGORY_SAMPLES:
      return g_str_equal (sound->type, "sample") && g_strcmp0 (sound->tag, "drum-machines") != 0;
    case SJ_SOUND_CATEGORY_SYNTHS:
      return g_str_equal (sound->type, "synth") || g_str_equal (sound->type, "soundfont");
    case SJ_SOUND_CATEGORY_WAVETABLES:
      return g_str_equal (sound->type, "wavetable");
    case SJ_N_SOUND_CATEGORIES:
    default:
      return FALSE;
    }
}

const char *
sj_sound_category_to_string (SjSoundCategory category)
{
  g_return_val_if_fail (category < SJ_N_SOUND_CATEGORIES, NULL);

  return category_names[category];
}

/**
 * sj_sound_category_from_string:
 *
 * Reads a category as people write it: "drums", "drum-machines",
 * "drum machines", "synth", "wavetables"…
 */
gboolean
sj_sound_category_from_string (const char      *text,
                               SjSoundCategory *category)
{
  static const struct {
    const char *word;
    SjSoundCategory category;
  } words[] = {
    { "all", SJ_SOUND_CATEGORY_ALL },
    { "user", SJ_SOUND_CATEGORY_USER },
    { "drums", SJ_SOUND_CATEGORY_DRUMS },
    { "drum", SJ_SOUND_CATEGORY_DRUMS },
    { "drum-machines", SJ_SOUND_CATEGORY_DRUMS },
    { "drum-machine", SJ_SOUND_CATEGORY_DRUMS },
    { "drum machines", SJ_SOUND_CATEGORY_DRUMS },
    { "drummachines", SJ_SOUND_CATEGORY_DRUMS },
    { "samples", SJ_SOUND_CATEGORY_SAMPLES },
    { "sample", SJ_SOUND_CATEGORY_SAMPLES },
    { "synths", SJ_SOUND_CATEGORY_SYNTHS },
    { "synth", SJ_SOUND_CATEGORY_SYNTHS },
    { "wavetables", SJ_SOUND_CATEGORY_WAVETABLES },
    { "wavetable", SJ_SOUND_CATEGORY_WAVETABLES },
  };

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      if (g_ascii_strcasecmp (text, words[i].word) == 0)
        {
          *category = words[i].category;
          return TRUE;
        }
    }

  return FALSE;
}

/**
 * sj_sound_usage:
 *
 * A minimal line of code that plays @sound.
 */
char *
sj_sound_usage (const SjSound *sound)
{
  if (sound->bank != NULL)
    return g_strdup_printf ("s(\"%s\").bank(\"%s\")", sound->bank_sound, sound->bank);
  if (g_str_equal (sound->type, "synth") || g_str_equal (sound->type, "soundfont") ||
      g_str_equal (sound->type, "wavetable"))
    return g_strdup_printf ("note(\"c3 e3 g3\").s(\"%s\")", sound->name);
  return g_strdup_printf ("s(\"%s\")", sound->name);
}

static int
compare_sounds (gconstpointer a,
                gconstpointer b)
{
  const SjSound *sa = *(const SjSound **)a;
  const SjSound *sb = *(const SjSound **)b;

  return strcmp (sa->lower, sb->lower);
}

static int
compare_banks (gconstpointer a,
               gconstpointer b)
{
  const SjSoundBank *ba = *(const SjSoundBank **)a;
  const SjSoundBank *bb = *(const SjSoundBank **)b;

  return strcmp (ba->lower, bb->lower);
}

/* A bank is what `.bank("X")` selects: Strudel plays "X_bd" for
 * s("bd").bank("X").  Only samples sharing a prefix with at least one other
 * sample form a bank, so "gm_piano" or a lone "my_loop" do not. */
static void
build_banks (SjSoundsIndex *self)
{
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify)g_ptr_array_unref);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < self->sounds->len; i++)
    {
      SjSound *sound = g_ptr_array_index (self->sounds, i);
      const char *underscore = strchr (sound->name, '_');
      GPtrArray *members;
      g_autofree char *prefix = NULL;

      if (!g_str_equal (sound->type, "sample") || underscore == NULL ||
          underscore == sound->name || underscore[1] == '\0')
        continue;

      prefix = g_strndup (sound->name, underscore - sound->name);
      members = g_hash_table_lookup (groups, prefix);
      if (members == NULL)
        {
          members = g_ptr_array_new ();
          g_hash_table_insert (groups, g_steal_pointer (&prefix), members);
        }
      g_ptr_array_add (members, sound);
    }

  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *members = value;
      SjSoundBank *bank;

      if (members->len < 2)
        continue;

      bank = g_new0 (SjSoundBank, 1);
      bank->name = g_strdup (key);
      bank->lower = g_ascii_strdown (key, -1);
      bank->len = strlen (bank->lower);
      bank->mask = sj_fuzzy_mask (bank->lower, bank->len);
      bank->sounds = g_ptr_array_ref (members);

      for (guint i = 0; i < members->len; i++)
        {
          SjSound *sound = g_ptr_array_index (members, i);

          sound->bank = g_strdup (bank->name);
          sound->bank_sound = g_strdup (sound->name + strlen (bank->name) + 1);
        }

      g_ptr_array_add (self->banks, bank);
    }

  g_ptr_array_sort (self->banks, compare_banks);
  for (guint i = 0; i < self->banks->len; i++)
    {
      SjSoundBank *bank = g_ptr_array_index (self->banks, i);

      g_hash_table_replace (self->bank_by_name, bank->lower, bank);
    }
}

/**
 * sj_sounds_index_load_snapshot:
 * @snapshot: name → `{type, tag?, prebake, count?}`
 *
 * Replaces the sounds with @snapshot after validating it; an invalid
 * snapshot leaves the index as it was.
 */
gboolean
sj_sounds_index_load_snapshot (SjSoundsIndex  *self,
                               JsonObject     *snapshot,
                               GError        **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  if (!sj_sound_snapshot_validate (snapshot, error))
    return FALSE;

  g_hash_table_remove_all (self->bank_by_name);
  g_ptr_array_set_size (self->banks, 0);
  g_hash_table_remove_all (self->by_name);
  g_ptr_array_set_size (self->sounds, 0);
  memset (self->counts, 0, sizeof self->counts);

  json_object_iter_init (&iter, snapshot);
  while (json_object_iter_next (&iter, &name, &node))
    {
      JsonObject *object = json_node_get_object (node);
      SjSound *sound = g_new0 (SjSound, 1);

      sound->name = g_strdup (name);
      sound->lower = g_ascii_strdown (name, -1);
      sound->len = strlen (sound->lower);
      sound->mask = sj_fuzzy_mask (sound->lower, sound->len);
      sound->type = g_strdup (json_object_get_string_member (object, "type"));
      sound->tag = g_strdup (json_object_get_string_member_with_default (object, "tag", NULL));
      sound->prebake = json_object_get_boolean_member (object, "prebake");
      sound->count = json_object_get_int_member_with_default (object, "count", -1);

      g_ptr_array_add (self->sounds, sound);
    }

  g_ptr_array_sort (self->sounds, compare_sounds);
  for (guint i = 0; i < self->sounds->len; i++)
    {
      SjSound *sound = g_ptr_array_index (self->sounds, i);

      g_hash_table_replace (self->by_name, sound->name, sound);
      for (guint c = 0; c < SJ_N_SOUND_CATEGORIES; c++)
        if (sj_sound_in_category (sound, c))
          {
            sound->categories |= 1u << c;
            self->counts[c]++;
          }
    }

  build_banks (self);
  self->loaded = TRUE;

  g_signal_emit (self, signals[CHANGED], 0);

  return TRUE;
}

/**
 * sj_sounds_index_load_bundled:
 *
 * Loads the sounds that the page registers without any network (synths,
 * ZZFX, General MIDI soundfonts), as listed at build time: what lookups
 * know before the page has ever reported its registry.
 */
void
sj_sounds_index_load_bundled (SjSoundsIndex *self)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  JsonObject *sounds;
  gsize size;
  const char *data;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  bytes = sj_bundled_data_lookup ("runtime-scope.json", &error);
  if (bytes == NULL)
    g_error ("The bundled runtime scope is missing: %s", error->message);

  data = g_bytes_get_data (bytes, &size);
  if (!json_parser_load_from_data (parser, data, size, &error) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      (sounds = json_object_get_object_member (json_node_get_object (root), "sounds")) == NULL ||
      !sj_sounds_index_load_snapshot (self, sounds, &error))
    g_error ("The bundled sounds cannot be read: %s", error != NULL ? error->message : "no “sounds”");
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

  if (!sj_sounds_index_load_file (sounds, file, &local_error))
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

gboolean
sj_sounds_index_load_file (SjSoundsIndex  *self,
                           GFile          *file,
                           GError        **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autofree char *contents = NULL;
  JsonNode *root;
  gsize length;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, error))
    return FALSE;
  if (length > SJ_PAGE_MESSAGE_MAX_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "The sound snapshot is larger than %d bytes", SJ_PAGE_MESSAGE_MAX_BYTES);
      return FALSE;
    }
  if (!json_parser_load_from_data (parser, contents, length, error))
    return FALSE;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "The sound snapshot is not a JSON object");
      return FALSE;
    }

  return sj_sounds_index_load_snapshot (self, json_node_get_object (root), error);
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
  for (guint i = 0; i < self->sounds->len; i++)
    {
      const SjSound *sound = g_ptr_array_index (self->sounds, i);

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

gboolean
sj_sounds_index_get_loaded (SjSoundsIndex *self)
{
  g_assert (SJ_IS_SOUNDS_INDEX (self));

  return self->loaded;
}

guint
sj_sounds_index_get_n_sounds (SjSoundsIndex *self)
{
  g_assert (SJ_IS_SOUNDS_INDEX (self));

  return self->sounds->len;
}

const SjSound *
sj_sounds_index_get_sound (SjSoundsIndex *self,
                           guint          position)
{
  g_assert (SJ_IS_SOUNDS_INDEX (self));
  g_return_val_if_fail (position < self->sounds->len, NULL);

  return g_ptr_array_index (self->sounds, position);
}

/* Superdough lower-cases sound names when it registers and when it
 * plays them, so s("RolandTR808_BD") plays "rolandtr808_bd": lookups
 * ignore case too. */
const SjSound *
sj_sounds_index_lookup (SjSoundsIndex *self,
                        const char    *name)
{
  g_autofree char *lower = NULL;
  const SjSound *sound;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  if ((sound = g_hash_table_lookup (self->by_name, name)) != NULL)
    return sound;

  lower = g_ascii_strdown (name, -1);
  return g_hash_table_lookup (self->by_name, lower);
}

guint
sj_sounds_index_get_n_banks (SjSoundsIndex *self)
{
  g_assert (SJ_IS_SOUNDS_INDEX (self));

  return self->banks->len;
}

const SjSoundBank *
sj_sounds_index_get_bank (SjSoundsIndex *self,
                          guint          position)
{
  g_assert (SJ_IS_SOUNDS_INDEX (self));
  g_return_val_if_fail (position < self->banks->len, NULL);

  return g_ptr_array_index (self->banks, position);
}

const SjSoundBank *
sj_sounds_index_lookup_bank (SjSoundsIndex *self,
                             const char    *name)
{
  g_autofree char *lower = NULL;

  g_assert (SJ_IS_SOUNDS_INDEX (self));

  lower = g_ascii_strdown (name, -1);
  return g_hash_table_lookup (self->bank_by_name, lower);
}

guint
sj_sounds_index_count (SjSoundsIndex   *self,
                       SjSoundCategory  category)
{
  g_assert (SJ_IS_SOUNDS_INDEX (self));
  g_return_val_if_fail (category < SJ_N_SOUND_CATEGORIES, 0);

  return self->counts[category];
}
