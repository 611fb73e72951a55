/* sj-mcp-backend.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the MCP server asks of the app, as an interface: the real one is
 * SjMcpDbusBackend (the running window, over D-Bus); the protocol's tests
 * put a scripted one in its place. The shapes both sides share are here
 * too: the agent's OpenAI-style tool definitions as MCP tools (the same
 * names, descriptions and schemas), a tool's result as an MCP
 * CallToolResult, the list of resources, and the D-Bus interface.
 */

#include "config.h"

#include "sj-mcp-backend.h"

static const GDBusErrorEntry mcp_dbus_errors[] = {
  { SJ_MCP_ERROR_PARSE, SJ_MCP_DBUS_INTERFACE ".Error.Parse" },
  { SJ_MCP_ERROR_INVALID_REQUEST, SJ_MCP_DBUS_INTERFACE ".Error.InvalidRequest" },
  { SJ_MCP_ERROR_METHOD_NOT_FOUND, SJ_MCP_DBUS_INTERFACE ".Error.MethodNotFound" },
  { SJ_MCP_ERROR_INVALID_PARAMS, SJ_MCP_DBUS_INTERFACE ".Error.InvalidParams" },
  { SJ_MCP_ERROR_INTERNAL, SJ_MCP_DBUS_INTERFACE ".Error.Internal" },
  { SJ_MCP_ERROR_REFUSED, SJ_MCP_DBUS_INTERFACE ".Error.Refused" },
  { SJ_MCP_ERROR_RESOURCE_NOT_FOUND, SJ_MCP_DBUS_INTERFACE ".Error.ResourceNotFound" },
  { SJ_MCP_ERROR_UNAVAILABLE, SJ_MCP_DBUS_INTERFACE ".Error.Unavailable" },
};

/* Registered with D-Bus, so an error the window returns arrives in the
 * MCP process with its domain and code. */
GQuark
sj_mcp_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("sj-mcp-error-quark", &quark,
                                      mcp_dbus_errors, G_N_ELEMENTS (mcp_dbus_errors));
  return (GQuark)quark;
}

/* Every answer is JSON text: the window and the MCP process share the
 * JSON shapes, and D-Bus only carries them. */
const char sj_mcp_dbus_interface_xml[] =
  "<node>"
  "  <interface name='" SJ_MCP_DBUS_INTERFACE "'>"
  "    <method name='ListTools'>"
  "      <arg type='s' name='client' direction='in'/>"
  "      <arg type='s' name='result_json' direction='out'/>"
  "    </method>"
  "    <method name='CallTool'>"
  "      <arg type='s' name='client' direction='in'/>"
  "      <arg type='s' name='name' direction='in'/>"
  "      <arg type='s' name='arguments_json' direction='in'/>"
  "      <arg type='s' name='result_json' direction='out'/>"
  "    </method>"
  "    <method name='ListResources'>"
  "      <arg type='s' name='client' direction='in'/>"
  "      <arg type='s' name='result_json' direction='out'/>"
  "    </method>"
  "    <method name='ReadResource'>"
  "      <arg type='s' name='client' direction='in'/>"
  "      <arg type='s' name='uri' direction='in'/>"
  "      <arg type='s' name='result_json' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

G_DEFINE_INTERFACE (SjMcpBackend, sj_mcp_backend, G_TYPE_OBJECT)

static void
sj_mcp_backend_default_init (SjMcpBackendInterface *iface)
{
}

void
sj_mcp_backend_request_async (SjMcpBackend        *self,
                              const char          *client,
                              const char          *method,
                              JsonObject          *params,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (SJ_IS_MCP_BACKEND (self));

  SJ_MCP_BACKEND_GET_IFACE (self)->request_async (self, client, method, params, cancellable, callback, user_data);
}

JsonObject *
sj_mcp_backend_request_finish (SjMcpBackend  *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (SJ_IS_MCP_BACKEND (self), NULL);

  return SJ_MCP_BACKEND_GET_IFACE (self)->request_finish (self, result, error);
}

/**
 * sj_mcp_tools_from_definitions:
 * @definitions: the agent's tools (data/agent/tools.json), OpenAI style
 *
 * Returns: (transfer full): the result of tools/list: the same names,
 *   descriptions and parameter schemas
 */
JsonObject *
sj_mcp_tools_from_definitions (JsonArray *definitions)
{
  JsonObject *result = json_object_new ();
  JsonArray *tools = json_array_new ();

  for (guint i = 0; definitions != NULL && i < json_array_get_length (definitions); i++)
    {
      JsonObject *definition = json_array_get_object_element (definitions, i);
      JsonObject *function;
      JsonObject *tool;

      if (definition == NULL || !json_object_has_member (definition, "function"))
        continue;
      function = json_object_get_object_member (definition, "function");
      if (function == NULL || !json_object_has_member (function, "name"))
        continue;

      tool = json_object_new ();
      json_object_set_string_member (tool, "name", json_object_get_string_member (function, "name"));
      if (json_object_has_member (function, "description"))
        json_object_set_string_member (tool, "description", json_object_get_string_member (function, "description"));
      if (json_object_has_member (function, "parameters"))
        json_object_set_member (tool, "inputSchema", json_node_copy (json_object_get_member (function, "parameters")));
      else
        {
          JsonObject *schema = json_object_new ();

          json_object_set_string_member (schema, "type", "object");
          json_object_set_object_member (tool, "inputSchema", schema);
        }
      json_array_add_object_element (tools, tool);
    }

  json_object_set_array_member (result, "tools", tools);

  return result;
}

/**
 * sj_mcp_tool_result:
 * @result: what the tool answered the agent
 *
 * Returns: (transfer full): the CallToolResult: the same JSON as text (what
 *   every client reads) and as structuredContent, an error when the tool
 *   says "status": "error"
 */
JsonObject *
sj_mcp_tool_result (JsonObject *result)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), result);
  g_autofree char *text = json_to_string (node, FALSE);
  JsonObject *answer = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();
  const char *status = NULL;

  if (json_object_has_member (result, "status") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (result, "status")))
    status = json_object_get_string_member (result, "status");

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (answer, "content", content);
  json_object_set_object_member (answer, "structuredContent", json_object_ref (result));
  json_object_set_boolean_member (answer, "isError", g_strcmp0 (status, "error") == 0);

  return answer;
}

static JsonObject *
resource (const char *uri,
          const char *name,
          const char *title,
          const char *description,
          const char *mime_type)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "uri", uri);
  json_object_set_string_member (object, "name", name);
  json_object_set_string_member (object, "title", title);
  json_object_set_string_member (object, "description", description);
  json_object_set_string_member (object, "mimeType", mime_type);

  return object;
}

/* Returns: (transfer full): the result of resources/list. */
JsonObject *
sj_mcp_resources_list (void)
{
  JsonObject *result = json_object_new ();
  JsonArray *resources = json_array_new ();

  json_array_add_object_element (resources,
                                 resource (SJ_MCP_URI_CODE, "current-code", "The code in the editor",
                                           "The Strudel code in Strudel Jam's editor now (what plays, "
                                           "once a pending change has landed).",
                                           "text/javascript"));
  json_array_add_object_element (resources,
                                 resource (SJ_MCP_URI_REFERENCE, "strudel-reference", "The Strudel reference",
                                           "Strudel Jam's curated notes on writing Strudel: mini-notation, "
                                           "functions, sounds and the common mistakes.",
                                           "text/markdown"));
  json_object_set_array_member (result, "resources", resources);

  return result;
}
