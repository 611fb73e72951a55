/* sj-tool-logs-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

#define SJ_TYPE_TOOL_LOGS_PAGE (sj_tool_logs_page_get_type ())

G_DECLARE_FINAL_TYPE (SjToolLogsPage, sj_tool_logs_page, SJ, TOOL_LOGS_PAGE, GtkWidget)

void            sj_tool_logs_page_set_store   (SjToolLogsPage *self,
                                               SjHistoryStore *store);
void            sj_tool_logs_page_set_session (SjToolLogsPage *self,
                                               gint64          session_id);
void            sj_tool_logs_page_add_call    (SjToolLogsPage *self,
                                               gint64          tool_call_id);

G_END_DECLS
