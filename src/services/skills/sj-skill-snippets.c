/* sj-skill-snippets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The optional snippets of a skill: templates.strudel (complete programs,
 * each after a "// @template <title>" line) and patterns.json (named
 * snippets, each a complete program). Both are read with the loader's
 * limits (sj-skill-load.c) and refused with the same kind of error, so a
 * broken snippet file is as clear as a broken skill.json.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "sj-skill-private.h"

gboolean
_sj_skill_load_templates (SjSkill     *skill,
                          const char  *text,
                          GError     **error)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  SjSkillSnippet *current = NULL;
  GString *code = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (g_str_has_prefix (line, "// @template "))
        {
          g_autofree char *title = g_strstrip (g_strdup (line + strlen ("// @template ")));

          if (*title == '\0')
            return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_TEMPLATES, skill->name, "templates.strudel",
                         _("line %u: a template needs a title after “// @template”"), i + 1);
          if (current != NULL)
            current->code = g_strstrip (g_string_free (code, FALSE));
          current = g_new0 (SjSkillSnippet, 1);
          current->name = g_steal_pointer (&title);
          current->description = g_strdup ("");
          code = g_string_new (NULL);
          g_ptr_array_add (skill->templates, current);
          continue;
        }
      if (current == NULL)
        {
          if (*g_strstrip (lines[i]) != '\0')
            return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_TEMPLATES, skill->name, "templates.strudel",
                         _("line %u: each program must follow a “// @template <title>” line"), i + 1);
          continue;
        }
      g_string_append_printf (code, "%s\n", line);
    }
  if (current != NULL)
    current->code = g_strstrip (g_string_free (code, FALSE));

  for (guint i = 0; i < skill->templates->len; i++)
    if (*((SjSkillSnippet *) g_ptr_array_index (skill->templates, i))->code == '\0')
      return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_TEMPLATES, skill->name, "templates.strudel",
                   _("the template “%s” has no code"), ((SjSkillSnippet *) g_ptr_array_index (skill->templates, i))->name);
  if (skill->templates->len == 0)
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_TEMPLATES, skill->name, "templates.strudel",
                 _("no “// @template <title>” line"));

  return TRUE;
}

gboolean
_sj_skill_load_patterns (SjSkill     *skill,
                         const char  *text,
                         GError     **error)
{
  g_autoptr(JsonNode) root = _sj_skill_parse_json (text, skill->name, "patterns.json", error);
  JsonObject *object;
  JsonArray *array;

  if (root == NULL)
    return FALSE;
  object = json_node_get_object (root);
  if (json_object_get_size (object) != 1 || !json_object_has_member (object, "patterns") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "patterns")))
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_PATTERNS, skill->name, "patterns.json",
                 _("must be {\"patterns\": [...]} and nothing else"));

  array = json_object_get_array_member (object, "patterns");
  if (json_array_get_length (array) > SJ_SKILL_MAX_PATTERNS)
    return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_PATTERNS, skill->name, "patterns.json",
                 _("at most %d patterns"), SJ_SKILL_MAX_PATTERNS);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      g_autoptr(GList) members = NULL;
      g_autoptr(GError) local = NULL;
      SjSkillSnippet *snippet;
      const char *name, *description, *code;
      JsonObject *item;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_PATTERNS, skill->name, "patterns.json",
                     _("pattern %u must be an object"), i + 1);
      item = json_node_get_object (node);
      members = json_object_get_members (item);
      for (GList *l = members; l != NULL; l = l->next)
        if (!g_str_equal (l->data, "name") && !g_str_equal (l->data, "description") && !g_str_equal (l->data, "code"))
          return _sj_skill_fail (error, SJ_SKILL_ERROR_INVALID_PATTERNS, skill->name, "patterns.json",
                       _("pattern %u has an unknown key “%s”"), i + 1, (const char *) l->data);

      name = _sj_skill_get_string (item, "name", TRUE, 1, 60, skill->name, "patterns.json", &local);
      description = name ? _sj_skill_get_string (item, "description", FALSE, 0, 240, skill->name, "patterns.json", &local) : NULL;
      code = local == NULL ? _sj_skill_get_string (item, "code", TRUE, 1, SJ_SKILL_MAX_SNIPPETS, skill->name, "patterns.json", &local) : NULL;
      if (local != NULL)
        {
          g_propagate_error (error, g_error_new (SJ_SKILL_ERROR, SJ_SKILL_ERROR_INVALID_PATTERNS, "%s", local->message));
          return FALSE;
        }

      snippet = g_new0 (SjSkillSnippet, 1);
      snippet->name = g_strdup (name);
      snippet->description = g_strdup (description ? description : "");
      snippet->code = g_strdup (code);
      g_ptr_array_add (skill->patterns, snippet);
    }

  return TRUE;
}
