/* sj-chip-bar.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_CHIP_BAR (sj_chip_bar_get_type ())

G_DECLARE_FINAL_TYPE (SjChipBar, sj_chip_bar, SJ, CHIP_BAR, GtkWidget)

guint      sj_chip_bar_append     (SjChipBar  *self,
                                   const char *title);
void       sj_chip_bar_set_count  (SjChipBar  *self,
                                   guint       position,
                                   guint       count);
guint      sj_chip_bar_get_active (SjChipBar  *self);
void       sj_chip_bar_set_always_sensitive (SjChipBar *self,
                                             guint      position);

G_END_DECLS
