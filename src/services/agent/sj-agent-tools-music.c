/* sj-agent-tools-music.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tools about the music do (the table is in sj-agent-tools.c):
 * read_code and apply_strudel_change through the apply pipeline (an apply
 * waits for the change to be heard, sj-change-verify.c), the two
 * knowledge look-ups, and listen, what the app heard of its output
 * (sj-levels.c).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-agent-tools-private.h"
#include "sj-json.h"

/* How long apply_strudel_change waits to hear a change that landed (the
 * boundary, then SJ_CHANGE_VERIFY_CYCLES cycles): past it, the result
 * says the app is still listening. */
#define APPLY_VERIFY_TIMEOUT_MS 30000
#define LISTEN_DEFAULT_CYCLES 2

/* The verdict goes into the result as `verification: {status, message,
 * cycle}`; a change that was reverted did not work. */
static void
verify_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjToolOutcome *outcome = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  JsonObject *verdict;

  verdict = sj_change_verifier_wait_finish (SJ_CHANGE_VERIFIER (object), result, &error);
  if (verdict == NULL)
    {
      /* Stopped while listening: the change landed all the same. */
      verdict = json_object_new ();
      json_object_set_string_member (verdict, "status", "unverified");
      json_object_set_string_member (verdict, "message", "stopped before the change was heard");
    }

  if (g_strcmp0 (json_object_get_string_member_with_default (verdict, "status", ""), "reverted") == 0)
    outcome->status = SJ_HISTORY_TOOL_FAILED;
  json_object_set_object_member (outcome->result, "verification", verdict);

  _sj_agent_tools_finish_outcome (task, outcome);
}

static void
apply_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjToolOutcome *outcome = g_task_get_task_data (task);
  g_autoptr(SjChangeResult) answer = NULL;
  g_autoptr(GError) error = NULL;

  outcome->dry_run_us = sj_change_applier_get_last_dry_run_time (SJ_CHANGE_APPLIER (object));

  answer = sj_change_applier_apply_finish (SJ_CHANGE_APPLIER (object), result, &error);
  if (answer == NULL)
    {
      SjToolOutcome *canceled = sj_tool_outcome_new_canceled (outcome->name, outcome->call_id, outcome->arguments);

      canceled->started = outcome->started;
      sj_tool_outcome_free (outcome);
      _sj_agent_tools_finish_outcome (task, canceled);
      return;
    }

  /* The one place the result becomes JSON: what the model reads. */
  outcome->result = sj_change_result_to_json (answer);
  if (answer->status != SJ_CHANGE_STATUS_REJECTED)
    {
      SjAgentTools *self = g_task_get_source_object (task);

      outcome->status = SJ_HISTORY_TOOL_SUCCEEDED;
      outcome->apply_cycle = answer->apply_at_cycle;
      outcome->known_hash = g_strdup (answer->new_hash);

      /* A change that plays is heard before the model is told it worked. */
      if (self->verifier != NULL && answer->status == SJ_CHANGE_STATUS_SCHEDULED &&
          sj_change_verifier_is_checking (self->verifier, answer->apply_at_cycle))
        {
          /* Arguments are evaluated in any order: the cancellable first. */
          GCancellable *cancellable = g_task_get_cancellable (task);

          sj_change_verifier_wait_async (self->verifier, answer->new_hash, APPLY_VERIFY_TIMEOUT_MS,
                                         cancellable, verify_cb, g_steal_pointer (&task));
          return;
        }
    }
  else
    {
      outcome->status = SJ_HISTORY_TOOL_FAILED;
      outcome->apply_rejected = TRUE;
      /* A stale hash comes back with the latest code: the model knows it now. */
      if (answer->latest_code != NULL)
        outcome->known_hash = g_strdup (answer->latest_hash);
    }

  _sj_agent_tools_finish_outcome (task, outcome);
}

static void
read_code_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjToolOutcome *outcome = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  JsonObject *answer;

  answer = sj_change_applier_read_code_finish (SJ_CHANGE_APPLIER (object), result, &error);
  if (answer == NULL)
    {
      SjToolOutcome *other;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        other = sj_tool_outcome_new_canceled (outcome->name, outcome->call_id, outcome->arguments);
      else
        other = sj_tool_outcome_new_refused (outcome->name, outcome->call_id, outcome->arguments,
                                             "PAGE_UNAVAILABLE", error->message);
      other->started = outcome->started;
      sj_tool_outcome_free (outcome);
      _sj_agent_tools_finish_outcome (task, other);
      return;
    }

  outcome->result = answer;
  outcome->status = json_object_has_member (answer, "error") ? SJ_HISTORY_TOOL_FAILED : SJ_HISTORY_TOOL_SUCCEEDED;
  if (json_object_has_member (answer, "code"))
    outcome->known_hash = g_strdup (json_object_get_string_member_with_default (answer, "hash", NULL));

  _sj_agent_tools_finish_outcome (task, outcome);
}

