/* sj-relative-time.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *sj_relative_time_format (gint64     time_us,
                               GDateTime *now);

G_END_DECLS
