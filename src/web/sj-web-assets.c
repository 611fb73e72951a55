/* sj-web-assets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Serves the bundled Strudel page from the binary's GResources on the
 * strudel-jam:// scheme. The scheme is registered secure (so the page is a
 * secure context: AudioWorklet and crypto.subtle need one) and CORS-enabled
 * (so worklet modules and fetch() of our own JSON work). Three hosts exist:
 * "app", the page's files; "sounds", the sound library's files
 * (strudel-jam://sounds/<pack>/<path>), which the sound cache answers from
 * the disk or by downloading them once (SjSoundCache); the pack "user" is
 * the user's own folders (strudel-jam://sounds/user/<folder id>/<path>),
 * answered from the disk by SjUserSamples; and "remote", the sample maps
 * the code's own samples() loads and their files
 * (strudel-jam://remote/<map|file>/<scheme>/<host>/<path>, see
 * data/web/src/remote.mjs), which SjRemoteSamples answers as the sound
 * cache does. Everything else is a 404. Every response carries the same
 * Content-Security-Policy the page
 * declares, so that scripts can only come from this scheme even if the
 * page's own meta tag were removed.
 */

#include "config.h"

#include <string.h>

#include "sj-address-policy.h"
#include "sj-web-assets-private.h"

#define PAGE_HOST   "app"
#define SOUNDS_HOST "sounds"
#define REMOTE_HOST "remote"

/* Nothing but this scheme: the library's sounds and the code's own sample
 * maps come through it (see data/web/src/index.html). */
static const char content_security_policy[] =
  "default-src 'none'; "
  "script-src 'self' " SJ_WEB_SCHEME ": 'unsafe-eval'; "
  "style-src 'self' " SJ_WEB_SCHEME ": 'unsafe-inline'; "
  "img-src 'self' " SJ_WEB_SCHEME ": data: blob:; "
  "font-src 'self' " SJ_WEB_SCHEME ": data:; "
  "media-src 'self' " SJ_WEB_SCHEME ": blob: data:; "
  "connect-src 'self' " SJ_WEB_SCHEME ":; "
  "worker-src 'self' " SJ_WEB_SCHEME ": blob:; "
  "base-uri 'none'; form-action 'none'; object-src 'none'";

/* The policy every response carries (the page declares the same). */
const char *
_sj_web_assets_get_content_security_policy (void)
{
  return content_security_policy;
}

struct _SjWebAssets
{
  GObject          parent_instance;

  char            *resource_prefix;
  SjSoundCache    *sound_cache;
  SjUserSamples   *user_samples;
  SjRemoteSamples *remote_samples;
  GCancellable    *cancellable;
};

G_DEFINE_FINAL_TYPE (SjWebAssets, sj_web_assets, G_TYPE_OBJECT)

