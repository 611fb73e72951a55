/* sj-phrase-recorder.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-midi-phrase.h"
#include "sj-outputs.h"

G_BEGIN_DECLS

#define SJ_TYPE_PHRASE_RECORDER (sj_phrase_recorder_get_type ())

G_DECLARE_FINAL_TYPE (SjPhraseRecorder, sj_phrase_recorder, SJ, PHRASE_RECORDER, GObject)

#define SJ_PHRASE_RECORDER_ERROR (sj_phrase_recorder_error_quark ())

typedef enum
{
  SJ_PHRASE_RECORDER_ERROR_BUSY,
  SJ_PHRASE_RECORDER_ERROR_NOTHING_PLAYED,
} SjPhraseRecorderError;

/* The most cycles a phrase may last. */
#define SJ_PHRASE_RECORDER_MAX_CYCLES 16

GQuark            sj_phrase_recorder_error_quark  (void);
SjPhraseRecorder *sj_phrase_recorder_new          (SjOutputs            *outputs);
gboolean          sj_phrase_recorder_get_busy     (SjPhraseRecorder     *self);
void              sj_phrase_recorder_record_async (SjPhraseRecorder     *self,
                                                   const char           *source,
                                                   const SjCycleClock   *clock,
                                                   guint                 n_cycles,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
char             *sj_phrase_recorder_record_finish (SjPhraseRecorder    *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);

G_END_DECLS
