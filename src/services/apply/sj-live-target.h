/* sj-live-target.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sj-change.h"
#include "sj-swap-result.h"

G_BEGIN_DECLS

#define SJ_TYPE_LIVE_TARGET (sj_live_target_get_type ())

G_DECLARE_INTERFACE (SjLiveTarget, sj_live_target, SJ, LIVE_TARGET, GObject)

/* The transport as last reported: what the agent tells the model about
 * the music on every turn. */
typedef struct
{
  gboolean playing;
  double   cps;
  double   cycle;
} SjTransport;

/* What the apply pipeline needs from the playing music: its code, and a
 * way to swap in new code on a boundary.  SjRepl implements it over the
 * Strudel page; the services stay free of WebKit. */
struct _SjLiveTargetInterface
{
  GTypeInterface parent_iface;

  void        (*fetch_code_async)     (SjLiveTarget        *self,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
  char       *(*fetch_code_finish)    (SjLiveTarget        *self,
                                       GAsyncResult        *result,
                                       GError             **error);
  void        (*schedule_swap_async)  (SjLiveTarget        *self,
                                       const char          *code,
                                       const SjSwapPolicy  *policy,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
  SjSwapResult *(*schedule_swap_finish) (SjLiveTarget   *self,
                                         GAsyncResult   *result,
                                         GError        **error);
  void        (*get_transport)        (SjLiveTarget        *self,
                                       SjTransport         *transport);
};

void        sj_live_target_fetch_code_async     (SjLiveTarget        *self,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
char       *sj_live_target_fetch_code_finish    (SjLiveTarget        *self,
                                                 GAsyncResult        *result,
                                                 GError             **error);
void        sj_live_target_schedule_swap_async  (SjLiveTarget        *self,
                                                 const char          *code,
                                                 const SjSwapPolicy  *policy,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
SjSwapResult *sj_live_target_schedule_swap_finish (SjLiveTarget   *self,
                                                   GAsyncResult   *result,
                                                   GError        **error);
void        sj_live_target_get_transport        (SjLiveTarget        *self,
                                                 SjTransport         *transport);

G_END_DECLS
