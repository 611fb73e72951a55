/* sj-platform.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean sj_platform_has_gpu (void);

G_END_DECLS
