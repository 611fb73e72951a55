/* sj-tool-call-details.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TOOL_CALL_DETAILS_MAX_MEMBERS 40
#define SJ_TOOL_CALL_DETAILS_MAX_CHARS   4000

GtkWidget *sj_tool_call_details_new (const char *json,
                                     const char *accessible_label);

G_END_DECLS
