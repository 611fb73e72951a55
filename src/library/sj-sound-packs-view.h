/* sj-sound-packs-view.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-sound-downloads.h"

G_BEGIN_DECLS

#define SJ_TYPE_SOUND_PACKS_VIEW (sj_sound_packs_view_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundPacksView, sj_sound_packs_view, SJ, SOUND_PACKS_VIEW, GtkWidget)

void              sj_sound_packs_view_set_downloads (SjSoundPacksView *self,
                                                     SjSoundDownloads *downloads);
SjSoundDownloads *sj_sound_packs_view_get_downloads (SjSoundPacksView *self);
void              sj_sound_packs_view_focus         (SjSoundPacksView *self);

G_END_DECLS
