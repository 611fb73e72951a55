/* sj-sound-pack-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-sound-downloads.h"

G_BEGIN_DECLS

#define SJ_TYPE_SOUND_PACK_ROW (sj_sound_pack_row_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundPackRow, sj_sound_pack_row, SJ, SOUND_PACK_ROW, GtkListBoxRow)

SjSoundPackRow *sj_sound_pack_row_new      (const char            *id,
                                            const char            *title);
const char     *sj_sound_pack_row_get_id   (SjSoundPackRow        *self);
void            sj_sound_pack_row_update   (SjSoundPackRow        *self,
                                            const SjSoundPackInfo *info,
                                            GPtrArray             *failures);
char           *sj_sound_pack_describe     (const SjSoundPackInfo *info);

G_END_DECLS
