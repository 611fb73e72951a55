/* sj-composer.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_COMPOSER (sj_composer_get_type ())

G_DECLARE_FINAL_TYPE (SjComposer, sj_composer, SJ, COMPOSER, GtkWidget)

char      *sj_composer_get_text      (SjComposer *self);
void       sj_composer_set_text      (SjComposer *self,
                                      const char *text);
void       sj_composer_focus         (SjComposer *self);
gboolean   sj_composer_get_streaming (SjComposer *self);
void       sj_composer_set_streaming (SjComposer *self,
                                      gboolean    streaming);
gboolean   sj_composer_get_listening (SjComposer *self);
void       sj_composer_set_listening (SjComposer *self,
                                      gboolean    listening);
void       sj_composer_set_voice_level (SjComposer *self,
                                        double      level);
void       sj_composer_set_voice_text  (SjComposer *self,
                                        const char *text);
void       sj_composer_select_voice_text (SjComposer *self);
void       sj_composer_send            (SjComposer *self);
const char *sj_composer_get_landing    (SjComposer *self);
void       sj_composer_set_landing     (SjComposer *self,
                                        const char *quantize);

G_END_DECLS
