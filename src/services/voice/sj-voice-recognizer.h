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

/* What gives the final text: the jam's two searches together (the
 * default), or one alone, for bench/voice's comparisons. */
typedef enum
{
  SJ_VOICE_MODE_JAM,      /* the grammar when it fits, the domain model otherwise */
  SJ_VOICE_MODE_GRAMMAR,  /* the grammar, the general English model when it finds nothing */
  SJ_VOICE_MODE_DOMAIN,   /* the domain language model alone */
  SJ_VOICE_MODE_ENGLISH,  /* the general English model: PocketSphinx as it ships */
} SjVoiceMode;

/* Which recogniser hears the utterance (issue 30): PocketSphinx with the
 * jam's grammar and domain model, or Moonshine held to the jam's words and
 * trigrams (sj-moonshine.c), when onnxruntime and the model are installed. */
typedef enum
{
  SJ_VOICE_ENGINE_POCKETSPHINX,
  SJ_VOICE_ENGINE_MOONSHINE,
} SjVoiceEngine;

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
double             sj_voice_recognizer_get_confidence (SjVoiceRecognizer *self);
void               sj_voice_recognizer_set_mode    (SjVoiceRecognizer    *self,
                                                    SjVoiceMode           mode);
void               sj_voice_recognizer_set_engine  (SjVoiceRecognizer    *self,
                                                    SjVoiceEngine         engine);
SjVoiceEngine      sj_voice_recognizer_get_engine  (SjVoiceRecognizer    *self);
const char        *sj_voice_recognizer_get_fallback_reason (SjVoiceRecognizer *self);
void               sj_voice_recognizer_set_moonshine_greedy (SjVoiceRecognizer *self,
                                                    gboolean              greedy);

G_END_DECLS
