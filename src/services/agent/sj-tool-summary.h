/* sj-tool-summary.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

char *sj_tool_summary_line        (const SjHistoryToolCall *call);
char *sj_tool_summary_duration    (gint64                   duration_ms);
char *sj_tool_summary_pretty_json (const char              *text);

G_END_DECLS
