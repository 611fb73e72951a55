/* sj-message-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A row of the conversation. The list recycles rows, so one row shows
 * whichever message it is bound to: the musician's words, the agent's
 * answer (its thinking in a collapsed expander, the Markdown, chips for
 * the skills its turn used, the finished tool calls, when its change lands, how long it cooked, or that the app
 * stopped before it finished), or a line of the app's own. While bound
 * to a streaming message it follows the message's "appended" signal, and
 * the Markdown view renders the new text on the next frame, never the
 * whole message again.
 *
 * An answer is shown in the order it was written, its text and its tool
 * calls in parts: sj-message-row-parts.c.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-markdown-view.h"
#include "sj-message-row-private.h"


G_DEFINE_FINAL_TYPE (SjMessageRow, sj_message_row, GTK_TYPE_WIDGET)

static void
update_status (SjMessageRow *self)
{
  SjChatMessage *message = self->message;
  SjHistoryRole role = sj_chat_message_get_role (message);
  SjHistoryMessageStatus status = sj_chat_message_get_status (message);
  gboolean streaming = status == SJ_HISTORY_MESSAGE_STREAMING;
  g_autofree char *cooked = NULL;

  gtk_widget_set_visible (self->footer, role == SJ_HISTORY_ROLE_ASSISTANT || role == SJ_HISTORY_ROLE_USER);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), streaming);
  gtk_spinner_set_spinning (self->spinner, streaming);

  /* Rows are recycled: what an interrupted answer adds goes again here. */
  gtk_widget_remove_css_class (GTK_WIDGET (self->cooked_label), "warning");
  gtk_accessible_reset_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  if (role != SJ_HISTORY_ROLE_ASSISTANT)
    gtk_label_set_label (self->cooked_label, "");
  else if (streaming)
    gtk_label_set_label (self->cooked_label, _("Cooking…"));
  else if (status == SJ_HISTORY_MESSAGE_INTERRUPTED)
    {
      /* No time cooked: when it ended is not known. What it said so far
       * stays above, and Regenerate is offered when it is the last one. */
      gtk_label_set_label (self->cooked_label, _("Interrupted — the app stopped before this answer finished"));
      gtk_widget_add_css_class (GTK_WIDGET (self->cooked_label), "warning");
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      _("Interrupted answer: the app stopped before it finished, and only its beginning was kept"),
                                      -1);
    }
  else
    {
      cooked = sj_chat_format_cooked (sj_chat_message_get_ended (message) - sj_chat_message_get_started (message));
      if (status == SJ_HISTORY_MESSAGE_STOPPED)
        {
          g_autofree char *stopped = g_strdup_printf (_("%s · Stopped"), cooked);
          gtk_label_set_label (self->cooked_label, stopped);
        }
      else
        gtk_label_set_label (self->cooked_label, cooked);
    }
}

static void
update_usage (SjMessageRow *self)
{
  const char *caption = sj_chat_message_get_usage_caption (self->message);
  g_autofree char *label = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->usage_label), caption != NULL);
  gtk_label_set_label (self->usage_label, caption != NULL ? caption : "");
  if (caption == NULL)
    return;

  /* TRANSLATORS: the accessible name of the caption under an answer, %s
   * is "1,234 tokens · $0.0021" or "tokens unknown" */
  label = g_strdup_printf (_("What this answer cost: %s"), caption);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->usage_label), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static void
update_is_last (SjMessageRow *self)
{
  SjHistoryRole role = sj_chat_message_get_role (self->message);
  gboolean last = sj_chat_message_get_is_last (self->message);

  gtk_widget_set_visible (self->regenerate_button, last && role == SJ_HISTORY_ROLE_ASSISTANT);
  gtk_widget_set_visible (self->edit_button, last && role == SJ_HISTORY_ROLE_USER);
}