static void
sj_web_assets_dispose (GObject *object)
{
  SjWebAssets *self = (SjWebAssets *)object;

  /* Sounds still loading for a page that is gone. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->sound_cache);
  g_clear_object (&self->user_samples);
  g_clear_object (&self->remote_samples);

  G_OBJECT_CLASS (sj_web_assets_parent_class)->dispose (object);
}

static void
sj_web_assets_finalize (GObject *object)
{
  SjWebAssets *self = (SjWebAssets *)object;

  g_clear_pointer (&self->resource_prefix, g_free);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sj_web_assets_parent_class)->finalize (object);
}

static void
sj_web_assets_class_init (SjWebAssetsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_web_assets_dispose;
  object_class->finalize = sj_web_assets_finalize;
}

static void
sj_web_assets_init (SjWebAssets *self)
{
  self->cancellable = g_cancellable_new ();
}

SjWebAssets *
sj_web_assets_new (const char *resource_prefix)
{
  SjWebAssets *self;

  g_return_val_if_fail (resource_prefix != NULL, NULL);

  self = g_object_new (SJ_TYPE_WEB_ASSETS, NULL);
  self->resource_prefix = g_strdup (resource_prefix);

  return self;
}

/**
 * sj_web_assets_set_sound_cache:
 * @sound_cache: (nullable): what answers strudel-jam://sounds/…
 *
 * Without one, every sound request is answered 503.
 */
void
sj_web_assets_set_sound_cache (SjWebAssets  *self,
                               SjSoundCache *sound_cache)
{
  g_assert (SJ_IS_WEB_ASSETS (self));
  g_return_if_fail (sound_cache == NULL || SJ_IS_SOUND_CACHE (sound_cache));

  g_set_object (&self->sound_cache, sound_cache);
}

/**
 * sj_web_assets_set_remote_samples:
 * @remote_samples: (nullable): what answers strudel-jam://remote/…
 *
 * Without one, every remote request is answered 503.
 */
void
sj_web_assets_set_remote_samples (SjWebAssets     *self,
                                  SjRemoteSamples *remote_samples)
{
  g_assert (SJ_IS_WEB_ASSETS (self));
  g_return_if_fail (remote_samples == NULL || SJ_IS_REMOTE_SAMPLES (remote_samples));

  g_set_object (&self->remote_samples, remote_samples);
}

/**
 * sj_web_assets_set_user_samples:
 * @user_samples: (nullable): what answers strudel-jam://sounds/user/…
 *
 * Without it, every request for a user's sample is answered 404.
 */
void
sj_web_assets_set_user_samples (SjWebAssets   *self,
                                SjUserSamples *user_samples)
{
  g_assert (SJ_IS_WEB_ASSETS (self));
  g_return_if_fail (user_samples == NULL || SJ_IS_USER_SAMPLES (user_samples));

  g_set_object (&self->user_samples, user_samples);
}

/* Returns: (transfer none) (nullable): the user's folders of samples */
SjUserSamples *
sj_web_assets_get_user_samples (SjWebAssets *self)
{
  g_assert (SJ_IS_WEB_ASSETS (self));

  return self->user_samples;
}

gboolean
sj_web_assets_is_own_uri (const char *uri)
{
  return uri != NULL && g_str_has_prefix (uri, SJ_WEB_SCHEME ":");
}

static const char *
content_type_for_path (const char *path)
{
  static const struct {
    const char *suffix;
    const char *type;
  } types[] = {
    { ".html", "text/html" },
    { ".js", "text/javascript" },
    { ".mjs", "text/javascript" },
    { ".css", "text/css" },
    { ".json", "application/json" },
    { ".svg", "image/svg+xml" },
    { ".png", "image/png" },
    { ".wav", "audio/wav" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      if (g_str_has_suffix (path, types[i].suffix))
        return types[i].type;
    }

  return "application/octet-stream";
}

/**
 * sj_web_assets_lookup:
 * @uri: a strudel-jam:// URI
 * @content_type: (out): the MIME type of the asset
 *
 * Returns: (transfer full): the asset's bytes, or %NULL with @error set
 * (%G_IO_ERROR_NOT_FOUND for anything that is not one of our files).
 */
GBytes *
sj_web_assets_lookup (SjWebAssets  *self,
                      const char   *uri,
                      const char  **content_type,
                      GError      **error)
{
  g_autoptr(GUri) parsed = NULL;
  g_autofree char *resource = NULL;
  const char *path;

  g_assert (SJ_IS_WEB_ASSETS (self));

  parsed = g_uri_parse (uri, G_URI_FLAGS_NONE, NULL);
  if (parsed == NULL ||
      g_strcmp0 (g_uri_get_scheme (parsed), SJ_WEB_SCHEME) != 0 ||
      g_strcmp0 (g_uri_get_host (parsed), PAGE_HOST) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No such page: %s", uri);
      return NULL;
    }

  /* g_uri_parse() has already removed dot segments, but a literal ".." can
   * survive percent-decoding tricks; resources have no parents anyway. */
  path = g_uri_get_path (parsed);
  if (path == NULL || *path != '/' || strstr (path, "..") != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No such page: %s", uri);
      return NULL;
    }

  if (g_str_equal (path, "/"))
    path = "/index.html";

  resource = g_strconcat (self->resource_prefix, path, NULL);
  *content_type = content_type_for_path (path);

  return g_resources_lookup_data (resource, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
}

static void
respond (WebKitURISchemeRequest *request,
         guint                   status,
         GBytes                 *bytes,
         const char             *content_type,
         gboolean                for_page)
{
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_bytes (bytes);
  g_autoptr(WebKitURISchemeResponse) response = NULL;
  SoupMessageHeaders *headers;

  response = webkit_uri_scheme_response_new (stream, g_bytes_get_size (bytes));
  if (status != SOUP_STATUS_OK)
    webkit_uri_scheme_response_set_status (response, status, NULL);

  /* Setting the headers replaces all of them, the content type included,
   * so it goes into the same set; with nosniff a script without it would
   * not run. */
  headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
  soup_message_headers_append (headers, "Content-Type", content_type);
  soup_message_headers_append (headers, "Content-Security-Policy", content_security_policy);
  soup_message_headers_append (headers, "X-Content-Type-Options", "nosniff");
  soup_message_headers_append (headers, "Cache-Control", "no-store");
  /* The sounds are another host than the page's (another origin): the
   * page's fetch() needs leave to read them. */
  if (for_page)
    soup_message_headers_append (headers, "Access-Control-Allow-Origin", SJ_WEB_SCHEME "://" PAGE_HOST);
  webkit_uri_scheme_response_set_http_headers (response, headers);
  webkit_uri_scheme_response_set_content_type (response, content_type);

  webkit_uri_scheme_request_finish_with_response (request, response);
}

/* A sound that cannot be had is an HTTP error for the page: superdough
 * logs its own error for that note, and the music goes on. */
static guint
status_for_error (const GError *error)
{
  /* A remote map that is not one, an address that is not of a file. */
  if (error->domain == SJ_REMOTE_MAP_ERROR)
    return SOUP_STATUS_BAD_GATEWAY;
  /* This computer or the local network (sj-address-policy.c). */
  if (error->domain == SJ_ADDRESS_POLICY_ERROR)
    return SOUP_STATUS_FORBIDDEN;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT))
    return SOUP_STATUS_NOT_FOUND;
  if (!g_error_matches (error, SJ_SOUND_CACHE_ERROR, error->code))
    return SOUP_STATUS_INTERNAL_SERVER_ERROR;

  switch ((SjSoundCacheError)error->code)
    {
    case SJ_SOUND_CACHE_ERROR_NOT_FOUND:
      return SOUP_STATUS_NOT_FOUND;
    case SJ_SOUND_CACHE_ERROR_OFFLINE:
      return SOUP_STATUS_SERVICE_UNAVAILABLE;
    case SJ_SOUND_CACHE_ERROR_TIMEOUT:
      return SOUP_STATUS_GATEWAY_TIMEOUT;
    case SJ_SOUND_CACHE_ERROR_TOO_LARGE:
      return SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE;
    case SJ_SOUND_CACHE_ERROR_NETWORK:
    case SJ_SOUND_CACHE_ERROR_TRUNCATED:
    case SJ_SOUND_CACHE_ERROR_NOT_AUDIO:
      return SOUP_STATUS_BAD_GATEWAY;
    case SJ_SOUND_CACHE_ERROR_IO:
    default:
      return SOUP_STATUS_INTERNAL_SERVER_ERROR;
    }
}

static void
respond_error (WebKitURISchemeRequest *request,
               guint                   status,
               const char             *message)
{
  g_autoptr(GBytes) body = g_bytes_new (message, strlen (message));

  respond (request, status, body, "text/plain; charset=utf-8", TRUE);
}

static void
sound_loaded_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(WebKitURISchemeRequest) request = user_data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *content_type = NULL;

  bytes = sj_sound_cache_load_finish (SJ_SOUND_CACHE (object), result, &content_type, NULL, &error);
  if (bytes != NULL)
    respond (request, SOUP_STATUS_OK, bytes, content_type, TRUE);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    webkit_uri_scheme_request_finish_error (request, error);
  else
    respond_error (request, status_for_error (error), error->message);
}

