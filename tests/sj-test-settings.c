/* sj-test-settings.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests of the model's setup share (the Chat's status page, the
 * Settings page, the first run): whether a setting holds a string, the key
 * the keyring holds for a provider, and a loopback port nothing listens on,
 * for a local server that is not running.  GLib and the services only, so
 * that it links without any widget code.
 */

#include "config.h"

#include "sj-secrets.h"
#include "sj-test-files.h"
#include "sj-test-settings.h"

gboolean
sj_test_settings_string_is (GSettings  *settings,
                            const char *key,
                            const char *value)
{
  g_autofree char *current = g_settings_get_string (settings, key);

  return g_strcmp0 (current, value) == 0;
}

static gboolean
lookup_timed_out_cb (gpointer user_data)
{
  g_error ("Waited %u s in vain for the keyring's answer", GPOINTER_TO_UINT (user_data));
  return G_SOURCE_REMOVE;
}

/* Returns: (transfer full) (nullable): the key stored for @provider at
 *   @base_url, waited for on the main loop for at most @timeout_s */
char *
sj_test_settings_lookup_key (const char *provider,
                             const char *base_url,
                             guint       timeout_s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  guint timeout_id;
  char *key;

  sj_secrets_lookup_api_key_async (provider, base_url, NULL, sj_test_store_result_cb, &result);
  timeout_id = g_timeout_add_seconds (timeout_s, lookup_timed_out_cb, GUINT_TO_POINTER (timeout_s));
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);

  key = sj_secrets_lookup_api_key_finish (result, &error);
  g_assert_no_error (error);
  return key;
}

/* A port that was free a moment ago: nothing listens there. */
guint16
sj_test_closed_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_nonnull (socket);
  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  g_socket_close (socket, NULL);

  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}
