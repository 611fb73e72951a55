/* sj-voice-session-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the benchmark needs: the recogniser without its jam grammar.
 */

#pragma once

#include "sj-voice-session.h"

G_BEGIN_DECLS

void _sj_voice_session_set_use_grammar (SjVoiceSession *self,
                                        gboolean        use_grammar);

G_END_DECLS
