/* sj-dry-run-sync.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A dry-run that waits for its answer, for the command line and the tests:
 * SjDryRun's own asynchronous request, with its main context iterated
 * until the answer is there.
 */

#include "config.h"

#include "sj-dry-run-private.h"

static void
on_sync_done (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  GAsyncResult **out = data;

  *out = g_object_ref (result);
}

/**
 * sj_dry_run_run_sync:
 *
 * Runs the main context @self was made in until the answer is there: for
 * command-line tools and tests, never from inside a running application's
 * callback.
 *
 * Returns: (transfer full): the answer, or %NULL with @error set
 */
JsonObject *
sj_dry_run_run_sync (SjDryRun       *self,
                     const char     *code,
                     guint           cycles,
                     guint           timeout_ms,
                     SjDryRunFlags   flags,
                     GCancellable   *cancellable,
                     GError        **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  g_return_val_if_fail (SJ_IS_DRY_RUN (self), NULL);

  sj_dry_run_run_full_async (self, code, cycles, timeout_ms, flags, cancellable, on_sync_done, &result);
  while (result == NULL)
    g_main_context_iteration (_sj_dry_run_get_main_context (self), TRUE);

  return sj_dry_run_run_finish (self, result, error);
}
