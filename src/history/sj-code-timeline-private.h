/* sj-code-timeline-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in the code timeline: how many rows it shows.
 */

#pragma once

#include "sj-code-timeline.h"

G_BEGIN_DECLS

guint _sj_code_timeline_get_n_rows (SjCodeTimeline *self);

G_END_DECLS
