/* sj-mcp-server.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-mcp-backend.h"

G_BEGIN_DECLS

#define SJ_MCP_PROTOCOL_VERSION "2025-06-18"
/* Nesting deeper than this is refused before json-glib parses it. */
#define SJ_MCP_MAX_DEPTH 64
/* Requests answered at once; more are refused until some are. */
#define SJ_MCP_MAX_PENDING 32

/* @line is one JSON-RPC message, without its newline. */
typedef void (*SjMcpWriteFunc) (const char *line,
                                gpointer    user_data);

#define SJ_TYPE_MCP_SERVER (sj_mcp_server_get_type ())

G_DECLARE_FINAL_TYPE (SjMcpServer, sj_mcp_server, SJ, MCP_SERVER, GObject)

SjMcpServer *sj_mcp_server_new             (SjMcpBackend   *backend,
                                            SjMcpWriteFunc  write,
                                            gpointer        user_data);
void         sj_mcp_server_handle_line     (SjMcpServer    *self,
                                            const char     *line,
                                            gsize           length);
void         sj_mcp_server_handle_too_long (SjMcpServer    *self);
guint        sj_mcp_server_get_pending     (SjMcpServer    *self);
const char  *sj_mcp_server_get_client      (SjMcpServer    *self);
const char  *sj_mcp_server_get_protocol_version (SjMcpServer *self);

G_END_DECLS
