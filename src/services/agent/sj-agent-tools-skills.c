/* sj-agent-tools-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The skill tools: skills_list, what expertise the app has (name, title,
 * description, tags, and whether it is pinned or already active in the
 * session), and activate_skills, which hands the model the rules,
 * templates and patterns of skills it names or tags it gives, and makes
 * them the session's (the agent adds their rules to the following turns).
 * A name that is not a skill gets a structured error with the closest
 * names, so a weak model recovers in one more call. What one call
 * returns is bounded, whatever the skills hold.
 */

#include "config.h"

#include <string.h>

#include "sj-agent-tools-private.h"

/* At most this many skills per activation, and this much of each. */
#define MAX_ACTIVATE       4
#define MAX_NAMES          8
#define MAX_RULES_CHARS    4000
#define MAX_SNIPPET_CHARS  2000
#define MAX_TEMPLATES      3
#define MAX_PATTERNS       6

static void
finish_error (GTask         *task,
              SjToolOutcome *outcome,
              const char    *code,
              const char    *message,
              JsonObject    *details)
{
  JsonObject *error = details != NULL ? details : json_object_new ();

  json_object_set_string_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  outcome->status = SJ_HISTORY_TOOL_FAILED;
  outcome->result = json_object_new ();
  json_object_set_string_member (outcome->result, "status", "error");
  json_object_set_object_member (outcome->result, "error", error);
  _sj_agent_tools_finish_outcome (task, outcome);
  g_object_unref (task);
}

static gboolean
no_skills (SjAgentTools  *self,
           SjToolOutcome *outcome,
           GTask         *task)
{
  if (self->skills != NULL)
    return FALSE;

  finish_error (task, outcome, "SKILLS_UNAVAILABLE", "This app has no skills loaded; carry on without them.", NULL);
  return TRUE;
}

static JsonArray *
strv_to_array (const char * const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);

  return array;
}

static gboolean
contains (GStrv       strv,
          const char *name)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, name);
}

void
_sj_agent_tools_run_skills_list (SjAgentTools  *self,
                                 SjToolOutcome *outcome,
                                 JsonNode      *arguments,
                                 GTask         *task)
{
  JsonObject *input = json_node_get_object (arguments);
  JsonNode *tag_node = json_object_get_member (input, "tag");
  const char *tag = NULL;
  JsonArray *list;
  guint n;

  if (no_skills (self, outcome, task))
    return;
  if (tag_node != NULL && !JSON_NODE_HOLDS_NULL (tag_node))
    {
      if (!JSON_NODE_HOLDS_VALUE (tag_node) || json_node_get_value_type (tag_node) != G_TYPE_STRING)
        {
          finish_error (task, outcome, "INVALID_ARGUMENTS", "“tag” must be a string, such as \"genre\" or \"technique\".", NULL);
          return;
        }
      tag = json_node_get_string (tag_node);
    }

  list = json_array_new ();
  n = g_list_model_get_n_items (G_LIST_MODEL (self->skills));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SjSkill) skill = g_list_model_get_item (G_LIST_MODEL (self->skills), i);
      const char *name = sj_skill_get_name (skill);
      JsonObject *item;

      if (!sj_skill_registry_is_enabled (self->skills, name) || (tag != NULL && !sj_skill_has_tag (skill, tag)))
        continue;

      item = json_object_new ();
      json_object_set_string_member (item, "name", name);
      json_object_set_string_member (item, "title", sj_skill_get_title (skill));
      json_object_set_string_member (item, "description", sj_skill_get_description (skill));
      json_object_set_array_member (item, "tags", strv_to_array (sj_skill_get_tags (skill)));
      json_object_set_boolean_member (item, "pinned", contains (self->pinned_skills, name));
      json_object_set_boolean_member (item, "active", contains (self->pinned_skills, name) ||
                                                      contains (self->activated_skills, name));
      json_array_add_object_element (list, item);
    }

  outcome->result = json_object_new ();
  json_object_set_string_member (outcome->result, "status", "ok");
  json_object_set_array_member (outcome->result, "skills", list);
  json_object_set_string_member (outcome->result, "note",
                                 "Active skills' rules come with each message. Call activate_skills with names or tags "
                                 "to get a skill's rules, templates and patterns.");
  _sj_agent_tools_finish_outcome (task, outcome);
  g_object_unref (task);
}

/* The strings of an optional array argument, or NULL with *@bad set. */
static GStrv
get_names (JsonObject *input,
           const char *key,
           gboolean   *bad)
{
  JsonNode *node = json_object_get_member (input, key);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strv_builder_end (builder);
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      *bad = TRUE;
      return NULL;
    }

  array = json_node_get_array (node);
  if (json_array_get_length (array) > MAX_NAMES)
    {
      *bad = TRUE;
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
        {
          *bad = TRUE;
          return NULL;
        }
      g_strv_builder_add (builder, json_node_get_string (item));
    }

  return g_strv_builder_end (builder);
}

static char *
bounded (const char *text,
         gsize       max)
{
  g_autofree char *start = NULL;

  if (g_utf8_strlen (text, -1) <= (glong) max)
    return g_strdup (text);
  start = g_utf8_substring (text, 0, max);
  return g_strconcat (start, "…", NULL);
}

