/* sj-mcp-backend.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* JSON-RPC's codes, and the MCP ones, as the codes of SJ_MCP_ERROR: a
 * backend's error goes to the client with its code and message. */
#define SJ_MCP_ERROR (sj_mcp_error_quark ())

typedef enum
{
  SJ_MCP_ERROR_PARSE              = -32700,
  SJ_MCP_ERROR_INVALID_REQUEST    = -32600,
  SJ_MCP_ERROR_METHOD_NOT_FOUND   = -32601,
  SJ_MCP_ERROR_INVALID_PARAMS     = -32602,
  SJ_MCP_ERROR_INTERNAL           = -32603,
  SJ_MCP_ERROR_REFUSED            = -32001,  /* blocked by the musician, or turned off */
  SJ_MCP_ERROR_RESOURCE_NOT_FOUND = -32002,
  SJ_MCP_ERROR_UNAVAILABLE        = -32003,  /* the app could not be reached or started */
} SjMcpError;

GQuark sj_mcp_error_quark (void);

/* The D-Bus interface the primary instance exports (SjApplication). */
#define SJ_MCP_DBUS_INTERFACE "io.github.strudeljam.StrudelJam.Mcp"
extern const char sj_mcp_dbus_interface_xml[];

/* The resources. */
#define SJ_MCP_URI_CODE      "strudel://code/current"
#define SJ_MCP_URI_REFERENCE "strudel://reference"

#define SJ_TYPE_MCP_BACKEND (sj_mcp_backend_get_type ())

G_DECLARE_INTERFACE (SjMcpBackend, sj_mcp_backend, SJ, MCP_BACKEND, GObject)

/* What the server asks of the app: @method is "tools/list",
 * "tools/call", "resources/list" or "resources/read", with the request's
 * params; the result is the JSON-RPC result object, an error of
 * SJ_MCP_ERROR (or any other, sent as an internal error). */
struct _SjMcpBackendInterface
{
  GTypeInterface parent_iface;

  void        (*request_async)  (SjMcpBackend        *self,
                                 const char          *client,
                                 const char          *method,
                                 JsonObject          *params,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);
  JsonObject *(*request_finish) (SjMcpBackend        *self,
                                 GAsyncResult        *result,
                                 GError             **error);
};

void        sj_mcp_backend_request_async  (SjMcpBackend        *self,
                                           const char          *client,
                                           const char          *method,
                                           JsonObject          *params,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
JsonObject *sj_mcp_backend_request_finish (SjMcpBackend        *self,
                                           GAsyncResult        *result,
                                           GError             **error);

JsonObject *sj_mcp_tools_from_definitions (JsonArray           *definitions);
JsonObject *sj_mcp_tool_result            (JsonObject          *result);
JsonObject *sj_mcp_resources_list         (void);

G_END_DECLS
