/* test-key-guard.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * API keys and the network: a key goes over https:// or to this computer
 * (localhost, 127.0.0.0/8, ::1), never over plain http:// to another
 * computer unless the address is allowed in Settings ("insecure-key-urls").
 * The decision on URL forms; then, end to end, the model client and the
 * transcription client against a loopback server reached through a name
 * that is not loopback (a GResolver of the test's maps "keytest.example"
 * to 127.0.0.1): refused with no request at all, then sent once allowed.
 * And the transcription key is masked by value, as the model's.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-key-guard.h"
#include "sj-llm-client.h"
#include "sj-redact.h"
#include "sj-transcription-client.h"

#define PLANTED_KEY "plantedkey-transcribe-9Rk2Qw"
#define TEST_HOST   "keytest.example"

/* A resolver that knows one name, TEST_HOST, as 127.0.0.1. */
#define TEST_TYPE_RESOLVER (test_resolver_get_type ())
G_DECLARE_FINAL_TYPE (TestResolver, test_resolver, TEST, RESOLVER, GResolver)

struct _TestResolver
{
  GResolver parent_instance;
};

G_DEFINE_FINAL_TYPE (TestResolver, test_resolver, G_TYPE_RESOLVER)

static GList *
lookup (const char              *hostname,
        GResolverNameLookupFlags flags,
        GError                 **error)
{
  if (g_ascii_strcasecmp (hostname, TEST_HOST) == 0 && (flags & G_RESOLVER_NAME_LOOKUP_FLAGS_IPV6_ONLY) == 0)
    return g_list_append (NULL, g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4));

  g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND, "No such host %s", hostname);
  return NULL;
}

static void
return_lookup (GResolver               *resolver,
               const char              *hostname,
               GResolverNameLookupFlags flags,
               GCancellable            *cancellable,
               GAsyncReadyCallback      callback,
               gpointer                 user_data)
{
  g_autoptr(GTask) task = g_task_new (resolver, cancellable, callback, user_data);
  GError *error = NULL;
  GList *addresses = lookup (hostname, flags, &error);

  if (addresses != NULL)
    g_task_return_pointer (task, addresses, (GDestroyNotify)g_resolver_free_addresses);
  else
    g_task_return_error (task, error);
}

static void
test_resolver_lookup_by_name_async (GResolver           *resolver,
                                    const char          *hostname,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  return_lookup (resolver, hostname, G_RESOLVER_NAME_LOOKUP_FLAGS_DEFAULT, cancellable, callback, user_data);
}

static void
test_resolver_lookup_by_name_with_flags_async (GResolver               *resolver,
                                               const char              *hostname,
                                               GResolverNameLookupFlags flags,
                                               GCancellable            *cancellable,
                                               GAsyncReadyCallback      callback,
                                               gpointer                 user_data)
{
  return_lookup (resolver, hostname, flags, cancellable, callback, user_data);
}

