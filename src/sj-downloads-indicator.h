/* sj-downloads-indicator.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-sound-downloads.h"

G_BEGIN_DECLS

#define SJ_TYPE_DOWNLOADS_INDICATOR (sj_downloads_indicator_get_type ())

G_DECLARE_FINAL_TYPE (SjDownloadsIndicator, sj_downloads_indicator, SJ, DOWNLOADS_INDICATOR, GtkWidget)

void sj_downloads_indicator_set_downloads (SjDownloadsIndicator *self,
                                           SjSoundDownloads     *downloads);

G_END_DECLS
