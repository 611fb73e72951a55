/* sj-keyring-key-rows.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SJ_TYPE_KEYRING_KEY_ROWS (sj_keyring_key_rows_get_type ())

G_DECLARE_FINAL_TYPE (SjKeyringKeyRows, sj_keyring_key_rows, SJ, KEYRING_KEY_ROWS, GObject)

SjKeyringKeyRows *sj_keyring_key_rows_new          (AdwActionRow     *status_row,
                                                    GtkButton        *clear_button,
                                                    AdwEntryRow      *entry_row,
                                                    GtkButton        *set_button,
                                                    const char       *no_endpoint_text);
void              sj_keyring_key_rows_set_endpoint (SjKeyringKeyRows *self,
                                                    const char       *provider,
                                                    const char       *base_url);

G_END_DECLS
