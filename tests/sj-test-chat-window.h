/* sj-test-chat-window.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-composer.h"
#include "sj-test-widgets.h"
#include "sj-voice-session.h"
#include "sj-window.h"

G_BEGIN_DECLS

SjWindow *sj_test_open_chat_window    (SjTestKeyWindow *keys,
                                       guint            timeout_s);
void      sj_test_chat_window_cleanup (void);

/* Waits on voice in the window (for sj_test_widgets_spin_until()). */
typedef struct
{
  SjComposer *composer;
  const char *text;      /* what was typed */
} SjTestText;

typedef struct
{
  double level;
  guint  n;
} SjTestLevel;

gboolean  sj_test_is_listening           (gpointer        composer);
gboolean  sj_test_is_not_listening       (gpointer        composer);
gboolean  sj_test_voice_is_stopped       (gpointer        window);
gboolean  sj_test_composer_has_more_text (gpointer        text);
void      sj_test_level_cb               (SjVoiceSession *session,
                                          double          level,
                                          SjTestLevel    *seen);
gboolean  sj_test_heard_silence          (gpointer        level);

G_END_DECLS
