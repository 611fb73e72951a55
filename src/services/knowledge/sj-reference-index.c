/* sj-reference-index.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Strudel reference, read from the doc.json that the build generates
 * from the very packages the page bundles, normalised the way the REPL's
 * reference tab shows it: names not starting with "_" that carry a
 * description, with plain-text descriptions, typed params, examples and
 * tags.  Each entry also knows whether the bundled runtime really has it:
 * some packages (motion sensors, MIDI) are documented upstream but not
 * bundled, and a name that cannot be called must never be reported as
 * valid.
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "sj-bundled-data.h"
#include "sj-fuzzy.h"
#include "sj-json.h"
#include "sj-html-text.h"
#include "sj-reference-index.h"

struct _SjReferenceIndex
{
  GObject     parent_instance;

  GPtrArray  *entries;    /* of SjReferenceEntry */
  GPtrArray  *texts;      /* lower-cased searchable text per entry */
  GArray     *keys;       /* of SjReferenceKey */
  GStringChunk *strings;  /* backing store of the keys' lower-cased names */
  GHashTable *by_key;     /* lower-cased name or synonym → key position + 1 */
  GHashTable *globals;    /* runtime global names */
  GHashTable *methods;    /* runtime Pattern.prototype names */
  GHashTable *words;      /* description word → GArray of entry positions */
};

G_DEFINE_FINAL_TYPE (SjReferenceIndex, sj_reference_index, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-reference-index-error-quark, sj_reference_index_error)

static void
param_free (gpointer data)
{
  SjReferenceParam *param = data;

  g_free (param->name);
  g_free (param->types);
  g_free (param->description);
  g_free (param);
}

static void
entry_free (gpointer data)
{
  SjReferenceEntry *entry = data;

  g_free (entry->name);
  g_strfreev (entry->synonyms);
  g_free (entry->description);
  g_ptr_array_unref (entry->params);
  g_strfreev (entry->examples);
  g_strfreev (entry->tags);
  g_free (entry->source);
  g_free (entry);
}

static void
sj_reference_index_finalize (GObject *object)
{
  SjReferenceIndex *self = (SjReferenceIndex *)object;

  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->texts, g_ptr_array_unref);
  g_clear_pointer (&self->keys, g_array_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);
  g_clear_pointer (&self->by_key, g_hash_table_unref);
  g_clear_pointer (&self->globals, g_hash_table_unref);
  g_clear_pointer (&self->methods, g_hash_table_unref);
  g_clear_pointer (&self->words, g_hash_table_unref);

  G_OBJECT_CLASS (sj_reference_index_parent_class)->finalize (object);
}

static void
sj_reference_index_class_init (SjReferenceIndexClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_reference_index_finalize;
}

static void
sj_reference_index_init (SjReferenceIndex *self)
{
  self->entries = g_ptr_array_new_with_free_func (entry_free);
  self->texts = g_ptr_array_new_with_free_func (g_free);
  self->keys = g_array_new (FALSE, FALSE, sizeof (SjReferenceKey));
  self->strings = g_string_chunk_new (4096);
  self->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  self->globals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->methods = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->words = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
}

/* Indexes the words of at least four letters of an entry's text, so that
 * an unknown name made of real words ("trancegate") can lead to the
 * functions whose documentation uses them ("gate"). */
static void
index_words (SjReferenceIndex *self,
             const char       *text,
             guint             entry)
{
  const char *p = text;

  while (*p != '\0')
    {
      const char *start;

      while (*p != '\0' && !g_ascii_isalnum (*p))
        p++;
      start = p;
      while (g_ascii_isalnum (*p))
        p++;

      if (p - start >= 4 && p - start <= 32)
        {
          g_autofree char *word = g_strndup (start, p - start);
          GArray *entries = g_hash_table_lookup (self->words, word);

          if (entries == NULL)
            {
              entries = g_array_new (FALSE, FALSE, sizeof (guint));
              g_hash_table_insert (self->words, g_steal_pointer (&word), entries);
            }
          if (entries->len == 0 || g_array_index (entries, guint, entries->len - 1) != entry)
            g_array_append_val (entries, entry);
        }
    }
}

/* Appends the strings of @array to @into, skipping duplicates and, for
 * tags, normalising objects to their value or text (jsdoc gives unknown
 * tags as objects; their title says what they are when both are empty). */
