/* sj-remote-map.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A sample map the musician's code loads from the network
 * (samples('github:…'), samples('https://…/strudel.json')), read as
 * superdough's samples() reads it (processSampleMap() in its sampler.mjs,
 * 1.3.0): each key a sound, each value a file, a list of files or an object
 * of notes to files, a "_base" that later entries inherit, "github:" and
 * "bubo:" bases made into raw.githubusercontent.com addresses. What comes
 * from the network is untrusted: its size and nesting are checked before
 * json-glib (which recurses) sees it, then its shape, and every sound and
 * file counted against a limit.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "sj-json.h"
#include "sj-remote-map.h"

G_DEFINE_QUARK (sj-remote-map-error-quark, sj_remote_map_error)

static void
remote_sound_free (gpointer data)
{
  SjRemoteSound *sound = data;

  g_free (sound->name);
  g_free (sound->type);
  g_strfreev (sound->files);
  g_free (sound);
}

void
sj_remote_map_free (SjRemoteMap *map)
{
  if (map == NULL)
    return;

  g_free (map->url);
  g_free (map->base);
  g_clear_pointer (&map->by_name, g_hash_table_unref);
  g_clear_pointer (&map->sounds, g_ptr_array_unref);
  g_free (map);
}

/**
 * sj_remote_map_sound_name:
 *
 * Returns: (transfer full): the name superdough's registerSound() gives
 *   the key: lower-cased, each run of blanks one "_"
 */
char *
sj_remote_map_sound_name (const char *key)
{
  g_autofree char *lower = g_utf8_strdown (key, -1);
  GString *name = g_string_new (NULL);
  gboolean blank = FALSE;

  for (const char *p = lower; *p != '\0'; p++)
    {
      if (g_ascii_isspace (*p))
        {
          if (!blank)
            g_string_append_c (name, '_');
          blank = TRUE;
          continue;
        }
      blank = FALSE;
      g_string_append_c (name, *p);
    }

  return g_string_free (name, FALSE);
}

/* superdough's githubPath(base, ''): github:user/repo/branch/folder… */
static char *
github_path (const char *base)
{
  g_autofree char *path = g_strdup (base + strlen ("github:"));
  g_auto(GStrv) components = NULL;
  g_autoptr(GString) other = g_string_new (NULL);
  guint n;

  if (g_str_has_suffix (path, "/"))
    path[strlen (path) - 1] = '\0';
  components = g_strsplit (path, "/", -1);
  n = g_strv_length (components);

  for (guint i = 3; i < n; i++)
    g_string_append_printf (other, "%s/", components[i]);

  return g_strdup_printf ("https://raw.githubusercontent.com/%s/%s/%s/%s",
                          n >= 1 ? components[0] : "",
                          n >= 2 ? components[1] : "samples",
                          n >= 3 ? components[2] : "main",
                          other->str);
}

/**
 * sj_remote_map_resolve_base:
 *
 * Returns: (transfer full): @base as superdough resolves it: "bubo:x" is
 *   github:Bubobubobubobubo/dough-x, and "github:…" a
 *   raw.githubusercontent.com address; anything else as it is
 */
char *
sj_remote_map_resolve_base (const char *base)
{
  g_autofree char *resolved = NULL;

  g_return_val_if_fail (base != NULL, NULL);

  if (g_str_has_prefix (base, "bubo:"))
    {
      g_auto(GStrv) parts = g_strsplit (base, ":", 3);

      resolved = g_strdup_printf ("github:Bubobubobubobubo/dough-%s", parts[1] != NULL ? parts[1] : "");
    }
  else
    resolved = g_strdup (base);

  if (g_str_has_prefix (resolved, "github:"))
    return github_path (resolved);
  return g_steal_pointer (&resolved);
}

/**
 * sj_remote_map_base_of_url:
 *
 * Returns: (transfer full): the folder of @url without its last "/", as
 *   superdough's getBaseURL() gives it for a map fetched from @url
 */
char *
sj_remote_map_base_of_url (const char *url)
{
  g_autofree char *folder = NULL;
  const char *slash;

  g_return_val_if_fail (url != NULL, NULL);

  folder = g_uri_resolve_relative (url, ".", G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED, NULL);
  if (folder != NULL && strstr (folder, "://") != NULL)
    {
      if (g_str_has_suffix (folder, "/"))
        folder[strlen (folder) - 1] = '\0';
      return g_steal_pointer (&folder);
    }

  /* Not a URL: what getBaseURL() does with "pseudo URLs". */
  slash = strrchr (url, '/');
  return slash != NULL ? g_strndup (url, slash - url) : g_strdup ("");
}

static const char *
string_of (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

typedef struct
{
  SjRemoteMap *map;
  const char  *key;
  const char  *base;
  GPtrArray   *files;
} Reading;

static gboolean
add_file (Reading     *reading,
          const char  *path,
          GError     **error)
{
  if (path == NULL)
    {
      g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_INVALID,
                   _("“%s” is not a list of files"), reading->key);
      return FALSE;
    }
  if (strlen (path) > SJ_REMOTE_MAP_MAX_STRING)
    {
      g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_TOO_LARGE,
                   _("a file name of “%s” is longer than %u bytes"), reading->key, SJ_REMOTE_MAP_MAX_STRING);
      return FALSE;
    }
  if (++reading->map->n_files > SJ_REMOTE_MAP_MAX_FILES)
    {
      g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_TOO_LARGE,
                   _("it lists more than %u files"), SJ_REMOTE_MAP_MAX_FILES);
      return FALSE;
    }

  g_ptr_array_add (reading->files, g_strconcat (reading->base, path, NULL));
  return TRUE;
}

