/* sj-onboarding-ways.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The two ways forward of SjOnboarding.
 *
 * OpenRouter: the pasted key is checked with OpenRouter and its models
 * fetched (SjModelCatalog), then kept in the keyring (SjSecrets, which
 * tells the agent's setup and the Settings page); a key OpenRouter refuses
 * is never stored. The key lives in the entry and in one copy here, wiped
 * as soon as it is stored or refused.
 *
 * A server on this computer: the usual ports are searched as soon as the
 * page shows (SjLocalServers, short timeouts, in the background), and the
 * URL of a server that answers fills the row unless the musician typed one.
 * Connect asks that URL for its models.
 *
 * Every failure is said under its way, with what to do.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-llm-client.h"
#include "sj-onboarding-private.h"
#include "sj-secrets.h"

/**
 * _sj_onboarding_describe_fetch_error:
 * @hosted: whether @base_url is OpenRouter's
 *
 * Returns: (transfer full): what went wrong asking @base_url for its
 *   models, and what to do, in the musician's words
 */
char *
_sj_onboarding_describe_fetch_error (gboolean      hosted,
                                     const char   *base_url,
                                     const GError *error)
{
  if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_UNAUTHORIZED))
    return hosted ? g_strdup (_("OpenRouter refused this key. Check that it was copied whole, or create a new "
                                "one at openrouter.ai/keys."))
                  : g_strdup_printf (_("The server at %s wants an API key. Add it in the agent’s settings."),
                                     base_url);

  if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK))
    return hosted ? g_strdup (_("OpenRouter cannot be reached. Check the network connection, then connect again."))
                  : g_strdup_printf (_("Nothing answers at %s. Start the server (for Ollama, “ollama serve”), "
                                       "or check the address."), base_url);

  if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_RATE_LIMITED))
    return g_strdup (_("Too many requests: the provider asks to wait. Try again in a moment."));

  /* TRANSLATORS: the provider's own error message follows. */
  return g_strdup_printf (_("The provider answered with an error: %s"), error->message);
}

/* OpenRouter -------------------------------------------------------------- */

void
_sj_onboarding_forget_key (SjOnboarding *self)
{
  if (self->key != NULL)
    explicit_bzero (self->key, strlen (self->key));
  g_clear_pointer (&self->key, g_free);
}

void
_sj_onboarding_update_key_button (SjOnboarding *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

  gtk_widget_set_sensitive (GTK_WIDGET (self->key_button), !self->busy && *text != '\0');
  gtk_button_set_label (self->key_button, self->key != NULL ? _("Checking…") : _("Connect"));
}

static void
key_changed_cb (SjOnboarding *self)
{
  g_assert (SJ_IS_ONBOARDING (self));

  _sj_onboarding_update_key_button (self);
  if (!self->busy)
    _sj_onboarding_show_error (self->key_error, NULL);
}

static void
key_done (SjOnboarding *self,
          const char   *error_message)
{
  _sj_onboarding_forget_key (self);
  _sj_onboarding_set_busy (self, FALSE);
  _sj_onboarding_show_error (self->key_error, error_message);
}

static void
key_stored_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SjOnboarding) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjModelCatalog) catalog = NULL;

  if (!sj_secrets_store_api_key_finish (result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;

      /* The key stays in the entry, so trying again needs no retyping. */
      if (g_error_matches (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING))
        key_done (self, _("No keyring is available to keep the key. Start GNOME Keyring, or use a model server "
                          "on this computer."));
      else if (g_error_matches (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_LOCKED))
        key_done (self, _("The keyring is locked. Unlock it, then connect again."));
      else
        key_done (self, error->message);
      return;
    }

  /* Kept: nothing on screen holds the key any longer. */
  key_done (self, NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
  catalog = g_steal_pointer (&self->catalog);
  _sj_onboarding_show_models (self, "openrouter", sj_llm_client_get_openrouter_url (), catalog);
}

static void
key_checked_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SjOnboarding) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  self->catalog = sj_model_catalog_fetch_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if (self->catalog == NULL)
    {
      message = _sj_onboarding_describe_fetch_error (TRUE, sj_llm_client_get_openrouter_url (), error);
      key_done (self, message);
      return;
    }

  sj_secrets_store_api_key_async ("openrouter", sj_llm_client_get_openrouter_url (), self->key,
                                  self->cancellable, key_stored_cb, g_object_ref (self));
}

