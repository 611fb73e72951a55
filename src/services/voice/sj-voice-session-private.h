/* sj-voice-session-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the benchmark needs: the recogniser with one search alone.
 */

#pragma once

#include "sj-voice-recognizer.h"
#include "sj-voice-session.h"

G_BEGIN_DECLS

void _sj_voice_session_set_mode (SjVoiceSession *self,
                                 SjVoiceMode     mode);
GBytes *_sj_voice_session_get_audio (SjVoiceSession *self);

G_END_DECLS