static JsonObject *
describe_skill (SjSkill *skill)
{
  JsonObject *item = json_object_new ();
  JsonArray *templates = json_array_new ();
  JsonArray *patterns = json_array_new ();
  GPtrArray *snippets;
  g_autofree char *rules = bounded (sj_skill_get_rules (skill), MAX_RULES_CHARS);

  json_object_set_string_member (item, "name", sj_skill_get_name (skill));
  json_object_set_string_member (item, "title", sj_skill_get_title (skill));
  json_object_set_string_member (item, "rules", rules);

  snippets = sj_skill_get_templates (skill);
  for (guint i = 0; i < snippets->len && json_array_get_length (templates) < MAX_TEMPLATES; i++)
    {
      SjSkillSnippet *snippet = g_ptr_array_index (snippets, i);
      JsonObject *out;

      if (strlen (snippet->code) > MAX_SNIPPET_CHARS)
        continue;
      out = json_object_new ();
      json_object_set_string_member (out, "title", snippet->name);
      json_object_set_string_member (out, "code", snippet->code);
      json_array_add_object_element (templates, out);
    }
  snippets = sj_skill_get_patterns (skill);
  for (guint i = 0; i < snippets->len && json_array_get_length (patterns) < MAX_PATTERNS; i++)
    {
      SjSkillSnippet *snippet = g_ptr_array_index (snippets, i);
      JsonObject *out;

      if (strlen (snippet->code) > MAX_SNIPPET_CHARS)
        continue;
      out = json_object_new ();
      json_object_set_string_member (out, "name", snippet->name);
      json_object_set_string_member (out, "description", snippet->description);
      json_object_set_string_member (out, "code", snippet->code);
      json_array_add_object_element (patterns, out);
    }

  json_object_set_array_member (item, "templates", templates);
  json_object_set_array_member (item, "patterns", patterns);

  return item;
}

static void
add_chosen (GPtrArray *chosen,
            SjSkill   *skill)
{
  if (chosen->len < MAX_ACTIVATE && !g_ptr_array_find (chosen, skill, NULL))
    g_ptr_array_add (chosen, skill);
}

void
_sj_agent_tools_run_activate_skills (SjAgentTools  *self,
                                     SjToolOutcome *outcome,
                                     JsonNode      *arguments,
                                     GTask         *task)
{
  JsonObject *input = json_node_get_object (arguments);
  g_autoptr(GPtrArray) chosen = g_ptr_array_new ();
  g_autoptr(GStrvBuilder) activated = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) tags = NULL;
  JsonArray *unknown = json_array_new ();
  JsonArray *skills;
  gboolean bad = FALSE;

  if (no_skills (self, outcome, task))
    {
      json_array_unref (unknown);
      return;
    }

  names = get_names (input, "names", &bad);
  tags = bad ? NULL : get_names (input, "tags", &bad);
  if (bad || (g_strv_length (names) == 0 && g_strv_length (tags) == 0))
    {
      json_array_unref (unknown);
      finish_error (task, outcome, "INVALID_ARGUMENTS",
                    "Give \"names\" (skill names from skills_list, at most 8) or \"tags\" (such as [\"genre\"]), "
                    "each an array of strings.", NULL);
      return;
    }

  for (guint i = 0; names[i] != NULL; i++)
    {
      SjSkill *skill = sj_skill_registry_lookup (self->skills, names[i]);

      if (skill != NULL && sj_skill_registry_is_enabled (self->skills, names[i]))
        add_chosen (chosen, skill);
      else
        {
          g_auto(GStrv) suggestions = sj_skill_registry_suggest (self->skills, names[i]);
          JsonObject *miss = json_object_new ();

          json_object_set_string_member (miss, "name", names[i]);
          json_object_set_string_member (miss, "reason", skill != NULL ? "disabled by the musician" : "no such skill");
          json_object_set_array_member (miss, "suggestions", strv_to_array ((const char * const *) suggestions));
          json_array_add_object_element (unknown, miss);
        }
    }
  for (guint i = 0; tags[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) tagged = sj_skill_registry_list_with_tag (self->skills, tags[i]);

      for (guint t = 0; t < tagged->len; t++)
        add_chosen (chosen, g_ptr_array_index (tagged, t));
    }

  if (chosen->len == 0)
    {
      JsonObject *details = json_object_new ();
      g_autoptr(GPtrArray) all = sj_skill_registry_search (self->skills, "");
      JsonArray *available = json_array_new ();

      for (guint i = 0; i < all->len && json_array_get_length (available) < 40; i++)
        if (sj_skill_registry_is_enabled (self->skills, sj_skill_get_name (g_ptr_array_index (all, i))))
          json_array_add_string_element (available, sj_skill_get_name (g_ptr_array_index (all, i)));
      json_object_set_array_member (details, "unknown", unknown);
      json_object_set_array_member (details, "available", available);
      finish_error (task, outcome, "UNKNOWN_SKILL",
                    "None of these is an available skill. Use a name from \"suggestions\" or \"available\", "
                    "or call skills_list.", details);
      return;
    }

  skills = json_array_new ();
  for (guint i = 0; i < chosen->len; i++)
    {
      json_array_add_object_element (skills, describe_skill (g_ptr_array_index (chosen, i)));
      g_strv_builder_add (activated, sj_skill_get_name (g_ptr_array_index (chosen, i)));
    }

  outcome->result = json_object_new ();
  json_object_set_string_member (outcome->result, "status", "ok");
  json_object_set_array_member (outcome->result, "skills", skills);
  if (json_array_get_length (unknown) > 0)
    json_object_set_array_member (outcome->result, "unknown", unknown);
  else
    json_array_unref (unknown);
  json_object_set_string_member (outcome->result, "note",
                                 "Follow these rules now; they also come with the musician's next messages.");
  outcome->skills = g_strv_builder_end (activated);

  _sj_agent_tools_finish_outcome (task, outcome);
  g_object_unref (task);
}
