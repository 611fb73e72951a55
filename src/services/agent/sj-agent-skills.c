/* sj-agent-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The skills the agent brings into a turn. Each user message gets the
 * rules of the skills pinned to the session by the musician, of those the
 * model activated earlier in the session (activate_skills), and of those
 * whose triggers the message's words match, within a budget
 * (sj_skill_registry_choose()). The turn records which skills it used on
 * its answer in the store, so the chat shows them as chips, now and after
 * a reload, and the model's activations are kept with the session, so a
 * session taken up again has them too.
 *
 * Pins are the session's: a pin made before the first message (the
 * session does not exist yet) waits in memory and is written when that
 * message creates it.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-agent-private.h"

/**
 * sj_agent_set_skills:
 * @skills: (nullable): the registry, %NULL for no skills
 */
void
sj_agent_set_skills (SjAgent         *self,
                     SjSkillRegistry *skills)
{
  g_assert (SJ_IS_AGENT (self));
  g_return_if_fail (!skills || SJ_IS_SKILL_REGISTRY (skills));

  g_set_object (&self->skills, skills);
  sj_agent_tools_set_skills (self->tools, skills);
}

/**
 * sj_agent_get_skills:
 *
 * Returns: (transfer none) (nullable): the registry the agent uses
 */
SjSkillRegistry *
sj_agent_get_skills (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  return self->skills;
}

static GStrv
list_session_skills (SjAgent             *self,
                     gint64               session_id,
                     SjHistorySkillState  state)
{
  g_autoptr(GError) error = NULL;
  GStrv names;

  if (session_id == 0)
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

      for (guint i = 0; state == SJ_HISTORY_SKILL_PINNED && self->pending_pins != NULL && i < self->pending_pins->len; i++)
        g_strv_builder_add (builder, g_ptr_array_index (self->pending_pins, i));
      return g_strv_builder_end (builder);
    }

  names = sj_history_store_list_session_skills (self->store, session_id, state, &error);
  if (names == NULL)
    {
      g_warning ("Could not read the session’s skills: %s", error->message);
      names = g_new0 (char *, 1);
    }

  return names;
}

/**
 * sj_agent_get_pinned_skills:
 *
 * Returns: (transfer full): the names of the skills pinned to the current
 *   session, in the order they were pinned
 */
GStrv
sj_agent_get_pinned_skills (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  return list_session_skills (self, self->session_id, SJ_HISTORY_SKILL_PINNED);
}

/**
 * sj_agent_set_skill_pinned:
 * @name: a skill's name
 *
 * Pins a skill to the current session (or unpins it): its rules go with
 * every message of the session from the next one on.
 */
gboolean
sj_agent_set_skill_pinned (SjAgent     *self,
                           const char  *name,
                           gboolean     pinned,
                           GError     **error)
{
  g_assert (SJ_IS_AGENT (self));

  if (!sj_skill_is_valid_name (name))
    {
      g_set_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_NOT_FOUND, _("“%s” is not a skill name"), name ? name : "");
      return FALSE;
    }

  if (self->session_id != 0)
    {
      if (!sj_history_store_set_session_skill (self->store, self->session_id, name, SJ_HISTORY_SKILL_PINNED,
                                               pinned, error))
        return FALSE;
    }
  else
    {
      if (self->pending_pins == NULL)
        self->pending_pins = g_ptr_array_new_with_free_func (g_free);
      for (guint i = self->pending_pins->len; i > 0; i--)
        if (g_str_equal (g_ptr_array_index (self->pending_pins, i - 1), name))
          g_ptr_array_remove_index (self->pending_pins, i - 1);
      if (pinned)
        g_ptr_array_add (self->pending_pins, g_strdup (name));
    }

  _sj_agent_emit_pins_changed (self);
  return TRUE;
}

/**
 * _sj_agent_skills_session_created:
 *
 * The first message created the session: the pins made before it are
 * the session's now.
 */
void
_sj_agent_skills_session_created (SjAgent *self)
{
  g_autoptr(GPtrArray) pins = g_steal_pointer (&self->pending_pins);

  for (guint i = 0; pins != NULL && i < pins->len; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!sj_history_store_set_session_skill (self->store, self->session_id, g_ptr_array_index (pins, i),
                                               SJ_HISTORY_SKILL_PINNED, TRUE, &error))
        g_warning ("Could not pin a skill: %s", error->message);
    }
}