static void
update_swap (SjMessageRow *self)
{
  double cycle = sj_chat_message_get_swap_cycle (self->message);
  g_autofree char *text = NULL;
  gboolean warning = FALSE;
  gboolean cancelable = FALSE;
  gboolean landing = FALSE;
  int beats;

  switch (sj_chat_message_get_swap (self->message))
    {
    case SJ_CHAT_SWAP_QUEUED:
      beats = sj_chat_message_get_swap_beats (self->message);
      if (beats >= 0)
        /* TRANSLATORS: a pending change's countdown, e.g. "Lands in 3 beats
         * (cycle 12)"; a beat is a quarter of a cycle */
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Lands in %d beat (cycle %g)",
                                             "Lands in %d beats (cycle %g)", beats),
                                beats, cycle);
      else
        text = g_strdup_printf (_("Queued for cycle %g"), cycle);
      cancelable = TRUE;
      break;
    case SJ_CHAT_SWAP_LANDING:
      /* TRANSLATORS: the change is committed and sounds within the beat:
       * too late to cancel (the Cancel button next to it is insensitive) */
      text = g_strdup_printf (_("Landing at cycle %g"), cycle);
      cancelable = TRUE;
      landing = TRUE;
      break;
    case SJ_CHAT_SWAP_CANCELED:
      text = g_strdup_printf (_("Canceled before cycle %g: never played"), cycle);
      break;
    case SJ_CHAT_SWAP_APPLIED:
      text = g_strdup_printf (_("Applied at cycle %.0f"), cycle);
      break;
    case SJ_CHAT_SWAP_DROPPED:
      text = g_strdup_printf (_("Replaced before cycle %.0f: never played"), cycle);
      break;
    case SJ_CHAT_SWAP_LISTENING:
      /* TRANSLATORS: a change plays from that cycle, and the app listens
       * to it before it says Applied */
      text = g_strdup_printf (_("Listening… (from cycle %.0f)"), cycle);
      break;
    case SJ_CHAT_SWAP_REVERTED:
      text = g_strdup_printf (_("Reverted: the change from cycle %.0f made no sound or failed to play"), cycle);
      warning = TRUE;
      break;
    case SJ_CHAT_SWAP_WARNED:
      text = g_strdup_printf (_("Applied at cycle %.0f, but it made no sound or failed to play"), cycle);
      warning = TRUE;
      break;
    case SJ_CHAT_SWAP_SENT:
      /* TRANSLATORS: a change of an earlier session, read back: it was
       * sent to play from that cycle, and whether it did is not known */
      text = g_strdup_printf (_("Sent for cycle %.0f"), cycle);
      break;
    case SJ_CHAT_SWAP_NONE:
    default:
      break;
    }

  if (warning)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->swap_label), "accent");
      gtk_widget_add_css_class (GTK_WIDGET (self->swap_label), "warning");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->swap_label), "warning");
      gtk_widget_add_css_class (GTK_WIDGET (self->swap_label), "accent");
    }
  gtk_widget_set_visible (self->swap_box, text != NULL);
  gtk_label_set_label (self->swap_label, text ? text : "");
  /* Cancel until the boundary (win.cancel-change, as its shortcut). */
  gtk_widget_set_visible (self->swap_cancel_button, cancelable);
  /* Landing: still shown, so that the row does not jump, but too late. */
  gtk_widget_set_sensitive (self->swap_cancel_button, !landing);
}

static void
update_reasoning (SjMessageRow *self)
{
  const char *reasoning = sj_chat_message_get_reasoning (self->message);

  gtk_widget_set_visible (GTK_WIDGET (self->thinking_expander), *reasoning != '\0');
  /* A collapsed expander does not lay its label out: keeping the text up
   * to date costs little until the musician opens it. */
  gtk_label_set_label (self->reasoning_label, reasoning);
}

static const char *
describe_use (const char *how)
{
  if (g_strcmp0 (how, "pinned") == 0)
    return _("Pinned to this session");
  if (g_strcmp0 (how, "tool") == 0)
    return _("Activated by the agent");
  return _("Matched your words");
}

/* One chip per skill the turn used: its title, how it came in, and a
 * menu to pin it to the session (or unpin it, when it was pinned) and to
 * show it in the Skills page. */
