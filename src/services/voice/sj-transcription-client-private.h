/* sj-transcription-client-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests reach in the transcription client.
 */

#pragma once

#include "sj-transcription-client.h"

G_BEGIN_DECLS

void _sj_transcription_client_set_deadline_ms (SjTranscriptionClient *self,
                                               guint                  milliseconds);

G_END_DECLS
