/* sj-sound-library-load.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Reading the library: data/sounds/library.json and its maps, compiled into
 * the binary, registered as superdough's samples(), registerSoundfonts()
 * and aliasBank() register them. See sj-sound-library.c.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-bundled-data.h"
#include "sj-json.h"
#include "sj-sound-library-private.h"

#define RESOURCE_DIR "/io/github/strudeljam/StrudelJam/sounds/"

/* The maps are ours, but parsing is bounded anyway. */
#define MAX_MAP_BYTES  (4 * 1024 * 1024)
#define MAX_FILES      20000

static JsonNode *
load_json (const char  *name,
           GError     **error)
{
  g_autofree char *path = g_strconcat (RESOURCE_DIR, name, NULL);
  const SjJsonLimits limits = { 0, MAX_MAP_BYTES };
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;

  sj_bundled_data_register ();
  if ((bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error)) == NULL)
    return NULL;

  if ((root = sj_json_parse_bytes (bytes, &limits, error)) == NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s is not a JSON object", name);
      return NULL;
    }

  return g_steal_pointer (&root);
}

/* Small sets of words (types, packs, tags, banks) are shared... */
static const char *
intern (SjSoundLibrary *self,
        const char     *text)
{
  return text != NULL ? g_string_chunk_insert_const (self->strings, text) : NULL;
}

/* ...while names and paths are unique: hashing them to share would cost
 * more than it saves. */
static const char *
copy (SjSoundLibrary *self,
      const char     *text)
{
  return g_string_chunk_insert (self->strings, text);
}

/* registerSound(): lower-cased, runs of whitespace made "_". */
static char *
sound_key (const char *name)
{
  g_autofree char *lower = g_utf8_strdown (name, -1);
  GString *key = g_string_new (NULL);

  for (const char *p = lower; *p != '\0'; p++)
    {
      if (g_ascii_isspace (*p))
        {
          while (g_ascii_isspace (p[1]))
            p++;
          g_string_append_c (key, '_');
        }
      else
        g_string_append_c (key, *p);
    }

  return g_string_free (key, FALSE);
}

/* A path from a map: relative, without empty, "." or ".." segments. */
static gboolean
path_is_safe (const char *path)
{
  if (path == NULL || *path == '\0' || *path == '/' || strchr (path, '\\') != NULL)
    return FALSE;

  for (const char *segment = path; segment != NULL; )
    {
      const char *slash = strchr (segment, '/');
      gsize length = slash != NULL ? (gsize)(slash - segment) : strlen (segment);

      if (length == 0 || (length == 1 && segment[0] == '.') ||
          (length == 2 && segment[0] == '.' && segment[1] == '.'))
        return FALSE;
      segment = slash != NULL ? slash + 1 : NULL;
    }

  return TRUE;
}

char *
_sj_sound_library_file_key (const char *pack,
          const char *local_path)
{
  return g_strconcat (pack, "/", local_path, NULL);
}

static gboolean
add_file (SjSoundLibrary        *self,
          const SjLibrarySound  *sound,
          const char            *path,
          guint                  variant,
          const char            *note,
          GError               **error)
{
  /* Most paths have nothing escaped. */
  g_autofree char *local = strchr (path, '%') != NULL ? g_uri_unescape_string (path, NULL) : g_strdup (path);
  g_autofree char *key = NULL;
  SjLibraryFile *file;

  if (local == NULL || !path_is_safe (local))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s lists an unsafe path: %s", sound->name, path);
      return FALSE;
    }
  if (g_hash_table_size (self->files) >= MAX_FILES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "more than %d files", MAX_FILES);
      return FALSE;
    }

  key = _sj_sound_library_file_key (sound->pack, local);
  /* A file listed by two sounds (wt_digital and wt_digital_bad_day)
   * belongs to the first. */
  if (g_hash_table_contains (self->files, key))
    return TRUE;

  file = g_new0 (SjLibraryFile, 1);
  file->pack = sound->pack;
  file->path = path;
  file->local_path = g_str_equal (local, path) ? path : copy (self, local);
  file->sound = sound;
  file->variant = variant;
  file->note = note;
  g_hash_table_insert (self->files, (char *)copy (self, key), file);

  return TRUE;
}

