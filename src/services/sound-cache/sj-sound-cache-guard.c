/* sj-sound-cache-guard.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The network boundary of SjSoundCache's downloads, which the page's code
 * causes (samples(), sample maps, their files). Every hop of a download is
 * judged twice: its address as written, before anything is looked up
 * (sj_address_policy_check_uri(): no single-label or .local name, no
 * literal local address in any spelling), and the address actually
 * connected to, when the socket is about to connect (SoupMessage's
 * network-event, G_SOCKET_CLIENT_CONNECTING: a refused address has its
 * socket closed before connect(), so not a byte reaches it). A connection
 * libsoup reuses was judged when it was made, to the same host and port:
 * its address cannot have changed. Redirects are followed here, not by
 * libsoup (SOUP_MESSAGE_NO_REDIRECT), so that each Location is judged
 * before anything is looked up or sent.
 *
 * The tests point the downloads at a loopback server
 * (STRUDEL_JAM_SOUNDS_URL, STRUDEL_JAM_REMOTE_URL: http://host/path is
 * fetched from <server>/host/path). Only the hop the hook itself made may
 * connect to that server; a redirect's target is judged as written like
 * any other (a literal 127.0.0.1 or localhost is refused), and only a
 * name that passes is mapped onto the server again, as the hook maps the
 * first address.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-address-policy.h"
#include "sj-remote-samples.h"
#include "sj-sound-cache-private.h"

struct _SjFetchGuard
{
  gboolean            allow_local;
  char               *hook;       /* the test hook's base the URL is under, or NULL */
  GInetSocketAddress *hook_address; /* its address, when written as one */
  guint               hook_port;
  gboolean            hook_hop;   /* the current hop is the hook's own */
  guint               redirects;
  GError             *refusal;
};

/* The test hooks, read once. */
void
_sj_sound_cache_guard_init (SjSoundCache *self)
{
  const char *remote = g_getenv (SJ_REMOTE_SAMPLES_URL_ENV);

  if (remote != NULL && *remote != '\0')
    {
      self->remote_override = g_strdup (remote);
      while (g_str_has_suffix (self->remote_override, "/"))
        self->remote_override[strlen (self->remote_override) - 1] = '\0';
    }
}

static const char *
hook_for_url (SjSoundCache *cache,
              const char   *url)
{
  const char *hooks[] = { cache->base_override, cache->remote_override };

  for (guint i = 0; i < G_N_ELEMENTS (hooks); i++)
    if (hooks[i] != NULL && g_str_has_prefix (url, hooks[i]) && url[strlen (hooks[i])] == '/')
      return hooks[i];

  return NULL;
}

/**
 * _sj_fetch_guard_new:
 * @url: the first hop's address
 *
 * Returns: (transfer full): the guard of one attempt to download @url
 */
SjFetchGuard *
_sj_fetch_guard_new (SjSoundCache *cache,
                     const char   *url)
{
  SjFetchGuard *self = g_new0 (SjFetchGuard, 1);
  const char *hook = hook_for_url (cache, url);

  self->allow_local = cache->allow_local_hosts;
  if (hook != NULL)
    {
      g_autoptr(GUri) uri = g_uri_parse (hook, SOUP_HTTP_URI_FLAGS, NULL);
      g_autoptr(GInetAddress) address = NULL;

      self->hook = g_strdup (hook);
      self->hook_hop = TRUE;
      if (uri != NULL && g_uri_get_host (uri) != NULL)
        {
          self->hook_port = g_uri_get_port (uri) > 0 ? (guint)g_uri_get_port (uri) : 80;
          if ((address = g_inet_address_new_from_string (g_uri_get_host (uri))) != NULL)
            self->hook_address = G_INET_SOCKET_ADDRESS (g_inet_socket_address_new (address, self->hook_port));
        }
    }

  return self;
}

void
_sj_fetch_guard_free (SjFetchGuard *self)
{
  if (self == NULL)
    return;
  g_free (self->hook);
  g_clear_object (&self->hook_address);
  g_clear_error (&self->refusal);
  g_free (self);
}

/* Whether @address is the test hook's server, for the hook's own hop. */
static gboolean
is_hook_server (SjFetchGuard   *self,
                GSocketAddress *address)
{
  GInetSocketAddress *inet = G_INET_SOCKET_ADDRESS (address);
  GInetAddress *host = g_inet_socket_address_get_address (inet);

  if (!self->hook_hop || g_inet_socket_address_get_port (inet) != self->hook_port)
    return FALSE;
  if (self->hook_address != NULL)
    return g_inet_address_equal (host, g_inet_socket_address_get_address (self->hook_address));

  return g_inet_address_get_is_loopback (host);
}

