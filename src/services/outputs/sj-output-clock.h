/* sj-output-clock.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SjOutputClock SjOutputClock;

SjOutputClock *sj_output_clock_new      (void);
void           sj_output_clock_free     (SjOutputClock *clock);
void           sj_output_clock_add_pair (SjOutputClock *clock,
                                         double         audio_s,
                                         double         epoch_ms,
                                         gint64         now_us);
gboolean       sj_output_clock_map      (SjOutputClock *clock,
                                         double         audio_s,
                                         gint64        *epoch_us);
void           sj_output_clock_reset    (SjOutputClock *clock);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjOutputClock, sj_output_clock_free)

G_END_DECLS
