/* sj-follow-clock.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define SJ_TYPE_FOLLOW_CLOCK (sj_follow_clock_get_type ())
G_DECLARE_FINAL_TYPE (SjFollowClock, sj_follow_clock, SJ, FOLLOW_CLOCK, GstSystemClock)

GstClock *sj_follow_clock_new          (GstClock      *leader,
                                        GstClockTime   interval);
void      sj_follow_clock_stop         (SjFollowClock *self);
double    sj_follow_clock_get_rate     (SjFollowClock *self);
gint64    sj_follow_clock_get_offset   (SjFollowClock *self);
gboolean  sj_follow_clock_is_following (SjFollowClock *self);

G_END_DECLS
