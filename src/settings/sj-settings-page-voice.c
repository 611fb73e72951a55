/* sj-settings-page-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Settings page's Voice group: whether what was said is sent at once,
 * whether the music is lowered while listening, and the transcription
 * service. Its URL and model are settings; its key goes to the keyring, as
 * the model's does, under the provider "transcription" and the URL, and
 * never near GSettings. The window looks the key up each time listening
 * starts. The row above the entry says whether a key is stored for the URL
 * (a key stored or cleared elsewhere too, through SjSecretsMonitor), and
 * clears it.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-secrets.h"
#include "sj-secrets-monitor.h"
#include "sj-settings-page-private.h"

static char *
get_url (SjSettingsPage *self)
{
  char *url = g_settings_get_string (self->settings, "voice-endpoint-url");

  return g_strstrip (url);
}

static void
show_state (SjSettingsPage *self,
            const char     *text,
            gboolean        stored)
{
  self->voice_key_stored = stored;
  adw_action_row_set_subtitle (self->voice_key_status_row, text);
  gtk_widget_set_sensitive (GTK_WIDGET (self->voice_key_clear_button), stored && !self->voice_key_busy);
}

/* What the keyring said after @what went wrong, in the Voice group (not
 * in the model key's row: the two keys are apart). */
static void
show_error (SjSettingsPage *self,
            const char     *what,
            const GError   *error)
{
  g_autofree char *text = NULL;

  if (g_error_matches (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING))
    text = g_strdup_printf (_("No keyring available: %s"), error->message);
  else
    /* TRANSLATORS: what went wrong with the transcription service's key,
     * then the keyring's error, e.g. "The key could not be stored: The
     * keyring is locked." */
    text = g_strdup_printf (_("%s: %s"), what, error->message);

  show_state (self, text, FALSE);
}

static void
has_key_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  SjSettingsPage *self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean has_key = FALSE;

  /* Cancelled: the page may be gone, or a newer check replaced this one. */
  if (!sj_secrets_has_api_key_finish (result, &has_key, &error))
    {
      if (!_sj_settings_page_is_cancelled (error))
        show_error (self, _("The keyring could not be read"), error);
      return;
    }

  show_state (self, has_key ? _("Stored in the keyring") : _("No key stored"), has_key);
}

static void
update_status (SjSettingsPage *self)
{
  g_autofree char *url = get_url (self);
  GCancellable *cancellable = _sj_settings_page_restart_cancellable (&self->voice_status_cancellable);

  /* The key is kept under the URL: without one there is nowhere to keep
   * it, and a key typed then would be lost. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->voice_key_row), *url != '\0');
  if (*url == '\0')
    {
      show_state (self, _("Enter the service URL first; a local server needs no key"), FALSE);
      return;
    }

  show_state (self, _("Checking the keyring…"), FALSE);
  sj_secrets_has_api_key_async (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, url, cancellable, has_key_cb, self);
}

static void
store_key_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SjSettingsPage *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_secrets_store_api_key_finish (result, &error) && _sj_settings_page_is_cancelled (error))
    return;

  self->voice_key_busy = FALSE;
  if (error != NULL)
    {
      /* The key stays in the entry, so trying again needs no retyping. */
      show_error (self, _("The key could not be stored"), error);
      return;
    }

  /* Stored: nothing on screen holds the key any longer. */
  gtk_editable_set_text (GTK_EDITABLE (self->voice_key_row), "");
  update_status (self);
}

static void
voice_key_apply_cb (SjSettingsPage *self)
{
  g_autofree char *url = NULL;
  const char *key;

  g_assert (SJ_IS_SETTINGS_PAGE (self));

  url = get_url (self);
  key = gtk_editable_get_text (GTK_EDITABLE (self->voice_key_row));
  if (self->voice_key_busy || *key == '\0' || *url == '\0')
    return;

  self->voice_key_busy = TRUE;
  show_state (self, _("Storing the key…"), FALSE);
  sj_secrets_store_api_key_async (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, url, key, self->cancellable,
                                  store_key_cb, self);
}

static void
clear_key_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SjSettingsPage *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_secrets_clear_api_key_finish (result, &error) && _sj_settings_page_is_cancelled (error))
    return;

  self->voice_key_busy = FALSE;
  if (error != NULL)
    show_error (self, _("The key could not be cleared"), error);
  else
    update_status (self);
}

static void
voice_key_clear_clicked_cb (SjSettingsPage *self)
{
  g_autofree char *url = NULL;

  g_assert (SJ_IS_SETTINGS_PAGE (self));

  url = get_url (self);
  if (self->voice_key_busy || *url == '\0')
    return;

  self->voice_key_busy = TRUE;
  show_state (self, _("Clearing the key…"), FALSE);
  sj_secrets_clear_api_key_async (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, url, self->cancellable, clear_key_cb,
                                  self);
}

static void
url_changed_cb (SjSettingsPage *self,
                const char     *key,
                GSettings      *settings)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  update_status (self);
}

static void
key_changed_cb (SjSettingsPage *self,
                const char     *provider,
                const char     *base_url)
{
  g_autofree char *url = NULL;

  g_assert (SJ_IS_SETTINGS_PAGE (self));

  url = get_url (self);
  /* The page's own store or clear updates the status when it is done. */
  if (!self->voice_key_busy && g_str_equal (provider, SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER) &&
      g_str_equal (base_url, url))
    update_status (self);
}

void
_sj_settings_page_voice_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_send_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_duck_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_endpoint_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_model_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_key_status_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_key_clear_button);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, voice_key_row);
  gtk_widget_class_bind_template_callback (widget_class, voice_key_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, voice_key_clear_clicked_cb);
}

/* Once the page has its settings. */
void
_sj_settings_page_voice_bind (SjSettingsPage *self)
{
  g_settings_bind (self->settings, "voice-send-automatically", self->voice_send_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "voice-duck-music", self->voice_duck_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "voice-endpoint-url", self->voice_endpoint_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "voice-endpoint-model", self->voice_model_row, "text", G_SETTINGS_BIND_DEFAULT);

  g_signal_connect_object (self->settings, "changed::voice-endpoint-url", G_CALLBACK (url_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (sj_secrets_monitor_get_default (), "key-changed", G_CALLBACK (key_changed_cb), self,
                           G_CONNECT_SWAPPED);
  update_status (self);
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
