/* sj-usage.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <math.h>

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* What one request (or a sum of them) cost. A count of -1 and a cost of
 * NAN mean the provider did not say: unknown is never read as 0. */
typedef struct
{
  gint64 prompt_tokens;
  gint64 completion_tokens;
  gint64 reasoning_tokens;  /* part of the completion tokens, when given */
  double cost;              /* US dollars */
} SjUsage;

/* Bounds of one request's figures: past them a field is malformed and
 * reads as unknown. No context window is near a billion tokens, and no
 * single request costs ten thousand dollars. */
#define SJ_USAGE_MAX_TOKENS G_GINT64_CONSTANT (1000000000)
#define SJ_USAGE_MAX_COST   10000.0

#define SJ_USAGE_INIT { -1, -1, -1, NAN }

void     sj_usage_init_unknown     (SjUsage       *usage);
gboolean sj_usage_parse            (JsonObject    *object,
                                    gboolean       local,
                                    SjUsage       *usage);
void     sj_usage_add              (SjUsage       *total,
                                    const SjUsage *more);
gboolean sj_usage_is_known         (const SjUsage *usage);
gint64   sj_usage_get_total_tokens (const SjUsage *usage);
char    *sj_usage_format_tokens    (gint64         tokens);
char    *sj_usage_format_cost      (double         cost);
char    *sj_usage_format           (const SjUsage *usage);

G_END_DECLS
