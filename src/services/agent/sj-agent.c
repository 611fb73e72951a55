/* sj-agent.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The jam agent: a musician's message in, a safe change (or an honest
 * answer) out. This file holds the agent's type, its signals and its
 * settings; its sessions are in sj-agent-session.c, the start and end of
 * a turn (send, regenerate, resend, stop) in sj-agent-send.c, and the loop
 * of model requests and tool calls in between is sj-agent-turn.c.
 *
 * Everything the musician sees is in the store as it happens (their
 * message at once, the answer streamed in, every finished tool call, the
 * code the agent changed), so the chat can be drawn from it and nothing is
 * lost when the app is closed or crashes mid-answer.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-agent-private.h"
#include "sj-key-guard.h"

G_DEFINE_FINAL_TYPE (SjAgent, sj_agent, G_TYPE_OBJECT)
G_DEFINE_QUARK (sj-agent-error-quark, sj_agent_error)

enum {
  SIGNAL_MESSAGE_ADDED,
  SIGNAL_TEXT_DELTA,
  SIGNAL_TOOL_FINISHED,
  SIGNAL_MESSAGE_FINISHED,
  SIGNAL_RETRYING,
  SIGNAL_REQUEST_SENT,
  SIGNAL_SKILLS_USED,
  SIGNAL_PINS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_BUSY,
  PROP_SESSION_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
on_delta (SjAgent          *self,
          SjAgentDeltaKind  kind,
          const char       *text)
{
  SjAgentTurn *turn = self->turn;

  if (turn == NULL || text == NULL || *text == '\0')
    return;

  /* Text of a later round (after tool calls) continues the same message,
   * as a new paragraph. */
  if (kind == SJ_AGENT_DELTA_CONTENT && !turn->received && turn->has_content)
    {
      sj_history_store_append_text (self->store, turn->message_id, "\n\n", NULL);
      turn->content_length += 2;
      g_signal_emit (self, signals[SIGNAL_TEXT_DELTA], 0, turn->message_id, kind, "\n\n");
    }
  if (kind == SJ_AGENT_DELTA_CONTENT)
    {
      turn->has_content = TRUE;
      turn->content_length += strlen (text);
    }
  turn->received = TRUE;

  sj_history_store_append_text (self->store, turn->message_id,
                                kind == SJ_AGENT_DELTA_CONTENT ? text : NULL,
                                kind == SJ_AGENT_DELTA_REASONING ? text : NULL);
  g_signal_emit (self, signals[SIGNAL_TEXT_DELTA], 0, turn->message_id, kind, text);
}

static void
content_delta_cb (SjLlmClient *client,
                  const char  *text,
                  SjAgent     *self)
{
  on_delta (self, SJ_AGENT_DELTA_CONTENT, text);
}

static void
reasoning_delta_cb (SjLlmClient *client,
                    const char  *text,
                    SjAgent     *self)
{
  on_delta (self, SJ_AGENT_DELTA_REASONING, text);
}

/* Every snapshot the apply pipeline adds to the undo timeline goes to the
 * store too: the session's code history survives the app. */
static void
timeline_changed_cb (SjTimeline *timeline,
                     SjAgent    *self)
{
  guint n = sj_timeline_get_n_items (timeline);
  g_autoptr(GError) error = NULL;

  for (guint i = self->timeline_length; i < n; i++)
    {
      const SjSnapshot *snapshot = sj_timeline_get (timeline, i);
      gboolean by_agent = g_strcmp0 (snapshot->source, "agent") == 0;

      if (self->session_id == 0)
        break;
      if (sj_history_store_record_snapshot (self->store, self->session_id, snapshot->code, snapshot->cycle,
                                            by_agent ? SJ_HISTORY_SOURCE_AGENT : SJ_HISTORY_SOURCE_USER,
                                            by_agent && self->turn ? self->turn->message_id : 0, &error) == 0)
        {
          g_warning ("Could not record a code snapshot: %s", error->message);
          g_clear_error (&error);
        }
    }
  self->timeline_length = n;
}

