/* sj-change-applier.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-change.h"
#include "sj-change-result.h"
#include "sj-dry-run.h"
#include "sj-dry-run-report.h"
#include "sj-knowledge.h"
#include "sj-live-target.h"
#include "sj-sound-cache.h"
#include "sj-timeline.h"

G_BEGIN_DECLS

#define SJ_TYPE_CHANGE_APPLIER (sj_change_applier_get_type ())

G_DECLARE_FINAL_TYPE (SjChangeApplier, sj_change_applier, SJ, CHANGE_APPLIER, GObject)

#define SJ_CHANGE_DRY_RUN_TIMEOUT_MS 500

SjChangeApplier *sj_change_applier_new             (SjLiveTarget        *target,
                                                    SjDryRun            *dry_run,
                                                    SjKnowledge         *knowledge,
                                                    SjTimeline          *timeline);
void             sj_change_applier_set_sound_cache (SjChangeApplier     *self,
                                                    SjSoundCache        *cache);
void             sj_change_applier_set_defaults    (SjChangeApplier     *self,
                                                    const SjSwapPolicy  *policy);
SjTimeline      *sj_change_applier_get_timeline    (SjChangeApplier     *self);
void             sj_change_applier_apply_async     (SjChangeApplier     *self,
                                                    JsonNode            *input,
                                                    const char          *source,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
SjChangeResult  *sj_change_applier_apply_finish    (SjChangeApplier     *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
void             sj_change_applier_replace_async   (SjChangeApplier     *self,
                                                    const char          *code,
                                                    const char          *source,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
void             sj_change_applier_undo_async      (SjChangeApplier     *self,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
SjChangeResult  *sj_change_applier_undo_finish     (SjChangeApplier     *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
void             sj_change_applier_read_code_async (SjChangeApplier     *self,
                                                    JsonNode            *input,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
JsonObject      *sj_change_applier_read_code_finish (SjChangeApplier    *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);
gint64           sj_change_applier_get_last_dry_run_time (SjChangeApplier *self);
SjLiveTarget    *sj_change_applier_get_target      (SjChangeApplier     *self);
void             sj_change_applier_get_defaults    (SjChangeApplier     *self,
                                                    SjSwapPolicy        *policy);

G_END_DECLS
