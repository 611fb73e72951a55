/* sj-chat-message.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

/* Where the change an assistant message applied stands. */
typedef enum
{
  SJ_CHAT_SWAP_NONE,
  SJ_CHAT_SWAP_QUEUED,
  SJ_CHAT_SWAP_APPLIED,
  SJ_CHAT_SWAP_DROPPED,   /* superseded or canceled before it played */
  SJ_CHAT_SWAP_LISTENING, /* it plays: the app listens to it (sj-change-verify.c) */
  SJ_CHAT_SWAP_REVERTED,  /* it made no sound or failed to play: put back */
  SJ_CHAT_SWAP_WARNED,    /* it made no sound or failed to play: kept */
  SJ_CHAT_SWAP_SENT,      /* read back from the history, with no word of how it landed */
  SJ_CHAT_SWAP_CANCELED,  /* the musician canceled it before its boundary */
  SJ_CHAT_SWAP_LANDING,   /* the page committed it: it sounds within the beat, too late to cancel */
} SjChatSwap;

#define SJ_TYPE_CHAT_MESSAGE (sj_chat_message_get_type ())

G_DECLARE_FINAL_TYPE (SjChatMessage, sj_chat_message, SJ, CHAT_MESSAGE, GObject)

SjChatMessage          *sj_chat_message_new_from_history (const SjHistoryMessage *message);
gint64                  sj_chat_message_get_id           (SjChatMessage          *self);
SjHistoryRole           sj_chat_message_get_role         (SjChatMessage          *self);
const char             *sj_chat_message_get_content      (SjChatMessage          *self);
const char             *sj_chat_message_get_reasoning    (SjChatMessage          *self);
SjHistoryMessageStatus  sj_chat_message_get_status       (SjChatMessage          *self);
void                    sj_chat_message_set_status       (SjChatMessage          *self,
                                                          SjHistoryMessageStatus  status,
                                                          gint64                  ended);
gint64                  sj_chat_message_get_started      (SjChatMessage          *self);
gint64                  sj_chat_message_get_ended        (SjChatMessage          *self);
void                    sj_chat_message_append           (SjChatMessage          *self,
                                                          gboolean                reasoning,
                                                          const char             *text);
GListModel             *sj_chat_message_get_tool_calls   (SjChatMessage          *self);
void                    sj_chat_message_add_tool_call    (SjChatMessage          *self,
                                                          const SjHistoryToolCall *call);
double                  sj_chat_message_get_swap_cycle   (SjChatMessage          *self);
SjChatSwap              sj_chat_message_get_swap         (SjChatMessage          *self);
void                    sj_chat_message_set_swap         (SjChatMessage          *self,
                                                          SjChatSwap              swap,
                                                          double                  cycle);
int                     sj_chat_message_get_swap_beats   (SjChatMessage          *self);
void                    sj_chat_message_set_swap_beats   (SjChatMessage          *self,
                                                          int                     beats);
gboolean                sj_chat_message_get_is_last      (SjChatMessage          *self);
void                    sj_chat_message_set_is_last      (SjChatMessage          *self,
                                                          gboolean                is_last);
GPtrArray              *sj_chat_message_get_skills       (SjChatMessage          *self);
void                    sj_chat_message_set_skills       (SjChatMessage          *self,
                                                          GPtrArray              *skills);
void                    sj_chat_message_set_usage        (SjChatMessage          *self,
                                                          const SjUsage          *usage);
const char             *sj_chat_message_get_usage_caption (SjChatMessage         *self);
char                   *sj_chat_format_cooked            (gint64                  duration_us);

G_END_DECLS
