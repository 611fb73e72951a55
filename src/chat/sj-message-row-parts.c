/* sj-message-row-parts.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The body of an answer's row, in the order the answer was written. One
 * turn is one message whose text grows over the rounds of the agent loop
 * (text, then the tool calls of that response, then the text of the next
 * response, and so on), and each call knows how much of the text came
 * before it (SjHistoryToolCall.text_offset). So the body is a column of
 * parts: a Markdown view for the text up to the first calls, a list of
 * the calls made at that point, a Markdown view for the text after them,
 * and so on; streamed text goes to the last view, and a call that finishes
 * while the answer streams goes after the text so far. Calls of older
 * answers, whose place is not known, are listed after the text, as they
 * always were.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-markdown-view.h"
#include "sj-message-row-private.h"
#include "sj-tool-call-item.h"
#include "sj-tool-log-row.h"

/* The text of a part after calls: without the blank lines that begin the
 * text of a later round (sj-agent.c). */
static const char *
skip_blank_lines (const char *text)
{
  while (*text == '\n' || *text == '\r')
    text++;
  return text;
}

/* Where a call was made, as an offset into @content no earlier than
 * @start and on a character boundary: a stored offset may not fit text
 * that was cleaned up when it was saved (invalid UTF-8, a redacted key). */
static gsize
fit_offset (const char *content,
            gsize       length,
            gsize       start,
            gint64      offset)
{
  gsize fitted = CLAMP ((gsize) MAX (offset, 0), start, length);

  while (fitted > start && (content[fitted] & 0xc0) == 0x80)
    fitted--;
  return fitted;
}

static GtkWidget *
tool_row_new (SjToolCallItem *item)
{
  GtkWidget *row = gtk_list_box_row_new ();

  /* The row only holds the call: its expander is what the keyboard and a
   * screen reader reach, not a nameless row around it. */
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), sj_tool_log_row_new_readable (sj_tool_call_item_get_call (item)));
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_set_focusable (row, FALSE);

  return row;
}

static GtkListBox *
tool_list_new (void)
{
  GtkWidget *list = gtk_list_box_new ();

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Tool calls"), -1);

  return GTK_LIST_BOX (list);
}

static SjMarkdownView *
add_text_view (SjMessageRow *self,
               const char   *text)
{
  SjMarkdownView *view = g_object_new (SJ_TYPE_MARKDOWN_VIEW, NULL);

  gtk_box_append (self->body, GTK_WIDGET (view));
  sj_markdown_view_set_text (view, text);

  return view;
}

/* Back to one empty Markdown view, and no calls. */
void
_sj_message_row_clear_parts (SjMessageRow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_last_child (GTK_WIDGET (self->body))) != GTK_WIDGET (self->markdown))
    gtk_box_remove (self->body, child);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->tool_list))) != NULL)
    gtk_list_box_remove (self->tool_list, child);
  gtk_widget_set_visible (GTK_WIDGET (self->tool_list), FALSE);

  self->text_view = self->markdown;
  self->group = NULL;
  self->group_offset = -1;
  self->text_start = 0;
}

/* Calls made at @offset of @content: the text before them is shown
 * (@show_text: it is not yet), and a new list takes them. */
static void
open_group (SjMessageRow *self,
            const char   *content,
            gsize         offset,
            gboolean      show_text)
{
  const char *start = self->text_view == self->markdown ? content : skip_blank_lines (content + self->text_start);
  gsize length = content + offset > start ? (gsize) (content + offset - start) : 0;

  if (show_text)
    {
      g_autofree char *text = g_strndup (start, length);

      if (self->text_view != NULL)
        sj_markdown_view_set_text (self->text_view, text);
      else if (length > 0)
        add_text_view (self, text);
    }
  /* An answer that calls tools before it says anything starts with them. */
  if (self->text_view == self->markdown && length == 0)
    gtk_widget_set_visible (GTK_WIDGET (self->markdown), FALSE);

  self->group = tool_list_new ();
  gtk_box_append (self->body, GTK_WIDGET (self->group));
  self->group_offset = offset;
  self->text_start = offset;
  self->text_view = NULL;
}

