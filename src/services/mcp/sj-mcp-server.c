/* sj-mcp-server.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Model Context Protocol's JSON-RPC 2.0 (issue 34): one message a line
 * in, one a line out through the write function. The server answers
 * initialize (protocol 2025-06-18, or the client's own when it is one it
 * speaks), ping, and the errors of JSON-RPC itself; tools/list,
 * tools/call, resources/list and resources/read go to the backend, which
 * is the running window.
 *
 * Whatever comes in is hostile until checked: a line is parsed only after
 * a scan has found it nests no deeper than SJ_MCP_MAX_DEPTH (json-glib
 * parses recursively, and 100,000 nested arrays would overflow the
 * stack); anything that is not one JSON-RPC request or notification gets
 * its error with "id": null; notifications never get an answer. Requests
 * are answered as their work finishes, so a slow tool does not hold up a
 * ping. The pending count lets the caller wait for the answers still
 * owed before exiting.
 */

#include "config.h"

#include <string.h>

#include "sj-json.h"
#include "sj-mcp-framer.h"
#include "sj-mcp-server.h"

struct _SjMcpServer
{
  GObject         parent_instance;

  SjMcpBackend   *backend;
  SjMcpWriteFunc  write;
  gpointer        write_data;
  GCancellable   *cancellable;
  char           *client;
  char           *protocol_version;
  gboolean        initialized;
  guint           pending;
};

G_DEFINE_FINAL_TYPE (SjMcpServer, sj_mcp_server, G_TYPE_OBJECT)

enum {
  PENDING_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char * const supported_versions[] = {
  SJ_MCP_PROTOCOL_VERSION, "2025-03-26", "2024-11-05", NULL
};

/* Answers ---------------------------------------------------------------- */

static void
send_object (SjMcpServer *self,
             JsonObject  *message)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), message);
  g_autofree char *text = json_to_string (node, FALSE);

  /* json-glib writes no raw newline: inside strings it is "\n". */
  self->write (text, self->write_data);
}

static JsonObject *
new_message (JsonNode *id)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "jsonrpc", "2.0");
  if (id != NULL)
    json_object_set_member (message, "id", json_node_copy (id));
  else
    json_object_set_null_member (message, "id");

  return message;
}

static void
send_result (SjMcpServer *self,
             JsonNode    *id,
             JsonObject  *result)
{
  g_autoptr(JsonObject) message = new_message (id);

  json_object_set_object_member (message, "result", json_object_ref (result));
  send_object (self, message);
}

static void
send_error (SjMcpServer *self,
            JsonNode    *id,
            int          code,
            const char  *text)
{
  g_autoptr(JsonObject) message = new_message (id);
  JsonObject *error = json_object_new ();

  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", text);
  json_object_set_object_member (message, "error", error);
  send_object (self, message);
}

static void
set_pending (SjMcpServer *self,
             guint        pending)
{
  self->pending = pending;
  g_signal_emit (self, signals[PENDING_CHANGED], 0);
}

/* The backend's requests ---------------------------------------------------- */

typedef struct
{
  SjMcpServer *self;
  JsonNode    *id;
} Request;

static void
request_free (Request *request)
{
  g_object_unref (request->self);
  json_node_unref (request->id);
  g_free (request);
}

static void
backend_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Request *request = user_data;
  SjMcpServer *self = request->self;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  answer = sj_mcp_backend_request_finish (SJ_MCP_BACKEND (object), result, &error);
  if (answer != NULL)
    send_result (self, request->id, answer);
  else if (error->domain == SJ_MCP_ERROR)
    send_error (self, request->id, error->code, error->message);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    send_error (self, request->id, SJ_MCP_ERROR_INTERNAL, error->message);

  set_pending (self, self->pending - 1);
  request_free (request);
}

static void
forward (SjMcpServer *self,
         JsonNode    *id,
         const char  *method,
         JsonObject  *params)
{
  Request *request;

  if (self->pending >= SJ_MCP_MAX_PENDING)
    {
      send_error (self, id, SJ_MCP_ERROR_INTERNAL, "Too many requests at once: wait for some answers first");
      return;
    }

  request = g_new0 (Request, 1);
  request->self = g_object_ref (self);
  request->id = json_node_copy (id);
  set_pending (self, self->pending + 1);
  sj_mcp_backend_request_async (self->backend, self->client, method, params, self->cancellable,
                                backend_done_cb, request);
}

/* Methods ------------------------------------------------------------------ */