static void
record_skills (SjAgent     *self,
               SjAgentTurn *turn)
{
  g_autoptr(GError) error = NULL;

  if (turn->message_id == 0)
    return;
  if (!sj_history_store_record_message_skills (self->store, turn->message_id, turn->skills, &error))
    g_warning ("Could not record the skills of a message: %s", error->message);
  else
    _sj_agent_emit_skills_used (self, turn->message_id);
}

static void
add_use (SjAgentTurn *turn,
         SjSkill     *skill,
         const char  *how)
{
  SjHistorySkillUse *use;

  for (guint i = 0; i < turn->skills->len; i++)
    if (g_str_equal (((SjHistorySkillUse *) g_ptr_array_index (turn->skills, i))->name, sj_skill_get_name (skill)))
      return;

  use = g_new0 (SjHistorySkillUse, 1);
  use->name = g_strdup (sj_skill_get_name (skill));
  use->title = g_strdup (sj_skill_get_title (skill));
  use->how = g_strdup (how);
  g_ptr_array_add (turn->skills, use);
}

static void
update_tools (SjAgent *self,
              gint64   session_id)
{
  g_auto(GStrv) pinned = list_session_skills (self, session_id, SJ_HISTORY_SKILL_PINNED);
  g_auto(GStrv) activated = list_session_skills (self, session_id, SJ_HISTORY_SKILL_ACTIVATED);

  sj_agent_tools_set_session_skills (self->tools, (const char * const *) pinned, (const char * const *) activated);
}

/**
 * _sj_agent_skills_begin_turn:
 *
 * Chooses the turn's skills and records them on its answer.
 *
 * Returns: (transfer full) (nullable): the `<skills>` block of the user
 *   message, %NULL without skills
 */
char *
_sj_agent_skills_begin_turn (SjAgent     *self,
                             SjAgentTurn *turn)
{
  g_auto(GStrv) pinned = NULL;
  g_auto(GStrv) activated = NULL;
  g_autoptr(GPtrArray) choices = NULL;

  turn->skills = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_history_skill_use_free);
  if (self->skills == NULL)
    return NULL;

  pinned = list_session_skills (self, turn->session_id, SJ_HISTORY_SKILL_PINNED);
  activated = list_session_skills (self, turn->session_id, SJ_HISTORY_SKILL_ACTIVATED);
  sj_agent_tools_set_session_skills (self->tools, (const char * const *) pinned, (const char * const *) activated);

  choices = sj_skill_registry_choose (self->skills, turn->text, (const char * const *) pinned,
                                      (const char * const *) activated, SJ_SKILL_MAX_AUTO, SJ_SKILL_RULES_BUDGET);
  for (guint i = 0; i < choices->len; i++)
    {
      SjSkillChoice *choice = g_ptr_array_index (choices, i);

      add_use (turn, choice->skill, sj_skill_use_to_string (choice->use));
    }
  if (turn->skills->len > 0)
    record_skills (self, turn);

  return sj_skill_choices_format (choices);
}

/**
 * _sj_agent_skills_activated:
 *
 * The model activated skills with a tool: they are the session's from
 * now on, and this turn's.
 */
void
_sj_agent_skills_activated (SjAgent       *self,
                            SjAgentTurn   *turn,
                            SjToolOutcome *outcome)
{
  guint before = turn->skills != NULL ? turn->skills->len : 0;

  if (self->skills == NULL || outcome->skills == NULL || turn->skills == NULL)
    return;

  for (guint i = 0; outcome->skills[i] != NULL; i++)
    {
      SjSkill *skill = sj_skill_registry_lookup (self->skills, outcome->skills[i]);
      g_autoptr(GError) error = NULL;

      if (skill == NULL)
        continue;
      if (!sj_history_store_set_session_skill (self->store, turn->session_id, outcome->skills[i],
                                               SJ_HISTORY_SKILL_ACTIVATED, TRUE, &error))
        g_warning ("Could not keep an activated skill: %s", error->message);
      add_use (turn, skill, "tool");
    }

  update_tools (self, turn->session_id);
  if (turn->skills->len > before)
    record_skills (self, turn);
}
