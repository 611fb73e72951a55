/* sj-agent.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-agent-tools.h"
#include "sj-history-store.h"
#include "sj-llm-client.h"
#include "sj-skill-registry.h"

G_BEGIN_DECLS

#define SJ_AGENT_ERROR (sj_agent_error_quark ())

typedef enum
{
  SJ_AGENT_ERROR_BUSY,            /* a turn is already under way */
  SJ_AGENT_ERROR_NOT_CONFIGURED,  /* no model, no key, no keyring: see the message */
  SJ_AGENT_ERROR_NOTHING_TO_REDO, /* no last message to regenerate or edit */
  SJ_AGENT_ERROR_NO_API_KEY,      /* the provider needs a key and none is stored */
  SJ_AGENT_ERROR_NO_KEYRING,      /* no Secret Service to keep the key in */
  SJ_AGENT_ERROR_KEYRING_LOCKED,  /* the keyring holding the key is locked */
  SJ_AGENT_ERROR_NO_MODEL,        /* no model chosen */
  SJ_AGENT_ERROR_UNREACHABLE,     /* nothing answers at the custom endpoint */
  SJ_AGENT_ERROR_EMPTY_ANSWER,    /* the model finished without a word or a tool call */
  SJ_AGENT_ERROR_TOO_MANY_REQUESTS, /* the turn reached its bound of tool budget + 1 requests */
  SJ_AGENT_ERROR_BUDGET_USED_UP,  /* the session's budget of tokens or money is reached */
} SjAgentError;

/* What a session may spend (the agent-budget-kind setting). */
typedef enum
{
  SJ_AGENT_BUDGET_NONE,
  SJ_AGENT_BUDGET_TOKENS,
  SJ_AGENT_BUDGET_MONEY,
} SjAgentBudgetKind;

GQuark sj_agent_error_quark (void);

typedef enum
{
  SJ_AGENT_DELTA_CONTENT,
  SJ_AGENT_DELTA_REASONING,
} SjAgentDeltaKind;

/* Defaults of the settings the agent has no GSettings for. */
#define SJ_AGENT_DEFAULT_MAX_RETRIES   3
#define SJ_AGENT_DEFAULT_RETRY_BASE_MS 1000
#define SJ_AGENT_DEFAULT_RETRY_MAX_MS  30000

#define SJ_TYPE_AGENT (sj_agent_get_type ())

G_DECLARE_FINAL_TYPE (SjAgent, sj_agent, SJ, AGENT, GObject)

SjAgent        *sj_agent_new                (SjAgentTools         *tools,
                                             SjHistoryStore       *store);
SjHistoryStore *sj_agent_get_store          (SjAgent              *self);
void            sj_agent_set_client         (SjAgent              *self,
                                             SjLlmClient          *client,
                                             gboolean              openrouter);
void            sj_agent_set_config_error   (SjAgent              *self,
                                             const GError         *error);
void            sj_agent_set_model          (SjAgent              *self,
                                             const char           *model,
                                             const char           *reasoning_mode,
                                             double                temperature);
void            sj_agent_set_limits         (SjAgent              *self,
                                             guint                 max_repair_attempts,
                                             guint                 tool_budget);
void            sj_agent_set_budget         (SjAgent              *self,
                                             SjAgentBudgetKind     kind,
                                             guint64               tokens,
                                             double                money);
gint64          sj_agent_get_session_id     (SjAgent              *self);
gboolean        sj_agent_load_session       (SjAgent              *self,
                                             gint64                session_id,
                                             GError              **error);
void            sj_agent_new_session        (SjAgent              *self);
gboolean        sj_agent_resume             (SjAgent              *self,
                                             gint64                remembered,
                                             GError              **error);
gboolean        sj_agent_is_busy            (SjAgent              *self);
gint64          sj_agent_get_last_user_message (SjAgent           *self);
void            sj_agent_send_async         (SjAgent              *self,
                                             const char           *text,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
void            sj_agent_regenerate_async   (SjAgent              *self,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
void            sj_agent_resend_async       (SjAgent              *self,
                                             const char           *text,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
gboolean        sj_agent_send_finish        (SjAgent              *self,
                                             GAsyncResult         *result,
                                             GError              **error);
void            sj_agent_stop               (SjAgent              *self);
void            sj_agent_add_note           (SjAgent              *self,
                                             const char           *transcript,
                                             const char           *for_model);

void            sj_agent_set_skills         (SjAgent              *self,
                                             SjSkillRegistry      *skills);
SjSkillRegistry *sj_agent_get_skills        (SjAgent              *self);
gboolean        sj_agent_set_skill_pinned   (SjAgent              *self,
                                             const char           *name,
                                             gboolean              pinned,
                                             GError              **error);
GStrv           sj_agent_get_pinned_skills  (SjAgent              *self);

G_END_DECLS
