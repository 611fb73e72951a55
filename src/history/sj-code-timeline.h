/* sj-code-timeline.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_CODE_TIMELINE (sj_code_timeline_get_type ())

G_DECLARE_FINAL_TYPE (SjCodeTimeline, sj_code_timeline, SJ, CODE_TIMELINE, GtkWidget)

void       sj_code_timeline_set_snapshots (SjCodeTimeline *self,
                                           GPtrArray      *snapshots);

G_END_DECLS
