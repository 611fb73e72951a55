/* sj-test-voice.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-voice-session.h"

G_BEGIN_DECLS

/* The jam commands espeak-ng says to the test microphone. */
#define SJ_TEST_VOICE_N_COMMANDS 30
extern const char * const sj_test_voice_commands[SJ_TEST_VOICE_N_COMMANDS];

gboolean  sj_test_voice_available    (void);
char     *sj_test_voice_render       (const char  *text,
                                      const char  *dir,
                                      guint        index);
char     *sj_test_voice_render_as    (const char  *text,
                                      const char  *dir,
                                      guint        index,
                                      const char  *voice,
                                      guint        speed);
void      sj_test_voice_play         (const char  *wav);
char     *sj_test_voice_normalize    (const char  *text);
typedef struct
{
  gint64 release_to_text_us;     /* the stop (button released) to the text */
  gint64 speech_end_to_text_us;  /* the first silence after speech to the text */
  guint  n_partials;
} SjTestVoiceTiming;

char     *sj_test_voice_say          (SjVoiceSession     *session,
                                      const char         *wav,
                                      SjTestVoiceTiming  *timing,
                                      GError            **error);
guint     sj_test_voice_word_errors  (const char  *reference,
                                      const char  *hypothesis,
                                      guint       *n_words);

G_END_DECLS
