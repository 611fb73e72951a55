/* sj-mcp-cli.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

int sj_mcp_cli_run (gboolean other_commands);

G_END_DECLS