static void
sj_agent_dispose (GObject *object)
{
  SjAgent *self = (SjAgent *)object;

  if (self->turn != NULL)
    g_cancellable_cancel (self->turn->cancellable);
  if (self->tools != NULL)
    g_signal_handlers_disconnect_by_data (sj_change_applier_get_timeline (sj_agent_tools_get_applier (self->tools)), self);
  if (self->client != NULL)
    g_clear_signal_handler (&self->content_id, self->client);
  if (self->client != NULL)
    g_clear_signal_handler (&self->reasoning_id, self->client);
  g_clear_object (&self->client);
  g_clear_object (&self->tools);
  g_clear_object (&self->store);
  g_clear_object (&self->skills);

  G_OBJECT_CLASS (sj_agent_parent_class)->dispose (object);
}

static void
sj_agent_finalize (GObject *object)
{
  SjAgent *self = (SjAgent *)object;

  g_clear_error (&self->config_error);
  g_free (self->model);
  g_free (self->reasoning_mode);
  g_hash_table_unref (self->no_reasoning);
  g_clear_pointer (&self->context, sj_agent_context_free);
  g_free (self->known_hash);
  g_clear_pointer (&self->pending_pins, g_ptr_array_unref);
  g_clear_pointer (&self->notes, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_agent_parent_class)->finalize (object);
}

