/* sj-transcription-client.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-voice-error.h"

G_BEGIN_DECLS

#define SJ_TYPE_TRANSCRIPTION_CLIENT (sj_transcription_client_get_type ())

G_DECLARE_FINAL_TYPE (SjTranscriptionClient, sj_transcription_client, SJ, TRANSCRIPTION_CLIENT, GObject)

SjTranscriptionClient *sj_transcription_client_new               (const char           *url,
                                                                  const char           *model,
                                                                  const char           *api_key);
const char            *sj_transcription_client_get_url           (SjTranscriptionClient *self);
void                   sj_transcription_client_set_timeout       (SjTranscriptionClient *self,
                                                                  guint                 seconds);
void                   sj_transcription_client_transcribe_async  (SjTranscriptionClient *self,
                                                                  GBytes               *samples,
                                                                  GCancellable         *cancellable,
                                                                  GAsyncReadyCallback   callback,
                                                                  gpointer              user_data);
char                  *sj_transcription_client_transcribe_finish (SjTranscriptionClient *self,
                                                                  GAsyncResult         *result,
                                                                  GError              **error);
GBytes                *sj_transcription_client_encode_wav        (GBytes               *samples);

G_END_DECLS
