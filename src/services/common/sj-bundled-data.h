/* sj-bundled-data.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

void    sj_bundled_data_register (void);
GBytes *sj_bundled_data_lookup   (const char  *name,
                                  GError     **error);

G_END_DECLS
