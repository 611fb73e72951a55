/* sj-voice-session.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-voice-error.h"
#include "sj-voice-recognizer.h"

G_BEGIN_DECLS

#define SJ_TYPE_VOICE_SESSION (sj_voice_session_get_type ())

G_DECLARE_FINAL_TYPE (SjVoiceSession, sj_voice_session, SJ, VOICE_SESSION, GObject)

SjVoiceSession *sj_voice_session_new           (void);
void            sj_voice_session_set_device    (SjVoiceSession       *self,
                                                const char           *device);
void            sj_voice_session_set_model_dir (SjVoiceSession       *self,
                                                const char           *model_dir);
void            sj_voice_session_set_engine    (SjVoiceSession       *self,
                                                SjVoiceEngine         engine);
void            sj_voice_session_set_endpoint  (SjVoiceSession       *self,
                                                const char           *url,
                                                const char           *model,
                                                const char           *api_key);
gboolean        sj_voice_session_get_listening (SjVoiceSession       *self);
void            sj_voice_session_start_async   (SjVoiceSession       *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean        sj_voice_session_start_finish  (SjVoiceSession       *self,
                                                GAsyncResult         *result,
                                                GError              **error);
void            sj_voice_session_stop_async    (SjVoiceSession       *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
char           *sj_voice_session_stop_finish   (SjVoiceSession       *self,
                                                GAsyncResult         *result,
                                                GError              **error);
void            sj_voice_session_cancel        (SjVoiceSession       *self);
double          sj_voice_session_get_confidence (SjVoiceSession      *self);
gboolean        sj_voice_session_should_send   (gboolean              send_at_once,
                                                double                confidence,
                                                double                threshold);

G_END_DECLS
