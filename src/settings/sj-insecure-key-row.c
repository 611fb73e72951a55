/* sj-insecure-key-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Allow sending the key over plain HTTP for this address": a row with a
 * switch, under a base URL row of the Settings page, shown only while that
 * URL is plain http:// to another computer (SjKeyGuard refuses to send a
 * key there). The switch adds the URL to the "insecure-key-urls" setting,
 * or takes it out.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-insecure-key-row.h"
#include "sj-key-guard.h"

struct _SjInsecureKeyRow
{
  AdwActionRow  parent_instance;

  GSettings    *settings;
  GtkSwitch    *toggle;
  char         *url;
  gboolean      updating;
};

G_DEFINE_FINAL_TYPE (SjInsecureKeyRow, sj_insecure_key_row, ADW_TYPE_ACTION_ROW)

static char *
normalize (const char *url)
{
  char *copy = g_strstrip (g_strdup (url != NULL ? url : ""));
  gsize len = strlen (copy);

  while (len > 0 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

static gboolean
listed (char       **urls,
        const char  *url)
{
  for (guint i = 0; urls[i] != NULL; i++)
    {
      g_autofree char *entry = normalize (urls[i]);

      if (g_strcmp0 (entry, url) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
update (SjInsecureKeyRow *self)
{
  g_auto(GStrv) urls = g_settings_get_strv (self->settings, SJ_KEY_GUARD_SETTING);
  gboolean shown = sj_key_guard_needs_permission (self->url);

  gtk_widget_set_visible (GTK_WIDGET (self), shown);
  if (shown)
    {
      g_autofree char *subtitle = NULL;

      /* TRANSLATORS: %s is a URL */
      subtitle = g_strdup_printf (_("%s is not encrypted: anyone on the network between here and there can "
                                    "read the key"), self->url);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);
    }

  self->updating = TRUE;
  gtk_switch_set_active (self->toggle, shown && listed (urls, self->url));
  self->updating = FALSE;
}

static void
toggled_cb (SjInsecureKeyRow *self)
{
  g_auto(GStrv) urls = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  gboolean active = gtk_switch_get_active (self->toggle);

  if (self->updating || self->url == NULL || *self->url == '\0')
    return;

  urls = g_settings_get_strv (self->settings, SJ_KEY_GUARD_SETTING);
  for (guint i = 0; urls[i] != NULL; i++)
    {
      g_autofree char *entry = normalize (urls[i]);

      if (g_strcmp0 (entry, self->url) != 0)
        g_strv_builder_add (builder, urls[i]);
    }
  if (active)
    g_strv_builder_add (builder, self->url);

  {
    g_auto(GStrv) result = g_strv_builder_end (builder);

    g_settings_set_strv (self->settings, SJ_KEY_GUARD_SETTING, (const char * const *)result);
  }
}

static void
sj_insecure_key_row_dispose (GObject *object)
{
  SjInsecureKeyRow *self = SJ_INSECURE_KEY_ROW (object);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sj_insecure_key_row_parent_class)->dispose (object);
}

static void
sj_insecure_key_row_finalize (GObject *object)
{
  SjInsecureKeyRow *self = SJ_INSECURE_KEY_ROW (object);

  g_free (self->url);

  G_OBJECT_CLASS (sj_insecure_key_row_parent_class)->finalize (object);
}

static void
sj_insecure_key_row_class_init (SjInsecureKeyRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_insecure_key_row_dispose;
  object_class->finalize = sj_insecure_key_row_finalize;
}

static void
sj_insecure_key_row_init (SjInsecureKeyRow *self)
{
  self->toggle = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->toggle), GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), _("Allow Sending the Key Over Plain HTTP for This Address"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), GTK_WIDGET (self->toggle));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self), GTK_WIDGET (self->toggle));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->toggle),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Allow sending the key over plain HTTP for this address"),
                                  -1);
  g_signal_connect_object (self->toggle, "notify::active", G_CALLBACK (toggled_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

/**
 * sj_insecure_key_row_new:
 * @settings: the application's settings
 * @after: the base URL row it goes under (a row of a preferences group)
 */
GtkWidget *
sj_insecure_key_row_new (GSettings *settings,
                         GtkWidget *after)
{
  SjInsecureKeyRow *self = g_object_new (SJ_TYPE_INSECURE_KEY_ROW, NULL);
  GtkWidget *list = gtk_widget_get_parent (after);

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (GTK_IS_LIST_BOX (list), NULL);

  self->settings = g_object_ref (settings);
  g_signal_connect_object (settings, "changed::" SJ_KEY_GUARD_SETTING, G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  gtk_list_box_insert (GTK_LIST_BOX (list), GTK_WIDGET (self),
                       gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (after)) + 1);
  return GTK_WIDGET (self);
}

/**
 * sj_insecure_key_row_set_url:
 * @url: (nullable): the base URL the key would go to
 */
void
sj_insecure_key_row_set_url (SjInsecureKeyRow *self,
                             const char       *url)
{
  g_assert (SJ_IS_INSECURE_KEY_ROW (self));

  g_free (self->url);
  self->url = normalize (url);
  update (self);
}

GtkSwitch *
sj_insecure_key_row_get_switch (SjInsecureKeyRow *self)
{
  g_assert (SJ_IS_INSECURE_KEY_ROW (self));

  return self->toggle;
}
