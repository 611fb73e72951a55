/* sj-local-servers-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * For tests only: the ports probed, so that a loopback server on a port
 * the test controls stands in for a local model server.
 */

#pragma once

#include "sj-local-servers.h"

G_BEGIN_DECLS

void _sj_local_servers_set_ports (const guint16 *ports,
                                  guint          n_ports);

G_END_DECLS
