/* sj-voice-recognizer.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-voice-error.h"

G_BEGIN_DECLS

/* The audio the recogniser takes: 16 kHz, signed 16-bit, mono. */
#define SJ_VOICE_SAMPLE_RATE 16000

#define SJ_TYPE_VOICE_RECOGNIZER (sj_voice_recognizer_get_type ())

G_DECLARE_FINAL_TYPE (SjVoiceRecognizer, sj_voice_recognizer, SJ, VOICE_RECOGNIZER, GObject)

SjVoiceRecognizer *sj_voice_recognizer_new         (const char           *model_dir);
void               sj_voice_recognizer_load_async  (SjVoiceRecognizer    *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_voice_recognizer_load_finish (SjVoiceRecognizer    *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_voice_recognizer_begin       (SjVoiceRecognizer    *self);
void               sj_voice_recognizer_feed        (SjVoiceRecognizer    *self,
                                                    GBytes               *samples);
void               sj_voice_recognizer_end_async   (SjVoiceRecognizer    *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
char              *sj_voice_recognizer_end_finish  (SjVoiceRecognizer    *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
GBytes            *sj_voice_recognizer_get_audio   (SjVoiceRecognizer    *self);
void               sj_voice_recognizer_set_use_grammar (SjVoiceRecognizer *self,
                                                        gboolean           use_grammar);

G_END_DECLS
