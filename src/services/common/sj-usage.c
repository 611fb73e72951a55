/* sj-usage.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the agent costs: the tokens and the money of a request, read from
 * the "usage" object an OpenAI-compatible provider sends with the last
 * chunk of a stream ("prompt_tokens", "completion_tokens",
 * "completion_tokens_details.reasoning_tokens", and OpenRouter's "cost"
 * in US dollars). The object comes from the network, so every field is
 * checked here, at the boundary: a count must be a whole number from 0 to
 * SJ_USAGE_MAX_TOKENS and a cost a finite number from 0 to
 * SJ_USAGE_MAX_COST, or it is unknown. Unknown stays unknown (-1, NAN)
 * rather than 0, so a caption never claims an answer was free when the
 * provider said nothing; only a local server's cost is known to be 0.
 *
 * Sums (of a turn's requests, of a session) add what is known: a field is
 * unknown only when no part of the sum knew it.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-json.h"
#include "sj-usage.h"

void
sj_usage_init_unknown (SjUsage *usage)
{
  g_return_if_fail (usage != NULL);

  usage->prompt_tokens = -1;
  usage->completion_tokens = -1;
  usage->reasoning_tokens = -1;
  usage->cost = NAN;
}

/* A token count: an integer, or a double holding one (some servers send
 * 12.0), within bounds; -1 otherwise. */
static gint64
read_count (JsonObject *object,
            const char *name)
{
  JsonNode *node;
  double value;

  if (object == NULL || (node = json_object_get_member (object, name)) == NULL ||
      !JSON_NODE_HOLDS_VALUE (node))
    return -1;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      {
        gint64 count = json_node_get_int (node);

        return count >= 0 && count <= SJ_USAGE_MAX_TOKENS ? count : -1;
      }
    case G_TYPE_DOUBLE:
      value = json_node_get_double (node);
      if (!isfinite (value) || value < 0 || value > (double) SJ_USAGE_MAX_TOKENS || value != floor (value))
        return -1;
      return (gint64) value;
    default:
      return -1;
    }
}

static double
read_cost (JsonObject *object,
           const char *name)
{
  JsonNode *node = json_object_get_member (object, name);
  double value;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NAN;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      value = (double) json_node_get_int (node);
      break;
    case G_TYPE_DOUBLE:
      value = json_node_get_double (node);
      break;
    default:
      return NAN;
    }

  if (!isfinite (value) || value < 0 || value > SJ_USAGE_MAX_COST)
    return NAN;

  return value;
}

/**
 * sj_usage_parse:
 * @object: (nullable): the provider's "usage" object
 * @local: whether the provider is a server on this machine, whose cost is 0
 * @usage: (out): what it says, unknown where it does not
 *
 * Returns: whether any figure was known
 */
gboolean
sj_usage_parse (JsonObject *object,
                gboolean    local,
                SjUsage    *usage)
{
  g_return_val_if_fail (usage != NULL, FALSE);

  sj_usage_init_unknown (usage);

  if (object != NULL)
    {
      usage->prompt_tokens = read_count (object, "prompt_tokens");
      usage->completion_tokens = read_count (object, "completion_tokens");
      usage->reasoning_tokens = read_count (sj_json_object_get_object (object, "completion_tokens_details"),
                                            "reasoning_tokens");
      usage->cost = read_cost (object, "cost");
    }

  if (local)
    usage->cost = 0;

  return sj_usage_is_known (usage);
}

static gint64
add_count (gint64 a,
           gint64 b)
{
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  /* Sums of bounded counts: a session would need billions of requests to
   * get near the limit, and then it stays there. */
  return a > G_MAXINT64 - b ? G_MAXINT64 : a + b;
}

void
sj_usage_add (SjUsage       *total,
              const SjUsage *more)
{
  g_return_if_fail (total != NULL);
  g_return_if_fail (more != NULL);

  total->prompt_tokens = add_count (total->prompt_tokens, more->prompt_tokens);
  total->completion_tokens = add_count (total->completion_tokens, more->completion_tokens);
  total->reasoning_tokens = add_count (total->reasoning_tokens, more->reasoning_tokens);
  if (isnan (total->cost))
    total->cost = more->cost;
  else if (!isnan (more->cost))
    total->cost += more->cost;
}

gboolean
sj_usage_is_known (const SjUsage *usage)
{
  g_return_val_if_fail (usage != NULL, FALSE);

  return usage->prompt_tokens >= 0 || usage->completion_tokens >= 0 ||
         usage->reasoning_tokens >= 0 || !isnan (usage->cost);
}

/**
 * sj_usage_get_total_tokens:
 *
 * Returns: the prompt and completion tokens (the reasoning tokens are
 *   counted in the completion), or -1 when neither is known
 */
gint64
sj_usage_get_total_tokens (const SjUsage *usage)
{
  g_return_val_if_fail (usage != NULL, -1);

  if (usage->prompt_tokens < 0 && usage->completion_tokens < 0)
    return usage->reasoning_tokens;

  return add_count (usage->prompt_tokens, usage->completion_tokens);
}

/* "1,234 tokens", grouped as the locale groups digits. */
char *
sj_usage_format_tokens (gint64 tokens)
{
  g_autofree char *number = g_strdup_printf ("%'" G_GINT64_FORMAT, tokens);

  return g_strdup_printf (ngettext ("%s token", "%s tokens", (gulong) MIN (tokens, G_MAXLONG)),
                          number);
}

/* "$0.0021", "$0.50", "$1.50": cents from a dollar up or when the amount
 * is whole cents (a budget), four places otherwise, where one answer's
 * cost usually is. */
char *
sj_usage_format_cost (double cost)
{
  g_autofree char *number = NULL;

  if (cost == 0)
    number = g_strdup ("0");
  else if (cost >= 1 || fabs (cost * 100 - round (cost * 100)) < 1e-9)
    number = g_strdup_printf ("%'.2f", cost);
  else if (cost >= 0.0001)
    number = g_strdup_printf ("%.4f", cost);
  else
    number = g_strdup_printf ("%.6f", cost);

  /* TRANSLATORS: an amount of US dollars, such as "$0.0021" */
  return g_strdup_printf (_("$%s"), number);
}

/**
 * sj_usage_format:
 *
 * Returns: the caption under an answer or a session: "1,234 tokens ·
 *   $0.0021", "1,234 tokens" when the cost is unknown, "tokens unknown"
 *   when the provider gave no count
 */
char *
sj_usage_format (const SjUsage *usage)
{
  gint64 tokens;
  g_autofree char *tokens_text = NULL;
  g_autofree char *cost_text = NULL;

  g_return_val_if_fail (usage != NULL, NULL);

  tokens = sj_usage_get_total_tokens (usage);
  tokens_text = tokens >= 0 ? sj_usage_format_tokens (tokens) : g_strdup (_("tokens unknown"));
  if (isnan (usage->cost))
    return g_steal_pointer (&tokens_text);

  cost_text = sj_usage_format_cost (usage->cost);
  /* TRANSLATORS: the tokens and the cost of an answer, "1,234 tokens · $0.0021" */
  return g_strdup_printf (_("%s · %s"), tokens_text, cost_text);
}
