/* sj-audio-priority.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-repl.h"

G_BEGIN_DECLS

#define SJ_TYPE_AUDIO_PRIORITY (sj_audio_priority_get_type ())

G_DECLARE_FINAL_TYPE (SjAudioPriority, sj_audio_priority, SJ, AUDIO_PRIORITY, GObject)

SjAudioPriority *sj_audio_priority_new           (SjRepl          *repl);
guint            sj_audio_priority_get_promoted  (SjAudioPriority *self);
guint            sj_audio_priority_get_demoted   (SjAudioPriority *self);
GArray          *sj_audio_priority_find_web_processes (void);

G_END_DECLS