/* A string, or a list of strings. */
static gboolean
add_files (Reading   *reading,
           JsonNode  *node,
           GError   **error)
{
  JsonArray *array;

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        if (!add_file (reading, string_of (json_array_get_element (array, i)), error))
          return FALSE;
      return TRUE;
    }

  return add_file (reading, string_of (node), error);
}

/* One entry of the map, as processSampleMap() registers it. @base is the
 * base so far: an entry's own _base replaces it for the entries after. */
static gboolean
read_entry (SjRemoteMap  *map,
            const char   *key,
            JsonNode     *node,
            char        **base,
            GError      **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  Reading reading = { map, key, NULL, files };
  g_autofree char *resolved = NULL;
  SjRemoteSound *sound;

  if (*key == '\0' || strlen (key) > SJ_REMOTE_MAP_MAX_STRING)
    {
      g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_INVALID, _("a sound has no usable name"));
      return FALSE;
    }

  /* baseUrl = value._base || baseUrl, resolved: the entries after this
   * one keep it. A string or a list has no _base of its own. */
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      const char *own_base = string_of (json_object_get_member (json_node_get_object (node), "_base"));

      if (own_base != NULL && *own_base != '\0')
        {
          g_free (*base);
          *base = g_strdup (own_base);
        }
    }
  resolved = sj_remote_map_resolve_base (*base);
  g_free (*base);
  *base = g_steal_pointer (&resolved);
  reading.base = *base;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *note;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &note, &member))
        if (!g_str_equal (note, "_base") && !add_files (&reading, member, error))
          return FALSE;
    }
  else if (!add_files (&reading, node, error))
    return FALSE;

  if (map->sounds->len >= SJ_REMOTE_MAP_MAX_SOUNDS)
    {
      g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_TOO_LARGE,
                   _("it has more than %u sounds"), SJ_REMOTE_MAP_MAX_SOUNDS);
      return FALSE;
    }

  sound = g_new0 (SjRemoteSound, 1);
  sound->name = sj_remote_map_sound_name (key);
  sound->type = g_strdup (g_str_has_prefix (sound->name, "wt_") ? "wavetable" : "sample");
  sound->n_files = files->len;
  g_ptr_array_add (files, NULL);
  sound->files = (GStrv) g_ptr_array_free (g_steal_pointer (&files), FALSE);
  g_ptr_array_add (map->sounds, sound);
  g_hash_table_replace (map->by_name, sound->name, sound);

  return TRUE;
}

/**
 * sj_remote_map_parse:
 * @bytes: the map's JSON
 * @url: where it comes from (its base, without a _base)
 *
 * Returns: (transfer full): the sounds the map registers with their
 *   files, or %NULL with @error set (%SJ_REMOTE_MAP_ERROR)
 */
SjRemoteMap *
sj_remote_map_parse (GBytes      *bytes,
                     const char  *url,
                     GError     **error)
{
  const SjJsonLimits limits = { SJ_REMOTE_MAP_MAX_DEPTH, SJ_REMOTE_MAP_MAX_SIZE };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(SjRemoteMap) map = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *base = NULL;
  g_autofree char *limit = NULL;
  const char *data;
  const char *map_base;
  JsonObject *object;
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;
  gsize size;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (url != NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (size > SJ_REMOTE_MAP_MAX_SIZE)
    {
      limit = g_format_size_full (SJ_REMOTE_MAP_MAX_SIZE, G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_TOO_LARGE, _("it is larger than %s"), limit);
      return NULL;
    }
  if (size == 0 || (root = sj_json_parse (data, size, &limits, &local_error)) == NULL)
    {
      if (g_error_matches (local_error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP))
        g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_TOO_DEEP,
                     _("it is nested more than %u levels deep"), SJ_REMOTE_MAP_MAX_DEPTH);
      else
        g_set_error (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_INVALID, _("it is not valid JSON%s%s"),
                     local_error != NULL ? ": " : "", local_error != NULL ? local_error->message : "");
      return NULL;
    }
  json_node_seal (root);
  node = root;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, SJ_REMOTE_MAP_ERROR, SJ_REMOTE_MAP_ERROR_INVALID,
                           _("it is not a sample map (a JSON object of sounds)"));
      return NULL;
    }
  object = json_node_get_object (node);

  map = g_new0 (SjRemoteMap, 1);
  map->url = g_strdup (url);
  map->sounds = g_ptr_array_new_with_free_func (remote_sound_free);
  map->by_name = g_hash_table_new (g_str_hash, g_str_equal);

  /* samples(json, json._base || getBaseURL(url)) */
  map_base = string_of (json_object_get_member (object, "_base"));
  map->base = map_base != NULL && *map_base != '\0' ? g_strdup (map_base) : sj_remote_map_base_of_url (url);
  base = g_strdup (map->base);

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &key, &node))
    {
      /* The page leaves _base out, as it does for the library's maps: it
       * is no sound. */
      if (g_str_equal (key, "_base"))
        continue;
      if (!read_entry (map, key, node, &base, error))
        return NULL;
    }

  return g_steal_pointer (&map);
}

/* Returns: (nullable): the sound of @map named @name (in any case) */
const SjRemoteSound *
sj_remote_map_lookup (const SjRemoteMap *map,
                      const char        *name)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (map != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  key = sj_remote_map_sound_name (name);
  return g_hash_table_lookup (map->by_name, key);
}
