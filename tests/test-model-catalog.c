/* test-model-catalog.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjModelCatalog and the search for a local model server, against real
 * HTTP servers on the loopback interface: what a model list says about
 * tools, the default model's rule, the key checked with OpenRouter before
 * its models are listed, and local servers found on ports the test
 * controls (one plays a model server, one a web server that is not one,
 * one is closed, one accepts connections and never answers).
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "sj-llm-client-private.h"
#include "sj-local-servers-private.h"
#include "sj-model-catalog.h"
#include "sj-test-files.h"

#define GOOD_KEY "sk-or-v1-good-key-for-the-catalog-test"
#define OPENROUTER_MODELS \
  "{\"data\":[" \
  "{\"id\":\"openai/gpt-5-pro\",\"supported_parameters\":[\"tools\",\"reasoning\"]}," \
  "{\"id\":\"some/image-model\",\"supported_parameters\":[\"temperature\"]}," \
  "{\"id\":\"openai/gpt-4.1-mini\",\"supported_parameters\":[\"tools\"]}," \
  "{\"id\":\"google/gemini-2.5-flash\",\"supported_parameters\":[\"tools\"]}]}"
#define LOCAL_MODELS \
  "{\"object\":\"list\",\"data\":[{\"id\":\"nomic-embed-text:latest\"},{\"id\":\"llama3.2:3b\"},{\"id\":\"qwen3:8b\"}]}"

typedef struct
{
  SoupServer *server;
  guint16     port;
  char       *base_url;
  const char *models;        /* the body of /models; NULL for a 404 page */
  const char *required_key;  /* /key and /models want it, else 401 */
  guint       n_key_checks;
  guint       n_models;
} Server;

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Server *server = user_data;
  const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Authorization");
  gboolean authorized = server->required_key == NULL ||
                        (auth != NULL && g_str_has_prefix (auth, "Bearer ") &&
                         g_str_equal (auth + strlen ("Bearer "), server->required_key));

  if (g_str_has_suffix (path, "/key"))
    server->n_key_checks++;
  else if (g_str_has_suffix (path, "/models"))
    server->n_models++;

  if (!authorized)
    {
      soup_server_message_set_status (msg, 401, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"error\":{\"message\":\"No auth credentials found\"}}", 47);
      return;
    }

  if (g_str_has_suffix (path, "/key"))
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"data\":{\"label\":\"test\"}}", 25);
    }
  else if (g_str_has_suffix (path, "/models") && server->models != NULL)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        server->models, strlen (server->models));
    }
  else
    {
      soup_server_message_set_status (msg, 404, NULL);
      soup_server_message_set_response (msg, "text/html", SOUP_MEMORY_STATIC, "<h1>Not Found</h1>", 18);
    }
}

static Server *
server_new (const char *models)
{
  Server *server = g_new0 (Server, 1);
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  server->models = models;
  server->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server->server, NULL, server_cb, server, NULL);
  soup_server_listen_local (server->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server->server);
  server->port = g_uri_get_port (uris->data);
  server->base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", server->port);

  return server;
}

static void
server_free (Server *server)
{
  soup_server_disconnect (server->server);
  g_clear_object (&server->server);
  g_free (server->base_url);
  g_free (server);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Server, server_free)

/* A port that was free a moment ago: nothing listens there. */
static guint16
closed_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  g_socket_close (socket, NULL);

  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

/* A socket that accepts connections (the kernel does, from its backlog)
 * and never answers. */
static GSocket *
silent_socket (guint16 *port)
{
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  g_assert_true (g_socket_listen (socket, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));

  return socket;
}

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *result;
}

static SjModelCatalog *
fetch (const char  *provider,
       const char  *base_url,
       const char  *key,
       guint        timeout_s,
       GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_model_catalog_fetch_async (provider, base_url, key, SJ_MODEL_FETCH_DEFAULT, timeout_s, NULL,
                                sj_test_store_result_cb, &result);
  return sj_model_catalog_fetch_finish (wait_result (&result), error);
}

/* Parsing and the default ------------------------------------------------- */

