/* sj-tool-log-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

#define SJ_TYPE_TOOL_LOG_ROW (sj_tool_log_row_get_type ())

G_DECLARE_FINAL_TYPE (SjToolLogRow, sj_tool_log_row, SJ, TOOL_LOG_ROW, GtkWidget)

GtkWidget  *sj_tool_log_row_new           (const SjHistoryToolCall *call);
GtkWidget  *sj_tool_log_row_new_readable  (const SjHistoryToolCall *call);
gboolean    sj_tool_log_row_get_expanded  (SjToolLogRow            *self);
void        sj_tool_log_row_set_expanded  (SjToolLogRow            *self,
                                           gboolean                 expanded);
char       *sj_tool_log_row_get_copy_text (SjToolLogRow            *self);
void        sj_tool_log_row_copy          (SjToolLogRow            *self);
void        sj_tool_log_row_set_origin    (SjToolLogRow            *self,
                                           const char              *origin);

G_END_DECLS
