/* sj-message-row-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in a message row (its message and its Markdown
 * view), and what its files share: sj-message-row.c and the parts of an
 * answer's body, sj-message-row-parts.c.
 */

#pragma once

#include "sj-markdown-view.h"
#include "sj-message-row.h"

G_BEGIN_DECLS

struct _SjMessageRow
{
  GtkWidget      parent_instance;

  SjChatMessage *message;
  GSignalGroup  *signals;

  GtkLabel      *role_label;
  GtkExpander   *thinking_expander;
  GtkLabel      *reasoning_label;
  GtkLabel      *text_label;
  GtkBox        *body;
  SjMarkdownView *markdown;        /* the text before the first calls */
  GtkBox        *skills_box;
  GtkListBox    *tool_list;
  GtkWidget     *swap_box;
  GtkLabel      *swap_label;
  GtkWidget     *swap_cancel_button;
  GtkWidget     *footer;
  GtkSpinner    *spinner;
  GtkLabel      *cooked_label;
  GtkLabel      *usage_label;
  GtkWidget     *edit_button;
  GtkWidget     *copy_button;
  GtkWidget     *regenerate_button;

  /* The parts of the body (sj-message-row-parts.c) */
  SjMarkdownView *text_view;       /* where streamed text goes; NULL right after calls */
  GtkListBox    *group;            /* the last list of calls in the body, or NULL */
  gint64         group_offset;     /* where in the text its calls were made */
  gsize          text_start;       /* where in the text the part after the last calls starts */
};

void           _sj_message_row_clear_parts   (SjMessageRow *self);
void           _sj_message_row_show_parts    (SjMessageRow *self);
void           _sj_message_row_append_text   (SjMessageRow *self,
                                              const char   *text);
void           _sj_message_row_calls_changed (SjMessageRow *self,
                                              guint         position,
                                              guint         removed,
                                              guint         added,
                                              GListModel   *calls);

SjChatMessage *_sj_message_row_get_message  (SjMessageRow *self);
GtkWidget     *_sj_message_row_get_markdown (SjMessageRow *self);
GtkWidget     *_sj_message_row_get_usage_label (SjMessageRow *self);

G_END_DECLS
