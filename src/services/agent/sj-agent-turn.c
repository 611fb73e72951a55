/* sj-agent-turn.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The loop of one turn: ask the model, run the tools it calls, give it
 * the results, and again, until it answers without tools. Around it, the
 * limits that keep a jam safe and responsive: a repair limit for changes
 * the dry-run rejects, a tool budget, retries with backoff for transient
 * provider failures, a prompt kept under its token budget, and a stop
 * that may come at any point and always leaves a transcript the model
 * can continue from (every tool call answered, partial text kept).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "sj-json.h"
#include "sj-agent-private.h"

static void start_round (SjAgent *self, SjAgentTurn *turn);
static void run_next_call (SjAgent *self, SjAgentTurn *turn);

static GError *
stopped_error (void)
{
  return g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Stopped");
}

static const char *
reasoning_effort (const char *mode)
{
  if (g_strcmp0 (mode, "fast") == 0)
    return "low";
  if (g_strcmp0 (mode, "deep") == 0)
    return "high";
  return "medium";
}

static JsonObject *
build_request (SjAgent     *self,
               SjAgentTurn *turn)
{
  JsonObject *body = json_object_new ();

  json_object_set_string_member (body, "model", self->model ? self->model : "");
  json_object_set_array_member (body, "messages", sj_agent_context_build_messages (turn->context));
  json_object_set_array_member (body, "tools", sj_agent_tools_get_definitions ());
  /* Past a limit the tools stay declared (the history has calls) but the
   * model must answer in words. */
  json_object_set_string_member (body, "tool_choice", turn->force_final ? "none" : "auto");
  json_object_set_double_member (body, "temperature", self->temperature);

  /* OpenRouter takes a reasoning object and ignores it for models that
   * cannot reason; other servers take OpenAI's flat parameter, which some
   * refuse for models without it: those are remembered and spared. */
  turn->sent_reasoning = FALSE;
  if (self->model != NULL && !g_hash_table_contains (self->no_reasoning, self->model))
    {
      if (self->openrouter)
        {
          JsonObject *reasoning = json_object_new ();

          json_object_set_string_member (reasoning, "effort", reasoning_effort (self->reasoning_mode));
          json_object_set_object_member (body, "reasoning", reasoning);
        }
      else
        json_object_set_string_member (body, "reasoning_effort", reasoning_effort (self->reasoning_mode));
      turn->sent_reasoning = TRUE;
    }

  /* OpenRouter says what a request cost (usage.cost) when asked; the
   * client asks every server for the usage chunk of the stream. */
  if (self->openrouter)
    {
      JsonObject *usage = json_object_new ();

      json_object_set_boolean_member (usage, "include", TRUE);
      json_object_set_object_member (body, "usage", usage);
    }

  return body;
}

/* The tool definitions go with every request: their share of the budget. */
static guint
tools_tokens (void)
{
  static guint tokens;

  if (tokens == 0)
    {
      g_autoptr(JsonArray) tools = sj_agent_tools_get_definitions ();
      g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), tools);
      g_autofree char *json = json_to_string (node, FALSE);

      tokens = strlen (json) / 4;
    }

  return tokens;
}

static gboolean
is_transient (const GError *error)
{
  return g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_RATE_LIMITED) ||
         g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_SERVER) ||
         g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK);
}

static gboolean
retry_cb (gpointer user_data)
{
  SjAgentTurn *turn = user_data;
  SjAgent *self = turn->agent;

  turn->retry_id = 0;
  g_clear_handle_id (&turn->retry_cancel_id, g_source_remove);
  start_round (self, turn);

  return G_SOURCE_REMOVE;
}

static gboolean
retry_cancelled_cb (GCancellable *cancellable,
                    gpointer      user_data)
{
  SjAgentTurn *turn = user_data;

  turn->retry_cancel_id = 0;
  g_clear_handle_id (&turn->retry_id, g_source_remove);
  _sj_agent_turn_end (turn->agent, SJ_HISTORY_MESSAGE_STOPPED, stopped_error ());

  return G_SOURCE_REMOVE;
}

static void
schedule_retry (SjAgent      *self,
                SjAgentTurn  *turn,
                const GError *error,
                guint         retry_after_s)
{
  guint64 delay = (guint64) self->retry_base_ms << MIN (turn->attempt, 16);
  g_autoptr(GSource) cancelled = NULL;

  /* The provider's Retry-After wins when it asks for longer. */
  delay = MAX (delay, (guint64) retry_after_s * 1000);
  delay = MIN (delay, self->retry_max_ms);
  turn->attempt++;

  _sj_agent_emit_retrying (self, turn->attempt, (guint) delay, error->message);

  turn->retry_id = g_timeout_add (delay, retry_cb, turn);
  cancelled = g_cancellable_source_new (turn->cancellable);
  g_source_set_callback (cancelled, G_SOURCE_FUNC (retry_cancelled_cb), turn, NULL);
  turn->retry_cancel_id = g_source_attach (cancelled, NULL);
}