static void
collect_strings (GPtrArray  *into,
                 JsonArray  *array,
                 gboolean    tags)
{
  if (array == NULL)
    return;

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      const char *text = NULL;

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        text = json_node_get_string (node);
      else if (tags && JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *tag = json_node_get_object (node);
          const char *candidates[] = { "value", "text", "originalTitle", "title" };

          for (guint c = 0; c < G_N_ELEMENTS (candidates) && (text == NULL || *text == '\0'); c++)
            text = sj_json_object_get_string (tag, candidates[c]);
        }

      if (text == NULL)
        continue;

      {
        g_autofree char *stripped = g_strstrip (g_strdup (text));
        gboolean seen = FALSE;

        if (*stripped == '\0')
          continue;

        for (guint j = 0; j < into->len && !seen; j++)
          seen = g_str_equal (g_ptr_array_index (into, j), stripped);
        if (!seen)
          g_ptr_array_add (into, g_steal_pointer (&stripped));
      }
    }
}

static char **
strv_from_array (GPtrArray *array)
{
  g_ptr_array_add (array, NULL);
  return (char **)g_ptr_array_free (array, FALSE);
}

static GPtrArray *
parse_params (JsonArray *array)
{
  GPtrArray *params = g_ptr_array_new_with_free_func (param_free);

  if (array == NULL)
    return params;

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *object;
      JsonObject *type;
      SjReferenceParam *param;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      object = json_node_get_object (node);
      param = g_new0 (SjReferenceParam, 1);
      param->name = g_strdup (sj_json_object_get_string (object, "name"));
      param->description = sj_html_to_text (sj_json_object_get_string (object, "description"));

      if (json_object_has_member (object, "type") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "type")) &&
          (type = json_object_get_object_member (object, "type")) != NULL)
        {
          g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          g_auto(GStrv) strv = NULL;

          collect_strings (names, sj_json_object_get_array (type, "names"), FALSE);
          strv = strv_from_array (g_steal_pointer (&names));
          if (strv[0] != NULL)
            param->types = g_strjoinv (" | ", strv);
        }

      g_ptr_array_add (params, param);
    }

  return params;
}

static void
load_scope (GHashTable *set,
            JsonObject *scope,
            const char *member)
{
  JsonArray *array = sj_json_object_get_array (scope, member);

  if (array == NULL)
    return;

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        g_hash_table_add (set, g_strdup (json_node_get_string (node)));
    }
}

static gboolean
in_scope (SjReferenceIndex *self,
          const char       *name)
{
  return g_hash_table_contains (self->globals, name) ||
         g_hash_table_contains (self->methods, name);
}

static void
add_key (SjReferenceIndex *self,
         const char       *name,
         guint             entry,
         gboolean          is_synonym)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);
  SjReferenceKey key = { 0 };

  /* The first owner of a name keeps it: a name beats a synonym because all
   * names are added before any synonym. */
  if (g_hash_table_contains (self->by_key, lower))
    return;

  key.lower = g_string_chunk_insert_const (self->strings, lower);
  key.len = strlen (lower);
  key.mask = sj_fuzzy_mask (lower, key.len);
  key.entry = entry;
  key.is_synonym = is_synonym;
  key.callable = in_scope (self, name);

  g_array_append_val (self->keys, key);
  g_hash_table_insert (self->by_key, (gpointer)key.lower, GUINT_TO_POINTER (self->keys->len));
}

static char *
searchable_text (const SjReferenceEntry *entry)
{
  g_autoptr(GString) text = g_string_new (entry->name);

  for (guint i = 0; entry->synonyms[i] != NULL; i++)
    g_string_append_printf (text, " %s", entry->synonyms[i]);
  for (guint i = 0; entry->tags[i] != NULL; i++)
    g_string_append_printf (text, " %s", entry->tags[i]);
  g_string_append_printf (text, " %s", entry->description);

  return g_ascii_strdown (text->str, text->len);
}

/* Merges a second doclet with the same name into @entry: jsdoc emits one
 * per declaration, and the reference tab would otherwise list the name
 * twice. */
static void
merge_doclet (SjReferenceEntry *entry,
              JsonObject       *doclet)
{
  g_autoptr(GPtrArray) synonyms = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) examples = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; entry->synonyms[i] != NULL; i++)
    g_ptr_array_add (synonyms, g_strdup (entry->synonyms[i]));
  for (guint i = 0; entry->examples[i] != NULL; i++)
    g_ptr_array_add (examples, g_strdup (entry->examples[i]));

  collect_strings (synonyms, sj_json_object_get_array (doclet, "synonyms"), FALSE);
  collect_strings (examples, sj_json_object_get_array (doclet, "examples"), FALSE);

  g_strfreev (entry->synonyms);
  g_strfreev (entry->examples);
  entry->synonyms = strv_from_array (g_steal_pointer (&synonyms));
  entry->examples = strv_from_array (g_steal_pointer (&examples));

  if (entry->params->len == 0)
    {
      g_ptr_array_unref (entry->params);
      entry->params = parse_params (sj_json_object_get_array (doclet, "params"));
    }
}

