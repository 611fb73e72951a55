/* sj-composer-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the composer's files share (sj-composer.c, sj-composer-voice.c),
 * and what only the tests need: a composer of their own, outside a chat
 * panel, and its buttons (Send or Stop, and the microphone).
 */

#pragma once

#include "sj-composer.h"

G_BEGIN_DECLS

struct _SjComposer
{
  GtkWidget          parent_instance;

  gboolean           streaming;
  /* Whether the input method has a preedit (a composition in progress). */
  gboolean           composing;

  /* Voice */
  gboolean           listening;
  GtkTextMark       *voice_start;   /* where the spoken words go (left gravity) */
  GtkTextMark       *voice_end;     /* and end (right gravity) */
  gint64             press_time;
  gboolean           press_started; /* this press started listening */
  gboolean           stop_on_release;
  gboolean           pointer_handled;

  /* Template widgets */
  GtkScrolledWindow *scroller;
  GtkTextView       *text_view;
  GtkLabel          *placeholder;
  GtkButton         *button;
  GtkButton         *mic_button;
  GtkLevelBar       *level_bar;
  GtkDropDown       *landing_dropdown;
};


GtkWidget *_sj_composer_new            (void);
GtkButton *_sj_composer_get_button     (SjComposer *self);
GtkButton *_sj_composer_get_mic_button (SjComposer *self);

void       _sj_composer_voice_init       (SjComposer *self);
void       _sj_composer_emit_listening   (SjComposer *self,
                                          gboolean    start);
void       _sj_composer_notify_listening (SjComposer *self);

G_END_DECLS
