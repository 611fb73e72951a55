/* sj-dry-run-report.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-knowledge.h"

G_BEGIN_DECLS

JsonObject *sj_dry_run_report       (JsonObject   *raw,
                                     SjKnowledge  *knowledge);
JsonObject *sj_dry_run_report_error (const GError *error);

G_END_DECLS
