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

GtkWidget      *sj_tool_logs_page_new         (void);
void            sj_tool_logs_page_set_store   (SjToolLogsPage *self,
                                               SjHistoryStore *store);
SjHistoryStore *sj_tool_logs_page_get_store   (SjToolLogsPage *self);
void            sj_tool_logs_page_set_session (SjToolLogsPage *self,
                                               gint64          session_id);
gint64          sj_tool_logs_page_get_session (SjToolLogsPage *self);
void            sj_tool_logs_page_add_call    (SjToolLogsPage *self,
                                               gint64          tool_call_id);
GListModel     *sj_tool_logs_page_get_calls   (SjToolLogsPage *self);

G_END_DECLS