static GList *
test_resolver_lookup_by_name_finish (GResolver     *resolver,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static GList *
test_resolver_lookup_by_name (GResolver     *resolver,
                              const char    *hostname,
                              GCancellable  *cancellable,
                              GError       **error)
{
  return lookup (hostname, G_RESOLVER_NAME_LOOKUP_FLAGS_DEFAULT, error);
}

static GList *
test_resolver_lookup_by_name_with_flags (GResolver               *resolver,
                                         const char              *hostname,
                                         GResolverNameLookupFlags flags,
                                         GCancellable            *cancellable,
                                         GError                 **error)
{
  return lookup (hostname, flags, error);
}

static void
test_resolver_class_init (TestResolverClass *klass)
{
  GResolverClass *resolver_class = G_RESOLVER_CLASS (klass);

  resolver_class->lookup_by_name = test_resolver_lookup_by_name;
  resolver_class->lookup_by_name_async = test_resolver_lookup_by_name_async;
  resolver_class->lookup_by_name_finish = test_resolver_lookup_by_name_finish;
  resolver_class->lookup_by_name_with_flags = test_resolver_lookup_by_name_with_flags;
  resolver_class->lookup_by_name_with_flags_async = test_resolver_lookup_by_name_with_flags_async;
  resolver_class->lookup_by_name_with_flags_finish = test_resolver_lookup_by_name_finish;
}

static void
test_resolver_init (TestResolver *self)
{
}

/* The decision --------------------------------------------------------------- */

static void
test_url_forms (void)
{
  static const struct {
    const char *url;
    gboolean    loopback;
    gboolean    needs_permission;
  } cases[] = {
    { "http://10.0.0.5:8080/v1", FALSE, TRUE },
    { "http://10.0.0.5", FALSE, TRUE },
    { "http://example.com/v1", FALSE, TRUE },
    { "HTTP://Example.com/v1", FALSE, TRUE },
    { "http://192.168.1.20:11434/v1", FALSE, TRUE },
    { "http://[fe80::1]:8000/v1", FALSE, TRUE },
    { "http://127.0.0.1:11434/v1", TRUE, FALSE },
    { "http://127.1.2.3/v1", TRUE, FALSE },
    { "http://[::1]:8000/v1", TRUE, FALSE },
    { "http://localhost:11434/v1", TRUE, FALSE },
    { "http://LOCALHOST/v1", TRUE, FALSE },
    /* Looks like this computer, is not. */
    { "http://localhost.example.com/v1", FALSE, TRUE },
    { "http://127.0.0.1.example.com/v1", FALSE, TRUE },
    { "https://openrouter.ai/api/v1", FALSE, FALSE },
    { "https://10.0.0.5/v1", FALSE, FALSE },
    { "https://localhost/v1", TRUE, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gboolean ok = sj_key_guard_check (cases[i].url, &error);

      g_test_message ("%s", cases[i].url);
      g_assert_cmpint (sj_key_guard_is_loopback_url (cases[i].url), ==, cases[i].loopback);
      g_assert_cmpint (sj_key_guard_needs_permission (cases[i].url), ==, cases[i].needs_permission);
      g_assert_cmpint (ok, ==, !cases[i].needs_permission);
      if (!ok)
        {
          g_assert_error (error, SJ_KEY_GUARD_ERROR, SJ_KEY_GUARD_ERROR_INSECURE);
          g_assert_true (g_str_has_prefix (error->message, "The key was not sent: "));
          g_assert_nonnull (strstr (error->message, cases[i].url));
          g_assert_nonnull (strstr (error->message, "Allow sending the key over plain HTTP"));
        }
    }
}

/* Allowed per address: the address and what is below it, nothing else. */
static void
test_allowed_urls (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *allowed[] = { "http://10.0.0.5:8080/v1/", NULL };

  g_settings_set_strv (settings, SJ_KEY_GUARD_SETTING, allowed);
  g_assert_true (sj_key_guard_check ("http://10.0.0.5:8080/v1", NULL));
  g_assert_true (sj_key_guard_check ("http://10.0.0.5:8080/v1/chat/completions", NULL));
  g_assert_false (sj_key_guard_check ("http://10.0.0.5:8080/v10", NULL));
  g_assert_false (sj_key_guard_check ("http://10.0.0.5:8081/v1", NULL));
  g_assert_false (sj_key_guard_check ("http://10.0.0.6:8080/v1", NULL));
  g_settings_reset (settings, SJ_KEY_GUARD_SETTING);
  g_assert_false (sj_key_guard_check ("http://10.0.0.5:8080/v1", NULL));
}

/* End to end ----------------------------------------------------------------- */

typedef struct
{
  SoupServer   *server;
  guint         port;
  guint         requests;
  char         *authorization;
  GAsyncResult *result;
  GSettings    *settings;
  GResolver    *previous;
} Fixture;

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Fixture *fixture = user_data;
  const char *body = g_str_has_suffix (path, "/models") ? "{\"data\":[{\"id\":\"m\"}]}" : "{\"text\":\"play\"}";

  fixture->requests++;
  g_free (fixture->authorization);
  fixture->authorization = g_strdup (soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                                  "Authorization"));
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSList) uris = NULL;
  g_autoptr(TestResolver) resolver = g_object_new (TEST_TYPE_RESOLVER, NULL);

  fixture->previous = g_resolver_get_default ();
  g_resolver_set_default (G_RESOLVER (resolver));
  fixture->settings = g_settings_new (APP_ID);
  g_settings_reset (fixture->settings, SJ_KEY_GUARD_SETTING);

  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, server_cb, fixture, NULL);
  soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (fixture->server);
  fixture->port = g_uri_get_port (uris->data);
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify)g_uri_unref);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_settings_reset (fixture->settings, SJ_KEY_GUARD_SETTING);
  g_clear_object (&fixture->settings);
  g_clear_object (&fixture->server);
  g_clear_object (&fixture->result);
  g_clear_pointer (&fixture->authorization, g_free);
  g_resolver_set_default (fixture->previous);
  g_clear_object (&fixture->previous);
}

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *fixture = user_data;

  fixture->result = g_object_ref (result);
}

