/* sj-message-row-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in a message row: its message and its Markdown view.
 */

#pragma once

#include "sj-message-row.h"

G_BEGIN_DECLS

SjChatMessage *_sj_message_row_get_message  (SjMessageRow *self);
GtkWidget     *_sj_message_row_get_markdown (SjMessageRow *self);
GtkWidget     *_sj_message_row_get_usage_label (SjMessageRow *self);

G_END_DECLS