static void
sj_agent_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  SjAgent *self = SJ_AGENT (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, sj_agent_is_busy (self));
      break;

    case PROP_SESSION_ID:
      g_value_set_int64 (value, sj_agent_get_session_id (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_agent_class_init (SjAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_agent_dispose;
  object_class->finalize = sj_agent_finalize;
  object_class->get_property = sj_agent_get_property;

  /**
   * SjAgent:busy:
   *
   * Whether a turn is under way: from the moment a message is sent (or
   * an answer regenerated) until its transcript is whole, the answer
   * finished, stopped or failed and the app's own lines about it added.
   * It goes back to %FALSE before the caller's callback runs. A stop asked
   * for does not end it: the turn still has to wind down.
   */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SjAgent:session-id:
   *
   * The session in the history the conversation is in; 0 for a new one,
   * which the first message creates.
   *
   * Notified when that first message creates it, and whenever a session
   * is taken up (sj_agent_load_session(), sj_agent_new_session()), even
   * the one already current: its conversation then starts over from the
   * store, and whoever shows it reads it again.
   */
  properties[PROP_SESSION_ID] =
    g_param_spec_int64 ("session-id", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjAgent::message-added:
   * @message_id: the message in the store
   * @role: its #SjHistoryRole
   */
  signals[SIGNAL_MESSAGE_ADDED] =
    g_signal_new ("message-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT);
  /**
   * SjAgent::text-delta:
   * @kind: an #SjAgentDeltaKind
   *
   * Text or reasoning of an assistant message as it streams.
   */
  signals[SIGNAL_TEXT_DELTA] =
    g_signal_new ("text-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_INT64, G_TYPE_INT, G_TYPE_STRING);
  /**
   * SjAgent::tool-finished:
   * @message_id: the assistant message
   * @tool_call_id: the call in the store, in a terminal state
   */
  signals[SIGNAL_TOOL_FINISHED] =
    g_signal_new ("tool-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT64);
  /**
   * SjAgent::message-finished:
   * @status: the #SjHistoryMessageStatus it ended with
   */
  signals[SIGNAL_MESSAGE_FINISHED] =
    g_signal_new ("message-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT);
  /**
   * SjAgent::retrying:
   * @attempt: the retry about to be made, from 1
   * @delay_ms: how long until it is made
   * @reason: why, for the status line
   */
  signals[SIGNAL_RETRYING] =
    g_signal_new ("retrying", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_STRING);
  /**
   * SjAgent::request-sent:
   * @round: the round of the turn, from 1
   * @overhead_us: for a round after tool calls, the agent's own time from
   *   the last byte of the model's answer to this request, without the
   *   dry-run; 0 for the first round
   *
   * For the benchmark and the status line.
   */
  signals[SIGNAL_REQUEST_SENT] =
    g_signal_new ("request-sent", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_INT64);
  /**
   * SjAgent::skills-used:
   * @message_id: the assistant message
   *
   * The skills of the message's turn are recorded in the store (when the
   * turn starts, and again when the model activates more): the chat shows
   * them on the message.
   */
  signals[SIGNAL_SKILLS_USED] =
    g_signal_new ("skills-used", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
  /**
   * SjAgent::pins-changed:
   *
   * A skill was pinned to the current session or unpinned (a new session
   * is #SjAgent:session-id): sj_agent_get_pinned_skills() says which.
   */
  signals[SIGNAL_PINS_CHANGED] =
    g_signal_new ("pins-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_agent_init (SjAgent *self)
{
  _sj_agent_reset_conversation (self);
  self->no_reasoning = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->reasoning_mode = g_strdup ("balanced");
  self->temperature = 0.7;
  self->max_repairs = 4;
  self->tool_budget = 12;
  self->token_budget = SJ_AGENT_CONTEXT_DEFAULT_BUDGET;
  self->max_retries = SJ_AGENT_DEFAULT_MAX_RETRIES;
  self->retry_base_ms = SJ_AGENT_DEFAULT_RETRY_BASE_MS;
  self->retry_max_ms = SJ_AGENT_DEFAULT_RETRY_MAX_MS;
  self->config_error = g_error_new_literal (SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED,
                                            _("No language model is set up. Choose a provider and model in the agent’s settings."));
}

void
_sj_agent_emit_tool_finished (SjAgent *self,
                              gint64   message_id,
                              gint64   tool_call_id)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_FINISHED], 0, message_id, tool_call_id);
}

void
_sj_agent_emit_retrying (SjAgent    *self,
                         guint       attempt,
                         guint       delay_ms,
                         const char *reason)
{
  g_signal_emit (self, signals[SIGNAL_RETRYING], 0, attempt, delay_ms, reason);
}

void
_sj_agent_emit_request_sent (SjAgent *self,
                             guint    round,
                             gint64   overhead_us)
{
  g_signal_emit (self, signals[SIGNAL_REQUEST_SENT], 0, round, overhead_us);
}

void
_sj_agent_emit_skills_used (SjAgent *self,
                            gint64   message_id)
{
  g_signal_emit (self, signals[SIGNAL_SKILLS_USED], 0, message_id);
}

void
_sj_agent_emit_pins_changed (SjAgent *self)
{
  g_signal_emit (self, signals[SIGNAL_PINS_CHANGED], 0);
}

void
_sj_agent_emit_message_added (SjAgent       *self,
                              gint64         message_id,
                              SjHistoryRole  role)
{
  g_signal_emit (self, signals[SIGNAL_MESSAGE_ADDED], 0, message_id, role);
}

void
_sj_agent_emit_message_finished (SjAgent                *self,
                                 gint64                  message_id,
                                 SjHistoryMessageStatus  status)
{
  g_signal_emit (self, signals[SIGNAL_MESSAGE_FINISHED], 0, message_id, status);
}

void
_sj_agent_notify_busy (SjAgent *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

void
_sj_agent_notify_session_id (SjAgent *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
}

SjAgent *
sj_agent_new (SjAgentTools   *tools,
              SjHistoryStore *store)
{
  SjAgent *self;
  SjTimeline *timeline;

  g_return_val_if_fail (SJ_IS_AGENT_TOOLS (tools), NULL);
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (store), NULL);

  self = g_object_new (SJ_TYPE_AGENT, NULL);
  self->tools = g_object_ref (tools);
  self->store = g_object_ref (store);

  timeline = sj_change_applier_get_timeline (sj_agent_tools_get_applier (tools));
  self->timeline_length = sj_timeline_get_n_items (timeline);
  g_signal_connect (timeline, "changed", G_CALLBACK (timeline_changed_cb), self);

  return self;
}

SjAgentTools *
_sj_agent_get_tools (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  return self->tools;
}

SjHistoryStore *
sj_agent_get_store (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  return self->store;
}

/**
 * sj_agent_set_client:
 * @client: (nullable): the provider's client, %NULL when there is none
 * @openrouter: whether it is OpenRouter, whose reasoning parameter differs
 *
 * Takes effect from the next turn.
 */
void
sj_agent_set_client (SjAgent     *self,
                     SjLlmClient *client,
                     gboolean     openrouter)
{
  g_assert (SJ_IS_AGENT (self));

  if (self->client != NULL)
    {
      g_clear_signal_handler (&self->content_id, self->client);
      g_clear_signal_handler (&self->reasoning_id, self->client);
    }
  g_set_object (&self->client, client);
  self->openrouter = openrouter;
  /* A server on this machine costs nothing; anything else costs what its
   * provider says, or an unknown amount. */
  self->local = client != NULL && !openrouter &&
                sj_key_guard_is_loopback_url (sj_llm_client_get_base_url (client));
  if (client != NULL)
    {
      self->content_id = g_signal_connect (client, "content-delta", G_CALLBACK (content_delta_cb), self);
      self->reasoning_id = g_signal_connect (client, "reasoning-delta", G_CALLBACK (reasoning_delta_cb), self);
      g_clear_error (&self->config_error);
    }
}

/**
 * sj_agent_set_config_error:
 *
 * Why there is no client (no API key, no keyring, …): the next message
 * the musician sends is kept, and answered with this explanation and the
 * way forward instead of a silent failure.
 */
void
sj_agent_set_config_error (SjAgent      *self,
                           const GError *error)
{
  g_assert (SJ_IS_AGENT (self));
  g_assert (error != NULL);

  sj_agent_set_client (self, NULL, FALSE);
  g_clear_error (&self->config_error);
  self->config_error = g_error_copy (error);
}

/**
 * sj_agent_set_model:
 * @reasoning_mode: "fast", "balanced" or "deep"
 */
void
sj_agent_set_model (SjAgent    *self,
                    const char *model,
                    const char *reasoning_mode,
                    double      temperature)
{
  g_assert (SJ_IS_AGENT (self));

  g_free (self->model);
  self->model = g_strdup (model);
  g_free (self->reasoning_mode);
  self->reasoning_mode = g_strdup (reasoning_mode ? reasoning_mode : "balanced");
  self->temperature = CLAMP (temperature, 0.0, 2.0);
}

/**
 * _sj_agent_set_reasoning_supported:
 *
 * What the provider's model list says about a model; a model that does
 * not take a reasoning effort gets none. Without this the effort is sent,
 * and left out from then on if the provider refuses it.
 */
void
_sj_agent_set_reasoning_supported (SjAgent    *self,
                                   const char *model,
                                   gboolean    supported)
{
  g_assert (SJ_IS_AGENT (self));

  if (supported)
    g_hash_table_remove (self->no_reasoning, model);
  else
    g_hash_table_add (self->no_reasoning, g_strdup (model));
}

void
sj_agent_set_limits (SjAgent *self,
                     guint    max_repair_attempts,
                     guint    tool_budget)
{
  g_assert (SJ_IS_AGENT (self));

  self->max_repairs = max_repair_attempts;
  self->tool_budget = MAX (tool_budget, 1);
}

void
_sj_agent_set_token_budget (SjAgent *self,
                            guint    tokens)
{
  g_assert (SJ_IS_AGENT (self));

  self->token_budget = MAX (tokens, 1000);
}

/**
 * _sj_agent_set_retry_policy:
 *
 * Transient failures (rate limits, server errors, a connection lost
 * before anything arrived) are retried @max_retries times, waiting
 * @base_delay_ms doubled each time, or what the provider asked, up to
 * @max_delay_ms.
 */
void
_sj_agent_set_retry_policy (SjAgent *self,
                            guint    max_retries,
                            guint    base_delay_ms,
                            guint    max_delay_ms)
{
  g_assert (SJ_IS_AGENT (self));

  self->max_retries = max_retries;
  self->retry_base_ms = base_delay_ms;
  self->retry_max_ms = MAX (max_delay_ms, base_delay_ms);
}

gboolean
sj_agent_is_busy (SjAgent *self)
{
  g_assert (SJ_IS_AGENT (self));

  return self->turn != NULL;
}
