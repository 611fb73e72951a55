/* sj-agent-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-agent.h"
#include "sj-agent-context.h"
#include "sj-skill-registry.h"

G_BEGIN_DECLS

/* One user message and everything the agent does about it. */
typedef struct
{
  SjAgent      *agent;
  SjAgentContext *context;       /* the conversation this turn belongs to */
  SjAgentContext *orphan;        /* the same, once the session was switched away */
  GTask        *task;
  GCancellable *cancellable;
  gulong        chained_id;      /* the caller's cancellable, chained to ours */
  GCancellable *caller_cancellable;

  gint64        session_id;
  gint64        message_id;      /* the assistant message of this turn */
  char         *text;            /* the user's words */
  gint64        user_message_id;
  gboolean      reuse_user;      /* regenerate: the user message is already stored */

  guint         rounds;
  guint         answered;        /* requests the provider answered: at most tool_budget + 1 */
  gboolean      final_ignored;   /* tools were called after tool_choice "none" */
  guint         attempt;         /* retries of the current round */
  guint         retry_id;
  guint         retry_cancel_id; /* a stop while waiting to retry */
  guint         rejections;
  guint         tool_calls;
  gboolean      applied;
  gboolean      limit_reached;
  gboolean      budget_reached;
  gboolean      force_final;
  gboolean      sent_reasoning;
  gboolean      received;        /* this round streamed something */
  gboolean      has_content;     /* the message has text from an earlier round */
  gsize         content_length;  /* bytes of the message's content so far: where a call is made */

  GPtrArray    *skills;          /* of SjHistorySkillUse: the skills this turn used */
  SjUsage       usage;           /* what the turn's requests cost so far */

  JsonArray    *calls;           /* the round's tool calls, run in order */
  guint         next_call;
  gint64        last_byte_time;  /* monotonic, when the round's answer ended */
  gint64        round_dry_run_us;
} SjAgentTurn;

struct _SjAgent
{
  GObject         parent_instance;

  SjAgentTools   *tools;
  SjHistoryStore *store;
  SjLlmClient    *client;
  gboolean        openrouter;
  gboolean        local;         /* a server on this machine: it costs nothing */
  GError         *config_error;
  gulong          content_id;
  gulong          reasoning_id;

  char           *model;
  char           *reasoning_mode;
  double          temperature;
  GHashTable     *no_reasoning;  /* models known to refuse a reasoning effort */
  guint           max_repairs;
  guint           tool_budget;
  guint           token_budget;
  guint           max_retries;
  guint           retry_base_ms;
  guint           retry_max_ms;
  SjAgentBudgetKind budget_kind;
  guint64         budget_tokens;
  double          budget_money;

  SjAgentContext *context;
  char           *known_hash;    /* the code the model has seen in full */
  gint64          session_id;
  guint           timeline_length;

  SjAgentTurn    *turn;

  SjSkillRegistry *skills;       /* nullable: no skills then */
  GPtrArray      *pending_pins;  /* names pinned before the session exists */
  GPtrArray      *notes;         /* what the musician did, for the model's next message */
};

/* sj-agent.c: the signals and properties are its own; the other parts
 * of the agent emit and notify them through these. */
void _sj_agent_emit_message_added    (SjAgent                *self,
                                      gint64                  message_id,
                                      SjHistoryRole           role);
void _sj_agent_emit_message_finished (SjAgent                *self,
                                      gint64                  message_id,
                                      SjHistoryMessageStatus  status);
void _sj_agent_emit_tool_finished    (SjAgent                *self,
                                      gint64                  message_id,
                                      gint64                  tool_call_id);
void _sj_agent_emit_retrying         (SjAgent                *self,
                                      guint                   attempt,
                                      guint                   delay_ms,
                                      const char             *reason);
void _sj_agent_emit_request_sent     (SjAgent                *self,
                                      guint                   round,
                                      gint64                  overhead_us);
void _sj_agent_emit_skills_used      (SjAgent                *self,
                                      gint64                  message_id);
void _sj_agent_emit_pins_changed     (SjAgent                *self);
void _sj_agent_notify_busy           (SjAgent                *self);
void _sj_agent_notify_session_id     (SjAgent                *self);


/* sj-agent-session.c */
void     _sj_agent_reset_conversation (SjAgent    *self);
gboolean _sj_agent_ensure_session     (SjAgent    *self,
                                       const char *first_message,
                                       GError    **error);
gint64   _sj_agent_rewind             (SjAgent    *self,
                                       gboolean    drop_user,
                                       char      **out_text,
                                       GError    **error);

/* sj-agent-send.c and sj-agent-turn.c: a turn */
void _sj_agent_turn_begin         (SjAgent               *self,
                                   SjAgentTurn           *turn);
void _sj_agent_turn_end           (SjAgent               *self,
                                   SjHistoryMessageStatus status,
                                   GError                *error);
void _sj_agent_turn_free          (SjAgentTurn           *turn);
void _sj_agent_add_system_message (SjAgent               *self,
                                   gint64                 session_id,
                                   const char            *text);

/* sj-agent-budget.c: what a turn costs, and the session's budget */
void    _sj_agent_account_usage (SjAgent     *self,
                                 SjAgentTurn *turn,
                                 JsonObject  *answer);
GError *_sj_agent_check_budget  (SjAgent     *self,
                                 gint64       session_id);

/* sj-agent-skills.c */
char *_sj_agent_skills_begin_turn  (SjAgent       *self,
                                    SjAgentTurn   *turn);
void  _sj_agent_skills_activated   (SjAgent       *self,
                                    SjAgentTurn   *turn,
                                    SjToolOutcome *outcome);
void  _sj_agent_skills_session_created (SjAgent   *self);

/* For the tests. */
SjAgentTools *_sj_agent_get_tools               (SjAgent    *self);
void          _sj_agent_set_reasoning_supported (SjAgent    *self,
                                                 const char *model,
                                                 gboolean    supported);
void          _sj_agent_set_token_budget        (SjAgent    *self,
                                                 guint       tokens);
void          _sj_agent_set_retry_policy        (SjAgent    *self,
                                                 guint       max_retries,
                                                 guint       base_delay_ms,
                                                 guint       max_delay_ms);

G_END_DECLS
