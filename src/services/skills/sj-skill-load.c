/* sj-skill-load.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Loading and validating one skill folder. This is the one gate every
 * skill passes, bundled, the musician's own, or one being imported (the
 * page validates an extracted archive with the same call before anything
 * is written), so it assumes nothing about what it reads: sizes are
 * checked before a file is read and read again after, JSON nesting is
 * measured on the raw text before json-glib (which recurses) sees it,
 * symlinks and sub-folders are refused rather than followed, and every
 * refusal is one SjSkillError whose message names the skill, the file and
 * the rule it broke, so that a page can show it and the musician can fix
 * it. The optional snippet files are read by sj-skill-snippets.c.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "sj-json.h"
#include "sj-skill-private.h"

static const char * const known_keys[] = {
  "name", "title", "description", "version", "tags", "triggers", "priority", NULL,
};

gboolean
sj_skill_is_valid_name (const char *name)
{
  return name != NULL &&
         g_regex_match_simple ("^[a-z0-9][a-z0-9-]{0,39}$", name, 0, 0);
}

static gboolean
is_valid_tag (const char *tag)
{
  return g_regex_match_simple ("^[a-z0-9][a-z0-9-]{0,23}$", tag, 0, 0);
}

gboolean
_sj_skill_fail (GError     **error,
                SjSkillError code,
                const char  *skill,
                const char  *file,
                const char  *format,
                ...)
{
  g_autofree char *why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);

  /* TRANSLATORS: a skill that could not be loaded: “jazz”: skill.json: why */
  g_set_error (error, SJ_SKILL_ERROR, code, _("Skill “%s”: %s: %s"), skill, file, why);
  return FALSE;
}

/* Reads a file the folder scan already sized, checking the size again in
 * case it grew, and that it is UTF-8 text. */
static char *
read_text (GFile         *folder,
           const char    *skill,
           const char    *file,
           gsize          max,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(GFile) child = g_file_get_child (folder, file);
  g_autoptr(GError) local = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (!g_file_load_contents (child, cancellable, &contents, &length, NULL, &local))
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_MISSING_FILE, skill, file, "%s", local->message);
      return NULL;
    }
  if (length > max)
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_TOO_LARGE, skill, file, _("%zu bytes, more than the %zu allowed"), length, max);
      return NULL;
    }
  if (!g_utf8_validate_len (contents, length, NULL) || memchr (contents, '\0', length) != NULL)
    {
      SjSkillError code = g_str_has_suffix (file, ".json") ? SJ_SKILL_ERROR_INVALID_JSON
                          : g_str_has_suffix (file, ".md") ? SJ_SKILL_ERROR_INVALID_MARKDOWN
                          : SJ_SKILL_ERROR_INVALID_TEMPLATES;

      _sj_skill_fail (error, code, skill, file, _("not UTF-8 text"));
      return NULL;
    }

  return g_steal_pointer (&contents);
}

JsonNode *
_sj_skill_parse_json (const char  *text,
                      const char  *skill,
                      const char  *file,
                      GError     **error)
{
  const SjJsonLimits limits = { SJ_SKILL_MAX_DEPTH, 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;

  if ((root = sj_json_parse (text, -1, &limits, &local)) == NULL)
    {
      if (g_error_matches (local, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP))
        _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_JSON, skill, file, _("nested more than %d levels deep"),
                        SJ_SKILL_MAX_DEPTH);
      else
        _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_JSON, skill, file, _("not valid JSON (%s)"), local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_JSON, skill, file, _("must be one JSON object"));
      return NULL;
    }

  return g_steal_pointer (&root);
}

const char *
_sj_skill_get_string (JsonObject  *object,
                      const char  *key,
                      gboolean     required,
                      guint        min_chars,
                      guint        max_chars,
                      const char  *skill,
                      const char  *file,
                      GError     **error)
{
  JsonNode *node = json_object_get_member (object, key);
  const char *value;
  glong chars;

  if (node == NULL)
    {
      if (required)
        _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, file, _("“%s” is missing"), key);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, file, _("“%s” must be a string"), key);
      return NULL;
    }

  value = json_node_get_string (node);
  chars = g_utf8_strlen (value, -1);
  if (chars < (glong) min_chars || chars > (glong) max_chars)
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, file,
            _("“%s” must be %u to %u characters long, it is %ld"), key, min_chars, max_chars, chars);
      return NULL;
    }

  return value;
}

static gboolean
is_blank (const char *text)
{
  for (; *text != '\0'; text++)
    if (!g_ascii_isspace (*text))
      return FALSE;
  return TRUE;
}