static void
update_skills (SjMessageRow *self)
{
  GPtrArray *skills = sj_chat_message_get_skills (self->message);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->skills_box))) != NULL)
    gtk_box_remove (self->skills_box, child);

  for (guint i = 0; i < skills->len; i++)
    {
      SjHistorySkillUse *use = g_ptr_array_index (skills, i);
      gboolean pinned = g_strcmp0 (use->how, "pinned") == 0;
      g_autoptr(GMenu) menu = g_menu_new ();
      g_autoptr(GMenuItem) item = NULL;
      GtkWidget *chip = gtk_menu_button_new ();
      /* TRANSLATORS: the accessible name of a chip under an answer, e.g. "Skill used: Jazz" */
      g_autofree char *name = g_strdup_printf (_("Skill used: %s"), use->title);

      item = g_menu_item_new (pinned ? _("Unpin from This Session") : _("Pin to This Session"), NULL);
      g_menu_item_set_action_and_target_value (item, pinned ? "chat.unpin-skill" : "chat.pin-skill",
                                               g_variant_new_string (use->name));
      g_menu_append_item (menu, item);
      g_clear_object (&item);
      /* The window's action: the Skills page opens on this skill's rules. */
      item = g_menu_item_new (_("Show Skill"), NULL);
      g_menu_item_set_action_and_target_value (item, "win.show-skill", g_variant_new_string (use->name));
      g_menu_append_item (menu, item);

      gtk_menu_button_set_label (GTK_MENU_BUTTON (chip), use->title);
      gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (chip), G_MENU_MODEL (menu));
      gtk_menu_button_set_always_show_arrow (GTK_MENU_BUTTON (chip), FALSE);
      gtk_widget_add_css_class (chip, "flat");
      gtk_widget_add_css_class (chip, "caption");
      gtk_widget_add_css_class (chip, "sj-skill-chip");
      gtk_widget_set_tooltip_text (chip, describe_use (use->how));
      gtk_accessible_update_property (GTK_ACCESSIBLE (chip),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, describe_use (use->how),
                                      -1);
      gtk_box_append (self->skills_box, chip);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->skills_box), skills->len > 0);
}

static void
appended_cb (SjMessageRow *self,
             gboolean      reasoning,
             const char   *text)
{
  if (reasoning)
    update_reasoning (self);
  else
    _sj_message_row_append_text (self, text);
}

static void
copy_clicked_cb (SjMessageRow *self)
{
  if (self->message != NULL)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                            sj_chat_message_get_content (self->message));
}

/**
 * sj_message_row_bind:
 *
 * Shows @message; the row follows it until unbound.
 */
void
sj_message_row_bind (SjMessageRow  *self,
                     SjChatMessage *message)
{
  SjHistoryRole role;
  const char *role_names[] = { N_("You"), N_("Agent"), N_("Strudel Jam"), N_("Tool") };

  g_assert (SJ_IS_MESSAGE_ROW (self));
  g_assert (SJ_IS_CHAT_MESSAGE (message));

  sj_message_row_unbind (self);
  self->message = g_object_ref (message);
  role = sj_chat_message_get_role (message);

  gtk_label_set_label (self->role_label, _(role_names[MIN (role, G_N_ELEMENTS (role_names) - 1)]));
  gtk_widget_set_visible (GTK_WIDGET (self->text_label), role != SJ_HISTORY_ROLE_ASSISTANT);
  gtk_widget_set_visible (self->copy_button, role != SJ_HISTORY_ROLE_SYSTEM);

  gtk_widget_remove_css_class (GTK_WIDGET (self), "sj-app-message");
  if (role != SJ_HISTORY_ROLE_ASSISTANT)
    {
      gtk_label_set_label (self->text_label, sj_chat_message_get_content (message));
      if (role == SJ_HISTORY_ROLE_SYSTEM)
        gtk_widget_add_css_class (GTK_WIDGET (self), "sj-app-message");
    }
  /* The answer's text and its calls, each where it was written. */
  _sj_message_row_show_parts (self);

  gtk_expander_set_expanded (self->thinking_expander, FALSE);
  update_reasoning (self);
  /* Calls finish while the row shows the message: they join it then. */
  g_signal_connect_object (sj_chat_message_get_tool_calls (message), "items-changed",
                           G_CALLBACK (_sj_message_row_calls_changed), self, G_CONNECT_SWAPPED);
  update_skills (self);
  update_status (self);
  update_swap (self);
  update_usage (self);
  update_is_last (self);

  g_signal_group_set_target (self->signals, message);
}