void
_sj_agent_tools_run_apply (SjAgentTools  *self,
                           SjToolOutcome *outcome,
                           JsonNode      *arguments,
                           GTask         *task)
{
  /* Arguments are evaluated in any order: take the cancellable before the
   * task is handed over. No destroy notify: the callback always hands the
   * outcome on. */
  GCancellable *cancellable = g_task_get_cancellable (task);

  g_task_set_task_data (task, outcome, NULL);
  sj_change_applier_apply_async (self->applier, arguments, "agent", cancellable, apply_cb, task);
}

void
_sj_agent_tools_run_read_code (SjAgentTools  *self,
                               SjToolOutcome *outcome,
                               JsonNode      *arguments,
                               GTask         *task)
{
  GCancellable *cancellable = g_task_get_cancellable (task);

  g_task_set_task_data (task, outcome, NULL);
  sj_change_applier_read_code_async (self->applier, arguments, cancellable, read_code_cb, task);
}

/* The knowledge tools answer at once (well under a millisecond); they
 * only fail by saying so in their result. */
static void
finish_knowledge (SjToolOutcome *outcome,
                  JsonNode      *answer,
                  GTask         *task)
{
  JsonObject *object = json_node_get_object (answer);

  outcome->result = json_object_ref (object);
  if (json_object_has_member (object, "error") ||
      (json_object_has_member (object, "ok") && !json_object_get_boolean_member (object, "ok")))
    outcome->status = SJ_HISTORY_TOOL_FAILED;

  _sj_agent_tools_finish_outcome (task, outcome);
  g_object_unref (task);
}

void
_sj_agent_tools_run_strudel_knowledge (SjAgentTools  *self,
                                       SjToolOutcome *outcome,
                                       JsonNode      *arguments,
                                       GTask         *task)
{
  JsonObject *input = json_node_get_object (arguments);
  g_autoptr(JsonNode) answer = NULL;

  /* The tool's parameter is "query", as in its contract's signature;
   * the object form of the contract names it "q". */
  if (!json_object_has_member (input, "q") && json_object_has_member (input, "query"))
    json_object_set_member (input, "q", json_node_copy (json_object_get_member (input, "query")));
  json_object_remove_member (input, "query");
  answer = sj_knowledge_query_json (self->knowledge, arguments);

  finish_knowledge (outcome, answer, task);
}

void
_sj_agent_tools_run_search_knowledge (SjAgentTools  *self,
                                      SjToolOutcome *outcome,
                                      JsonNode      *arguments,
                                      GTask         *task)
{
  g_autoptr(JsonNode) answer = sj_knowledge_base_search_json (self->knowledge_base, json_node_get_object (arguments));

  finish_knowledge (outcome, answer, task);
}

/* What the app heard of its output over the last cycles (sj-levels.c). */
void
_sj_agent_tools_run_listen (SjAgentTools  *self,
                            SjToolOutcome *outcome,
                            JsonNode      *arguments,
                            GTask         *task)
{
  JsonObject *input = json_node_get_object (arguments);
  JsonNode *node = json_object_get_member (input, "cycles");
  gint64 cycles = LISTEN_DEFAULT_CYCLES;
  g_autoptr(GTask) owned = task;

  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      double value = JSON_NODE_HOLDS_VALUE (node) &&
                     (json_node_get_value_type (node) == G_TYPE_INT64 ||
                      json_node_get_value_type (node) == G_TYPE_DOUBLE) ? json_node_get_double (node) : NAN;

      if (isnan (value) || value != floor (value) || value < 1 || value > SJ_LEVELS_MAX_LISTEN)
        {
          g_autofree char *message = g_strdup_printf ("cycles must be a whole number from 1 to %d",
                                                      SJ_LEVELS_MAX_LISTEN);
          SjToolOutcome *refused = sj_tool_outcome_new_refused (outcome->name, outcome->call_id, outcome->arguments,
                                                                "INVALID_ARGUMENTS", message);

          refused->started = outcome->started;
          sj_tool_outcome_free (outcome);
          _sj_agent_tools_finish_outcome (task, refused);
          return;
        }
      cycles = (gint64) value;
    }

  if (self->levels == NULL)
    {
      SjToolOutcome *refused = sj_tool_outcome_new_refused (outcome->name, outcome->call_id, outcome->arguments,
                                                            "NOT_AVAILABLE", "The app cannot hear its output here.");

      refused->started = outcome->started;
      sj_tool_outcome_free (outcome);
      _sj_agent_tools_finish_outcome (task, refused);
      return;
    }

  outcome->result = sj_levels_listen (self->levels, (guint) cycles);
  _sj_agent_tools_finish_outcome (task, outcome);
}

