/* sj-timeline.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct
{
  char   *code;
  char   *hash;
  double  cycle;     /* where it landed (or was scheduled to) */
  char   *source;    /* "user" or "agent" */
  gint64  time;      /* real time, µs since the epoch */
  int     parent;    /* the snapshot it replaced, or -1 */
} SjSnapshot;

#define SJ_TYPE_TIMELINE (sj_timeline_get_type ())

G_DECLARE_FINAL_TYPE (SjTimeline, sj_timeline, SJ, TIMELINE, GObject)

#define SJ_TIMELINE_MAX 500

SjTimeline       *sj_timeline_new          (void);
void              sj_timeline_push         (SjTimeline  *self,
                                            const char  *code,
                                            double       cycle,
                                            const char  *source);
guint             sj_timeline_get_n_items  (SjTimeline  *self);
const SjSnapshot *sj_timeline_get          (SjTimeline  *self,
                                            guint        position);
const SjSnapshot *sj_timeline_get_undo_target (SjTimeline *self);
void              sj_timeline_step_back    (SjTimeline  *self);
gboolean          sj_timeline_forget       (SjTimeline  *self,
                                            double       cycle);

G_END_DECLS
