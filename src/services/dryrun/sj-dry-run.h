/* sj-dry-run.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SJ_DRY_RUN_DEFAULT_TIMEOUT_MS 500
#define SJ_DRY_RUN_MAX_TIMEOUT_MS     60000
#define SJ_DRY_RUN_DEFAULT_CYCLES     4
#define SJ_DRY_RUN_MIN_CYCLES         1
#define SJ_DRY_RUN_MAX_CYCLES         8
#define SJ_DRY_RUN_MAX_CODE_BYTES     (1024 * 1024)

/* Where the helper is looked for before LIBEXECDIR (uninstalled runs). */
#define SJ_DRY_RUN_HELPER_ENV "STRUDEL_JAM_DRYRUN_HELPER"

#define SJ_DRY_RUN_ERROR (sj_dry_run_error_quark ())

typedef enum
{
  SJ_DRY_RUN_ERROR_INVALID_INPUT,  /* cycles, timeout or code size out of range */
  SJ_DRY_RUN_ERROR_HELPER,         /* strudel-jam-dryrun cannot be started */
} SjDryRunError;

typedef enum
{
  SJ_DRY_RUN_FLAGS_NONE = 0,
  SJ_DRY_RUN_FLAGS_HAPS = 1 << 0,  /* list every hap, as hap.show() prints it */
} SjDryRunFlags;

#define SJ_TYPE_DRY_RUN (sj_dry_run_get_type ())

G_DECLARE_FINAL_TYPE (SjDryRun, sj_dry_run, SJ, DRY_RUN, GObject)

GQuark      sj_dry_run_error_quark      (void);
SjDryRun   *sj_dry_run_new              (void);
SjDryRun   *sj_dry_run_new_for_helper   (const char           *helper_path);
void        sj_dry_run_start            (SjDryRun             *self);
void        sj_dry_run_set_user_samples (SjDryRun             *self,
                                         JsonNode             *packs);
void        sj_dry_run_run_async        (SjDryRun             *self,
                                         const char           *code,
                                         guint                 cycles,
                                         guint                 timeout_ms,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
void        sj_dry_run_run_full_async   (SjDryRun             *self,
                                         const char           *code,
                                         guint                 cycles,
                                         guint                 timeout_ms,
                                         SjDryRunFlags         flags,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
JsonObject *sj_dry_run_run_finish       (SjDryRun             *self,
                                         GAsyncResult         *result,
                                         GError              **error);
JsonObject *sj_dry_run_run_sync         (SjDryRun             *self,
                                         const char           *code,
                                         guint                 cycles,
                                         guint                 timeout_ms,
                                         SjDryRunFlags         flags,
                                         GCancellable         *cancellable,
                                         GError              **error);

G_END_DECLS
