/* sj-test-voice.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The jam commands espeak-ng says to the test microphone. */
#define SJ_TEST_VOICE_N_COMMANDS 30
extern const char * const sj_test_voice_commands[SJ_TEST_VOICE_N_COMMANDS];

gboolean  sj_test_voice_available    (void);
char     *sj_test_voice_render       (const char  *text,
                                      const char  *dir,
                                      guint        index);
void      sj_test_voice_play         (const char  *wav);
char     *sj_test_voice_normalize    (const char  *text);
guint     sj_test_voice_word_errors  (const char  *reference,
                                      const char  *hypothesis,
                                      guint       *n_words);

G_END_DECLS