static void
user_sample_loaded_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(WebKitURISchemeRequest) request = user_data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *content_type = NULL;

  bytes = sj_user_samples_load_finish (SJ_USER_SAMPLES (object), result, &content_type, &error);
  if (bytes != NULL)
    respond (request, SOUP_STATUS_OK, bytes, content_type, TRUE);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    webkit_uri_scheme_request_finish_error (request, error);
  else
    respond_error (request,
                   g_error_matches (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_FOUND) ? SOUP_STATUS_NOT_FOUND
                   : g_error_matches (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_TOO_LARGE)
                     ? SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE
                     : SOUP_STATUS_INTERNAL_SERVER_ERROR,
                   error->message);
}

/* strudel-jam://sounds/<pack>/<path>: the path stays percent-encoded here;
 * the cache decodes it once and serves only files the library lists. */
static void
handle_sound_request (SjWebAssets            *self,
                      WebKitURISchemeRequest *request,
                      GUri                   *uri)
{
  g_autofree char *pack = NULL;
  const char *path = g_uri_get_path (uri);
  const char *slash;

  if (self->sound_cache == NULL)
    {
      respond_error (request, SOUP_STATUS_SERVICE_UNAVAILABLE, "no sound cache");
      return;
    }
  if (path == NULL || *path != '/' || (slash = strchr (path + 1, '/')) == NULL)
    {
      respond_error (request, SOUP_STATUS_NOT_FOUND, "no such sound");
      return;
    }

  pack = g_strndup (path + 1, slash - (path + 1));
  /* The user's folders: only files a scan listed. */
  if (g_str_equal (pack, SJ_USER_SAMPLES_PACK))
    {
      if (self->user_samples == NULL)
        respond_error (request, SOUP_STATUS_NOT_FOUND, "no sample folders");
      else
        sj_user_samples_load_async (self->user_samples, slash + 1, self->cancellable,
                                    user_sample_loaded_cb, g_object_ref (request));
      return;
    }
  sj_sound_cache_load_async (self->sound_cache, pack, slash + 1, self->cancellable,
                             sound_loaded_cb, g_object_ref (request));
}

