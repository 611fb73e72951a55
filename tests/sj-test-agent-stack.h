/* sj-test-agent-stack.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-agent.h"
#include "sj-change-applier.h"
#include "sj-dry-run.h"
#include "sj-history-store.h"
#include "sj-knowledge.h"
#include "sj-test-model-server.h"
#include "sj-test-target.h"

G_BEGIN_DECLS

/* What an agent stands on in the window, with the page as music in memory
 * and the model a loopback server: the tests of the agent and the chat
 * build it the same way. */
typedef struct
{
  char              *dir;        /* a temporary folder for the history */
  char              *db_path;    /* the history's file in it */
  SjTestModelServer *server;
  SjTestTarget      *target;
  SjKnowledge       *knowledge;
  SjDryRun          *dry_run;
  SjChangeApplier   *applier;
  SjHistoryStore    *store;
} SjTestAgentStack;

void     sj_test_agent_stack_init      (SjTestAgentStack *stack,
                                        const char       *code);
SjAgent *sj_test_agent_stack_new_agent (SjTestAgentStack *stack,
                                        const char       *api_key);
void     sj_test_agent_stack_clear     (SjTestAgentStack *stack);

G_END_DECLS
