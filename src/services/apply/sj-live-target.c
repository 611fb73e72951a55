/* sj-live-target.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-live-target.h"

G_DEFINE_INTERFACE (SjLiveTarget, sj_live_target, G_TYPE_OBJECT)

static void
sj_live_target_default_init (SjLiveTargetInterface *iface)
{
  /**
   * SjLiveTarget::swap-changed:
   * @state: "scheduled", "applied", "superseded" or "canceled"
   * @cycle: the swap's boundary
   *
   * What became of a swap the target was given (SjRepl::swap-changed).
   */
  g_signal_new ("swap-changed", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST,
                0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);
  /**
   * SjLiveTarget::page-error:
   * @message: the Console line
   *
   * The music reported an error while playing: a sample that could not be
   * loaded or decoded, a note that could not be triggered.
   */
  g_signal_new ("page-error", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST,
                0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

void
sj_live_target_fetch_code_async (SjLiveTarget        *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (SJ_IS_LIVE_TARGET (self));

  SJ_LIVE_TARGET_GET_IFACE (self)->fetch_code_async (self, cancellable, callback, user_data);
}

/* Returns: (transfer full): the editor text */
char *
sj_live_target_fetch_code_finish (SjLiveTarget  *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (SJ_IS_LIVE_TARGET (self), NULL);

  return SJ_LIVE_TARGET_GET_IFACE (self)->fetch_code_finish (self, result, error);
}

void
sj_live_target_schedule_swap_async (SjLiveTarget        *self,
                                    const char          *code,
                                    const SjSwapPolicy  *policy,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (SJ_IS_LIVE_TARGET (self));

  SJ_LIVE_TARGET_GET_IFACE (self)->schedule_swap_async (self, code, policy, cancellable, callback, user_data);
}

/* Returns: (transfer full): what the target did with the code; an
 * evaluation error is a result, not @error */
SjSwapResult *
sj_live_target_schedule_swap_finish (SjLiveTarget  *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (SJ_IS_LIVE_TARGET (self), NULL);

  return SJ_LIVE_TARGET_GET_IFACE (self)->schedule_swap_finish (self, result, error);
}

/**
 * sj_live_target_get_transport:
 *
 * Fills @transport from what the target last knew, without waiting: a
 * target that cannot say reports the music as stopped at 0.5 cps.
 */
void
sj_live_target_get_transport (SjLiveTarget *self,
                              SjTransport  *transport)
{
  SjLiveTargetInterface *iface;

  g_return_if_fail (SJ_IS_LIVE_TARGET (self));
  g_return_if_fail (transport != NULL);

  *transport = (SjTransport) { FALSE, 0.5, 0 };
  iface = SJ_LIVE_TARGET_GET_IFACE (self);
  if (iface->get_transport != NULL)
    iface->get_transport (self, transport);
}
