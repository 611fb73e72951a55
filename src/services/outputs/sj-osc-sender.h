/* sj-osc-sender.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SJ_TYPE_OSC_SENDER (sj_osc_sender_get_type ())

G_DECLARE_FINAL_TYPE (SjOscSender, sj_osc_sender, SJ, OSC_SENDER, GObject)

#define SJ_OSC_SENDER_ERROR (sj_osc_sender_error_quark ())

typedef enum
{
  SJ_OSC_SENDER_ERROR_ADDRESS,
  SJ_OSC_SENDER_ERROR_SEND,
  SJ_OSC_SENDER_ERROR_PENDING,
} SjOscSenderError;

#define SJ_OSC_DEFAULT_HOST "127.0.0.1"
#define SJ_OSC_DEFAULT_PORT 57120

GQuark       sj_osc_sender_error_quark (void);
SjOscSender *sj_osc_sender_new         (const char  *host,
                                        guint        port);
const char  *sj_osc_sender_get_host    (SjOscSender *self);
guint        sj_osc_sender_get_port    (SjOscSender *self);
void         sj_osc_sender_get_destination (SjOscSender  *self,
                                            JsonObject   *controls,
                                            const char  **host,
                                            guint        *port);
gboolean     sj_osc_sender_send        (SjOscSender *self,
                                        const char  *path,
                                        JsonObject  *controls,
                                        gint64       epoch_us,
                                        GError     **error);
void         sj_osc_timetag_from_epoch (gint64       epoch_us,
                                        guint32     *sec,
                                        guint32     *frac);
gint64       sj_osc_timetag_to_epoch   (guint32      sec,
                                        guint32      frac);

G_END_DECLS