/* Checked first, then stored: a key OpenRouter refuses is never kept. */
static void
key_connect_cb (SjOnboarding *self)
{
  g_autofree char *key = NULL;

  g_assert (SJ_IS_ONBOARDING (self));

  key = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->key_row))));
  if (self->busy || *key == '\0' || !gtk_widget_is_sensitive (GTK_WIDGET (self->key_row)))
    {
      explicit_bzero (key, strlen (key));
      return;
    }

  _sj_onboarding_restart (&self->cancellable);
  self->key = g_steal_pointer (&key);
  _sj_onboarding_show_error (self->key_error, NULL);
  _sj_onboarding_set_busy (self, TRUE);
  sj_model_catalog_fetch_async ("openrouter", sj_llm_client_get_openrouter_url (), self->key, SJ_MODEL_FETCH_DEFAULT,
                                SJ_ONBOARDING_HOSTED_TIMEOUT_S, self->cancellable, key_checked_cb,
                                g_object_ref (self));
}

/* A server on this computer ----------------------------------------------- */

static void
set_local_url (SjOnboarding *self,
               const char   *url)
{
  self->setting_local = TRUE;
  gtk_editable_set_text (GTK_EDITABLE (self->local_row), url);
  self->setting_local = FALSE;
}

static void
detect_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(SjOnboarding) self = user_data;
  g_autoptr(SjLocalServer) server = NULL;
  g_autoptr(GError) error = NULL;

  server = sj_local_servers_detect_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  gtk_widget_set_sensitive (GTK_WIDGET (self->detect_button), TRUE);
  if (server == NULL)
    {
      gtk_label_set_label (self->local_status,
                           _("Nothing answers on the usual ports: Ollama (11434), llama.cpp (8080), LM Studio "
                             "(1234). Start a server, then look again."));
      return;
    }

  {
    /* TRANSLATORS: a model server's name, then its URL: "Found Ollama at http://127.0.0.1:11434/v1." */
    g_autofree char *text = g_strdup_printf (_("Found %s at %s."), server->name, server->base_url);

    gtk_label_set_label (self->local_status, text);
  }
  if (!self->local_edited)
    set_local_url (self, server->base_url);
}

/* Searches the usual ports again; what it finds fills the URL row unless
 * the musician typed one since. */
void
_sj_onboarding_detect (SjOnboarding *self)
{
  self->detected = TRUE;
  _sj_onboarding_restart (&self->detect_cancellable);

  gtk_label_set_label (self->local_status, _("Looking for a model server on this computer…"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->detect_button), FALSE);
  sj_local_servers_detect_async (self->detect_cancellable, detect_cb, g_object_ref (self));
}

static void
detect_clicked_cb (SjOnboarding *self)
{
  g_assert (SJ_IS_ONBOARDING (self));

  /* Asked for: what is found replaces what was typed. */
  self->local_edited = FALSE;
  _sj_onboarding_detect (self);
}

static void
local_changed_cb (SjOnboarding *self)
{
  g_assert (SJ_IS_ONBOARDING (self));

  if (self->setting_local)
    return;

  self->local_edited = TRUE;
  if (!self->busy)
    _sj_onboarding_show_error (self->local_error, NULL);
}

static void
local_checked_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SjOnboarding) self = user_data;
  g_autoptr(SjModelCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;

  catalog = sj_model_catalog_fetch_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  _sj_onboarding_set_busy (self, FALSE);
  gtk_button_set_label (self->local_button, _("Connect"));
  if (catalog == NULL)
    {
      g_autofree char *message = _sj_onboarding_describe_fetch_error (FALSE, self->pending_base_url, error);

      _sj_onboarding_show_error (self->local_error, message);
      return;
    }

  _sj_onboarding_show_models (self, "custom", self->pending_base_url, catalog);
}

static void
local_connect_cb (SjOnboarding *self)
{
  g_autofree char *url = NULL;

  g_assert (SJ_IS_ONBOARDING (self));

  if (self->busy)
    return;

  url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->local_row))));
  if (*url == '\0')
    {
      _sj_onboarding_show_error (self->local_error, _("Enter the URL of the server, such as http://127.0.0.1:11434/v1."));
      return;
    }

  _sj_onboarding_restart (&self->cancellable);
  g_free (self->pending_base_url);
  self->pending_base_url = g_steal_pointer (&url);
  _sj_onboarding_show_error (self->local_error, NULL);
  _sj_onboarding_set_busy (self, TRUE);
  gtk_button_set_label (self->local_button, _("Checking…"));
  /* A server that wants a key has it in the keyring, if anywhere. */
  sj_model_catalog_fetch_async ("custom", self->pending_base_url, NULL, SJ_MODEL_FETCH_STORED_KEY,
                                SJ_ONBOARDING_LOCAL_TIMEOUT_S, self->cancellable, local_checked_cb,
                                g_object_ref (self));
}

void
_sj_onboarding_ways_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, key_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_connect_cb);
  gtk_widget_class_bind_template_callback (widget_class, detect_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, local_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, local_connect_cb);
}
