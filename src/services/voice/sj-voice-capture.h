/* sj-voice-capture.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-voice-error.h"

G_BEGIN_DECLS

/* Called on the capture's streaming thread with 16 kHz S16 mono samples. */
typedef void (*SjVoiceSamplesFunc) (GBytes   *samples,
                                    gpointer  user_data);

#define SJ_TYPE_VOICE_CAPTURE (sj_voice_capture_get_type ())

G_DECLARE_FINAL_TYPE (SjVoiceCapture, sj_voice_capture, SJ, VOICE_CAPTURE, GObject)

SjVoiceCapture *sj_voice_capture_new          (void);
void            sj_voice_capture_set_device   (SjVoiceCapture       *self,
                                               const char           *device);
void            sj_voice_capture_set_samples_func (SjVoiceCapture   *self,
                                                   SjVoiceSamplesFunc func,
                                                   gpointer          user_data);
void            sj_voice_capture_start_async  (SjVoiceCapture       *self,
                                               GCancellable         *cancellable,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
gboolean        sj_voice_capture_start_finish (SjVoiceCapture       *self,
                                               GAsyncResult         *result,
                                               GError              **error);
void            sj_voice_capture_stop         (SjVoiceCapture       *self);
gboolean        sj_voice_capture_get_running  (SjVoiceCapture       *self);

G_END_DECLS
