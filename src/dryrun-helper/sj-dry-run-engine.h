/* sj-dry-run-engine.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SJ_TYPE_DRY_RUN_ENGINE (sj_dry_run_engine_get_type ())

G_DECLARE_FINAL_TYPE (SjDryRunEngine, sj_dry_run_engine, SJ, DRY_RUN_ENGINE, GObject)

SjDryRunEngine *sj_dry_run_engine_new      (GBytes          *script,
                                            GError         **error);
char           *sj_dry_run_engine_run      (SjDryRunEngine  *self,
                                            gint64           id,
                                            const char      *code,
                                            int              cycles,
                                            gboolean         want_haps);
gboolean        sj_dry_run_engine_is_dirty (SjDryRunEngine  *self);
char           *sj_dry_run_engine_set_user_samples (SjDryRunEngine *self,
                                                    const char     *packs);

G_END_DECLS
