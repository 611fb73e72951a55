/* sj-settings-page-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Settings page's Voice group: which offline recogniser hears
 * (voice-engine, issue 30), whether what was said is sent at once,
 * whether the music is lowered while listening, and the transcription
 * service. Its URL and model are settings; its key goes to the keyring, as
 * the model's does and through the same SjKeyringKeyRows, under the
 * provider "transcription" and the URL, and never near GSettings. The
 * window looks the key up each time listening starts. The row above the
 * entry says whether a key is stored for the URL, and clears it.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-settings-page-private.h"

static char *
get_url (SjSettingsPage *self)
{
  char *url = g_settings_get_string (self->settings, "voice-endpoint-url");

  return g_strstrip (url);
}

static void
url_changed_cb (SjSettingsPage *self,
                const char     *key,
                GSettings      *settings)
{
  g_autofree char *url = NULL;

  g_assert (SJ_IS_SETTINGS_PAGE (self));

  url = get_url (self);
  sj_keyring_key_rows_set_endpoint (self->voice_key_rows, SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, url);
  sj_insecure_key_row_set_url (self->voice_insecure_key_row, url);
}

/* voice-engine's names, in the row's order. */
static const char *const engines[] = { "moonshine", "pocketsphinx" };

static gboolean
engine_to_row (GValue   *value,
               GVariant *variant,
               gpointer  data)
{
  const char *engine = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (engines); i++)
    if (g_str_equal (engine, engines[i]))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }

  return FALSE;
}

static GVariant *
row_to_engine (const GValue       *value,
               const GVariantType *type,
               gpointer            data)
{
  guint i = g_value_get_uint (value);

  return i < G_N_ELEMENTS (engines) ? g_variant_new_string (engines[i]) : NULL;
}

void
_sj_settings_page_voice_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_engine_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_send_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_duck_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_endpoint_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_model_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_key_status_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_key_clear_button);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_key_row);
}

/* Once the page has its settings. */
void
_sj_settings_page_voice_bind (SjSettingsPage *self)
{
  g_settings_bind_with_mapping (self->settings, "voice-engine", self->voice_engine_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, engine_to_row, row_to_engine, NULL, NULL);
  g_settings_bind (self->settings, "voice-send-automatically", self->voice_send_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "voice-duck-music", self->voice_duck_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "voice-endpoint-url", self->voice_endpoint_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "voice-endpoint-model", self->voice_model_row, "text", G_SETTINGS_BIND_DEFAULT);

  /* The key is kept under the URL: without one there is nowhere to keep
   * it. */
  self->voice_key_rows = sj_keyring_key_rows_new (self->voice_key_status_row, self->voice_key_clear_button,
                                                  self->voice_key_row, NULL,
                                                  _("Enter the service URL first; a local server needs no key"));
  self->voice_insecure_key_row = SJ_INSECURE_KEY_ROW (sj_insecure_key_row_new (self->settings,
                                                                              GTK_WIDGET (self->voice_endpoint_row)));
  g_signal_connect_object (self->settings, "changed::voice-endpoint-url", G_CALLBACK (url_changed_cb), self,
                           G_CONNECT_SWAPPED);
  url_changed_cb (self, "voice-endpoint-url", self->settings);
}

/**
 * sj_settings_page_focus_voice:
 * @key: whether the transcription service's key is the fix, rather than
 *   its address
 *
 * Puts the keyboard in the Voice group, which scrolls it into view: the
 * fix for a transcription service that cannot be reached or refuses the
 * key, or for the offline model missing, offered by the voice's banner.
 */
void
sj_settings_page_focus_voice (SjSettingsPage *self,
                              gboolean        key)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  gtk_widget_grab_focus (GTK_WIDGET (key ? self->voice_key_row : self->voice_endpoint_row));
}
