/* sj-change-applier-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the applier's files share: sj-change-applier.c runs the pipeline,
 * sj-change-applier-replace.c starts it for an undo or a replacement.
 */

#pragma once

#include "sj-change-applier.h"

G_BEGIN_DECLS

struct _SjChangeApplier
{
  GObject       parent_instance;

  SjLiveTarget *target;
  SjDryRun     *dry_run;
  SjKnowledge  *knowledge;
  SjTimeline   *timeline;
  SjSoundCache *sound_cache;
  SjSwapPolicy  defaults;
  gint64        last_dry_run_us;
};

void     _sj_change_applier_start               (SjChangeApplier   *self,
                                                 GTask             *task,
                                                 SjChangeRequest   *request,
                                                 const char        *source,
                                                 gboolean           undo);
void     _sj_change_applier_reject              (GTask             *task,
                                                 SjChangeResult    *rejection);
gboolean _sj_change_applier_propagate_or_reject (GTask             *task,
                                                 GError            *error,
                                                 SjChangePhase      phase,
                                                 SjChangeRejection  rejection);

G_END_DECLS
