/* sj-sound-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_SOUND_ROW (sj_sound_row_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundRow, sj_sound_row, SJ, SOUND_ROW, GtkWidget)

void        sj_sound_row_set_sound   (SjSoundRow *self,
                                      const char *name,
                                      const char *detail,
                                      const char *usage);
const char *sj_sound_row_get_name    (SjSoundRow *self);
void        sj_sound_row_set_state   (SjSoundRow *self,
                                      const char *icon_name,
                                      const char *state);
void        sj_sound_row_set_loading (SjSoundRow *self,
                                      gboolean    loading);
void        sj_sound_row_set_failure (SjSoundRow *self,
                                      const char *failure);

G_END_DECLS
