/* sj-mcp-framer.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A line longer than this is refused, never held whole. */
#define SJ_MCP_MAX_LINE (4 * 1024 * 1024)

/* @line is NUL-terminated, without its newline; %NULL with @too_long set
 * for a line that went over the limit (reported once, when it does). */
typedef void (*SjMcpLineFunc) (const char *line,
                               gsize       length,
                               gboolean    too_long,
                               gpointer    user_data);

typedef struct _SjMcpFramer SjMcpFramer;

SjMcpFramer *sj_mcp_framer_new    (gsize          max_line);
void         sj_mcp_framer_free   (SjMcpFramer   *self);
void         sj_mcp_framer_push   (SjMcpFramer   *self,
                                   const char    *data,
                                   gsize          length,
                                   SjMcpLineFunc  func,
                                   gpointer       user_data);
void         sj_mcp_framer_finish (SjMcpFramer   *self,
                                   SjMcpLineFunc  func,
                                   gpointer       user_data);
gsize        sj_mcp_framer_get_buffered (SjMcpFramer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjMcpFramer, sj_mcp_framer_free)

G_END_DECLS
