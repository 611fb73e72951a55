/* sj-tool-logs-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests need: a Logs page of their own, and the calls it lists.
 */

#pragma once

#include "sj-tool-logs-page.h"

G_BEGIN_DECLS

GtkWidget  *_sj_tool_logs_page_new       (void);
GListModel *_sj_tool_logs_page_get_calls (SjToolLogsPage *self);

G_END_DECLS
