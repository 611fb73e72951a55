/* sj-sounds-index.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The sounds the page has registered, from the bridge's sound snapshot,
 * with the categories of Strudel's sounds tab.  Before the page has ever
 * reported, it holds what the page's prebake registers: the build's list of
 * synths, ZZFX sounds and soundfonts, and the sound library (SjSoundLibrary,
 * the website's sample maps).  The last snapshot is kept on disk so that
 * lookups work while the page is not running; a new snapshot replaces it.
 */

#include "config.h"

#include <string.h>

#include "sj-fuzzy.h"
#include "sj-page-message.h"
#include "sj-sound-library.h"
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
 * s("bd").bank("X").  The library knows the real ones (the drum machines
 * and their aliases), so "xylophone_hard_ff" is not one.  Among sounds it
 * does not know (the user's own), samples sharing a prefix with at least
 * one other sample form a bank, so "gm_piano" or a lone "my_loop" do not.
 *
 * Returns: (transfer full) (nullable): the bank of @sound */
static char *
bank_of (SjSoundLibrary *library,
         const SjSound  *sound,
         gboolean       *known)
{
  const SjLibrarySound *in_library = sj_sound_library_lookup (library, sound->lower);
  const char *underscore = strchr (sound->name, '_');

  *known = in_library != NULL;
  if (in_library != NULL)
    return g_strdup (in_library->bank);
  if (!g_str_equal (sound->type, "sample") || underscore == NULL ||
      underscore == sound->name || underscore[1] == '\0')
    return NULL;
  return g_strndup (sound->name, underscore - sound->name);
}

static void
build_banks (SjSoundsIndex *self)
{
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GHashTable) known_banks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SjSoundLibrary *library = sj_sound_library_get_default ();
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < self->sounds->len; i++)
    {
      SjSound *sound = g_ptr_array_index (self->sounds, i);
      g_autofree char *prefix = NULL;
      GPtrArray *members;
      gboolean known;

      if ((prefix = bank_of (library, sound, &known)) == NULL)
        continue;
      if (known)
        g_hash_table_add (known_banks, g_strdup (prefix));

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

      if (members->len < 2 && !g_hash_table_contains (known_banks, key))
        continue;

      bank = g_new0 (SjSoundBank, 1);
      bank->name = g_strdup (key);
      bank->lower = g_ascii_strdown (key, -1);
      bank->len = strlen (bank->lower);
      bank->mask = sj_fuzzy_mask (bank->lower, bank->len);
      bank->sounds = g_ptr_array_ref (members);
      bank->alias = TRUE;

      for (guint i = 0; i < members->len; i++)
        {
          SjSound *sound = g_ptr_array_index (members, i);

          bank->alias &= sound->alias;
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
  SjSoundLibrary *library = sj_sound_library_get_default ();
  const SjLibrarySound *known;
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
      known = sj_sound_library_lookup (library, sound->lower);
      sound->alias = known != NULL && known->alias_of != NULL;

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
