/* sj-mcp-dbus-backend.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The MCP process's way to the running window: the private D-Bus interface
 * (SJ_MCP_DBUS_INTERFACE) the app's primary instance exports at its object
 * path on the session bus. When no instance owns the app's name, the
 * first request starts one (the launch command, once) and waits for the
 * name with a bound; requests that come meanwhile wait with it. Answers
 * are JSON text; the window's errors come back in SJ_MCP_ERROR with their
 * JSON-RPC codes (the domain is registered with D-Bus).
 */

#include "config.h"

#include "sj-json.h"
#include "sj-mcp-dbus-backend.h"

struct _SjMcpDbusBackend
{
  GObject          parent_instance;

  GDBusConnection *connection;
  char            *bus_name;
  char            *object_path;
  GStrv            launch_argv;
  gboolean         launched;
  guint            watch_id;
  guint            timeout_id;
  GQueue           waiting;   /* GTasks waiting for the name */
};

static void backend_iface_init (SjMcpBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SjMcpDbusBackend, sj_mcp_dbus_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SJ_TYPE_MCP_BACKEND, backend_iface_init))

typedef struct
{
  char       *client;
  char       *method;
  JsonObject *params;
} Call;

static void
call_free (Call *call)
{
  g_free (call->client);
  g_free (call->method);
  g_clear_pointer (&call->params, json_object_unref);
  g_free (call);
}

/* The D-Bus call ----------------------------------------------------------- */

static void
dbus_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  const char *json = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  if (reply == NULL)
    {
      if (g_dbus_error_is_remote_error (error) && error->domain != SJ_MCP_ERROR)
        {
          g_autofree char *text = g_strdup_printf ("Strudel Jam did not answer: %s", error->message);

          g_dbus_error_strip_remote_error (error);
          g_task_return_new_error (task, SJ_MCP_ERROR, SJ_MCP_ERROR_UNAVAILABLE, "%s", text);
          return;
        }
      if (error->domain == SJ_MCP_ERROR)
        g_dbus_error_strip_remote_error (error);
      else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_new_error (task, SJ_MCP_ERROR, SJ_MCP_ERROR_UNAVAILABLE,
                                   "Strudel Jam did not answer: %s", error->message);
          return;
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_variant_get (reply, "(&s)", &json);
  node = sj_json_parse (json, -1, NULL, &error);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_task_return_new_error (task, SJ_MCP_ERROR, SJ_MCP_ERROR_INTERNAL, "Strudel Jam answered something that is not a JSON object");
      return;
    }
  g_task_return_pointer (task, json_object_ref (json_node_get_object (node)), (GDestroyNotify)json_object_unref);
}

static void
send_call (SjMcpDbusBackend *self,
           GTask            *task)
{
  Call *call = g_task_get_task_data (task);
  g_autofree char *arguments = NULL;
  const char *member = NULL;
  GVariant *parameters = NULL;
  int timeout_ms = 30 * 1000;

  if (g_str_equal (call->method, "tools/list"))
    {
      member = "ListTools";
      parameters = g_variant_new ("(s)", call->client);
    }
  else if (g_str_equal (call->method, "resources/list"))
    {
      member = "ListResources";
      parameters = g_variant_new ("(s)", call->client);
    }
  else if (g_str_equal (call->method, "resources/read"))
    {
      member = "ReadResource";
      parameters = g_variant_new ("(ss)", call->client, sj_json_object_get_string (call->params, "uri"));
      timeout_ms = SJ_MCP_CALL_TIMEOUT_MS;
    }
  else if (g_str_equal (call->method, "tools/call"))
    {
      JsonObject *args = sj_json_object_get_object (call->params, "arguments");

      if (args != NULL)
        {
          g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), args);

          arguments = json_to_string (node, FALSE);
        }
      member = "CallTool";
      parameters = g_variant_new ("(sss)", call->client, sj_json_object_get_string (call->params, "name"),
                                  arguments != NULL ? arguments : "{}");
      timeout_ms = SJ_MCP_CALL_TIMEOUT_MS;
    }
  else
    {
      g_task_return_new_error (task, SJ_MCP_ERROR, SJ_MCP_ERROR_METHOD_NOT_FOUND, "Method not found: %s", call->method);
      g_object_unref (task);
      return;
    }

  g_dbus_connection_call (self->connection, self->bus_name, self->object_path, SJ_MCP_DBUS_INTERFACE, member,
                          parameters, G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms,
                          g_task_get_cancellable (task), dbus_done_cb, task);
}

/* Starting the app ---------------------------------------------------------- */

static void
flush_waiting (SjMcpDbusBackend *self,
               const GError     *error)
{
  GTask *task;

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  if (self->watch_id != 0)
    {
      g_bus_unwatch_name (self->watch_id);
      self->watch_id = 0;
    }

  while ((task = g_queue_pop_head (&self->waiting)) != NULL)
    {
      if (error == NULL)
        send_call (self, task);
      else
        {
          g_task_return_error (task, g_error_copy (error));
          g_object_unref (task);
        }
    }
}

static void
name_appeared_cb (GDBusConnection *connection,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  flush_waiting (user_data, NULL);
}

static gboolean
start_timeout_cb (gpointer user_data)
{
  SjMcpDbusBackend *self = user_data;
  g_autoptr(GError) error = g_error_new (SJ_MCP_ERROR, SJ_MCP_ERROR_UNAVAILABLE,
                                         "Strudel Jam did not start within %d s", SJ_MCP_START_TIMEOUT_S);

  self->timeout_id = 0;
  flush_waiting (self, error);
  /* The next request tries again. */
  self->launched = FALSE;

  return G_SOURCE_REMOVE;
}

