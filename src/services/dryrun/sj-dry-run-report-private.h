/* sj-dry-run-report-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests ask of a report: whether it lets code through.
 */

#pragma once

#include "sj-dry-run-report.h"

G_BEGIN_DECLS

gboolean _sj_dry_run_report_is_playable (JsonObject *report);

G_END_DECLS
