/* sj-sessions-page-rows.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The rows of the Sessions page: a session's title, when it last changed,
 * a mark on the current one and a menu of what can be done with it.
 * Renaming happens in the row itself: the title turns into an entry, Enter
 * keeps the new name and Escape the old one.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-relative-time.h"
#include "sj-sessions-page-private.h"

static gboolean
updated_to_label_cb (GBinding     *binding,
                     const GValue *from,
                     GValue       *to,
                     gpointer      user_data)
{
  g_value_take_string (to, sj_relative_time_format (g_value_get_int64 (from), NULL));
  return TRUE;
}

static void
title_changed_cb (GtkWidget     *menu_button,
                  GParamSpec    *pspec,
                  SjSessionItem *item)
{
  /* TRANSLATORS: the accessible label of a session's menu button, e.g. "Actions for “Acid jam”" */
  g_autofree char *label = g_strdup_printf (_("Actions for “%s”"), sj_session_item_get_title (item));

  gtk_accessible_update_property (GTK_ACCESSIBLE (menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static void
rename_entry_activate_cb (SjSessionsPage *self,
                          GtkEntry       *entry)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (entry), GTK_TYPE_LIST_BOX_ROW);
  gint64 id = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (row), "sj-session-id"));
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  if (!sj_sessions_page_rename_session (self, id, gtk_editable_get_text (GTK_EDITABLE (entry)), &error))
    {
      /* An empty name is refused on the spot: the entry stays open. */
      gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
      gtk_widget_error_bell (GTK_WIDGET (entry));
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT))
        _sj_sessions_page_show_toast (self, error->message);
      return;
    }

  _sj_sessions_page_stop_rename (self, row);
}

static gboolean
rename_key_pressed_cb (GtkEventControllerKey *controller,
                       guint                  keyval,
                       guint                  keycode,
                       GdkModifierType        state,
                       SjSessionsPage        *self)
{
  GtkWidget *entry = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));

  if (keyval != GDK_KEY_Escape)
    return FALSE;

  _sj_sessions_page_stop_rename (self, gtk_widget_get_ancestor (entry, GTK_TYPE_LIST_BOX_ROW));
  return TRUE;
}