static GError *
explain_failure (const GError *error,
                 guint         attempts,
                 gboolean      partial)
{
  g_autofree char *why = NULL;

  if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_UNAUTHORIZED))
    why = g_strdup_printf (_("The provider refused the API key (%s). Check or replace the key in the agent’s settings."), error->message);
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_RATE_LIMITED))
    why = g_strdup_printf (_("The provider is rate-limiting requests (%s), still after %u attempts. Wait a moment, then regenerate."), error->message, attempts);
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_STALLED))
    why = g_strdup_printf (_("The model stopped answering (%s). What arrived is kept; regenerate to try again."), error->message);
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_EVENT_TOO_LARGE))
    why = g_strdup_printf (_("The model sent a single piece larger than the 8 MiB limit, so the answer was stopped. What arrived before it is kept; regenerate to try again."));
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_ANSWER_TOO_LARGE))
    why = g_strdup_printf (_("The model’s answer passed the 4 MiB limit for its text, so it was stopped. What arrived before it is kept; regenerate to try again."));
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_REASONING_TOO_LARGE))
    why = g_strdup_printf (_("The model’s reasoning passed the 4 MiB limit, so the answer was stopped. What arrived before it is kept; regenerate to try again."));
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_TOOL_ARGUMENTS_TOO_LARGE))
    why = g_strdup_printf (_("The model’s tool call arguments passed the 1 MiB limit, so the answer was stopped and no tool ran. What arrived before it is kept; regenerate to try again."));
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_DEADLINE))
    why = g_strdup_printf (_("The answer took longer than its deadline (%s). What arrived is kept; regenerate to try again, or raise the answer deadline."), error->message);
  else if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL))
    why = g_strdup_printf (_("The model sent something the app cannot read (%s). What arrived is kept; regenerate to try again."), error->message);
  else if (partial)
    why = g_strdup_printf (_("The connection to the model broke off mid-answer (%s). What arrived is kept; regenerate to try again."), error->message);
  else if (is_transient (error))
    why = g_strdup_printf (_("The model could not be reached (%s), after %u attempts. Check the connection or the endpoint, then regenerate."), error->message, attempts);
  else
    why = g_strdup_printf (_("The model could not answer: %s"), error->message);

  return g_error_new_literal (error->domain, error->code, why);
}

/* What the model had said when the round ended early goes to its context,
 * so a later turn knows; incomplete tool calls are dropped (they never
 * ran). */
static void
keep_partial (SjAgentTurn *turn,
              JsonObject  *partial)
{
  const char *content;

  if (partial == NULL)
    return;

  content = json_object_get_string_member_with_default (partial, "content", "");
  if (*content != '\0')
    sj_agent_context_add_assistant (turn->context, content, NULL);
}

static void
stream_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  SjAgentTurn *turn = user_data;
  SjAgent *self = turn->agent;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *calls;

  answer = sj_llm_client_stream_finish (SJ_LLM_CLIENT (object), result, &error);
  turn->last_byte_time = g_get_monotonic_time ();

  if (answer == NULL)
    {
      g_autoptr(JsonObject) partial = sj_llm_client_stream_get_partial (result);

      /* An answer cut short may still have been paid for. */
      _sj_agent_account_usage (self, turn, partial);

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || g_cancellable_is_cancelled (turn->cancellable))
        {
          keep_partial (turn, partial);
          _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_STOPPED, stopped_error ());
          return;
        }

      /* A provider that refuses the reasoning effort for this model gets
       * the request again without it, at once. */
      if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_REJECTED) &&
          turn->sent_reasoning && strstr (error->message, "reasoning") != NULL)
        {
          g_hash_table_add (self->no_reasoning, g_strdup (self->model));
          start_round (self, turn);
          return;
        }

      if (is_transient (error) && !turn->received && turn->attempt < self->max_retries)
        {
          schedule_retry (self, turn, error, sj_llm_client_result_get_retry_after (result));
          return;
        }

      keep_partial (turn, partial);
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR,
                          explain_failure (error, turn->attempt + 1, turn->received));
      return;
    }

  turn->attempt = 0;
  turn->answered++;
  _sj_agent_account_usage (self, turn, answer);
  calls = json_object_get_array_member (answer, "tool_calls");
  sj_agent_context_add_assistant (turn->context, json_object_get_string_member_with_default (answer, "content", ""), calls);

  if (calls == NULL || json_array_get_length (calls) == 0)
    {
      /* Keep-alive comments only, or content of the wrong type: say so
       * rather than leave an empty bubble. */
      if (!turn->has_content && turn->tool_calls == 0)
        {
          _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR,
                              g_error_new_literal (SJ_AGENT_ERROR, SJ_AGENT_ERROR_EMPTY_ANSWER,
                                                   _("The model sent an empty answer. Regenerate to try again.")));
          return;
        }
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_COMPLETE, NULL);
      return;
    }

  /* Tools called in answer to tool_choice "none": the calls are refused,
   * and no request follows. */
  if (turn->force_final)
    turn->final_ignored = TRUE;

  g_clear_pointer (&turn->calls, json_array_unref);
  turn->calls = json_array_ref (calls);
  turn->next_call = 0;
  run_next_call (self, turn);
}

