/* sj-window-outputs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjWindow's part that asks before OSC goes somewhere new: when code sends
 * .osc() haps to a host and port other than Settings' (oschost, oscport),
 * SjOutputs drops them and emits ::osc-consent-needed; this asks "This
 * code wants to send OSC to host:port" with Allow and Block. Either
 * answer is remembered (the "osc-destinations" setting); closing the
 * dialog (Escape) blocks until the app is restarted. One dialog per
 * destination.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-window-private.h"

#define DESTINATION_KEY "sj-osc-destination"
#define PORT_KEY        "sj-osc-port"

static void
consent_response_cb (SjWindow         *self,
                     const char       *response,
                     AdwMessageDialog *dialog)
{
  const char *host = g_object_get_data (G_OBJECT (dialog), DESTINATION_KEY);
  guint port = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (dialog), PORT_KEY));
  g_autofree char *key = g_strdup_printf ("%s:%u", host, port);

  g_assert (SJ_IS_WINDOW (self));

  g_hash_table_remove (self->osc_dialogs, key);
  if (g_strcmp0 (response, "allow") == 0)
    sj_outputs_answer_osc (self->outputs, host, port, TRUE, TRUE);
  else if (g_strcmp0 (response, "block") == 0)
    sj_outputs_answer_osc (self->outputs, host, port, FALSE, TRUE);
  else
    sj_outputs_answer_osc (self->outputs, host, port, FALSE, FALSE);
}

static void
osc_consent_needed_cb (SjWindow   *self,
                       const char *host,
                       guint       port,
                       SjOutputs  *outputs)
{
  g_autofree char *key = g_strdup_printf ("%s:%u", host, port);
  AdwMessageDialog *dialog;

  g_assert (SJ_IS_WINDOW (self));

  if (g_hash_table_contains (self->osc_dialogs, key))
    return;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Send OSC to Another Address?"), NULL));
  /* TRANSLATORS: %s is a network address and port, as 10.0.0.5:57120 */
  adw_message_dialog_format_body (dialog,
                                  _("This code wants to send OSC to %s, which is not the OSC host and port in "
                                    "Settings. Nothing is sent there until you allow it; your answer is "
                                    "remembered."),
                                  key);
  adw_message_dialog_add_responses (dialog,
                                    "block", _("_Block"),
                                    "allow", _("_Allow"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "allow", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "block");
  adw_message_dialog_set_close_response (dialog, "close");
  g_object_set_data_full (G_OBJECT (dialog), DESTINATION_KEY, g_strdup (host), g_free);
  g_object_set_data (G_OBJECT (dialog), PORT_KEY, GUINT_TO_POINTER (port));
  g_signal_connect_object (dialog, "response", G_CALLBACK (consent_response_cb), self, G_CONNECT_SWAPPED);

  g_hash_table_insert (self->osc_dialogs, g_steal_pointer (&key), dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_sj_window_outputs_init (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  self->osc_dialogs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_signal_connect_object (self->outputs, "osc-consent-needed", G_CALLBACK (osc_consent_needed_cb), self,
                           G_CONNECT_SWAPPED);
}

void
_sj_window_outputs_dispose (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->osc_dialogs != NULL)
    {
      GHashTableIter iter;
      gpointer dialog;

      g_hash_table_iter_init (&iter, self->osc_dialogs);
      while (g_hash_table_iter_next (&iter, NULL, &dialog))
        {
          g_hash_table_iter_remove (&iter);
          gtk_window_destroy (dialog);
        }
    }
  g_clear_pointer (&self->osc_dialogs, g_hash_table_unref);
}

/* For the tests: the question open about @destination ("host:port"). */
AdwMessageDialog *
_sj_window_get_osc_dialog (SjWindow   *self,
                           const char *destination)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->osc_dialogs != NULL ? g_hash_table_lookup (self->osc_dialogs, destination) : NULL;
}
