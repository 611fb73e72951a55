/* sj-sounds-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-knowledge.h"
#include "sj-user-samples.h"
#include "sj-sound-downloads.h"

G_BEGIN_DECLS

#define SJ_TYPE_SOUNDS_PAGE (sj_sounds_page_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundsPage, sj_sounds_page, SJ, SOUNDS_PAGE, GtkWidget)

void             sj_sounds_page_set_knowledge  (SjSoundsPage    *self,
                                                SjKnowledge     *knowledge);
void             sj_sounds_page_focus_search   (SjSoundsPage    *self);
void             sj_sounds_page_set_user_samples (SjSoundsPage  *self,
                                                SjUserSamples   *samples);
char            *sj_sounds_page_finish_preview (SjSoundsPage    *self,
                                                const char      *name,
                                                const GError    *error);
void             sj_sounds_page_set_downloads  (SjSoundsPage     *self,
                                                SjSoundDownloads *downloads);
void             sj_sounds_page_show_packs     (SjSoundsPage     *self);

G_END_DECLS
