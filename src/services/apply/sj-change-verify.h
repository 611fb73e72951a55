/* sj-change-verify.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-change-applier.h"
#include "sj-levels.h"

G_BEGIN_DECLS

#define SJ_TYPE_CHANGE_VERIFIER (sj_change_verifier_get_type ())

G_DECLARE_FINAL_TYPE (SjChangeVerifier, sj_change_verifier, SJ, CHANGE_VERIFIER, GObject)

/* How many cycles after its boundary a change is listened to. */
#define SJ_CHANGE_VERIFY_CYCLES 2

SjChangeVerifier *sj_change_verifier_new          (SjChangeApplier     *applier,
                                                   SjLevels            *levels);
const char       *sj_change_verifier_get_mode     (SjChangeVerifier    *self);
void              sj_change_verifier_set_mode     (SjChangeVerifier    *self,
                                                   const char          *mode);
gboolean          sj_change_verifier_is_checking  (SjChangeVerifier    *self,
                                                   double               cycle);
void              sj_change_verifier_wait_async   (SjChangeVerifier    *self,
                                                   const char          *hash,
                                                   guint                timeout_ms,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
JsonObject       *sj_change_verifier_wait_finish  (SjChangeVerifier    *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);
gboolean          sj_change_verifier_asks_silence (const char          *code);

G_END_DECLS
