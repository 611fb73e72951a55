/* sj-tool-log-row-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in a tool log row: its call and its one-line summary.
 */

#pragma once

#include "sj-tool-log-row.h"

G_BEGIN_DECLS

gint64      _sj_tool_log_row_get_id      (SjToolLogRow *self);
const char *_sj_tool_log_row_get_summary (SjToolLogRow *self);

G_END_DECLS