static void
start_round (SjAgent     *self,
             SjAgentTurn *turn)
{
  g_autoptr(JsonObject) body = NULL;
  g_auto(GStrv) dropped = NULL;
  GError *over;
  gint64 overhead = 0;

  if (g_cancellable_is_cancelled (turn->cancellable))
    {
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_STOPPED, stopped_error ());
      return;
    }

  /* The model loses what condensing removes; a code copy it no longer has
   * is shown again on the next turn. */
  dropped = sj_agent_context_condense (turn->context, self->token_budget - MIN (self->token_budget / 2, tools_tokens ()));
  if (dropped != NULL && self->known_hash != NULL && turn->context == self->context &&
      g_strv_contains ((const char * const *) dropped, self->known_hash))
    g_clear_pointer (&self->known_hash, g_free);

  /* Whatever the provider does (a model that ignores tool_choice "none"
   * keeps calling tools), a turn asks at most tool_budget + 1 times: one
   * request for each tool call it may run, and one for the last word. The
   * refused calls of the last answer are already answered in the context. */
  if (turn->answered >= self->tool_budget + 1 || turn->final_ignored)
    {
      g_autofree char *why = g_strdup_printf (_("The model kept calling tools after its tool budget was used up, so the app stopped asking after %u requests for this message. What arrived is kept; regenerate to try again."),
                                              turn->answered);

      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR,
                          g_error_new_literal (SJ_AGENT_ERROR, SJ_AGENT_ERROR_TOO_MANY_REQUESTS, why));
      return;
    }

  /* Between the requests of a turn too: the last answer may have crossed
   * the session's budget, and then the next request is never sent. */
  if ((over = _sj_agent_check_budget (self, turn->session_id)) != NULL)
    {
      _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_ERROR, over);
      return;
    }

  body = build_request (self, turn);
  turn->received = FALSE;
  turn->rounds++;

  if (turn->last_byte_time != 0)
    overhead = g_get_monotonic_time () - turn->last_byte_time - turn->round_dry_run_us;
  turn->round_dry_run_us = 0;
  _sj_agent_emit_request_sent (self, turn->rounds, MAX (overhead, 0));

  sj_llm_client_stream_async (self->client, body, turn->cancellable, stream_cb, turn);
}

static guint
repairs_left (SjAgent     *self,
              SjAgentTurn *turn)
{
  /* The first rejection starts the repairs: max_repairs more tries. */
  if (turn->rejections == 0)
    return self->max_repairs;
  return turn->rejections > self->max_repairs + 1 ? 0 : self->max_repairs + 1 - turn->rejections;
}

static void
record_outcome (SjAgent       *self,
                SjAgentTurn   *turn,
                SjToolOutcome *outcome)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result_node = NULL;
  g_autofree char *result_text = NULL;
  JsonObject *budget = json_object_new ();
  const char *carried = NULL;
  gint64 id;

  /* The model always knows what is left. */
  json_object_set_int_member (budget, "repairsLeft", repairs_left (self, turn));
  json_object_set_int_member (budget, "toolCallsLeft", self->tool_budget > turn->tool_calls ? self->tool_budget - turn->tool_calls : 0);
  json_object_set_object_member (outcome->result, "budget", budget);

  if (outcome->known_hash != NULL)
    {
      /* read_code and a stale rejection carry the code itself. */
      if (json_object_has_member (outcome->result, "code") || json_object_has_member (outcome->result, "latestCode"))
        carried = outcome->known_hash;
      if (turn->context == self->context)
        {
          g_free (self->known_hash);
          self->known_hash = g_strdup (outcome->known_hash);
        }
    }
  sj_agent_context_add_tool_result (turn->context, outcome->call_id, outcome->result, carried);

  result_node = json_node_init_object (json_node_alloc (), outcome->result);
  result_text = sj_json_to_string (result_node, FALSE);
  /* The calls of a round come after its text, and the next round's text
   * after them: the chat shows them where they were made. */
  id = sj_history_store_record_tool_call_at (self->store, turn->message_id, outcome->name, outcome->arguments,
                                             result_text, outcome->status, outcome->duration_us / 1000,
                                             outcome->apply_cycle, turn->content_length, &error);
  if (id == 0)
    g_warning ("Could not record a tool call: %s", error->message);
  else
    _sj_agent_emit_tool_finished (self, turn->message_id, id);
}

