/* sj-dry-run-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests and the dry-run benchmark look at (which helper runs, its
 * process, how many times it was started), and the main context the
 * waiting run (sj-dry-run-sync.c) iterates.
 */

#pragma once

#include "sj-dry-run.h"

G_BEGIN_DECLS

const char *_sj_dry_run_get_helper_path (SjDryRun *self);
guint       _sj_dry_run_get_n_starts    (SjDryRun *self);
GPid        _sj_dry_run_get_helper_pid  (SjDryRun *self);
GMainContext *_sj_dry_run_get_main_context (SjDryRun *self);

G_END_DECLS
