/* sj-render-timeline.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-history-store.h"
#include "sj-render-options.h"

G_BEGIN_DECLS

/* More changes than this in one session are refused (each is evaluated in
 * the page before the render starts). */
#define SJ_RENDER_TIMELINE_MAX_CHANGES 10000

typedef struct
{
  char   *code;
  double  at;           /* where it starts in the render, in cycles from 0 */
  double  origin;       /* the cycle of its play that sounds at @at */
  guint   play;         /* which play of the session, from 0 */
  gint64  snapshot_id;  /* the history's snapshot, 0 when none */
} SjRenderChange;

typedef struct _SjRenderTimeline SjRenderTimeline;

SjRenderTimeline     *sj_render_timeline_new          (void);
void                  sj_render_timeline_free         (SjRenderTimeline  *self);
SjRenderTimeline     *sj_render_timeline_build        (GPtrArray         *snapshots,
                                                       int                tail,
                                                       GError           **error);
SjRenderTimeline     *sj_render_timeline_load         (SjHistoryStore    *store,
                                                       gint64             session_id,
                                                       int                tail,
                                                       GError           **error);
guint                 sj_render_timeline_get_n_changes (SjRenderTimeline *self);
const SjRenderChange *sj_render_timeline_get_change   (SjRenderTimeline  *self,
                                                       guint              index);
guint                 sj_render_timeline_get_n_plays  (SjRenderTimeline  *self);
double                sj_render_timeline_get_end      (SjRenderTimeline  *self);
int                   sj_render_timeline_get_cycles   (SjRenderTimeline  *self);
char                 *sj_render_timeline_to_json      (SjRenderTimeline  *self);
SjRenderOptions      *sj_render_timeline_to_options   (SjRenderTimeline  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjRenderTimeline, sj_render_timeline_free)

G_END_DECLS
