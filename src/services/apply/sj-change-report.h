/* sj-change-report.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-change-result.h"
#include "sj-dry-run-result.h"

G_BEGIN_DECLS

gboolean        sj_change_report_lets_through (const SjDryRunResult *report);
SjChangeResult *sj_change_report_rejection    (const SjDryRunResult *report);
void            sj_change_report_read_dry_run (const SjDryRunResult *report,
                                               SjChangeDryRun       *dry_run);

G_END_DECLS