static void
initialize (SjMcpServer *self,
            JsonNode    *id,
            JsonObject  *params)
{
  g_autoptr(JsonObject) result = json_object_new ();
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();
  JsonObject *resources = json_object_new ();
  JsonObject *info = json_object_new ();
  const char *asked = NULL;
  const char *name = NULL;
  JsonObject *client_info;

  if (params == NULL)
    {
      send_error (self, id, SJ_MCP_ERROR_INVALID_PARAMS, "initialize needs params with protocolVersion and clientInfo");
      return;
    }
  asked = sj_json_object_get_string (params, "protocolVersion");
  if ((client_info = sj_json_object_get_object (params, "clientInfo")) != NULL)
    name = sj_json_object_get_string (client_info, "name");

  g_free (self->protocol_version);
  self->protocol_version = g_strdup (asked != NULL && g_strv_contains (supported_versions, asked) ?
                                     asked : SJ_MCP_PROTOCOL_VERSION);
  /* The musician allows or blocks a client by this name: keep it short
   * and printable. */
  g_clear_pointer (&self->client, g_free);
  if (name != NULL && *name != '\0' && g_utf8_validate (name, -1, NULL))
    {
      g_autofree char *cut = g_utf8_substring (name, 0, MIN (g_utf8_strlen (name, -1), 64));

      self->client = g_strstrip (g_strdelimit (g_steal_pointer (&cut), "\r\n\t", ' '));
    }
  if (self->client == NULL || *self->client == '\0')
    {
      g_free (self->client);
      self->client = g_strdup ("unnamed client");
    }
  self->initialized = TRUE;

  json_object_set_string_member (result, "protocolVersion", self->protocol_version);
  json_object_set_boolean_member (tools, "listChanged", FALSE);
  json_object_set_object_member (capabilities, "tools", tools);
  json_object_set_boolean_member (resources, "subscribe", FALSE);
  json_object_set_boolean_member (resources, "listChanged", FALSE);
  json_object_set_object_member (capabilities, "resources", resources);
  json_object_set_object_member (result, "capabilities", capabilities);
  json_object_set_string_member (info, "name", "strudel-jam");
  json_object_set_string_member (info, "title", "Strudel Jam");
  json_object_set_string_member (info, "version", PACKAGE_VERSION);
  json_object_set_object_member (result, "serverInfo", info);
  json_object_set_string_member (result, "instructions",
                                 "Strudel Jam plays Strudel live-coding music in a window the musician watches. "
                                 "Read the code with read_code before changing it; apply_strudel_change dry-runs "
                                 "a change and lands it on the next cycle (the musician can cancel it or press "
                                 "Panic). Look functions and sounds up with strudel_knowledge instead of guessing.");
  send_result (self, id, result);
}

static gboolean
is_forwarded (const char *method)
{
  return g_str_equal (method, "tools/list") || g_str_equal (method, "tools/call") ||
         g_str_equal (method, "resources/list") || g_str_equal (method, "resources/read");
}

static void
handle_request (SjMcpServer *self,
                JsonNode    *id,
                const char  *method,
                JsonNode    *params_node)
{
  JsonObject *params = params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node) ?
                       json_node_get_object (params_node) : NULL;

  if (params_node != NULL && params == NULL && !JSON_NODE_HOLDS_NULL (params_node))
    {
      send_error (self, id, SJ_MCP_ERROR_INVALID_PARAMS, "params must be an object");
      return;
    }

  if (g_str_equal (method, "initialize"))
    initialize (self, id, params);
  else if (g_str_equal (method, "ping"))
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      send_result (self, id, empty);
    }
  else if (is_forwarded (method))
    {
      if (!self->initialized)
        send_error (self, id, SJ_MCP_ERROR_INVALID_REQUEST, "Send initialize first");
      else if (g_str_equal (method, "tools/call") &&
               (params == NULL || sj_json_object_get_string (params, "name") == NULL))
        send_error (self, id, SJ_MCP_ERROR_INVALID_PARAMS, "tools/call needs params.name, the tool's name");
      else if (g_str_equal (method, "tools/call") && json_object_has_member (params, "arguments") &&
               !JSON_NODE_HOLDS_OBJECT (json_object_get_member (params, "arguments")))
        send_error (self, id, SJ_MCP_ERROR_INVALID_PARAMS, "params.arguments must be an object");
      else if (g_str_equal (method, "resources/read") &&
               (params == NULL || sj_json_object_get_string (params, "uri") == NULL))
        send_error (self, id, SJ_MCP_ERROR_INVALID_PARAMS, "resources/read needs params.uri");
      else
        forward (self, id, method, params);
    }
  else
    {
      g_autofree char *text = g_strdup_printf ("Method not found: %.100s", method);

      send_error (self, id, SJ_MCP_ERROR_METHOD_NOT_FOUND, text);
    }
}

/**
 * sj_mcp_server_handle_line:
 * @line: one line of stdin, without its newline
 *
 * Answers one message: a request gets its result or error (now, or once
 * the backend has answered), a notification nothing.
 */
