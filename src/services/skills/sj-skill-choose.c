/* sj-skill-choose.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Which skills join one turn's context, and how they read there. The
 * musician's pins come first (a pin is a promise), then the skills the
 * model activated earlier in the session, then those the message's words
 * call for, a few at most, highest priority first. All of them share one
 * budget of rules' characters, so that a prompt built for a small local
 * model never overflows because many skills match: a skill whose rules do
 * not fit is left out, and a smaller one after it may still fit.
 */

#include "config.h"

#include <string.h>

#include "sj-skill-registry-private.h"

const char *
sj_skill_use_to_string (SjSkillUse use)
{
  switch (use)
    {
    case SJ_SKILL_USE_PINNED:
      return "pinned";
    case SJ_SKILL_USE_TOOL:
      return "tool";
    case SJ_SKILL_USE_AUTO:
    default:
      return "auto";
    }
}

static void
choice_free (gpointer data)
{
  SjSkillChoice *choice = data;

  g_object_unref (choice->skill);
  g_free (choice);
}

static gboolean
already_chosen (GPtrArray *choices,
                SjSkill   *skill)
{
  for (guint i = 0; i < choices->len; i++)
    if (((SjSkillChoice *) g_ptr_array_index (choices, i))->skill == skill)
      return TRUE;
  return FALSE;
}

static gboolean
try_add (SjSkillRegistry *self,
         GPtrArray       *choices,
         SjSkill         *skill,
         SjSkillUse       use,
         gsize           *used,
         gsize            max_chars)
{
  SjSkillChoice *choice;
  gsize size;

  if (skill == NULL || already_chosen (choices, skill) ||
      !sj_skill_registry_is_enabled (self, sj_skill_get_name (skill)))
    return FALSE;

  size = strlen (sj_skill_get_rules (skill));
  if (*used + size > max_chars)
    return FALSE;

  *used += size;
  choice = g_new0 (SjSkillChoice, 1);
  choice->skill = g_object_ref (skill);
  choice->use = use;
  g_ptr_array_add (choices, choice);

  return TRUE;
}

/* Named skills by priority, the higher first, so the budget keeps them. */
static GPtrArray *
lookup_sorted (SjSkillRegistry    *self,
               const char * const *names)
{
  GPtrArray *skills = g_ptr_array_new ();

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      SjSkill *skill = sj_skill_registry_lookup (self, names[i]);

      if (skill != NULL)
        g_ptr_array_add (skills, skill);
    }
  for (guint i = 1; i < skills->len; i++)
    for (guint j = i; j > 0 && sj_skill_get_priority (g_ptr_array_index (skills, j)) >
                              sj_skill_get_priority (g_ptr_array_index (skills, j - 1)); j--)
      {
        gpointer swap = skills->pdata[j];

        skills->pdata[j] = skills->pdata[j - 1];
        skills->pdata[j - 1] = swap;
      }

  return skills;
}

/**
 * sj_skill_registry_choose:
 * @message: the musician's message
 * @pinned: (nullable): the names pinned to the session
 * @activated: (nullable): the names the model activated in the session
 * @max_auto: the most skills the message's words may add
 * @max_chars: the most characters of rules in all
 *
 * Returns: (transfer full) (element-type SjSkillChoice): the turn's
 *   skills, in the order their rules go into the context
 */
GPtrArray *
sj_skill_registry_choose (SjSkillRegistry    *self,
                          const char         *message,
                          const char * const *pinned,
                          const char * const *activated,
                          guint               max_auto,
                          gsize               max_chars)
{
  GPtrArray *choices = g_ptr_array_new_with_free_func (choice_free);
  g_autoptr(GPtrArray) pins = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  gsize used = 0;
  guint automatic = 0;

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  pins = lookup_sorted (self, pinned);
  for (guint i = 0; i < pins->len; i++)
    try_add (self, choices, g_ptr_array_index (pins, i), SJ_SKILL_USE_PINNED, &used, max_chars);

  tools = lookup_sorted (self, activated);
  for (guint i = 0; i < tools->len; i++)
    try_add (self, choices, g_ptr_array_index (tools, i), SJ_SKILL_USE_TOOL, &used, max_chars);

  matches = sj_skill_registry_match (self, message);
  for (guint i = 0; i < matches->len && automatic < max_auto; i++)
    if (try_add (self, choices, g_ptr_array_index (matches, i), SJ_SKILL_USE_AUTO, &used, max_chars))
      automatic++;

  return choices;
}

/**
 * sj_skill_choices_format:
 *
 * Returns: (transfer full): the `<skills>` block of a user message, or ""
 *   when there are no skills
 */
char *
sj_skill_choices_format (GPtrArray *choices)
{
  GString *text;

  if (choices == NULL || choices->len == 0)
    return g_strdup ("");

  text = g_string_new ("<skills>\n");
  for (guint i = 0; i < choices->len; i++)
    {
      SjSkillChoice *choice = g_ptr_array_index (choices, i);
      g_autofree char *title = g_markup_escape_text (sj_skill_get_title (choice->skill), -1);

      g_string_append_printf (text, "<skill name=\"%s\" title=\"%s\" why=\"%s\">\n%s\n</skill>\n",
                              sj_skill_get_name (choice->skill), title,
                              sj_skill_use_to_string (choice->use), sj_skill_get_rules (choice->skill));
    }
  g_string_append (text, "</skills>");

  return g_string_free (text, FALSE);
}
