/* sj-key-guard.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Whether an API key may go to a URL: over https://, always; over plain
 * http://, only to this computer (localhost, 127.0.0.0/8, ::1), where
 * nobody on the network can read it, or to an address the user allowed
 * in Settings (the "insecure-key-urls" setting: base URLs, each allowing
 * itself and the paths below it). Anything else is refused before a
 * byte is sent, with an error that says how to allow it.
 *
 * "localhost" is this computer whatever /etc/hosts says: GLib's resolver,
 * which libsoup uses, answers it with the loopback addresses itself.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-key-guard.h"

G_DEFINE_QUARK (sj-key-guard-error-quark, sj_key_guard_error)

static gboolean
host_is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;

  if (host == NULL || *host == '\0')
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;

  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

/**
 * sj_key_guard_is_loopback_url:
 * @url: an http:// or https:// URL
 *
 * Returns: whether @url's host is this computer: localhost, an address in
 *   127.0.0.0/8, or ::1
 */
gboolean
sj_key_guard_is_loopback_url (const char *url)
{
  g_autoptr(GUri) uri = NULL;

  if (url == NULL || (uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL)) == NULL)
    return FALSE;

  return host_is_loopback (g_uri_get_host (uri));
}

/**
 * sj_key_guard_needs_permission:
 * @url: a provider's or an endpoint's URL
 *
 * Returns: whether a key would not go to @url without the user's
 *   permission: plain http:// to another computer (whether or not it was
 *   given). What Settings offers "Allow sending the key over plain HTTP"
 *   for.
 */
gboolean
sj_key_guard_needs_permission (const char *url)
{
  g_autofree char *scheme = NULL;

  if (url == NULL)
    return FALSE;

  scheme = g_uri_parse_scheme (url);
  return scheme != NULL && g_ascii_strcasecmp (scheme, "http") == 0 && !sj_key_guard_is_loopback_url (url);
}

static GSettings *
get_settings (void)
{
  static GSettings *settings;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
      g_autoptr(GSettingsSchema) schema = NULL;

      if (source != NULL)
        schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
      if (schema != NULL && g_settings_schema_has_key (schema, SJ_KEY_GUARD_SETTING))
        settings = g_settings_new (APP_ID);
      g_once_init_leave (&once, 1);
    }

  return settings;
}

static char *
strip_slashes (const char *url)
{
  char *copy = g_strdup (url);
  gsize len = strlen (copy);

  while (len > 0 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

static gboolean
is_allowed (const char *url)
{
  g_auto(GStrv) allowed = NULL;
  g_autofree char *wanted = strip_slashes (url);
  GSettings *settings = get_settings ();

  if (settings == NULL)
    return FALSE;

  allowed = g_settings_get_strv (settings, SJ_KEY_GUARD_SETTING);
  for (guint i = 0; allowed[i] != NULL; i++)
    {
      g_autofree char *entry = strip_slashes (allowed[i]);
      gsize len = strlen (entry);

      if (len > 0 && strncmp (wanted, entry, len) == 0 && (wanted[len] == '\0' || wanted[len] == '/'))
        return TRUE;
    }

  return FALSE;
}

/**
 * sj_key_guard_check:
 * @url: where a request carrying a key is about to go
 *
 * Returns: %TRUE when the key may go to @url; %FALSE with @error set
 *   (SJ_KEY_GUARD_ERROR_INSECURE) when the request must not be sent.
 */
gboolean
sj_key_guard_check (const char  *url,
                    GError     **error)
{
  if (!sj_key_guard_needs_permission (url) || is_allowed (url))
    return TRUE;

  /* TRANSLATORS: %s is a URL; "Allow sending the key over plain HTTP" is the Settings switch */
  g_set_error (error, SJ_KEY_GUARD_ERROR, SJ_KEY_GUARD_ERROR_INSECURE,
               _("The key was not sent: %s is not encrypted (http). Use https://, or turn on "
                 "“Allow sending the key over plain HTTP” for this address in Settings."),
               url);
  return FALSE;
}
