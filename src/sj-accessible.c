/* sj-accessible.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What a screen reader needs and a library widget does not give it, in
 * one place for every page that shows such a widget.
 */

#include "config.h"

#include <adwaita.h>

#include "sj-accessible.h"

static void
name_tooltip_buttons (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_BUTTON (child) && gtk_widget_get_tooltip_text (child) != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        gtk_widget_get_tooltip_text (child), -1);
      else
        name_tooltip_buttons (child);
    }
}

/**
 * sj_accessible_name_peek_buttons:
 * @widget: an #AdwPasswordEntryRow, or a widget holding some
 *
 * libadwaita 1.2's password row has an icon-only button to show the text,
 * with a tooltip but no accessible name: a screen reader says "button".
 * Names it with its tooltip, in @widget and in every password row inside.
 */
void
sj_accessible_name_peek_buttons (GtkWidget *widget)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (ADW_IS_PASSWORD_ENTRY_ROW (widget))
    {
      name_tooltip_buttons (widget);
      return;
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    sj_accessible_name_peek_buttons (child);
}
