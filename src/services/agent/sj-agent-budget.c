/* sj-agent-budget.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the agent costs, and the session's budget. Each answer of the
 * provider (finished, stopped or failed: a partial answer may carry its
 * usage too) adds its usage to the turn's sum, which is kept in the
 * history as the answer's cost at once, so that the session's total is
 * right whenever the next request is about to go. Before every request,
 * the first of a turn and each one after tool calls, the session's total
 * is checked against the budget of the agent-budget-* settings: once it
 * is reached, no request is sent and the turn ends with
 * SJ_AGENT_ERROR_BUDGET_USED_UP, whose message the transcript shows.
 * The music is never touched by it: a change already handed to the page
 * lands as it would have.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-agent-private.h"
#include "sj-json.h"

/**
 * _sj_agent_account_usage:
 * @answer: (nullable): the provider's answer, whole or partial
 *
 * Adds the usage of @answer to the turn's and keeps the sum as the cost
 * of the turn's message.
 */
void
_sj_agent_account_usage (SjAgent     *self,
                         SjAgentTurn *turn,
                         JsonObject  *answer)
{
  g_autoptr(GError) error = NULL;
  SjUsage usage;

  g_assert (SJ_IS_AGENT (self));

  if (answer == NULL)
    return;

  sj_usage_parse (sj_json_object_get_object (answer, "usage"), self->local, &usage);
  sj_usage_add (&turn->usage, &usage);

  if (turn->message_id != 0 &&
      !sj_history_store_set_message_usage (self->store, turn->message_id, &turn->usage, &error))
    g_warning ("Could not keep what the answer cost: %s", error->message);
}

/**
 * _sj_agent_check_budget:
 *
 * Returns: (transfer full) (nullable): %SJ_AGENT_ERROR_BUDGET_USED_UP when
 *   the session @session_id has spent its budget, %NULL while it may go on
 */
GError *
_sj_agent_check_budget (SjAgent *self,
                        gint64   session_id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *amount = NULL;
  SjUsage total;

  g_assert (SJ_IS_AGENT (self));

  if (self->budget_kind == SJ_AGENT_BUDGET_NONE || session_id == 0)
    return NULL;

  if (!sj_history_store_get_session_usage (self->store, session_id, &total, &error))
    {
      /* The history cannot say: the musician is not stopped for that. */
      g_warning ("Could not read what the session cost: %s", error->message);
      return NULL;
    }

  if (self->budget_kind == SJ_AGENT_BUDGET_TOKENS)
    {
      gint64 tokens = sj_usage_get_total_tokens (&total);

      if (tokens < 0 || (guint64) tokens < self->budget_tokens)
        return NULL;
      amount = sj_usage_format_tokens ((gint64) MIN (self->budget_tokens, (guint64) G_MAXINT64));
    }
  else
    {
      if (isnan (total.cost) || total.cost < self->budget_money)
        return NULL;
      amount = sj_usage_format_cost (self->budget_money);
    }

  /* TRANSLATORS: %s is the budget, "50,000 tokens" or "$1.00" */
  return g_error_new (SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUDGET_USED_UP,
                      _("The session’s budget of %s is used up: raise it in Settings → Limits to go on."), amount);
}

/**
 * sj_agent_set_budget:
 * @kind: what the budget counts, or %SJ_AGENT_BUDGET_NONE for none
 * @tokens: the most tokens a session may use, for %SJ_AGENT_BUDGET_TOKENS
 * @money: the most US dollars a session may cost, for %SJ_AGENT_BUDGET_MONEY
 *
 * Takes effect from the next request, within a turn under way too.
 */
void
sj_agent_set_budget (SjAgent           *self,
                     SjAgentBudgetKind  kind,
                     guint64            tokens,
                     double             money)
{
  g_assert (SJ_IS_AGENT (self));
  g_return_if_fail (kind <= SJ_AGENT_BUDGET_MONEY);

  self->budget_kind = kind;
  self->budget_tokens = tokens;
  self->budget_money = isfinite (money) && money >= 0 ? money : 0;
}