static void
network_event_cb (SoupMessage        *message,
                  GSocketClientEvent  event,
                  GIOStream          *connection,
                  gpointer            user_data)
{
  SjFetchGuard *self = user_data;
  g_autoptr(GSocketAddress) remote = NULL;
  g_autoptr(GError) error = NULL;

  if (event != G_SOCKET_CLIENT_CONNECTING)
    return;

  if (!G_IS_SOCKET_CONNECTION (connection))
    error = g_error_new_literal (SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS,
                                 _("the connection is not a network connection"));
  else if ((remote = g_socket_connection_get_remote_address (G_SOCKET_CONNECTION (connection), &error)) == NULL)
    ;
  else if (!G_IS_INET_SOCKET_ADDRESS (remote))
    error = g_error_new_literal (SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS,
                                 _("the connection is not a network connection"));
  else if (is_hook_server (self, remote))
    return;
  else
    sj_address_policy_check_address (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (remote)),
                                     self->allow_local, &error);

  if (error == NULL)
    return;

  /* Closed before connect(): nothing is sent to it, and the socket
   * client moves on to the host's next address, judged the same way. */
  g_debug ("Sounds: refused to connect: %s", error->message);
  if (self->refusal == NULL)
    self->refusal = g_steal_pointer (&error);
  if (G_IS_SOCKET_CONNECTION (connection))
    g_socket_close (g_socket_connection_get_socket (G_SOCKET_CONNECTION (connection)), NULL);
}

/**
 * _sj_fetch_guard_watch:
 *
 * Judges the address @message's connection is about to connect to; a hop
 * libsoup follows by itself is not: @message must not follow redirects.
 */
void
_sj_fetch_guard_watch (SjFetchGuard *self,
                       SoupMessage  *message)
{
  soup_message_add_flags (message, SOUP_MESSAGE_NO_REDIRECT);
  g_signal_connect (message, "network-event", G_CALLBACK (network_event_cb), self);
}

/**
 * _sj_fetch_guard_check_first:
 *
 * Returns: whether the first hop, @url, may be fetched (as written)
 */
gboolean
_sj_fetch_guard_check_first (SjFetchGuard  *self,
                             const char    *url,
                             GError       **error)
{
  g_autoptr(GUri) uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);

  if (uri == NULL)
    {
      g_set_error_literal (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS,
                           _("it is not an http or https address"));
      return FALSE;
    }
  /* The hook's own address, made from one already judged. */
  if (self->hook_hop)
    return TRUE;

  return sj_address_policy_check_uri (uri, self->allow_local, error);
}

/**
 * _sj_fetch_guard_redirect:
 * @message: a message answered with a redirection
 *
 * Returns: (transfer full) (nullable): the address to fetch next, judged;
 *   %NULL when it is not followed (@error says why), or when @message
 *   has no Location (without @error set)
 */
char *
_sj_fetch_guard_redirect (SjFetchGuard  *self,
                          SoupMessage   *message,
                          GError       **error)
{
  const char *location = soup_message_headers_get_one (soup_message_get_response_headers (message), "Location");
  g_autoptr(GUri) next = NULL;
  g_autofree char *text = NULL;
  GError *local_error = NULL;

  if (location == NULL)
    return NULL;

  if (++self->redirects > SJ_SOUND_CACHE_MAX_REDIRECTS)
    {
      g_set_error_literal (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_REDIRECTS,
                           _("the server redirected too many times"));
      return NULL;
    }

  next = g_uri_parse_relative (soup_message_get_uri (message), location, SOUP_HTTP_URI_FLAGS, NULL);
  if (next == NULL)
    {
      g_set_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS,
                   _("the server redirected to %s, which is not an address"), location);
      return NULL;
    }

  /* Judged as written, the test hook's server (where a relative Location
   * leads back to) like any other address. */
  self->hook_hop = FALSE;
  if (!sj_address_policy_check_uri (next, self->allow_local, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("the server redirected to %s: %s"), location, local_error->message);
      g_error_free (local_error);
      return NULL;
    }

  text = g_uri_to_string_partial (next, G_URI_HIDE_FRAGMENT);
  if (self->hook != NULL)
    {
      /* The hook maps a name onto its server as it did the first address. */
      const char *query = g_uri_get_query (next);
      int port = g_uri_get_port (next);
      g_autofree char *authority = NULL;

      /* As the hook writes the first address: the scheme's own port left out. */
      if (port == (g_ascii_strcasecmp (g_uri_get_scheme (next), "https") == 0 ? 443 : 80))
        port = -1;
      authority = port > 0 ? g_strdup_printf ("%s:%d", g_uri_get_host (next), port) : g_strdup (g_uri_get_host (next));

      self->hook_hop = TRUE;
      g_free (text);
      text = g_strconcat (self->hook, "/", authority, g_uri_get_path (next), query != NULL ? "?" : "",
                          query != NULL ? query : "", NULL);
    }

  return g_steal_pointer (&text);
}

/**
 * _sj_fetch_guard_take_refusal:
 *
 * Returns: (transfer full) (nullable): why a connection was refused, if
 *   one was
 */
GError *
_sj_fetch_guard_take_refusal (SjFetchGuard *self)
{
  return g_steal_pointer (&self->refusal);
}