static void
after_outcome (SjAgent       *self,
               SjAgentTurn   *turn,
               SjToolOutcome *outcome)
{
  if (outcome->apply_rejected)
    turn->rejections++;
  if ((sj_agent_tools_get_flags (outcome->name) & SJ_AGENT_TOOL_CHANGES_MUSIC) != 0 &&
      outcome->status == SJ_HISTORY_TOOL_SUCCEEDED)
    turn->applied = TRUE;
  if ((sj_agent_tools_get_flags (outcome->name) & SJ_AGENT_TOOL_ACTIVATES_SKILLS) != 0 &&
      outcome->status == SJ_HISTORY_TOOL_SUCCEEDED)
    _sj_agent_skills_activated (self, turn, outcome);
  turn->round_dry_run_us += outcome->dry_run_us;

  record_outcome (self, turn, outcome);

  if (!turn->force_final && turn->rejections > self->max_repairs)
    {
      g_autofree char *note = g_strdup_printf ("The repair limit is reached: the change was rejected %u times. Do not call tools again. "
                                               "Tell the musician plainly that nothing was applied and the music is unchanged, "
                                               "and propose a simpler change in words.", turn->rejections);

      turn->limit_reached = TRUE;
      turn->force_final = TRUE;
      sj_agent_context_add_note (turn->context, note);
    }
  else if (!turn->force_final && turn->tool_calls >= self->tool_budget &&
           turn->next_call >= json_array_get_length (turn->calls))
    {
      turn->budget_reached = TRUE;
      turn->force_final = TRUE;
      sj_agent_context_add_note (turn->context,
                                 turn->applied ? "The tool budget for this message is used up. Answer now, without tools, saying what was applied."
                                               : "The tool budget for this message is used up. Answer now, without tools; nothing was applied, say so.");
    }
}

static void
tool_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  SjAgentTurn *turn = user_data;
  SjAgent *self = turn->agent;
  g_autoptr(SjToolOutcome) outcome = sj_agent_tools_call_finish (SJ_AGENT_TOOLS (object), result);

  after_outcome (self, turn, outcome);

  if (outcome->status == SJ_HISTORY_TOOL_CANCELED || g_cancellable_is_cancelled (turn->cancellable))
    {
      /* The calls after a stop are answered as canceled, so the
       * conversation stays well-formed for the next message. */
      run_next_call (self, turn);
      return;
    }

  run_next_call (self, turn);
}

static void
run_next_call (SjAgent     *self,
               SjAgentTurn *turn)
{
  JsonObject *call;
  const char *name;
  const char *id;
  const char *arguments;

  while (turn->next_call < json_array_get_length (turn->calls))
    {
      g_autoptr(SjToolOutcome) refused = NULL;

      call = json_array_get_object_element (turn->calls, turn->next_call++);
      name = json_object_get_string_member_with_default (call, "name", "");
      id = json_object_get_string_member_with_default (call, "id", "");
      arguments = json_object_get_string_member_with_default (call, "arguments", "");

      if (g_cancellable_is_cancelled (turn->cancellable))
        refused = sj_tool_outcome_new_canceled (name, id, arguments);
      else if (turn->force_final)
        refused = sj_tool_outcome_new_refused (name, id, arguments, turn->limit_reached ? "REPAIR_LIMIT_REACHED" : "TOOLS_DISABLED",
                                               "No more tool calls in this message: answer the musician in words.");
      else if (turn->tool_calls >= self->tool_budget)
        refused = sj_tool_outcome_new_refused (name, id, arguments, "TOOL_BUDGET_EXHAUSTED",
                                               "The tool budget for this message is used up: answer the musician in words.");

      if (refused != NULL)
        {
          after_outcome (self, turn, refused);
          continue;
        }

      turn->tool_calls++;
      sj_agent_tools_call_async (self->tools, name, id, arguments, turn->cancellable, tool_cb, turn);
      return;
    }

  if (g_cancellable_is_cancelled (turn->cancellable))
    _sj_agent_turn_end (self, SJ_HISTORY_MESSAGE_STOPPED, stopped_error ());
  else
    start_round (self, turn);
}

/**
 * _sj_agent_turn_begin:
 *
 * Runs @turn, whose user message is already in its context.
 */
void
_sj_agent_turn_begin (SjAgent     *self,
                      SjAgentTurn *turn)
{
  g_assert (SJ_IS_AGENT (self));
  g_assert (turn == self->turn);

  start_round (self, turn);
}
