/* sj-drum-kit.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The drum kit compiled into the program: WAVs synthesized at build time
 * by kit/sj-drum-synth.c, so that bd, sd, hh and the rest play without any
 * network.  The kit's manifest, kit.json, is the one list of its voices
 * and their variants; it is read once, on first use.
 */

#include "config.h"

#include <json-glib/json-glib.h>

#include "sj-drum-kit-private.h"
#include "sj-json.h"
#include "sj-kit-resources.h"

typedef struct
{
  GPtrArray  *names;    /* (element-type utf8), NULL-terminated, in the manifest's order */
  GHashTable *variants; /* voice → GPtrArray of resource paths */
} Kit;

/**
 * sj_drum_kit_register:
 *
 * Registers the kit's resource once, so that its files can also be looked
 * up by path under %SJ_DRUM_KIT_RESOURCE_PATH (for serving them to the
 * page).  The other functions call it themselves.
 */
void
sj_drum_kit_register (void)
{
  static gsize registered = 0;

  if (g_once_init_enter (&registered))
    {
      sj_kit_register_resource ();
      g_once_init_leave (&registered, 1);
    }
}

static Kit *
kit_load (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  Kit *kit = g_new0 (Kit, 1);
  JsonObject *voices = NULL;
  g_autoptr(GList) members = NULL;

  kit->names = g_ptr_array_new ();
  kit->variants = g_hash_table_new (g_str_hash, g_str_equal);

  bytes = g_resources_lookup_data (SJ_DRUM_KIT_RESOURCE_PATH "kit.json", G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (bytes != NULL)
    root = sj_json_parse_bytes (bytes, NULL, &error);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    {
      JsonObject *object = json_node_get_object (root);

      if (json_object_has_member (object, "voices") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "voices")))
        voices = json_object_get_object_member (object, "voices");
    }

  /* The manifest is generated with the files; a broken one is a build
   * bug, worth a critical rather than a silent empty kit. */
  if (voices == NULL)
    {
      g_critical ("The drum kit's manifest cannot be read: %s", error != NULL ? error->message : "no voices");
      g_ptr_array_add (kit->names, NULL);
      return kit;
    }

  /* json-glib keeps members in the order they were read: the kit's own. */
  members = json_object_get_members (voices);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *voice = l->data;
      JsonNode *node = json_object_get_member (voices, voice);
      JsonArray *files;
      GPtrArray *paths;
      char *name;

      if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) == 0)
        {
          g_critical ("The drum kit's voice “%s” has no files", voice);
          continue;
        }
      files = json_node_get_array (node);
      paths = g_ptr_array_new_full (json_array_get_length (files), g_free);
      for (guint i = 0; i < json_array_get_length (files); i++)
        g_ptr_array_add (paths, g_strconcat (SJ_DRUM_KIT_RESOURCE_PATH, json_array_get_string_element (files, i), NULL));

      name = g_strdup (voice);
      g_ptr_array_add (kit->names, name);
      g_hash_table_insert (kit->variants, name, paths);
    }
  g_ptr_array_add (kit->names, NULL);
  return kit;
}

/* The kit lives as long as the program, like the resource it describes. */
static const Kit *
kit_get (void)
{
  static Kit *kit = NULL;

  if (g_once_init_enter (&kit))
    {
      sj_drum_kit_register ();
      g_once_init_leave (&kit, kit_load ());
    }
  return kit;
}

/**
 * _sj_drum_kit_list_voices:
 *
 * Returns: (transfer none) (array zero-terminated=1): the kit's voice
 *   names ("bd", "sd", "hh", …) in the manifest's order, valid for the
 *   life of the program
 */
const char * const *
_sj_drum_kit_list_voices (void)
{
  return (const char * const *) kit_get ()->names->pdata;
}

/**
 * _sj_drum_kit_count:
 * @voice: a voice name, such as "bd"
 *
 * Returns: how many variants @voice has, 0 when the kit has no such voice
 */
guint
_sj_drum_kit_count (const char *voice)
{
  GPtrArray *paths;

  g_return_val_if_fail (voice != NULL, 0);

  paths = g_hash_table_lookup (kit_get ()->variants, voice);
  return paths != NULL ? paths->len : 0;
}

/**
 * sj_drum_kit_lookup:
 * @voice: a voice name, such as "bd"
 * @variant: which variant; any number, wrapped around the count as
 *   Strudel's n is (`s("bd").n(3)` on a kit of three plays variant 0,
 *   n(-1) the last)
 * @error: a #GError, %G_IO_ERROR_NOT_FOUND when there is no such voice
 *
 * Returns: (transfer full) (nullable): the variant's WAV file (16-bit PCM,
 *   mono), without a copy
 */
GBytes *
sj_drum_kit_lookup (const char  *voice,
                    int          variant,
                    GError     **error)
{
  GPtrArray *paths;
  int index;

  g_return_val_if_fail (voice != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  paths = g_hash_table_lookup (kit_get ()->variants, voice);
  if (paths == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "The drum kit has no voice “%s”", voice);
      return NULL;
    }

  /* Euclidean modulo, as Strudel's getSoundIndex: -1 is the last one. */
  index = variant % (int) paths->len;
  if (index < 0)
    index += paths->len;

  return g_resources_lookup_data (g_ptr_array_index (paths, index), G_RESOURCE_LOOKUP_FLAGS_NONE, error);
}