/* An array of strings, each checked by @check or by its length. */
static GStrv
get_strings (JsonObject  *object,
             const char  *key,
             guint        min_items,
             guint        max_items,
             guint        max_chars,
             gboolean   (*check) (const char *),
             const char  *skill,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, key);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;
  guint n;

  if (node == NULL && min_items == 0)
    return g_strv_builder_end (builder);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, "skill.json", _("“%s” must be an array of strings"), key);
      return NULL;
    }

  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n < min_items || n > max_items)
    {
      _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, "skill.json",
            _("“%s” must have %u to %u items, it has %u"), key, min_items, max_items, n);
      return NULL;
    }

  for (guint i = 0; i < n; i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *value;
      glong chars;

      if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
        {
          _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, "skill.json", _("“%s” must be an array of strings"), key);
          return NULL;
        }
      value = json_node_get_string (item);
      chars = g_utf8_strlen (value, -1);
      if (check != NULL ? !check (value) : (chars < 1 || chars > (glong) max_chars || is_blank (value)))
        {
          _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, skill, "skill.json", _("“%s” has an invalid item “%s”"), key, value);
          return NULL;
        }
      g_strv_builder_add (builder, value);
    }

  return g_strv_builder_end (builder);
}

static gboolean
load_manifest (SjSkill     *skill,
               const char  *text,
               const char  *folder_name,
               GError     **error)
{
  g_autoptr(JsonNode) root = _sj_skill_parse_json (text, folder_name, "skill.json", error);
  g_autoptr(GList) members = NULL;
  JsonObject *object;
  JsonNode *priority;
  const char *value;

  if (root == NULL)
    return FALSE;
  object = json_node_get_object (root);

  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (known_keys, l->data))
      return _sj_skill_fail (error, SJ_SKILL_ERROR_UNKNOWN_KEY, folder_name, "skill.json",
                   _("unknown key “%s” (the keys are name, title, description, version, tags, triggers and priority)"),
                   (const char *) l->data);

  if ((value = _sj_skill_get_string (object, "name", TRUE, 1, 40, folder_name, "skill.json", error)) == NULL)
    return FALSE;
  if (!sj_skill_is_valid_name (value))
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, folder_name, "skill.json",
                 _("“name” must be lowercase letters, digits and dashes, starting with a letter or digit"));
  if (!g_str_equal (value, folder_name))
    return _sj_skill_fail (error, SJ_SKILL_ERROR_NAME_MISMATCH, folder_name, "skill.json",
                 _("“name” is “%s” but the folder is “%s”"), value, folder_name);
  skill->name = g_strdup (value);

  if ((value = _sj_skill_get_string (object, "title", TRUE, 1, 60, folder_name, "skill.json", error)) == NULL)
    return FALSE;
  skill->title = g_strdup (value);
  if ((value = _sj_skill_get_string (object, "description", TRUE, 1, 240, folder_name, "skill.json", error)) == NULL)
    return FALSE;
  skill->description = g_strdup (value);
  if ((value = _sj_skill_get_string (object, "version", TRUE, 5, 32, folder_name, "skill.json", error)) == NULL)
    return FALSE;
  if (!g_regex_match_simple ("^[0-9]+\\.[0-9]+\\.[0-9]+$", value, 0, 0))
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, folder_name, "skill.json",
                 _("“version” must be MAJOR.MINOR.PATCH, such as 1.0.0"));
  skill->version = g_strdup (value);

  if ((skill->tags = get_strings (object, "tags", 0, SJ_SKILL_MAX_TAGS, 24, is_valid_tag, folder_name, error)) == NULL)
    return FALSE;
  if ((skill->triggers = get_strings (object, "triggers", 1, SJ_SKILL_MAX_TRIGGERS, 48, NULL, folder_name, error)) == NULL)
    return FALSE;

  priority = json_object_get_member (object, "priority");
  if (priority != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (priority) || json_node_get_value_type (priority) != G_TYPE_INT64 ||
          json_node_get_int (priority) < 0 || json_node_get_int (priority) > 100)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_FIELD, folder_name, "skill.json",
                     _("“priority” must be a whole number from 0 to 100"));
      skill->priority = json_node_get_int (priority);
    }

  return TRUE;
}

/* The `## Rules` section's body: from its heading to the next `## `. */
static char *
extract_section (const char *markdown,
                 const char *heading)
{
  g_auto(GStrv) lines = g_strsplit (markdown, "\n", -1);
  g_autoptr(GString) body = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));

      if (body == NULL)
        {
          if (g_ascii_strcasecmp (line, heading) == 0)
            body = g_string_new (NULL);
          continue;
        }
      if (g_str_has_prefix (line, "## ") || g_str_equal (line, "##"))
        break;
      g_string_append_printf (body, "%s\n", g_strchomp (lines[i]));
    }

  if (body == NULL)
    return NULL;
  return g_strstrip (g_string_free (g_steal_pointer (&body), FALSE));
}

static gboolean
load_markdown (SjSkill     *skill,
               char        *text,
               GError     **error)
{
  g_autofree char *rules = NULL;

  if (!g_str_has_prefix (text, "# ") || text[2] == '\n' || text[2] == '\0')
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_MARKDOWN, skill->name, "SKILL.md",
                 _("the first line must be the title, as “# %s”"), skill->title);

  rules = extract_section (text, "## Rules");
  if (rules == NULL || *rules == '\0')
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_MARKDOWN, skill->name, "SKILL.md",
                 _("a “## Rules” section with the rules is required"));

  skill->rules = g_steal_pointer (&rules);
  skill->markdown = text;
  return TRUE;
}