/**
 * sj_reference_index_new:
 * @doc_json: the jsdoc-json output (`{"docs": [...]}`)
 * @runtime_scope: (nullable): `{"globals": [...], "methods": [...]}`, the
 *   names the bundled runtime really has; without it nothing is callable
 *
 * Builds the index.  Doclets that the reference tab would hide (no name, a
 * name starting with "_", no description) are left out.
 */
SjReferenceIndex *
sj_reference_index_new (GBytes  *doc_json,
                        GBytes  *runtime_scope,
                        GError **error)
{
  g_autoptr(SjReferenceIndex) self = g_object_new (SJ_TYPE_REFERENCE_INDEX, NULL);
  g_autoptr(GHashTable) positions = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(JsonNode) root = NULL;
  JsonArray *docs;

  g_return_val_if_fail (doc_json != NULL, NULL);

  if (runtime_scope != NULL)
    {
      g_autoptr(JsonNode) scope = sj_json_parse_bytes (runtime_scope, NULL, error);

      if (scope == NULL)
        return NULL;
      json_node_seal (scope);
      if (!JSON_NODE_HOLDS_OBJECT (scope))
        {
          g_set_error (error, SJ_REFERENCE_INDEX_ERROR, SJ_REFERENCE_INDEX_ERROR_INVALID,
                       "The runtime scope is not a JSON object");
          return NULL;
        }
      load_scope (self->globals, json_node_get_object (scope), "globals");
      load_scope (self->methods, json_node_get_object (scope), "methods");
    }

  if ((root = sj_json_parse_bytes (doc_json, NULL, error)) == NULL)
    return NULL;

  json_node_seal (root);
  if (!JSON_NODE_HOLDS_OBJECT (root) ||
      (docs = sj_json_object_get_array (json_node_get_object (root), "docs")) == NULL)
    {
      g_set_error (error, SJ_REFERENCE_INDEX_ERROR, SJ_REFERENCE_INDEX_ERROR_INVALID,
                   "The reference has no “docs” array");
      return NULL;
    }

  for (guint i = 0; i < json_array_get_length (docs); i++)
    {
      JsonNode *node = json_array_get_element (docs, i);
      JsonObject *doclet;
      SjReferenceEntry *entry;
      const char *name;
      const char *description;
      JsonObject *meta;
      gpointer existing;
      g_autoptr(GPtrArray) synonyms = NULL;
      g_autoptr(GPtrArray) examples = NULL;
      g_autoptr(GPtrArray) tags = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      doclet = json_node_get_object (node);
      name = sj_json_object_get_string (doclet, "name");
      description = sj_json_object_get_string (doclet, "description");

      if (name == NULL || *name == '\0' || name[0] == '_' ||
          description == NULL || *description == '\0')
        continue;

      if (g_hash_table_lookup_extended (positions, name, NULL, &existing))
        {
          merge_doclet (g_ptr_array_index (self->entries, GPOINTER_TO_UINT (existing)), doclet);
          continue;
        }

      synonyms = g_ptr_array_new_with_free_func (g_free);
      examples = g_ptr_array_new_with_free_func (g_free);
      tags = g_ptr_array_new_with_free_func (g_free);
      collect_strings (synonyms, sj_json_object_get_array (doclet, "synonyms"), FALSE);
      collect_strings (examples, sj_json_object_get_array (doclet, "examples"), FALSE);
      collect_strings (tags, sj_json_object_get_array (doclet, "tags"), TRUE);

      entry = g_new0 (SjReferenceEntry, 1);
      entry->name = g_strdup (name);
      entry->synonyms = strv_from_array (g_steal_pointer (&synonyms));
      entry->description = sj_html_to_text (description);
      entry->params = parse_params (sj_json_object_get_array (doclet, "params"));
      entry->examples = strv_from_array (g_steal_pointer (&examples));
      entry->tags = strv_from_array (g_steal_pointer (&tags));

      if (json_object_has_member (doclet, "meta") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (doclet, "meta")) &&
          (meta = json_object_get_object_member (doclet, "meta")) != NULL)
        entry->source = g_strdup (sj_json_object_get_string (meta, "path"));

      g_hash_table_insert (positions, entry->name, GUINT_TO_POINTER (self->entries->len));
      g_ptr_array_add (self->entries, entry);
    }

  for (guint i = 0; i < self->entries->len; i++)
    {
      SjReferenceEntry *entry = g_ptr_array_index (self->entries, i);

      entry->callable = in_scope (self, entry->name);
      for (guint s = 0; !entry->callable && entry->synonyms[s] != NULL; s++)
        entry->callable = in_scope (self, entry->synonyms[s]);

      add_key (self, entry->name, i, FALSE);
      g_ptr_array_add (self->texts, searchable_text (entry));
      index_words (self, g_ptr_array_index (self->texts, i), i);
    }

  for (guint i = 0; i < self->entries->len; i++)
    {
      SjReferenceEntry *entry = g_ptr_array_index (self->entries, i);

      for (guint s = 0; entry->synonyms[s] != NULL; s++)
        add_key (self, entry->synonyms[s], i, TRUE);
    }

  return g_steal_pointer (&self);
}

