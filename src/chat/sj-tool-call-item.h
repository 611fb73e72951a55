/* sj-tool-call-item.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

#define SJ_TYPE_TOOL_CALL_ITEM (sj_tool_call_item_get_type ())

G_DECLARE_FINAL_TYPE (SjToolCallItem, sj_tool_call_item, SJ, TOOL_CALL_ITEM, GObject)

SjToolCallItem          *sj_tool_call_item_new          (const SjHistoryToolCall *call);
const SjHistoryToolCall *sj_tool_call_item_get_call     (SjToolCallItem          *self);
gboolean                 sj_tool_call_item_get_expanded (SjToolCallItem          *self);
void                     sj_tool_call_item_set_expanded (SjToolCallItem          *self,
                                                         gboolean                 expanded);
void                     sj_tool_call_item_set_origin   (SjToolCallItem          *self,
                                                         const char              *origin);
const char              *sj_tool_call_item_get_origin   (SjToolCallItem          *self);

G_END_DECLS