/* The folder's shape: regular files only, within the counts and sizes. */
static gboolean
scan_folder (GFile         *folder,
             const char    *name,
             gboolean      *has_templates,
             gboolean      *has_patterns,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) local = NULL;
  gboolean has_json = FALSE, has_markdown = FALSE;
  guint64 total = 0;
  guint count = 0;

  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                        G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, &local);
  if (children == NULL)
    return _sj_skill_fail (error, SJ_SKILL_ERROR_BAD_FOLDER, name, ".", "%s", local->message);

  for (;;)
    {
      GFileInfo *info = NULL;
      const char *file;
      guint64 size, limit;

      if (!g_file_enumerator_iterate (children, &info, NULL, cancellable, &local))
        return _sj_skill_fail (error, SJ_SKILL_ERROR_BAD_FOLDER, name, ".", "%s", local->message);
      if (info == NULL)
        break;

      file = g_file_info_get_name (info);
      if (g_file_info_get_is_symlink (info) || g_file_info_get_file_type (info) == G_FILE_TYPE_SYMBOLIC_LINK)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_BAD_FOLDER, name, file, _("symbolic links are not allowed"));
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_BAD_FOLDER, name, file, _("sub-folders are not allowed"));
      if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_BAD_FOLDER, name, file, _("only regular files are allowed"));
      if (++count > SJ_SKILL_MAX_FILES)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_BAD_FOLDER, name, ".", _("more than %d files"), SJ_SKILL_MAX_FILES);

      size = g_file_info_get_size (info);
      if (g_str_equal (file, "skill.json"))
        has_json = TRUE, limit = SJ_SKILL_MAX_JSON;
      else if (g_str_equal (file, "SKILL.md"))
        has_markdown = TRUE, limit = SJ_SKILL_MAX_MARKDOWN;
      else if (g_str_equal (file, "templates.strudel"))
        *has_templates = TRUE, limit = SJ_SKILL_MAX_SNIPPETS;
      else if (g_str_equal (file, "patterns.json"))
        *has_patterns = TRUE, limit = SJ_SKILL_MAX_SNIPPETS;
      else
        limit = SJ_SKILL_MAX_EXTRA;

      if (size > limit)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_TOO_LARGE, name, file,
                     _("%llu bytes, more than the %llu allowed"),
                     (unsigned long long) size, (unsigned long long) limit);
      total += size;
      if (total > SJ_SKILL_MAX_FOLDER)
        return _sj_skill_fail (error, SJ_SKILL_ERROR_TOO_LARGE, name, ".", _("the folder holds more than %d bytes"), SJ_SKILL_MAX_FOLDER);
    }

  if (!has_json)
    return _sj_skill_fail (error, SJ_SKILL_ERROR_MISSING_FILE, name, "skill.json", _("the file is missing"));
  if (!has_markdown)
    return _sj_skill_fail (error, SJ_SKILL_ERROR_MISSING_FILE, name, "SKILL.md", _("the file is missing"));

  return TRUE;
}

/**
 * sj_skill_load_folder:
 * @folder: a skill's folder, named after the skill
 * @origin: where it comes from, for the registry and the pages
 *
 * Loads and validates one skill. Any folder may be given, including an
 * archive just extracted for an import: nothing is followed outside it
 * and nothing is written.
 *
 * Returns: (transfer full): the skill, or %NULL with an #SjSkillError that
 *   names the skill, the file and the rule
 */
SjSkill *
sj_skill_load_folder (GFile         *folder,
                      SjSkillOrigin  origin,
                      GCancellable  *cancellable,
                      GError       **error)
{
  g_autoptr(SjSkill) skill = _sj_skill_new ();
  g_autofree char *name = g_file_get_basename (folder);
  g_autofree char *json = NULL;
  g_autofree char *markdown = NULL;
  gboolean has_templates = FALSE, has_patterns = FALSE;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  if (!scan_folder (folder, name, &has_templates, &has_patterns, cancellable, error))
    return NULL;

  if ((json = read_text (folder, name, "skill.json", SJ_SKILL_MAX_JSON, cancellable, error)) == NULL ||
      !load_manifest (skill, json, name, error))
    return NULL;

  if ((markdown = read_text (folder, name, "SKILL.md", SJ_SKILL_MAX_MARKDOWN, cancellable, error)) == NULL)
    return NULL;
  if (!load_markdown (skill, markdown, error))
    return NULL;
  markdown = NULL;  /* the skill owns it now */

  if (has_templates)
    {
      g_autofree char *text = read_text (folder, name, "templates.strudel", SJ_SKILL_MAX_SNIPPETS, cancellable, error);

      if (text == NULL || !_sj_skill_load_templates (skill, text, error))
        return NULL;
    }
  if (has_patterns)
    {
      g_autofree char *text = read_text (folder, name, "patterns.json", SJ_SKILL_MAX_SNIPPETS, cancellable, error);

      if (text == NULL || !_sj_skill_load_patterns (skill, text, error))
        return NULL;
    }

  skill->origin = origin;
  skill->folder = g_object_ref (folder);

  return g_steal_pointer (&skill);
}