static void
test_tools (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjModelCatalog) catalog = sj_model_catalog_new_from_json (OPENROUTER_MODELS, -1, &error);
  g_auto(GStrv) for_agent = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length ((char **) sj_model_catalog_get_ids (catalog)), ==, 4);
  g_assert_cmpint (sj_model_catalog_get_tools (catalog, "openai/gpt-5-pro"), ==, SJ_MODEL_TOOLS_YES);
  g_assert_cmpint (sj_model_catalog_get_tools (catalog, "some/image-model"), ==, SJ_MODEL_TOOLS_NO);
  g_assert_cmpint (sj_model_catalog_get_tools (catalog, "not/listed"), ==, SJ_MODEL_TOOLS_UNKNOWN);

  /* Only models that call tools are offered to the agent, in order. */
  for_agent = sj_model_catalog_list_for_agent (catalog);
  g_assert_cmpuint (g_strv_length (for_agent), ==, 3);
  g_assert_cmpstr (for_agent[0], ==, "openai/gpt-5-pro");
  g_assert_cmpstr (for_agent[1], ==, "openai/gpt-4.1-mini");

  /* Malformed lists are the provider's fault, said so. */
  g_clear_object (&catalog);
  catalog = sj_model_catalog_new_from_json ("{\"models\": 3}", -1, &error);
  g_assert_null (catalog);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL);
}