static GAsyncResult *
wait_result (Fixture *fixture)
{
  g_clear_object (&fixture->result);
  while (fixture->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return fixture->result;
}

static void
allow (Fixture    *fixture,
       const char *url)
{
  const char *allowed[] = { url, NULL };

  g_settings_set_strv (fixture->settings, SJ_KEY_GUARD_SETTING, allowed);
}

static void
test_llm_client (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *url = g_strdup_printf ("http://" TEST_HOST ":%u/v1", fixture->port);
  g_autofree char *loopback_url = g_strdup_printf ("http://127.0.0.1:%u/v1", fixture->port);
  g_autoptr(SjLlmClient) client = sj_llm_client_new (url, PLANTED_KEY);
  g_autoptr(SjLlmClient) keyless = sj_llm_client_new (url, NULL);
  g_autoptr(SjLlmClient) local = sj_llm_client_new (loopback_url, PLANTED_KEY);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;

  /* Refused: nothing reaches the server. */
  sj_llm_client_list_models_async (client, NULL, result_cb, fixture);
  models = sj_llm_client_list_models_finish (client, wait_result (fixture), &error);
  g_assert_error (error, SJ_KEY_GUARD_ERROR, SJ_KEY_GUARD_ERROR_INSECURE);
  g_assert_nonnull (strstr (error->message, url));
  g_assert_null (models);
  g_clear_error (&error);
  {
    g_autoptr(JsonObject) body = json_object_new ();

    sj_llm_client_stream_async (client, body, NULL, result_cb, fixture);
    g_assert_null (sj_llm_client_stream_finish (client, wait_result (fixture), &error));
    g_assert_error (error, SJ_KEY_GUARD_ERROR, SJ_KEY_GUARD_ERROR_INSECURE);
    g_clear_error (&error);
  }
  g_assert_cmpuint (fixture->requests, ==, 0);

  /* Without a key there is nothing to protect: the name does reach the
   * loopback server (the resolver works). */
  sj_llm_client_list_models_async (keyless, NULL, result_cb, fixture);
  models = sj_llm_client_list_models_finish (keyless, wait_result (fixture), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->requests, ==, 1);
  g_assert_null (fixture->authorization);
  g_clear_pointer (&models, g_strfreev);

  /* To this computer over http, the key goes. */
  sj_llm_client_list_models_async (local, NULL, result_cb, fixture);
  models = sj_llm_client_list_models_finish (local, wait_result (fixture), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->requests, ==, 2);
  g_assert_cmpstr (fixture->authorization, ==, "Bearer " PLANTED_KEY);
  g_clear_pointer (&models, g_strfreev);
  g_clear_pointer (&fixture->authorization, g_free);

  /* Allowed in Settings: it goes. */
  allow (fixture, url);
  sj_llm_client_list_models_async (client, NULL, result_cb, fixture);
  models = sj_llm_client_list_models_finish (client, wait_result (fixture), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->requests, ==, 3);
  g_assert_cmpstr (fixture->authorization, ==, "Bearer " PLANTED_KEY);
}

static void
test_transcription_client (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autofree char *url = g_strdup_printf ("http://" TEST_HOST ":%u/v1", fixture->port);
  g_autoptr(SjTranscriptionClient) client = sj_transcription_client_new (url, NULL, PLANTED_KEY);
  g_autoptr(GBytes) silence = g_bytes_new_take (g_malloc0 (16000 * sizeof (gint16)), 16000 * sizeof (gint16));
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  sj_transcription_client_transcribe_async (client, silence, NULL, result_cb, fixture);
  text = sj_transcription_client_transcribe_finish (client, wait_result (fixture), &error);
  g_assert_error (error, SJ_KEY_GUARD_ERROR, SJ_KEY_GUARD_ERROR_INSECURE);
  g_assert_null (text);
  g_assert_cmpuint (fixture->requests, ==, 0);
  g_clear_error (&error);

  /* The base URL allowed covers its /audio/transcriptions. */
  allow (fixture, url);
  sj_transcription_client_transcribe_async (client, silence, NULL, result_cb, fixture);
  text = sj_transcription_client_transcribe_finish (client, wait_result (fixture), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "play");
  g_assert_cmpuint (fixture->requests, ==, 1);
  g_assert_cmpstr (fixture->authorization, ==, "Bearer " PLANTED_KEY);
}

/* The transcription key is masked by value wherever the app writes text:
 * sj_redact() is what the history, the tool logs and exports go through,
 * and the log writer masks anything logged. */
static void
test_transcription_key_redacted (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(SjTranscriptionClient) client = sj_transcription_client_new ("http://127.0.0.1:1/v1", NULL, PLANTED_KEY);
      g_autofree char *masked = sj_redact ("the endpoint said: invalid key " PLANTED_KEY);

      g_assert_null (strstr (masked, PLANTED_KEY));
      g_assert_nonnull (strstr (masked, "[redacted]"));
      g_log_set_writer_func (sj_redact_log_writer, NULL, NULL);
      g_message ("the endpoint said: invalid key %s", PLANTED_KEY);
      g_message ("Authorization: Bearer %s", PLANTED_KEY);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout_unmatched ("*" PLANTED_KEY "*");
  g_test_trap_assert_stderr_unmatched ("*" PLANTED_KEY "*");
  g_test_trap_assert_stderr ("*invalid key [redacted]*");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/key-guard/url-forms", test_url_forms);
  g_test_add_func ("/key-guard/allowed-urls", test_allowed_urls);
  g_test_add ("/key-guard/llm-client", Fixture, NULL, fixture_setup, test_llm_client, fixture_teardown);
  g_test_add ("/key-guard/transcription-client", Fixture, NULL, fixture_setup, test_transcription_client,
              fixture_teardown);
  g_test_add_func ("/key-guard/transcription-key-redacted", test_transcription_key_redacted);

  return g_test_run ();
}
