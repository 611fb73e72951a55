/* sj-skew-guard.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* How far the sound server's clock (the sink's) may stand from the
 * pipeline's before the sink moves its playout point, and for how long. */
#define SJ_SKEW_GUARD_TOLERANCE (40 * GST_MSECOND)
#define SJ_SKEW_GUARD_PERSIST   (GST_SECOND)
/* Until settled, pulsesink's own "skew": half its drift tolerance. */
#define SJ_SKEW_GUARD_START_TOLERANCE (20 * GST_MSECOND)

typedef struct
{
  gboolean         settled;   /* the skew has stood within the tolerance for a while */
  GstClockTime     calm_since; /* pipeline time it came within the tolerance (unsettled) */
  GstClockTime     since;     /* pipeline time it first stood past the tolerance */
  GstClockTimeDiff smallest;  /* the smallest skew since then (signed) */
  GstClockTimeDiff average;   /* while unsettled: as pulsesink's "skew" averages */
  gboolean         averaging;
  guint            corrections;
} SjSkewGuard;

void             sj_skew_guard_start     (SjSkewGuard  *guard);
void             sj_skew_guard_interrupt (SjSkewGuard  *guard);
GstClockTimeDiff sj_skew_guard_observe (SjSkewGuard  *guard,
                                        GstClockTime  etime,
                                        GstClockTime  itime);

G_END_DECLS
