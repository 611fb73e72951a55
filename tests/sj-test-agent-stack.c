/* sj-test-agent-stack.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The agent's stack as the window builds it (the bundled knowledge, the
 * real dry-run helper, the apply pipeline with its undo timeline, a real
 * SQLite history), over a page of music in memory and a loopback model
 * server, for the tests of the agent, its skills and the chat.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sj-agent-tools.h"
#include "sj-knowledge-base.h"
#include "sj-llm-client.h"
#include "sj-reference-index.h"
#include "sj-sounds-index.h"
#include "sj-test-agent-stack.h"
#include "sj-test-files.h"
#include "sj-timeline.h"

/**
 * sj_test_agent_stack_init:
 * @code: the code the page plays at first
 *
 * Changes land on the next cycle, as by default in the app.
 */
void
sj_test_agent_stack_init (SjTestAgentStack *stack,
                          const char       *code)
{
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();
  g_autoptr(GError) error = NULL;
  SjSwapPolicy policy = { SJ_QUANTIZE_NEXT_CYCLE, 1, 4, FALSE, 1 };

  stack->dir = g_dir_make_tmp ("sj-agent-XXXXXX", &error);
  g_assert_no_error (error);
  stack->db_path = g_build_filename (stack->dir, "history.db", NULL);
  stack->server = sj_test_model_server_new ();
  stack->target = sj_test_target_new (code);

  sj_sounds_index_load_bundled (sounds);
  stack->knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  stack->dry_run = sj_dry_run_new ();
  stack->applier = sj_change_applier_new (SJ_LIVE_TARGET (stack->target), stack->dry_run,
                                          stack->knowledge, timeline);
  sj_change_applier_set_defaults (stack->applier, &policy);

  stack->store = sj_history_store_new (stack->db_path, &error);
  g_assert_no_error (error);
}

/**
 * sj_test_agent_stack_new_agent:
 * @api_key: (nullable): the key the agent sends to the loopback server
 *
 * Returns: (transfer full): an agent with the app's tools on the stack,
 *   talking to its server as "test/model"
 */
SjAgent *
sj_test_agent_stack_new_agent (SjTestAgentStack *stack,
                               const char       *api_key)
{
  g_autoptr(SjAgentTools) tools = sj_agent_tools_new (stack->applier, stack->knowledge, sj_knowledge_base_get_bundled ());
  g_autoptr(SjLlmClient) client = sj_llm_client_new (sj_test_model_server_get_url (stack->server), api_key);
  SjAgent *agent = sj_agent_new (tools, stack->store);

  sj_agent_set_client (agent, client, FALSE);
  sj_agent_set_model (agent, "test/model", "balanced", 0.5);

  return agent;
}

/* Drops the stack and its folder; the caller drops its agents first. */
void
sj_test_agent_stack_clear (SjTestAgentStack *stack)
{
  g_clear_object (&stack->store);
  g_clear_object (&stack->applier);
  g_clear_object (&stack->dry_run);
  g_clear_object (&stack->knowledge);
  g_clear_object (&stack->target);
  g_clear_pointer (&stack->server, sj_test_model_server_free);
  if (stack->dir != NULL)
    sj_test_remove_tree (stack->dir);
  g_clear_pointer (&stack->dir, g_free);
  g_clear_pointer (&stack->db_path, g_free);
}