void
sj_message_row_unbind (SjMessageRow *self)
{
  g_assert (SJ_IS_MESSAGE_ROW (self));

  if (self->message == NULL)
    return;

  g_signal_group_set_target (self->signals, NULL);
  g_signal_handlers_disconnect_by_func (sj_chat_message_get_tool_calls (self->message), _sj_message_row_calls_changed, self);
  _sj_message_row_clear_parts (self);
  g_clear_object (&self->message);
}

SjChatMessage *
_sj_message_row_get_message (SjMessageRow *self)
{
  g_assert (SJ_IS_MESSAGE_ROW (self));
  return self->message;
}

/* Returns: (transfer none): the Markdown view of the answer's last text,
 * where streamed text goes (the only one of an answer without calls) */
GtkWidget *
_sj_message_row_get_markdown (SjMessageRow *self)
{
  g_assert (SJ_IS_MESSAGE_ROW (self));

  for (GtkWidget *child = gtk_widget_get_last_child (GTK_WIDGET (self->body));
       child != NULL;
       child = gtk_widget_get_prev_sibling (child))
    if (SJ_IS_MARKDOWN_VIEW (child))
      return child;
  return GTK_WIDGET (self->markdown);
}

GtkWidget *
_sj_message_row_get_usage_label (SjMessageRow *self)
{
  g_assert (SJ_IS_MESSAGE_ROW (self));
  return GTK_WIDGET (self->usage_label);
}

static void
sj_message_row_dispose (GObject *object)
{
  SjMessageRow *self = (SjMessageRow *)object;

  sj_message_row_unbind (self);
  g_clear_object (&self->signals);
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_MESSAGE_ROW);

  G_OBJECT_CLASS (sj_message_row_parent_class)->dispose (object);
}

static void
sj_message_row_class_init (SjMessageRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_message_row_dispose;

  g_type_ensure (SJ_TYPE_MARKDOWN_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-message-row.ui");
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, role_label);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, thinking_expander);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, reasoning_label);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, text_label);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, body);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, markdown);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, skills_box);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, tool_list);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, swap_box);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, swap_label);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, swap_cancel_button);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, footer);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, cooked_label);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, usage_label);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, edit_button);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, copy_button);
  gtk_widget_class_bind_template_child (widget_class, SjMessageRow, regenerate_button);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sj_message_row_init (SjMessageRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->text_view = self->markdown;
  self->group_offset = -1;

  self->signals = g_signal_group_new (SJ_TYPE_CHAT_MESSAGE);
  g_signal_group_connect_swapped (self->signals, "appended", G_CALLBACK (appended_cb), self);
  g_signal_group_connect_swapped (self->signals, "notify::status", G_CALLBACK (update_status), self);
  g_signal_group_connect_swapped (self->signals, "notify::swap", G_CALLBACK (update_swap), self);
  g_signal_group_connect_swapped (self->signals, "notify::is-last", G_CALLBACK (update_is_last), self);
  g_signal_group_connect_swapped (self->signals, "notify::has-reasoning", G_CALLBACK (update_reasoning), self);
  g_signal_group_connect_swapped (self->signals, "notify::n-skills", G_CALLBACK (update_skills), self);
  g_signal_group_connect_swapped (self->signals, "notify::usage-caption", G_CALLBACK (update_usage), self);

  g_signal_connect_swapped (self->copy_button, "clicked", G_CALLBACK (copy_clicked_cb), self);
}

GtkWidget *
sj_message_row_new (void)
{
  return g_object_new (SJ_TYPE_MESSAGE_ROW, NULL);
}
