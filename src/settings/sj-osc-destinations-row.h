/* sj-osc-destinations-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SJ_TYPE_OSC_DESTINATIONS_ROW (sj_osc_destinations_row_get_type ())

G_DECLARE_FINAL_TYPE (SjOscDestinationsRow, sj_osc_destinations_row, SJ, OSC_DESTINATIONS_ROW, AdwActionRow)

GtkWidget *sj_osc_destinations_row_new        (GSettings            *settings,
                                               GtkWidget            *after);
GtkButton *sj_osc_destinations_row_get_button (SjOscDestinationsRow *self);

G_END_DECLS
