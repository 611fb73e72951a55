/* sj-insecure-key-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SJ_TYPE_INSECURE_KEY_ROW (sj_insecure_key_row_get_type ())

G_DECLARE_FINAL_TYPE (SjInsecureKeyRow, sj_insecure_key_row, SJ, INSECURE_KEY_ROW, AdwActionRow)

GtkWidget *sj_insecure_key_row_new        (GSettings        *settings,
                                           GtkWidget        *after);
void       sj_insecure_key_row_set_url    (SjInsecureKeyRow *self,
                                           const char       *url);
GtkSwitch *sj_insecure_key_row_get_switch (SjInsecureKeyRow *self);

G_END_DECLS
