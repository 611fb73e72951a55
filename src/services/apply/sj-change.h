/* sj-change.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-change-result.h"

G_BEGIN_DECLS

typedef enum
{
  SJ_QUANTIZE_NEXT_CYCLE,
  SJ_QUANTIZE_NEXT_BAR,
  SJ_QUANTIZE_BARS,
  SJ_QUANTIZE_NEXT_BEAT,   /* a beat is a quarter of a cycle (swap.mjs) */
} SjQuantize;

/* When and how a validated change lands. */
typedef struct
{
  SjQuantize quantize;
  guint      bars;           /* for SJ_QUANTIZE_BARS, 1–64 */
  guint      bar_cycles;     /* cycles per bar, from the settings */
  gboolean   auto_start;     /* start playback when stopped */
  guint      dry_run_bars;   /* bars the dry-run queries, 1–8 cycles in all */
  gboolean   refuse_unavailable; /* the page refuses the code when a sound of it fails to load
                                  * (set by the applier for the agent's changes) */
} SjSwapPolicy;

typedef struct
{
  char      *base_hash;
  char      *code;           /* full_code, or NULL */
  GPtrArray *searches;       /* search_replace: search texts */
  GPtrArray *replaces;       /* search_replace: replacements */
  SjSwapPolicy policy;
} SjChangeRequest;

#define SJ_CHANGE_MAX_CODE (256 * 1024)

char            *sj_code_hash                (const char            *code);
const char      *sj_quantize_to_string       (SjQuantize             quantize);
SjChangeRequest *sj_change_request_parse     (JsonNode              *input,
                                              const SjSwapPolicy    *defaults,
                                              SjChangeResult       **out_rejection);
void             sj_change_request_free      (SjChangeRequest       *request);
char            *sj_change_request_build     (const SjChangeRequest *request,
                                              const char            *current,
                                              SjChangeResult       **out_rejection);
JsonObject      *sj_read_code                (const char            *code,
                                              const char            *query);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjChangeRequest, sj_change_request_free)

G_END_DECLS