static gpointer
load_bundled (gpointer data)
{
  g_autoptr(GBytes) doc = NULL;
  g_autoptr(GBytes) scope = NULL;
  g_autoptr(GError) error = NULL;
  SjReferenceIndex *index;

  doc = sj_bundled_data_lookup ("doc.json", &error);
  if (doc != NULL)
    scope = sj_bundled_data_lookup ("runtime-scope.json", &error);
  if (doc == NULL || scope == NULL ||
      (index = sj_reference_index_new (doc, scope, &error)) == NULL)
    g_error ("The bundled Strudel reference cannot be read: %s", error->message);

  return index;
}

/**
 * sj_reference_index_get_bundled:
 *
 * Returns: (transfer none): the index of the reference compiled into the
 * program, loaded on first use and kept for the life of the process.
 */
SjReferenceIndex *
sj_reference_index_get_bundled (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load_bundled, NULL);
  return once.retval;
}

guint
sj_reference_index_get_n_entries (SjReferenceIndex *self)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));

  return self->entries->len;
}

const SjReferenceEntry *
sj_reference_index_get_entry (SjReferenceIndex *self,
                              guint             position)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));
  g_return_val_if_fail (position < self->entries->len, NULL);

  return g_ptr_array_index (self->entries, position);
}

/* The lower-cased text a free-form query is matched against. */
const char *
sj_reference_index_get_text (SjReferenceIndex *self,
                             guint             position)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));
  g_return_val_if_fail (position < self->texts->len, NULL);

  return g_ptr_array_index (self->texts, position);
}

/**
 * sj_reference_index_lookup:
 *
 * Finds the entry named @name, or having it as a synonym, ignoring case.
 */
const SjReferenceEntry *
sj_reference_index_lookup (SjReferenceIndex *self,
                           const char       *name,
                           gboolean         *out_is_synonym)
{
  g_autofree char *lower = NULL;
  guint position;
  const SjReferenceKey *key;

  g_assert (SJ_IS_REFERENCE_INDEX (self));

  lower = g_ascii_strdown (name, -1);
  position = GPOINTER_TO_UINT (g_hash_table_lookup (self->by_key, lower));
  if (position == 0)
    return NULL;

  key = &g_array_index (self->keys, SjReferenceKey, position - 1);
  if (out_is_synonym != NULL)
    *out_is_synonym = key->is_synonym;

  return g_ptr_array_index (self->entries, key->entry);
}

const SjReferenceKey *
sj_reference_index_get_keys (SjReferenceIndex *self,
                             guint            *n_keys)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));

  *n_keys = self->keys->len;
  return (const SjReferenceKey *)(gpointer)self->keys->data;
}

/**
 * sj_reference_index_is_callable:
 *
 * Whether @name (exact case) exists in the bundled runtime, as a global or
 * as a pattern method, documented or not.
 */
gboolean
sj_reference_index_is_callable (SjReferenceIndex *self,
                                const char       *name)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));

  return in_scope (self, name);
}

/**
 * sj_reference_index_lookup_word:
 * @word_lower: a lower-cased word of at least four letters
 *
 * Returns: (nullable) (transfer none): the positions of the entries whose
 *   text uses @word_lower, in index order
 */
GArray *
sj_reference_index_lookup_word (SjReferenceIndex *self,
                                const char       *word_lower)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));

  return g_hash_table_lookup (self->words, word_lower);
}

gboolean
sj_reference_index_is_global (SjReferenceIndex *self,
                              const char       *name)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));

  return g_hash_table_contains (self->globals, name);
}

gboolean
sj_reference_index_is_method (SjReferenceIndex *self,
                              const char       *name)
{
  g_assert (SJ_IS_REFERENCE_INDEX (self));

  return g_hash_table_contains (self->methods, name);
}