static void
test_default (void)
{
  static const struct {
    const char *json;
    gboolean    hosted;
    const char *expected;
  } cases[] = {
    /* 1. The preferred list, in its order, not the provider's. */
    { OPENROUTER_MODELS, TRUE, "google/gemini-2.5-flash" },
    { "{\"data\":[{\"id\":\"x/y\",\"supported_parameters\":[\"tools\"]},"
      "{\"id\":\"openai/gpt-4.1-mini\",\"supported_parameters\":[\"tools\"]}]}", TRUE, "openai/gpt-4.1-mini" },
    /* A preferred model that cannot use tools here is not chosen. */
    { "{\"data\":[{\"id\":\"google/gemini-2.5-flash\",\"supported_parameters\":[]},"
      "{\"id\":\"x/tools\",\"supported_parameters\":[\"tools\"]}]}", TRUE, "x/tools" },
    /* 2. Else the first that uses tools. */
    { "{\"data\":[{\"id\":\"a/no\",\"supported_parameters\":[]},"
      "{\"id\":\"b/yes\",\"supported_parameters\":[\"tools\"]},"
      "{\"id\":\"c/yes\",\"supported_parameters\":[\"tools\"]}]}", TRUE, "b/yes" },
    /* Local families, whatever the tag or the publisher. */
    { LOCAL_MODELS, FALSE, "qwen3:8b" },
    { "{\"data\":[{\"id\":\"llama3.2:3b\"},{\"id\":\"qwen2.5-coder:7b\"}]}", FALSE, "qwen2.5-coder:7b" },
    { "{\"data\":[{\"id\":\"lmstudio-community/x\"},{\"id\":\"qwen/qwen3-8b\"}]}", FALSE, "qwen/qwen3-8b" },
    /* "qwen30" is not of the qwen3 family. */
    { "{\"data\":[{\"id\":\"qwen30-huge\"},{\"id\":\"llama3.1:8b\"}]}", FALSE, "llama3.1:8b" },
    /* 3. Else the first offered: embedding models are not. */
    { "{\"data\":[{\"id\":\"nomic-embed-text\"},{\"id\":\"model.gguf\"}]}", FALSE, "model.gguf" },
    { "[{\"id\":\"only\"}]", FALSE, "only" },
    { "{\"data\":[]}", FALSE, NULL },
    { "{\"data\":[{\"id\":\"nomic-embed-text\"}]}", FALSE, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SjModelCatalog) catalog = sj_model_catalog_new_from_json (cases[i].json, -1, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (sj_model_catalog_choose_default (catalog, cases[i].hosted), ==, cases[i].expected);
    }
}

/* Fetching ---------------------------------------------------------------- */

static void
test_fetch_openrouter (void)
{
  g_autoptr(Server) server = server_new (OPENROUTER_MODELS);
  g_autoptr(SjModelCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;

  /* OpenRouter lists its models to anyone: only /key tells a refused key. */
  server->required_key = GOOD_KEY;
  catalog = fetch ("openrouter", server->base_url, "sk-or-v1-refused", 5, &error);
  g_assert_null (catalog);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_UNAUTHORIZED);
  g_assert_cmpuint (server->n_key_checks, ==, 1);
  g_assert_cmpuint (server->n_models, ==, 0);
  g_clear_error (&error);

  catalog = fetch ("openrouter", server->base_url, GOOD_KEY, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (server->n_key_checks, ==, 2);
  g_assert_cmpuint (server->n_models, ==, 1);
  g_assert_cmpstr (sj_model_catalog_choose_default (catalog, TRUE), ==, "google/gemini-2.5-flash");
  g_clear_object (&catalog);

  /* A provider without /key: the model list decides. */
  server->required_key = NULL;
  catalog = fetch ("custom", server->base_url, NULL, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (server->n_key_checks, ==, 2);
}

static void
test_fetch_unreachable (void)
{
  g_autofree char *closed = g_strdup_printf ("http://127.0.0.1:%u/v1", closed_port ());
  g_autoptr(GSocket) silent = NULL;
  g_autofree char *silent_url = NULL;
  g_autoptr(SjModelCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;
  guint16 port;
  gint64 start;

  catalog = fetch ("custom", closed, NULL, 5, &error);
  g_assert_null (catalog);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK);
  g_clear_error (&error);

  /* A server that never answers is given up on after the timeout. */
  silent = silent_socket (&port);
  silent_url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  start = g_get_monotonic_time ();
  catalog = fetch ("custom", silent_url, NULL, 1, &error);
  g_assert_null (catalog);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
}

/* Local servers ----------------------------------------------------------- */

static SjLocalServer *
detect (GCancellable  *cancellable,
        GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_local_servers_detect_async (cancellable, sj_test_store_result_cb, &result);
  return sj_local_servers_detect_finish (wait_result (&result), error);
}

static void
test_local_servers (void)
{
  g_autoptr(Server) model_server = server_new (LOCAL_MODELS);
  g_autoptr(Server) web_server = server_new (NULL);
  g_autoptr(GSocket) silent = NULL;
  g_autoptr(SjLocalServer) found = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  guint16 silent_port;
  guint16 ports[4];

  silent = silent_socket (&silent_port);

  /* A closed port, a web server that is no model server, a server that
   * never answers, and a model server: the model server is found. */
  ports[0] = closed_port ();
  ports[1] = web_server->port;
  ports[2] = silent_port;
  ports[3] = model_server->port;
  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  found = detect (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found->base_url, ==, model_server->base_url);
  g_assert_cmpstr (found->name, ==, "a model server");
  g_assert_cmpstr (sj_model_catalog_choose_default (found->catalog, FALSE), ==, "qwen3:8b");
  g_assert_cmpuint (web_server->n_models, ==, 1);
  g_clear_pointer (&found, sj_local_server_free);

  /* Nothing there: said so. */
  _sj_local_servers_set_ports (ports, 2);
  found = detect (NULL, &error);
  g_assert_null (found);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Cancelled while a probe waits on the silent server. */
  _sj_local_servers_set_ports (&silent_port, 1);
  g_cancellable_cancel (cancellable);
  found = detect (cancellable, &error);
  g_assert_null (found);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  _sj_local_servers_set_ports (NULL, 0);
}

/* The OpenRouter URL tests use ------------------------------------------- */

static void
test_openrouter_url (void)
{
  g_autoptr(SjLlmClient) client = NULL;

  g_assert_cmpstr (sj_llm_client_get_openrouter_url (), ==, SJ_LLM_CLIENT_OPENROUTER_URL);
  _sj_llm_client_set_openrouter_url ("http://127.0.0.1:9/v1");
  g_assert_cmpstr (sj_llm_client_get_openrouter_url (), ==, "http://127.0.0.1:9/v1");
  client = sj_llm_client_new (NULL, NULL);
  g_assert_cmpstr (_sj_llm_client_get_base_url (client), ==, "http://127.0.0.1:9/v1");
  _sj_llm_client_set_openrouter_url (NULL);
  g_assert_cmpstr (sj_llm_client_get_openrouter_url (), ==, SJ_LLM_CLIENT_OPENROUTER_URL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/model-catalog/tools", test_tools);
  g_test_add_func ("/model-catalog/default", test_default);
  g_test_add_func ("/model-catalog/fetch-openrouter", test_fetch_openrouter);
  g_test_add_func ("/model-catalog/fetch-unreachable", test_fetch_unreachable);
  g_test_add_func ("/model-catalog/local-servers", test_local_servers);
  g_test_add_func ("/model-catalog/openrouter-url", test_openrouter_url);

  return g_test_run ();
}
