/* sj-osc-destinations-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Settings page's list of the OSC destinations code asked for and the
 * user answered (the "osc-destinations" setting: allowed or blocked, by
 * "host:port"), with Forget: the next hap for any of them asks again.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-osc-destinations-row.h"

#define OSC_DESTINATIONS_KEY "osc-destinations"

struct _SjOscDestinationsRow
{
  AdwActionRow  parent_instance;

  GSettings    *settings;
  GtkButton    *forget_button;
};

G_DEFINE_FINAL_TYPE (SjOscDestinationsRow, sj_osc_destinations_row, ADW_TYPE_ACTION_ROW)

static void
update (SjOscDestinationsRow *self)
{
  g_autoptr(GVariant) answers = g_settings_get_value (self->settings, OSC_DESTINATIONS_KEY);
  g_autoptr(GPtrArray) allowed = g_ptr_array_new ();
  g_autoptr(GPtrArray) blocked = g_ptr_array_new ();
  g_autoptr(GString) subtitle = g_string_new (NULL);
  GVariantIter iter;
  const char *key;
  gboolean allow;

  g_variant_iter_init (&iter, answers);
  while (g_variant_iter_next (&iter, "{&sb}", &key, &allow))
    g_ptr_array_add (allow ? allowed : blocked, (gpointer)key);
  g_ptr_array_add (allowed, NULL);
  g_ptr_array_add (blocked, NULL);

  if (allowed->len > 1)
    {
      g_autofree char *list = g_strjoinv (", ", (char **)allowed->pdata);

      /* TRANSLATORS: %s is a list of addresses, as 10.0.0.5:57120 */
      g_string_append_printf (subtitle, _("Allowed: %s"), list);
    }
  if (blocked->len > 1)
    {
      g_autofree char *list = g_strjoinv (", ", (char **)blocked->pdata);

      if (subtitle->len > 0)
        g_string_append (subtitle, "\n");
      /* TRANSLATORS: %s is a list of addresses, as 10.0.0.5:57120 */
      g_string_append_printf (subtitle, _("Blocked: %s"), list);
    }
  if (subtitle->len == 0)
    g_string_append (subtitle, _("Code has asked for none yet"));

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle->str);
  gtk_widget_set_sensitive (GTK_WIDGET (self->forget_button), g_variant_n_children (answers) > 0);
}

static void
forget_cb (SjOscDestinationsRow *self)
{
  g_settings_reset (self->settings, OSC_DESTINATIONS_KEY);
}

static void
sj_osc_destinations_row_dispose (GObject *object)
{
  SjOscDestinationsRow *self = SJ_OSC_DESTINATIONS_ROW (object);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sj_osc_destinations_row_parent_class)->dispose (object);
}

static void
sj_osc_destinations_row_class_init (SjOscDestinationsRowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sj_osc_destinations_row_dispose;
}

static void
sj_osc_destinations_row_init (SjOscDestinationsRow *self)
{
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), _("Other OSC Addresses"));
  self->forget_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Forget")));
  gtk_widget_set_valign (GTK_WIDGET (self->forget_button), GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->forget_button),
                               _("Forget the answers: code sending OSC to these addresses asks again"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->forget_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Forget the answers about other OSC addresses"),
                                  -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), GTK_WIDGET (self->forget_button));
  g_signal_connect_object (self->forget_button, "clicked", G_CALLBACK (forget_cb), self, G_CONNECT_SWAPPED);
}

/**
 * sj_osc_destinations_row_new:
 * @settings: the application's settings
 * @after: a row of the preferences group it goes in, to go under
 */
GtkWidget *
sj_osc_destinations_row_new (GSettings *settings,
                             GtkWidget *after)
{
  SjOscDestinationsRow *self = g_object_new (SJ_TYPE_OSC_DESTINATIONS_ROW, NULL);
  GtkWidget *list = gtk_widget_get_parent (after);

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (GTK_IS_LIST_BOX (list), NULL);

  self->settings = g_object_ref (settings);
  g_signal_connect_object (settings, "changed::" OSC_DESTINATIONS_KEY, G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  update (self);
  gtk_list_box_insert (GTK_LIST_BOX (list), GTK_WIDGET (self),
                       gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (after)) + 1);
  return GTK_WIDGET (self);
}

GtkButton *
sj_osc_destinations_row_get_button (SjOscDestinationsRow *self)
{
  g_assert (SJ_IS_OSC_DESTINATIONS_ROW (self));

  return self->forget_button;
}