/* The whole answer, from the message: when bound, and when a call does not
 * follow the text shown so far. */
void
_sj_message_row_show_parts (SjMessageRow *self)
{
  const char *content = sj_chat_message_get_content (self->message);
  GListModel *calls = sj_chat_message_get_tool_calls (self->message);
  gsize length = strlen (content);
  guint n = g_list_model_get_n_items (calls);
  const char *rest;

  _sj_message_row_clear_parts (self);
  gtk_widget_set_visible (GTK_WIDGET (self->markdown), sj_chat_message_get_role (self->message) == SJ_HISTORY_ROLE_ASSISTANT);
  /* The musician's words and the app's are a plain label. */
  if (sj_chat_message_get_role (self->message) != SJ_HISTORY_ROLE_ASSISTANT)
    return;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SjToolCallItem) item = g_list_model_get_item (calls, i);
      const SjHistoryToolCall *call = sj_tool_call_item_get_call (item);
      gsize offset;

      if (call->text_offset < 0)
        {
          gtk_list_box_append (self->tool_list, tool_row_new (item));
          gtk_widget_set_visible (GTK_WIDGET (self->tool_list), TRUE);
          continue;
        }

      offset = fit_offset (content, length, self->text_start, call->text_offset);
      if (self->group == NULL || (gint64) offset != self->group_offset)
        open_group (self, content, offset, TRUE);
      gtk_list_box_append (self->group, tool_row_new (item));
    }

  /* The text after the last calls, or all of it. */
  rest = self->text_view == self->markdown ? content : skip_blank_lines (content + self->text_start);
  if (self->text_view == self->markdown)
    sj_markdown_view_set_text (self->markdown, rest);
  else if (*rest != '\0')
    self->text_view = add_text_view (self, rest);
}

/* A call that just finished: while the answer streams, it was made at the
 * end of the text so far, and goes after it. */
static void
add_call (SjMessageRow   *self,
          SjToolCallItem *item)
{
  const SjHistoryToolCall *call = sj_tool_call_item_get_call (item);
  const char *content = sj_chat_message_get_content (self->message);
  gsize length = strlen (content);

  if (call->text_offset < 0)
    {
      gtk_list_box_append (self->tool_list, tool_row_new (item));
      gtk_widget_set_visible (GTK_WIDGET (self->tool_list), TRUE);
      return;
    }

  if (self->group != NULL && self->text_view == NULL && call->text_offset == self->group_offset)
    {
      gtk_list_box_append (self->group, tool_row_new (item));
      return;
    }

  if (call->text_offset != (gint64) length || length < self->text_start)
    {
      _sj_message_row_show_parts (self);
      return;
    }

  /* The text before it is already shown, as it streamed. */
  open_group (self, content, length, FALSE);
  gtk_list_box_append (self->group, tool_row_new (item));
}

/* Streamed text of the answer: to the last part, or a new one after calls. */
void
_sj_message_row_append_text (SjMessageRow *self,
                             const char   *text)
{
  const char *rest;

  if (self->text_view != NULL)
    {
      sj_markdown_view_append (self->text_view, text);
      return;
    }

  /* The first words after calls start the next part. */
  rest = skip_blank_lines (sj_chat_message_get_content (self->message) + self->text_start);
  if (*rest != '\0')
    self->text_view = add_text_view (self, rest);
}

void
_sj_message_row_calls_changed (SjMessageRow *self,
                               guint         position,
                               guint         removed,
                               guint         added,
                               GListModel   *calls)
{
  if (removed > 0 || position + added != g_list_model_get_n_items (calls))
    {
      _sj_message_row_show_parts (self);
      return;
    }

  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(SjToolCallItem) item = g_list_model_get_item (calls, i);

      add_call (self, item);
    }
}