GtkWidget *
_sj_sessions_page_create_row_cb (gpointer item_ptr,
                                 gpointer user_data)
{
  SjSessionsPage *self = user_data;
  SjSessionItem *item = item_ptr;
  gint64 id = sj_session_item_get_id (item);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *current = gtk_image_new_from_icon_name ("object-select-symbolic");
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *time = gtk_label_new (NULL);
  GtkWidget *usage = NULL;
  GtkWidget *entry = gtk_entry_new ();
  GtkWidget *menu_button = gtk_menu_button_new ();
  GtkEventController *keys = gtk_event_controller_key_new ();
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename…"), NULL);
  g_autoptr(GMenuItem) export = g_menu_item_new (_("_Export…"), NULL);
  g_autoptr(GMenuItem) render = g_menu_item_new (_("Render _Jam to File…"), NULL);
  g_autoptr(GMenuItem) delete = g_menu_item_new (_("_Delete"), NULL);

  gtk_widget_set_tooltip_text (current, _("Current session"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (current), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Current session"), -1);
  g_object_bind_property (item, "current", current, "visible", G_BINDING_SYNC_CREATE);

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  g_object_bind_property (item, "title", title, "label", G_BINDING_SYNC_CREATE);
  gtk_label_set_xalign (GTK_LABEL (time), 0);
  gtk_widget_add_css_class (time, "dim-label");
  gtk_widget_add_css_class (time, "caption");
  g_object_bind_property_full (item, "updated", time, "label", G_BINDING_SYNC_CREATE,
                               updated_to_label_cb, NULL, NULL, NULL);
  gtk_box_append (GTK_BOX (labels), title);
  gtk_box_append (GTK_BOX (labels), time);
  /* What the agent cost in the session: its answers' tokens and money. */
  if (sj_session_item_get_usage (item) != NULL)
    {
      g_autofree char *usage_name = NULL;

      usage = gtk_label_new (sj_session_item_get_usage (item));
      gtk_label_set_xalign (GTK_LABEL (usage), 0);
      gtk_widget_add_css_class (usage, "dim-label");
      gtk_widget_add_css_class (usage, "caption");
      /* TRANSLATORS: the accessible name of a session's cost, %s is "1,234 tokens · $0.0021" */
      usage_name = g_strdup_printf (_("The agent cost %s"), sj_session_item_get_usage (item));
      gtk_accessible_update_property (GTK_ACCESSIBLE (usage), GTK_ACCESSIBLE_PROPERTY_LABEL, usage_name, -1);
      gtk_widget_set_name (usage, "session-usage");
      gtk_box_append (GTK_BOX (labels), usage);
    }

  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Session name"), -1);
  g_signal_connect_object (entry, "activate", G_CALLBACK (rename_entry_activate_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (rename_key_pressed_cb), self, 0);
  gtk_widget_add_controller (entry, keys);

  gtk_stack_add_named (GTK_STACK (stack), labels, "view");
  gtk_stack_add_named (GTK_STACK (stack), entry, "edit");
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "view");
  gtk_widget_set_hexpand (stack, TRUE);

  g_menu_item_set_action_and_target (rename, "sessions.rename", "x", id);
  g_menu_item_set_action_and_target (export, "sessions.export", "x", id);
  g_menu_item_set_action_and_target (render, "sessions.render", "x", id);
  g_menu_item_set_action_and_target (delete, "sessions.delete", "x", id);
  g_menu_append_item (menu, rename);
  g_menu_append_item (menu, export);
  g_menu_append_item (menu, render);
  g_menu_append_item (menu, delete);
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu_button), G_MENU_MODEL (menu));
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu_button), "view-more-symbolic");
  gtk_widget_set_tooltip_text (menu_button, _("Session Actions"));
  gtk_widget_set_valign (menu_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (menu_button, "flat");
  g_signal_connect_object (item, "notify::title", G_CALLBACK (title_changed_cb), menu_button, G_CONNECT_SWAPPED);
  title_changed_cb (menu_button, NULL, item);

  gtk_box_append (GTK_BOX (box), current);
  gtk_box_append (GTK_BOX (box), stack);
  gtk_box_append (GTK_BOX (box), menu_button);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  /* A screen reader names the row by its title and when it was used. */
  if (usage != NULL)
    gtk_accessible_update_relation (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_RELATION_LABELLED_BY, title, time, usage, NULL, -1);
  else
    gtk_accessible_update_relation (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_RELATION_LABELLED_BY, title, time, NULL, -1);

  g_object_set_data (G_OBJECT (row), "sj-session-id", GSIZE_TO_POINTER (id));
  g_object_set_data (G_OBJECT (row), "sj-stack", stack);
  g_object_set_data (G_OBJECT (row), "sj-entry", entry);

  return row;
}

/* Returns: (transfer none) (nullable): the row of @session_id. */
GtkWidget *
_sj_sessions_page_find_row (SjSessionsPage *self,
                            gint64          session_id)
{
  guint position;

  if (!_sj_sessions_page_find (self, session_id, &position))
    return NULL;

  return GTK_WIDGET (gtk_list_box_get_row_at_index (self->sessions_list, position));
}

void
_sj_sessions_page_stop_rename (SjSessionsPage *self,
                               GtkWidget      *row)
{
  GtkWidget *entry = g_object_get_data (G_OBJECT (row), "sj-entry");

  gtk_widget_remove_css_class (entry, "error");
  gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (row), "sj-stack"), "view");
  gtk_widget_grab_focus (row);
}

void
_sj_sessions_page_start_rename (SjSessionsPage *self,
                                gint64          session_id)
{
  g_autoptr(SjSessionItem) item = _sj_sessions_page_get_item (self, session_id);
  GtkWidget *row = _sj_sessions_page_find_row (self, session_id);
  GtkWidget *entry;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  if (item == NULL || row == NULL)
    return;

  entry = g_object_get_data (G_OBJECT (row), "sj-entry");
  gtk_editable_set_text (GTK_EDITABLE (entry), sj_session_item_get_title (item));
  gtk_stack_set_visible_child_name (g_object_get_data (G_OBJECT (row), "sj-stack"), "edit");
  gtk_widget_grab_focus (entry);
  gtk_editable_select_region (GTK_EDITABLE (entry), 0, -1);
}