void
sj_mcp_server_handle_line (SjMcpServer *self,
                           const char  *line,
                           gsize        length)
{
  SjJsonLimits limits = { SJ_MCP_MAX_DEPTH, SJ_MCP_MAX_LINE };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *message;
  JsonNode *id;
  JsonNode *method;

  g_return_if_fail (SJ_IS_MCP_SERVER (self));

  root = sj_json_parse (line, length, &limits, &error);
  if (root == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Parse error: %s", error->message);

      send_error (self, NULL, SJ_MCP_ERROR_PARSE, text);
      return;
    }

  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      send_error (self, NULL, SJ_MCP_ERROR_INVALID_REQUEST, "Invalid Request: batches are not supported");
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      send_error (self, NULL, SJ_MCP_ERROR_INVALID_REQUEST, "Invalid Request: a message is a JSON object");
      return;
    }

  message = json_node_get_object (root);
  id = json_object_get_member (message, "id");
  method = json_object_get_member (message, "method");

  /* A response from the client (we send no requests) is ignored. */
  if (method == NULL && id != NULL &&
      (json_object_has_member (message, "result") || json_object_has_member (message, "error")))
    return;

  /* A valid id is a string or an integer; anything else is answered with
   * "id": null, as JSON-RPC says. */
  if (id != NULL && !(JSON_NODE_HOLDS_VALUE (id) &&
                      (json_node_get_value_type (id) == G_TYPE_STRING ||
                       json_node_get_value_type (id) == G_TYPE_INT64)))
    {
      send_error (self, NULL, SJ_MCP_ERROR_INVALID_REQUEST, "Invalid Request: id must be a string or an integer");
      return;
    }

  if (g_strcmp0 (sj_json_object_get_string (message, "jsonrpc"), "2.0") != 0 ||
      method == NULL || !JSON_NODE_HOLDS_VALUE (method) || json_node_get_value_type (method) != G_TYPE_STRING)
    {
      if (id != NULL)
        send_error (self, id, SJ_MCP_ERROR_INVALID_REQUEST,
                    "Invalid Request: needs \"jsonrpc\": \"2.0\" and a method name");
      else
        send_error (self, NULL, SJ_MCP_ERROR_INVALID_REQUEST,
                    "Invalid Request: needs \"jsonrpc\": \"2.0\", a method name and an id");
      return;
    }

  /* Notifications: initialized, cancelled and the rest need no answer. */
  if (id == NULL)
    return;

  handle_request (self, id, json_node_get_string (method), json_object_get_member (message, "params"));
}

/* The framer dropped a line over the limit. */
void
sj_mcp_server_handle_too_long (SjMcpServer *self)
{
  g_autofree char *text = g_strdup_printf ("Invalid Request: the message is longer than %u bytes",
                                           (guint)SJ_MCP_MAX_LINE);

  g_return_if_fail (SJ_IS_MCP_SERVER (self));

  send_error (self, NULL, SJ_MCP_ERROR_INVALID_REQUEST, text);
}

guint
sj_mcp_server_get_pending (SjMcpServer *self)
{
  g_return_val_if_fail (SJ_IS_MCP_SERVER (self), 0);

  return self->pending;
}

/* Returns: (nullable): the client's name, from initialize */
const char *
sj_mcp_server_get_client (SjMcpServer *self)
{
  g_return_val_if_fail (SJ_IS_MCP_SERVER (self), NULL);

  return self->client;
}

const char *
sj_mcp_server_get_protocol_version (SjMcpServer *self)
{
  g_return_val_if_fail (SJ_IS_MCP_SERVER (self), NULL);

  return self->protocol_version;
}

/* GObject ------------------------------------------------------------------ */

static void
sj_mcp_server_dispose (GObject *object)
{
  SjMcpServer *self = (SjMcpServer *)object;

  g_cancellable_cancel (self->cancellable);

  G_OBJECT_CLASS (sj_mcp_server_parent_class)->dispose (object);
}

static void
sj_mcp_server_finalize (GObject *object)
{
  SjMcpServer *self = (SjMcpServer *)object;

  g_clear_object (&self->backend);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->client, g_free);
  g_clear_pointer (&self->protocol_version, g_free);

  G_OBJECT_CLASS (sj_mcp_server_parent_class)->finalize (object);
}

static void
sj_mcp_server_class_init (SjMcpServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_mcp_server_dispose;
  object_class->finalize = sj_mcp_server_finalize;

  /**
   * SjMcpServer::pending-changed:
   *
   * A request was sent to the backend, or its answer written.
   */
  signals[PENDING_CHANGED] = g_signal_new ("pending-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_mcp_server_init (SjMcpServer *self)
{
  self->cancellable = g_cancellable_new ();
}

SjMcpServer *
sj_mcp_server_new (SjMcpBackend   *backend,
                   SjMcpWriteFunc  write,
                   gpointer        user_data)
{
  SjMcpServer *self;

  g_return_val_if_fail (SJ_IS_MCP_BACKEND (backend), NULL);
  g_return_val_if_fail (write != NULL, NULL);

  self = g_object_new (SJ_TYPE_MCP_SERVER, NULL);
  self->backend = g_object_ref (backend);
  self->write = write;
  self->write_data = user_data;

  return self;
}