static void
wait_for_name (SjMcpDbusBackend *self,
               GTask            *task)
{
  g_autoptr(GError) error = NULL;

  g_queue_push_tail (&self->waiting, task);
  if (self->watch_id != 0)
    return;

  if (!self->launched && self->launch_argv != NULL)
    {
      /* The app's stdout is not ours: our stdout is the protocol. */
      self->launched = TRUE;
      g_message ("Starting Strudel Jam: %s", self->launch_argv[0]);
      if (!g_spawn_async (NULL, self->launch_argv, NULL,
                          G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &error))
        {
          g_autoptr(GError) unavailable = g_error_new (SJ_MCP_ERROR, SJ_MCP_ERROR_UNAVAILABLE,
                                                       "Could not start Strudel Jam: %s", error->message);

          self->launched = FALSE;
          flush_waiting (self, unavailable);
          return;
        }
    }

  self->watch_id = g_bus_watch_name_on_connection (self->connection, self->bus_name, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   name_appeared_cb, NULL, self, NULL);
  self->timeout_id = g_timeout_add_seconds (SJ_MCP_START_TIMEOUT_S, start_timeout_cb, self);
}

static void
has_owner_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  SjMcpDbusBackend *self = g_task_get_source_object (task);
  g_autoptr(GVariant) reply = NULL;
  gboolean owned = FALSE;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(b)", &owned);

  if (owned)
    send_call (self, task);
  else
    wait_for_name (self, task);
}

/* SjMcpBackend --------------------------------------------------------------- */

static void
sj_mcp_dbus_backend_request_async (SjMcpBackend        *backend,
                                   const char          *client,
                                   const char          *method,
                                   JsonObject          *params,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  SjMcpDbusBackend *self = SJ_MCP_DBUS_BACKEND (backend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Call *call = g_new0 (Call, 1);

  g_task_set_source_tag (task, sj_mcp_dbus_backend_request_async);
  call->client = g_strdup (client != NULL ? client : "unnamed client");
  call->method = g_strdup (method);
  call->params = params != NULL ? json_object_ref (params) : json_object_new ();
  g_task_set_task_data (task, call, (GDestroyNotify)call_free);

  /* Without a session bus the protocol still answers; each request that
   * needs the window says why it cannot have it. */
  if (self->connection == NULL)
    {
      g_autoptr(GError) error = NULL;

      self->connection = g_bus_get_sync (G_BUS_TYPE_SESSION, cancellable, &error);
      if (self->connection == NULL)
        {
          g_task_return_new_error (task, SJ_MCP_ERROR, SJ_MCP_ERROR_UNAVAILABLE,
                                   "No session bus to reach Strudel Jam on: %s", error->message);
          g_object_unref (task);
          return;
        }
    }

  g_dbus_connection_call (self->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "NameHasOwner", g_variant_new ("(s)", self->bus_name),
                          G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE, 5000, cancellable, has_owner_cb, task);
}

static JsonObject *
sj_mcp_dbus_backend_request_finish (SjMcpBackend  *backend,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
backend_iface_init (SjMcpBackendInterface *iface)
{
  iface->request_async = sj_mcp_dbus_backend_request_async;
  iface->request_finish = sj_mcp_dbus_backend_request_finish;
}

/* GObject -------------------------------------------------------------------- */

static void
sj_mcp_dbus_backend_finalize (GObject *object)
{
  SjMcpDbusBackend *self = (SjMcpDbusBackend *)object;

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  if (self->watch_id != 0)
    g_bus_unwatch_name (self->watch_id);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->bus_name, g_free);
  g_clear_pointer (&self->object_path, g_free);
  g_clear_pointer (&self->launch_argv, g_strfreev);

  G_OBJECT_CLASS (sj_mcp_dbus_backend_parent_class)->finalize (object);
}

static void
sj_mcp_dbus_backend_class_init (SjMcpDbusBackendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_mcp_dbus_backend_finalize;

  /* Registers the error domain with D-Bus before the first call. */
  g_type_ensure (G_TYPE_DBUS_CONNECTION);
  (void)sj_mcp_error_quark ();
}

static void
sj_mcp_dbus_backend_init (SjMcpDbusBackend *self)
{
  g_queue_init (&self->waiting);
}

/**
 * sj_mcp_dbus_backend_new:
 * @connection: (nullable): the session bus, or %NULL to connect at the
 *   first request
 * @launch_argv: (nullable): the command that starts the app, or %NULL to
 *   only wait for it
 */
SjMcpDbusBackend *
sj_mcp_dbus_backend_new (GDBusConnection    *connection,
                         const char         *bus_name,
                         const char         *object_path,
                         const char * const *launch_argv)
{
  SjMcpDbusBackend *self;

  g_return_val_if_fail (connection == NULL || G_IS_DBUS_CONNECTION (connection), NULL);

  self = g_object_new (SJ_TYPE_MCP_DBUS_BACKEND, NULL);
  self->connection = connection != NULL ? g_object_ref (connection) : NULL;
  self->bus_name = g_strdup (bus_name);
  self->object_path = g_strdup (object_path);
  self->launch_argv = g_strdupv ((char **)launch_argv);

  return self;
}
