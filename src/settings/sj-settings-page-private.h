/* sj-settings-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the parts of SjSettingsPage (sj-settings-page.c: the settings and
 * the API key; sj-settings-page-models.c: the model menu;
 * sj-settings-page-voice.c: the Voice group) share. Both keys' rows are
 * driven by SjKeyringKeyRows.
 */

#pragma once

#include <adwaita.h>

#include "sj-history-store.h"
#include "sj-insecure-key-row.h"
#include "sj-keyring-key-rows.h"
#include "sj-osc-destinations-row.h"
#include "sj-settings-page.h"

G_BEGIN_DECLS

typedef enum
{
  MODELS_STALE,     /* not asked for at the current base URL yet */
  MODELS_FETCHING,
  MODELS_FETCHED,
  MODELS_FAILED,
} ModelsState;

struct _SjSettingsPage
{
  GtkWidget             parent_instance;

  GSettings            *settings;
  GCancellable         *models_cancellable;  /* the model fetch under way */
  SjKeyringKeyRows     *api_key_rows;        /* the model's key */
  SjKeyringKeyRows     *voice_key_rows;      /* the transcription service's key */
  SjInsecureKeyRow     *insecure_key_row;        /* under the base URL */
  SjInsecureKeyRow     *voice_insecure_key_row;  /* under the transcription URL */
  SjHistoryStore       *history;             /* whose size is shown, or NULL */

  GtkStringList        *models;
  GtkFilterListModel   *filtered_models;
  ModelsState           models_state;

  /* Template widgets */
  AdwComboRow          *provider_row;
  AdwEntryRow          *base_url_row;
  AdwEntryRow          *model_row;
  GtkMenuButton        *models_button;
  GtkPopover           *models_popover;
  GtkSearchEntry       *models_search;
  GtkStack             *models_stack;
  GtkListBox           *models_list;
  GtkLabel             *models_error_label;
  AdwActionRow         *models_error_row;
  AdwComboRow          *reasoning_row;
  GtkSpinButton        *temperature_spin;
  AdwActionRow         *key_status_row;
  GtkButton            *key_clear_button;
  AdwEntryRow          *key_entry_row;
  GtkButton            *key_set_button;
  AdwComboRow          *quantize_row;
  AdwComboRow          *verify_row;
  AdwActionRow         *bars_row;
  GtkSpinButton        *bars_spin;
  GtkSpinButton        *bar_cycles_spin;
  GtkSpinButton        *repair_spin;
  GtkSpinButton        *tool_budget_spin;
  AdwComboRow          *budget_kind_row;
  GtkWidget            *budget_tokens_row;
  GtkSpinButton        *budget_tokens_spin;
  GtkWidget            *budget_money_row;
  GtkSpinButton        *budget_money_spin;
  GtkSpinButton        *stall_timeout_spin;
  GtkSpinButton        *answer_deadline_spin;
  GtkSpinButton        *history_limit_spin;
  AdwActionRow         *history_size_row;
  GtkLabel             *history_size_label;
  GtkSwitch            *download_sounds_switch;
  GtkSwitch            *local_sample_hosts_switch;
  GtkSwitch            *realtime_audio_switch;
  GtkSwitch            *master_limiter_switch;
  GtkSwitch            *mcp_server_switch;
  AdwEntryRow          *osc_host_row;
  GtkSpinButton        *osc_port_spin;
  AdwComboRow          *midi_backend_row;
  AdwEntryRow          *midi_destination_row;
  AdwEntryRow          *midi_input_row;
  AdwComboRow          *voice_engine_row;
  GtkSwitch            *voice_send_switch;
  GtkSwitch            *voice_duck_switch;
  AdwEntryRow          *voice_endpoint_row;
  AdwEntryRow          *voice_model_row;
  AdwActionRow         *voice_key_status_row;
  GtkButton            *voice_key_clear_button;
  AdwEntryRow          *voice_key_row;
};

static inline gboolean
_sj_settings_page_is_cancelled (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Replaces *@cancellable with a new one, cancelling the operation the old
 * one was for: only the latest status check or fetch may report. */
static inline GCancellable *
_sj_settings_page_restart_cancellable (GCancellable **cancellable)
{
  if (*cancellable != NULL)
    g_cancellable_cancel (*cancellable);
  g_clear_object (cancellable);
  *cancellable = g_cancellable_new ();
  return *cancellable;
}

gboolean _sj_settings_page_get_endpoint      (SjSettingsPage  *self,
                                             char           **provider,
                                             char           **base_url);
void     _sj_settings_page_invalidate_models (SjSettingsPage  *self);
void     _sj_settings_page_models_class_init (GtkWidgetClass  *widget_class);
void     _sj_settings_page_models_init       (SjSettingsPage  *self);
void     _sj_settings_page_voice_class_init  (GtkWidgetClass  *widget_class);
void     _sj_settings_page_voice_bind        (SjSettingsPage  *self);

G_END_DECLS
