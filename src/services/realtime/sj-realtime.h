/* sj-realtime.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_TYPE_REALTIME (sj_realtime_get_type ())

G_DECLARE_FINAL_TYPE (SjRealtime, sj_realtime, SJ, REALTIME, GObject)

#define SJ_REALTIME_ERROR (sj_realtime_error_quark ())

typedef enum
{
  SJ_REALTIME_ERROR_NO_PROCESS,
  SJ_REALTIME_ERROR_REFUSED,
} SjRealtimeError;

GQuark      sj_realtime_error_quark      (void);

SjRealtime *sj_realtime_new              (GDBusConnection      *bus,
                                          const char           *bus_name,
                                          const char           *object_path,
                                          gboolean              portal);
SjRealtime *sj_realtime_new_for_desktop  (void);

void        sj_realtime_set_allow_direct (SjRealtime           *self,
                                          gboolean              allow_direct);

void        sj_realtime_promote_async    (SjRealtime           *self,
                                          GPid                  pid,
                                          const char * const   *thread_names,
                                          guint                 priority,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
int         sj_realtime_promote_finish   (SjRealtime           *self,
                                          GAsyncResult         *result,
                                          GError              **error);
guint       sj_realtime_release          (SjRealtime           *self);
gboolean    sj_realtime_demote           (SjRealtime           *self,
                                          GPid                  tid,
                                          GError              **error);
gboolean    sj_realtime_is_promoted      (SjRealtime           *self,
                                          GPid                  pid,
                                          GPid                  tid);

G_END_DECLS
