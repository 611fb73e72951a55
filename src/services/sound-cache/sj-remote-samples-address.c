/* sj-remote-samples-address.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Where SjRemoteSamples keeps what an address names, and where it
 * downloads it from. The page asks for strudel-jam://remote/<kind>/<scheme>/
 * <host>/<path> (data/web/src/remote.mjs writes those); the address it means
 * is cached as <directory>/<scheme>/<host>/<path>, each segment
 * percent-decoded, so that the page's spelling and a map's own (with
 * blanks, say) meet. The scheme is part of the path: what one plain-http
 * fetch brought (which anyone on the way could have written) is never
 * served for the https address. Only
 * http and https addresses of a file, without a user name, can be: dot
 * segments are resolved first, and a segment that decodes to "." or "..",
 * or holds a "/", is refused, so nothing is ever kept outside the host's
 * folder.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-address-policy.h"
#include "sj-remote-samples-private.h"

/* The longest file name most file systems take. */
#define MAX_SEGMENT 255

/**
 * sj_remote_samples_url_for_path:
 * @path: what follows strudel-jam://remote/<kind> in a request,
 *   percent-encoded: "/<scheme>/<host[:port]>/<path>"
 * @query: (nullable): the request's query
 *
 * Returns: (transfer full): the address the page means
 *   ("<scheme>://<host[:port]>/<path>?<query>"), or %NULL with @error set
 */
char *
sj_remote_samples_url_for_path (const char  *path,
                                const char  *query,
                                GError     **error)
{
  g_auto(GStrv) parts = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (*path == '/')
    parts = g_strsplit (path + 1, "/", 3);
  if (parts == NULL || g_strv_length (parts) < 3 || *parts[1] == '\0' ||
      (!g_str_equal (parts[0], "https") && !g_str_equal (parts[0], "http")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s is not an http or https address of a file"), path);
      return NULL;
    }

  return g_strdup_printf ("%s://%s/%s%s%s", parts[0], parts[1], parts[2],
                          query != NULL ? "?" : "", query != NULL ? query : "");
}

/* Each segment of @path decoded, the empty ones left out; with the query
 * in the last one. */
static GPtrArray *
local_segments (const char *path,
                const char *query)
{
  g_autoptr(GPtrArray) segments = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) split = g_strsplit (path, "/", -1);

  for (guint i = 0; split[i] != NULL; i++)
    {
      g_autofree char *segment = NULL;

      if (*split[i] == '\0')
        continue;
      segment = g_uri_unescape_segment (split[i], NULL, "/");
      if (segment == NULL || g_str_equal (segment, ".") || g_str_equal (segment, "..") ||
          strlen (segment) > MAX_SEGMENT)
        return NULL;
      g_ptr_array_add (segments, g_steal_pointer (&segment));
    }

  if (segments->len == 0 || g_str_has_suffix (path, "/"))
    return NULL;

  if (query != NULL)
    {
      char **last = (char **) &segments->pdata[segments->len - 1];
      g_autofree char *escaped = g_strdelimit (g_strdup (query), "/", '_');
      char *with_query = g_strconcat (*last, "?", escaped, NULL);

      g_free (*last);
      *last = with_query;
      if (strlen (with_query) > MAX_SEGMENT)
        return NULL;
    }

  return g_steal_pointer (&segments);
}

void
_sj_remote_location_clear (SjRemoteLocation *location)
{
  g_clear_pointer (&location->url, g_free);
  g_clear_pointer (&location->download, g_free);
  g_clear_object (&location->file);
}

/* Whether @host can name a folder of the cache: a host name or an IP
 * address as a URL parser writes it (an international name in its ASCII
 * form), never ".", ".." or anything with a separator, which would put
 * the file outside the host's own folder. */
static gboolean
is_host_name (const char *host)
{
  if (*host == '\0' || *host == '.' || strlen (host) > MAX_SEGMENT)
    return FALSE;
  for (const char *p = host; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("-._:", *p) == NULL)
      return FALSE;

  return TRUE;
}

