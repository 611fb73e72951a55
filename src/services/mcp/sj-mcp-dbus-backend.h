/* sj-mcp-dbus-backend.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-mcp-backend.h"

G_BEGIN_DECLS

/* How long the app may take to appear on the bus once started. */
#define SJ_MCP_START_TIMEOUT_S 60
/* A tool call may wait for the musician to allow the client. */
#define SJ_MCP_CALL_TIMEOUT_MS (10 * 60 * 1000)

#define SJ_TYPE_MCP_DBUS_BACKEND (sj_mcp_dbus_backend_get_type ())

G_DECLARE_FINAL_TYPE (SjMcpDbusBackend, sj_mcp_dbus_backend, SJ, MCP_DBUS_BACKEND, GObject)

SjMcpDbusBackend *sj_mcp_dbus_backend_new (GDBusConnection    *connection,
                                           const char         *bus_name,
                                           const char         *object_path,
                                           const char * const *launch_argv);

G_END_DECLS