/* A string or an array of strings: the files of a sound or of a note. */
static const char **
read_paths (SjSoundLibrary  *self,
            JsonNode        *node,
            guint           *n_paths)
{
  const char **paths;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      paths = g_new0 (const char *, 2);
      paths[0] = copy (self, json_node_get_string (node));
      *n_paths = 1;
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint length = json_array_get_length (array);

      paths = g_new0 (const char *, length + 1);
      for (guint i = 0; i < length; i++)
        {
          const char *path = json_array_get_string_element (array, i);

          if (path == NULL)
            {
              g_free (paths);
              return NULL;
            }
          paths[i] = copy (self, path);
        }
      *n_paths = length;
    }
  else
    return NULL;

  g_ptr_array_add (self->allocations, paths);
  return paths;
}

static SjLibrarySound *
register_sound (SjSoundLibrary *self,
                const char     *name,
                const char     *type,
                const char     *pack,
                gboolean        prebake,
                const char     *tag)
{
  g_autofree char *key = sound_key (name);
  SjLibrarySound *sound = g_new0 (SjLibrarySound, 1);

  sound->name = copy (self, key);
  sound->type = intern (self, type);
  sound->pack = pack;
  sound->prebake = prebake;
  sound->tag = tag;
  g_ptr_array_add (self->sounds, sound);
  g_hash_table_replace (self->by_name, (char *)sound->name, sound);

  return sound;
}

/* samples(map, base, {prebake, tag}): every key but _base is a sound; an
 * array of files, or an object of note → files (pitched maps). */
static gboolean
load_pack (SjSoundLibrary  *self,
           JsonObject      *entry,
           const char      *bank_pack,
           GError         **error)
{
  const char *id = json_object_get_string_member_with_default (entry, "id", NULL);
  const char *map = json_object_get_string_member_with_default (entry, "map", NULL);
  const char *base = json_object_get_string_member_with_default (entry, "base", NULL);
  JsonObject *options = json_object_get_object_member (entry, "options");
  g_autofree char *map_path = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObjectIter iter;
  const char *name, *tag, *pack;
  JsonNode *node;
  gboolean prebake;

  if (id == NULL || map == NULL || base == NULL || options == NULL ||
      !g_str_has_prefix (base, "https://") || !g_str_has_suffix (base, "/") ||
      strchr (id, '/') != NULL || strchr (map, '/') != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "library.json has an invalid pack");
      return FALSE;
    }

  map_path = g_strconcat ("maps/", map, NULL);
  if ((root = load_json (map_path, error)) == NULL)
    return FALSE;

  pack = intern (self, id);
  prebake = json_object_get_boolean_member_with_default (options, "prebake", FALSE);
  tag = intern (self, json_object_get_string_member_with_default (options, "tag", NULL));
  g_ptr_array_add (self->packs, (char *)pack);
  g_hash_table_replace (self->bases, (char *)pack, (char *)intern (self, base));

  json_object_iter_init_ordered (&iter, json_node_get_object (root));
  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      SjLibrarySound *sound;

      /* The map's own base, not a sound (see data/sounds/README.md). */
      if (g_str_equal (name, "_base"))
        continue;

      sound = register_sound (self, name, g_str_has_prefix (name, "wt_") ? "wavetable" : "sample", pack, prebake, tag);
      if (JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *notes = json_node_get_object (node);
          g_autoptr(GArray) array = g_array_new (FALSE, TRUE, sizeof (SjLibraryNote));
          JsonObjectIter note_iter;
          const char *note_name;
          JsonNode *files;

          json_object_iter_init_ordered (&note_iter, notes);
          while (json_object_iter_next_ordered (&note_iter, &note_name, &files))
            {
              SjLibraryNote note = { intern (self, note_name), sj_sound_library_note_to_midi (note_name), NULL, 0 };

              /* getCommonSampleInfo() skips "_" keys and needs notes. */
              if (note_name[0] == '_')
                continue;
              if (isnan (note.midi) || (note.files = read_paths (self, files, &note.n_files)) == NULL ||
                  note.n_files == 0)
                {
                  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: bad note %s", name, note_name);
                  return FALSE;
                }
              g_array_append_val (array, note);
            }
          sound->n_notes = array->len;
          sound->notes = (const SjLibraryNote *)g_array_free (g_steal_pointer (&array), FALSE);
          g_ptr_array_add (self->allocations, (gpointer)sound->notes);
          sound->count = sound->n_notes;
          for (guint i = 0; i < sound->n_notes; i++)
            for (guint f = 0; f < sound->notes[i].n_files; f++)
              if (!add_file (self, sound, sound->notes[i].files[f], f, sound->notes[i].name, error))
                return FALSE;
        }
      else
        {
          if ((sound->files = read_paths (self, node, &sound->n_files)) == NULL)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "wrong sample map format for %s", name);
              return FALSE;
            }
          sound->count = sound->n_files;
          for (guint f = 0; f < sound->n_files; f++)
            if (!add_file (self, sound, sound->files[f], f, NULL, error))
              return FALSE;
        }

      /* The machines of the pack that the bank aliases follow are the
       * banks: "RolandTR909_bd" is s("bd").bank("RolandTR909"). */
      if (g_strcmp0 (pack, bank_pack) == 0)
        {
          const char *underscore = strchr (sound->name, '_');

          if (underscore != NULL && underscore != sound->name && underscore[1] != '\0')
            {
              g_autofree char *bank = g_strndup (sound->name, underscore - sound->name);

              sound->bank = intern (self, bank);
              sound->bank_sound = intern (self, underscore + 1);
            }
        }
    }

  return TRUE;
}

