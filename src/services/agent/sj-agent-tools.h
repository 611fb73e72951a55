/* sj-agent-tools.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-change-applier.h"
#include "sj-change-verify.h"
#include "sj-history-store.h"
#include "sj-knowledge.h"
#include "sj-knowledge-base.h"
#include "sj-skill-registry.h"

G_BEGIN_DECLS

/* What one tool call came to: the result the model gets back, the
 * terminal state the tool log shows, and what the agent loop needs to
 * know about it. */
typedef struct
{
  char                *name;
  char                *call_id;
  char                *arguments;      /* as the model sent them */
  JsonObject          *result;         /* sent back to the model */
  SjHistoryToolStatus  status;
  double               apply_cycle;    /* where an apply lands, NAN otherwise */
  gboolean             apply_rejected; /* a rejected apply: one repair used */
  char                *known_hash;     /* the hash of the code the model now knows, or NULL */
  gint64               started;        /* g_get_real_time () */
  gint64               duration_us;
  gint64               dry_run_us;     /* the part of it spent in the dry-run */
  GStrv                skills;         /* the skills a call activated, or NULL */
} SjToolOutcome;

void           sj_tool_outcome_free (SjToolOutcome *outcome);
SjToolOutcome *sj_tool_outcome_new_canceled (const char *name,
                                             const char *call_id,
                                             const char *arguments);
SjToolOutcome *sj_tool_outcome_new_refused  (const char *name,
                                             const char *call_id,
                                             const char *arguments,
                                             const char *code,
                                             const char *message);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjToolOutcome, sj_tool_outcome_free)

/* What a tool does besides answering the model, from the tools table. */
typedef enum
{
  SJ_AGENT_TOOL_NONE          = 0,
  SJ_AGENT_TOOL_CHANGES_MUSIC = 1 << 0,  /* a success changes the code that plays */
  SJ_AGENT_TOOL_ACTIVATES_SKILLS = 1 << 1,  /* a success brings skills into the session */
} SjAgentToolFlags;

/* Larger arguments are refused before they are parsed. */
#define SJ_AGENT_TOOLS_MAX_ARGUMENTS (512 * 1024)

#define SJ_TYPE_AGENT_TOOLS (sj_agent_tools_get_type ())

G_DECLARE_FINAL_TYPE (SjAgentTools, sj_agent_tools, SJ, AGENT_TOOLS, GObject)

SjAgentTools    *sj_agent_tools_new             (SjChangeApplier    *applier,
                                                 SjKnowledge        *knowledge,
                                                 SjKnowledgeBase    *knowledge_base);
JsonArray       *sj_agent_tools_get_definitions (void);
SjAgentToolFlags sj_agent_tools_get_flags       (const char         *name);
SjChangeApplier *sj_agent_tools_get_applier     (SjAgentTools       *self);
void             sj_agent_tools_set_skills      (SjAgentTools       *self,
                                                 SjSkillRegistry    *skills);
void             sj_agent_tools_set_levels      (SjAgentTools       *self,
                                                 SjLevels           *levels);
void             sj_agent_tools_set_verifier    (SjAgentTools       *self,
                                                 SjChangeVerifier   *verifier);
void             sj_agent_tools_set_session_skills (SjAgentTools    *self,
                                                 const char * const *pinned,
                                                 const char * const *activated);
void             sj_agent_tools_call_async      (SjAgentTools       *self,
                                                 const char         *name,
                                                 const char         *call_id,
                                                 const char         *arguments,
                                                 GCancellable       *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer            user_data);
SjToolOutcome   *sj_agent_tools_call_finish     (SjAgentTools       *self,
                                                 GAsyncResult       *result);

G_END_DECLS
