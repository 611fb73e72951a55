/* sj-dry-run-process.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SJ_TYPE_DRY_RUN_PROCESS (sj_dry_run_process_get_type ())

G_DECLARE_FINAL_TYPE (SjDryRunProcess, sj_dry_run_process, SJ, DRY_RUN_PROCESS, GObject)

SjDryRunProcess *sj_dry_run_process_new       (const char       *helper_path,
                                               GError          **error);
gboolean         sj_dry_run_process_get_ready (SjDryRunProcess  *self);
void             sj_dry_run_process_send      (SjDryRunProcess  *self,
                                               const char       *line);
void             sj_dry_run_process_kill      (SjDryRunProcess  *self);
gint64           sj_dry_run_process_get_cpu_us (SjDryRunProcess *self);
GPid             sj_dry_run_process_get_pid    (SjDryRunProcess *self);
char            *sj_dry_run_process_format_request (gint64      id,
                                                    const char *code,
                                                    guint       cycles,
                                                    gboolean    haps);

G_END_DECLS
