/* sj-agent-tools-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tools' files share: the instance (sj-agent-tools.c holds the
 * table, sj-agent-tools-music.c the music, knowledge and listening tools,
 * sj-agent-tools-skills.c the skill tools) and the helpers that make and
 * finish an outcome.
 */

#pragma once

#include "sj-agent-tools.h"
#include "sj-change-verify.h"
#include "sj-levels.h"

G_BEGIN_DECLS

struct _SjAgentTools
{
  GObject          parent_instance;

  SjChangeApplier *applier;
  SjKnowledge     *knowledge;
  SjKnowledgeBase *knowledge_base;
  SjSkillRegistry *skills;           /* nullable */
  SjLevels        *levels;           /* nullable: what listen reads */
  SjChangeVerifier *verifier;        /* nullable: apply waits for its verdict */
  GStrv            pinned_skills;    /* the session's, as the agent last said */
  GStrv            activated_skills;
};

void _sj_agent_tools_finish_outcome (GTask         *task,
                                     SjToolOutcome *outcome);

void _sj_agent_tools_run_read_code (SjAgentTools  *self,
                                    SjToolOutcome *outcome,
                                    JsonNode      *arguments,
                                    GTask         *task);
void _sj_agent_tools_run_apply (SjAgentTools  *self,
                                SjToolOutcome *outcome,
                                JsonNode      *arguments,
                                GTask         *task);
void _sj_agent_tools_run_strudel_knowledge (SjAgentTools  *self,
                                            SjToolOutcome *outcome,
                                            JsonNode      *arguments,
                                            GTask         *task);
void _sj_agent_tools_run_search_knowledge (SjAgentTools  *self,
                                           SjToolOutcome *outcome,
                                           JsonNode      *arguments,
                                           GTask         *task);
void _sj_agent_tools_run_listen (SjAgentTools  *self,
                                 SjToolOutcome *outcome,
                                 JsonNode      *arguments,
                                 GTask         *task);
void _sj_agent_tools_run_skills_list     (SjAgentTools  *self,
                                          SjToolOutcome *outcome,
                                          JsonNode      *arguments,
                                          GTask         *task);
void _sj_agent_tools_run_activate_skills (SjAgentTools  *self,
                                          SjToolOutcome *outcome,
                                          JsonNode      *arguments,
                                          GTask         *task);

G_END_DECLS
