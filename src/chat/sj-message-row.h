/* sj-message-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-chat-message.h"

G_BEGIN_DECLS

#define SJ_TYPE_MESSAGE_ROW (sj_message_row_get_type ())

G_DECLARE_FINAL_TYPE (SjMessageRow, sj_message_row, SJ, MESSAGE_ROW, GtkWidget)

GtkWidget     *sj_message_row_new          (void);
void           sj_message_row_bind         (SjMessageRow  *self,
                                            SjChatMessage *message);
void           sj_message_row_unbind       (SjMessageRow  *self);

G_END_DECLS