/**
 * _sj_remote_samples_locate:
 *
 * Where @url is cached and downloaded from. Only http and https
 * addresses of a file on the internet (not this computer or the local
 * network, sj_address_policy_check_host()), without a user name, whose
 * host is a name (not "." or "..")
 * and whose path has no "." or ".." segment, can be.
 */
gboolean
_sj_remote_samples_locate (SjRemoteSamples   *self,
                           const char        *url,
                           SjRemoteLocation  *location,
                           GError           **error)
{
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GPtrArray) segments = NULL;
  g_autoptr(GFile) scheme_dir = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *host = NULL;
  const char *scheme;
  const char *query;
  int port;

  memset (location, 0, sizeof *location);

  uri = g_uri_parse (url, G_URI_FLAGS_ENCODED | G_URI_FLAGS_PARSE_RELAXED, NULL);
  scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
  query = uri != NULL ? g_uri_get_query (uri) : NULL;
  if (uri == NULL || scheme == NULL ||
      (g_ascii_strcasecmp (scheme, "https") != 0 && g_ascii_strcasecmp (scheme, "http") != 0) ||
      g_uri_get_userinfo (uri) != NULL || g_uri_get_host (uri) == NULL || !is_host_name (g_uri_get_host (uri)) ||
      (segments = local_segments (g_uri_get_path (uri), query)) == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("it is not an http or https address of a file"));
      return FALSE;
    }
  /* The native side reads what it fetches without a browser's CORS: code
   * (the agent's too) must not read a router's pages through it. The host
   * as written is judged here, before the test hook maps it; what a name
   * resolves to, when the download connects (sj-sound-cache-guard.c). */
  if (!sj_address_policy_check_host (g_uri_get_host (uri),
                                     self->cache != NULL && sj_sound_cache_get_allow_local_hosts (self->cache),
                                     error))
    return FALSE;

  /* One folder per host, and per port but the scheme's own. */
  port = g_uri_get_port (uri);
  if (port == (g_ascii_strcasecmp (scheme, "https") == 0 ? 443 : 80))
    port = -1;
  host = port > 0 ? g_strdup_printf ("%s:%d", g_uri_get_host (uri), port) : g_strdup (g_uri_get_host (uri));
  for (char *p = host; *p != '\0'; p++)
    *p = g_ascii_tolower (*p);

  scheme_dir = g_file_get_child (self->directory, g_ascii_strcasecmp (scheme, "https") == 0 ? "https" : "http");
  file = g_file_get_child (scheme_dir, host);
  for (guint i = 0; i < segments->len; i++)
    {
      GFile *child = g_file_get_child (file, g_ptr_array_index (segments, i));

      g_object_unref (file);
      file = child;
    }

  location->url = g_uri_to_string_partial (uri, G_URI_HIDE_FRAGMENT);
  location->download = self->url_override != NULL
    ? g_strconcat (self->url_override, "/", host, g_uri_get_path (uri), query != NULL ? "?" : "",
                   query != NULL ? query : "", NULL)
    : g_strdup (location->url);
  location->file = g_steal_pointer (&file);

  return TRUE;
}

/**
 * sj_remote_samples_get_file:
 *
 * Returns: (transfer full): where @url is (or would be) cached, or %NULL
 *   with @error set for an address that cannot be
 */
GFile *
sj_remote_samples_get_file (SjRemoteSamples  *self,
                            const char       *url,
                            GError          **error)
{
  SjRemoteLocation location;
  GFile *file;

  g_assert (SJ_IS_REMOTE_SAMPLES (self));
  g_return_val_if_fail (url != NULL, NULL);

  if (!_sj_remote_samples_locate (self, url, &location, error))
    return NULL;
  file = g_steal_pointer (&location.file);
  _sj_remote_location_clear (&location);

  return file;
}