/* registerSoundfonts(): gm_* names, each with its fonts (<font>.js). */
static gboolean
load_soundfonts (SjSoundLibrary  *self,
                 JsonObject      *entry,
                 GError         **error)
{
  const char *base = entry ? json_object_get_string_member_with_default (entry, "base", NULL) : NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *fonts;
  JsonObjectIter iter;
  const char *name, *pack;
  JsonNode *node;

  if (base == NULL || !g_str_has_prefix (base, "https://") || !g_str_has_suffix (base, "/"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "library.json has no soundfont base");
      return FALSE;
    }
  if ((bytes = sj_bundled_data_lookup ("runtime-scope.json", error)) == NULL)
    return FALSE;
  if ((root = sj_json_parse_bytes (bytes, NULL, error)) == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (root) ||
      (fonts = json_object_get_object_member (json_node_get_object (root), "soundfonts")) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the runtime scope lists no soundfonts");
      return FALSE;
    }

  pack = intern (self, SJ_SOUND_LIBRARY_SOUNDFONTS);
  g_ptr_array_add (self->packs, (char *)pack);
  g_hash_table_replace (self->bases, (char *)pack, (char *)intern (self, base));

  json_object_iter_init_ordered (&iter, fonts);
  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      SjLibrarySound *sound = register_sound (self, name, "soundfont", pack, TRUE, NULL);
      const char **files;
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s has no fonts", name);
          return FALSE;
        }
      array = json_node_get_array (node);
      files = g_new0 (const char *, json_array_get_length (array) + 1);
      g_ptr_array_add (self->allocations, files);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          const char *font = json_array_get_string_element (array, i);
          g_autofree char *file = NULL;

          if (font == NULL || strchr (font, '/') != NULL || strchr (font, '%') != NULL)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s has a bad font name", name);
              return FALSE;
            }
          file = g_strconcat (font, ".js", NULL);
          files[i] = copy (self, file);
          if (!add_file (self, sound, files[i], i, NULL, error))
            return FALSE;
        }
      sound->files = files;
      sound->n_files = sound->count = json_array_get_length (array);
    }

  return TRUE;
}

/* aliasBankMap(): for every sound "<bank>_<suffix>" whose bank is aliased,
 * "<alias>_<suffix>" becomes the same sound. Like the JavaScript, only the
 * text up to a second "_" is the suffix, and sounds added on the way are not
 * visited again. */