static void
remote_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(WebKitURISchemeRequest) request = user_data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *content_type = NULL;

  bytes = sj_remote_samples_load_finish (SJ_REMOTE_SAMPLES (object), result, &content_type, &error);
  if (bytes != NULL)
    respond (request, SOUP_STATUS_OK, bytes, content_type, TRUE);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    webkit_uri_scheme_request_finish_error (request, error);
  else
    respond_error (request, status_for_error (error), error->message);
}

/* strudel-jam://remote/<map|file>/<scheme>/<host>/<path>?<query>: the
 * address stays percent-encoded; SjRemoteSamples checks it. */
static void
handle_remote_request (SjWebAssets            *self,
                       WebKitURISchemeRequest *request,
                       GUri                   *uri)
{
  g_autofree char *url = NULL;
  const char *path = g_uri_get_path (uri);
  SjRemoteKind kind;

  if (self->remote_samples == NULL)
    {
      respond_error (request, SOUP_STATUS_SERVICE_UNAVAILABLE, "no remote samples");
      return;
    }
  if (g_str_has_prefix (path, "/map/"))
    kind = SJ_REMOTE_KIND_MAP;
  else if (g_str_has_prefix (path, "/file/"))
    kind = SJ_REMOTE_KIND_FILE;
  else
    {
      respond_error (request, SOUP_STATUS_NOT_FOUND, "no such sample map or file");
      return;
    }

  url = sj_remote_samples_url_for_path (strchr (path + 1, '/'), g_uri_get_query (uri), NULL);
  if (url == NULL)
    {
      respond_error (request, SOUP_STATUS_NOT_FOUND, "not an http or https address");
      return;
    }
  sj_remote_samples_load_async (self->remote_samples, kind, url, self->cancellable,
                                remote_loaded_cb, g_object_ref (request));
}

static void
handle_request_cb (WebKitURISchemeRequest *request,
                   gpointer                user_data)
{
  SjWebAssets *self = user_data;
  const char *uri = webkit_uri_scheme_request_get_uri (request);
  g_autoptr(GUri) parsed = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *content_type = NULL;

  g_assert (SJ_IS_WEB_ASSETS (self));

  g_debug ("Serving %s", uri);
  parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED_PATH, NULL);
  if (parsed != NULL && g_strcmp0 (g_uri_get_host (parsed), SOUNDS_HOST) == 0)
    {
      handle_sound_request (self, request, parsed);
      return;
    }
  if (parsed != NULL && g_strcmp0 (g_uri_get_host (parsed), REMOTE_HOST) == 0)
    {
      handle_remote_request (self, request, parsed);
      return;
    }

  bytes = sj_web_assets_lookup (self, uri, &content_type, &error);
  if (bytes == NULL)
    {
      g_debug ("Refusing %s: %s", uri, error->message);
      webkit_uri_scheme_request_finish_error (request, error);
      return;
    }

  respond (request, SOUP_STATUS_OK, bytes, content_type, FALSE);
}

/**
 * sj_web_assets_register:
 *
 * Registers the strudel-jam:// scheme on @context, as secure and
 * CORS-enabled.
 */
void
sj_web_assets_register (SjWebAssets      *self,
                        WebKitWebContext *context)
{
  WebKitSecurityManager *security;

  g_assert (SJ_IS_WEB_ASSETS (self));
  g_return_if_fail (WEBKIT_IS_WEB_CONTEXT (context));

  webkit_web_context_register_uri_scheme (context, SJ_WEB_SCHEME,
                                          handle_request_cb,
                                          g_object_ref (self),
                                          g_object_unref);

  security = webkit_web_context_get_security_manager (context);
  webkit_security_manager_register_uri_scheme_as_secure (security, SJ_WEB_SCHEME);
  webkit_security_manager_register_uri_scheme_as_cors_enabled (security, SJ_WEB_SCHEME);
}
