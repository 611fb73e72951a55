/* sj-settings-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

/* Who the transcription service's key belongs to in the keyring. */
#define SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER "transcription"

#define SJ_TYPE_SETTINGS_PAGE (sj_settings_page_get_type ())

G_DECLARE_FINAL_TYPE (SjSettingsPage, sj_settings_page, SJ, SETTINGS_PAGE, GtkWidget)

GtkWidget *sj_settings_page_new            (GSettings      *settings);
void       sj_settings_page_focus_api_key  (SjSettingsPage *self);
void       sj_settings_page_focus_voice    (SjSettingsPage *self,
                                            gboolean        key);
void       sj_settings_page_refresh_models (SjSettingsPage *self);
void       sj_settings_page_set_history    (SjSettingsPage *self,
                                            SjHistoryStore *history);

G_END_DECLS