static gboolean
load_aliases (SjSoundLibrary  *self,
              JsonObject      *entry,
              GError         **error)
{
  const char *map = json_object_get_string_member_with_default (entry, "map", NULL);
  g_autoptr(GHashTable) aliases = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *map_path = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  guint n_sounds = self->sounds->len;

  if (map == NULL || strchr (map, '/') != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "library.json has no alias map");
      return FALSE;
    }
  map_path = g_strconcat ("maps/", map, NULL);
  if ((root = load_json (map_path, error)) == NULL)
    return FALSE;

  json_object_iter_init_ordered (&iter, json_node_get_object (root));
  while (json_object_iter_next_ordered (&iter, &name, &node))
    g_hash_table_replace (aliases, g_utf8_strdown (name, -1), node);

  for (guint i = 0; i < n_sounds; i++)
    {
      const SjLibrarySound *sound = g_ptr_array_index (self->sounds, i);
      const char *underscore = strchr (sound->name, '_');
      g_autofree char *bank = NULL;
      g_autofree char *suffix = NULL;
      JsonNode *value;
      guint n_values;

      if (underscore == NULL || underscore[1] == '\0' || underscore[1] == '_')
        continue;
      bank = g_strndup (sound->name, underscore - sound->name);
      if ((value = g_hash_table_lookup (aliases, bank)) == NULL)
        continue;
      suffix = g_strndup (underscore + 1, strcspn (underscore + 1, "_"));

      n_values = JSON_NODE_HOLDS_ARRAY (value) ? json_array_get_length (json_node_get_array (value)) : 1;
      for (guint v = 0; v < n_values; v++)
        {
          const char *alias = JSON_NODE_HOLDS_ARRAY (value)
                                ? json_array_get_string_element (json_node_get_array (value), v)
                                : json_node_get_string (value);
          g_autofree char *alias_bank = NULL;
          g_autofree char *alias_name = NULL;
          SjLibrarySound *alias_sound;

          if (alias == NULL)
            continue;
          alias_bank = g_utf8_strdown (alias, -1);
          alias_name = g_strconcat (alias_bank, "_", suffix, NULL);
          alias_sound = g_memdup2 (sound, sizeof *sound);
          alias_sound->name = copy (self, alias_name);
          alias_sound->alias_of = sound->alias_of != NULL ? sound->alias_of : sound;
          alias_sound->bank = intern (self, alias_bank);
          alias_sound->bank_sound = intern (self, suffix);
          g_ptr_array_add (self->sounds, alias_sound);
          g_hash_table_replace (self->by_name, (char *)alias_sound->name, alias_sound);
        }
    }

  return TRUE;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *)a, *(const char * const *)b);
}

static void
collect_banks (SjSoundLibrary *self)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < self->sounds->len; i++)
    {
      const SjLibrarySound *sound = g_ptr_array_index (self->sounds, i);

      if (sound->bank != NULL && g_hash_table_add (seen, (char *)sound->bank))
        g_ptr_array_add (self->banks, (char *)sound->bank);
    }
  g_ptr_array_sort (self->banks, compare_strings);
  g_ptr_array_add (self->banks, NULL);
  g_ptr_array_add (self->packs, NULL);
}

/**
 * _sj_sound_library_load:
 *
 * Registers the packs of library.json in their order, the soundfonts, and
 * then the bank aliases, as the website's prebake does.
 */
gboolean
_sj_sound_library_load (SjSoundLibrary  *self,
                        GError         **error)
{
  g_autoptr(JsonNode) root = NULL;
  const char *bank_pack = NULL;
  JsonObject *library, *aliases;
  JsonArray *packs;

  if ((root = load_json ("library.json", error)) == NULL)
    return FALSE;
  library = json_node_get_object (root);
  packs = json_object_get_array_member (library, "packs");
  aliases = json_object_get_object_member (library, "aliases");
  if (packs == NULL || aliases == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "library.json has no packs or aliases");
      return FALSE;
    }
  /* The machines of the pack that the bank aliases follow are the banks. */
  bank_pack = json_object_get_string_member_with_default (aliases, "after", NULL);

  for (guint i = 0; i < json_array_get_length (packs); i++)
    {
      JsonNode *node = json_array_get_element (packs, i);

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "library.json has an invalid pack");
          return FALSE;
        }
      if (!load_pack (self, json_node_get_object (node), bank_pack, error))
        return FALSE;
    }

  /* The website registers the soundfonts too, and aliases banks once
   * everything is registered. */
  if (!load_soundfonts (self, json_object_get_object_member (library, "soundfonts"), error) ||
      !load_aliases (self, aliases, error))
    return FALSE;

  collect_banks (self);

  return TRUE;
}
