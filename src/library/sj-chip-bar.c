/* sj-chip-bar.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A row of filter chips, each with a title and a count, of which exactly
 * one is chosen (the first, "All", to begin with). The Reference and Sounds
 * pages filter their lists with it. The chips wrap onto a second row when
 * the panel is narrow (SjWrapLayout): a row that scrolled sideways showed a
 * chip cut at the edge, and hid the rest from anyone who did not scroll.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-chip-bar.h"
#include "sj-wrap-layout.h"

struct _SjChipBar
{
  GtkWidget  parent_instance;

  GPtrArray *chips;   /* of GtkToggleButton, in order: the children */
};

G_DEFINE_FINAL_TYPE (SjChipBar, sj_chip_bar, GTK_TYPE_WIDGET)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
chip_toggled_cb (SjChipBar       *self,
                 GtkToggleButton *chip)
{
  g_assert (SJ_IS_CHIP_BAR (self));

  /* A click toggles two chips of the group: report once, for the one that
   * became active. A chip that shows nothing stays usable while chosen. */
  if (gtk_toggle_button_get_active (chip))
    {
      gtk_widget_set_sensitive (GTK_WIDGET (chip), TRUE);
      g_signal_emit (self, signals[CHANGED], 0);
    }
}

static void
sj_chip_bar_dispose (GObject *object)
{
  SjChipBar *self = (SjChipBar *)object;

  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->chips, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_chip_bar_parent_class)->dispose (object);
}

static void
sj_chip_bar_class_init (SjChipBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_chip_bar_dispose;

  /**
   * SjChipBar::changed:
   *
   * Another chip was chosen.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_css_name (widget_class, "sjchipbar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sj_chip_bar_init (SjChipBar *self)
{
  self->chips = g_ptr_array_new ();
  gtk_widget_set_layout_manager (GTK_WIDGET (self), sj_wrap_layout_new (6));
  gtk_widget_set_margin_start (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 6);
}

/**
 * sj_chip_bar_append:
 * @title: what the chip stands for, e.g. "Synths"
 *
 * Returns: the position of the new chip
 */
guint
sj_chip_bar_append (SjChipBar  *self,
                    const char *title)
{
  GtkToggleButton *chip;

  g_assert (SJ_IS_CHIP_BAR (self));

  chip = GTK_TOGGLE_BUTTON (gtk_toggle_button_new ());
  gtk_button_set_child (GTK_BUTTON (chip), gtk_label_new (title));
  gtk_widget_add_css_class (GTK_WIDGET (chip), "sj-chip");
  g_object_set_data_full (G_OBJECT (chip), "sj-title", g_strdup (title), g_free);
  if (self->chips->len > 0)
    gtk_toggle_button_set_group (chip, g_ptr_array_index (self->chips, 0));
  else
    gtk_toggle_button_set_active (chip, TRUE);
  g_signal_connect_object (chip, "toggled", G_CALLBACK (chip_toggled_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_set_parent (GTK_WIDGET (chip), GTK_WIDGET (self));
  g_ptr_array_add (self->chips, chip);

  return self->chips->len - 1;
}

/**
 * sj_chip_bar_set_count:
 *
 * Shows @count next to the title of the chip at @position. A chip with
 * nothing to show cannot be chosen, unless it already is.
 */
void
sj_chip_bar_set_count (SjChipBar *self,
                       guint      position,
                       guint      count)
{
  GtkWidget *chip;
  const char *title;
  g_autofree char *escaped = NULL;
  g_autofree char *markup = NULL;
  g_autofree char *label = NULL;

  g_assert (SJ_IS_CHIP_BAR (self));
  g_return_if_fail (position < self->chips->len);

  chip = g_ptr_array_index (self->chips, position);
  title = g_object_get_data (G_OBJECT (chip), "sj-title");
  escaped = g_markup_escape_text (title, -1);
  markup = g_strdup_printf ("%s <span alpha=\"60%%\">%u</span>", escaped, count);
  gtk_label_set_markup (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (chip))), markup);

  /* TRANSLATORS: a filter's accessible label: its title and how many
   * entries it shows, e.g. "Synths, 150 entries" */
  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %u entry", "%s, %u entries", count), title, count);
  gtk_accessible_update_property (GTK_ACCESSIBLE (chip), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);

  gtk_widget_set_sensitive (chip, count > 0 || gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (chip)) ||
                                 g_object_get_data (G_OBJECT (chip), "sj-always-sensitive") != NULL);
}

/**
 * sj_chip_bar_set_always_sensitive:
 *
 * Lets the chip at @position be chosen even when it has nothing to show
 * (the Sounds page's "User", where the user adds sounds of their own).
 */
void
sj_chip_bar_set_always_sensitive (SjChipBar *self,
                                  guint      position)
{
  GtkWidget *chip;

  g_assert (SJ_IS_CHIP_BAR (self));
  g_return_if_fail (position < self->chips->len);

  chip = g_ptr_array_index (self->chips, position);
  g_object_set_data (G_OBJECT (chip), "sj-always-sensitive", GINT_TO_POINTER (TRUE));
  gtk_widget_set_sensitive (chip, TRUE);
}

/* Returns: the position of the chosen chip */
guint
sj_chip_bar_get_active (SjChipBar *self)
{
  g_assert (SJ_IS_CHIP_BAR (self));

  for (guint i = 0; i < self->chips->len; i++)
    if (gtk_toggle_button_get_active (g_ptr_array_index (self->chips, i)))
      return i;

  return 0;
}
