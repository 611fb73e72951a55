/* sj-agent-context.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* What the model is told about the music with each user message. */
typedef struct
{
  const char *code_hash;
  gboolean    playing;
  double      cps;
  double      cycle;
  const char *quantize;       /* "next_cycle", "next_bar", "bars" */
  guint       bars;
  guint       repairs_left;
  guint       tool_calls_left;
} SjAgentEnvelope;

typedef struct _SjAgentContext SjAgentContext;

/* Roughly what fits the small and local models too, with room for the
 * answer; the agent may set its own. */
#define SJ_AGENT_CONTEXT_DEFAULT_BUDGET 24000

SjAgentContext *sj_agent_context_new                 (const char            *system_prompt);
void            sj_agent_context_free                (SjAgentContext        *self);
char           *sj_agent_context_format_envelope     (const SjAgentEnvelope *envelope);
void            sj_agent_context_add_user            (SjAgentContext        *self,
                                                      const char            *text,
                                                      const char            *envelope,
                                                      const char            *code,
                                                      const char            *code_hash,
                                                      const char            *skills);
void            sj_agent_context_add_assistant       (SjAgentContext        *self,
                                                      const char            *content,
                                                      JsonArray             *tool_calls);
void            sj_agent_context_add_tool_result     (SjAgentContext        *self,
                                                      const char            *call_id,
                                                      JsonObject            *result,
                                                      const char            *code_hash);
void            sj_agent_context_add_note            (SjAgentContext        *self,
                                                      const char            *text);
char           *sj_agent_context_rewind_to_last_user (SjAgentContext        *self,
                                                      gboolean               drop_user);
guint           sj_agent_context_estimate_tokens     (SjAgentContext        *self);
GStrv           sj_agent_context_condense            (SjAgentContext        *self,
                                                      guint                  token_budget);
JsonArray      *sj_agent_context_build_messages      (SjAgentContext        *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjAgentContext, sj_agent_context_free)

G_END_DECLS
