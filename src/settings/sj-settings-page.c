/* sj-settings-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The agent's Settings page of the side panel: the provider and model, the
 * API key in the keyring, when changes land, the agent's limits (how long
 * a silent model is waited for, how long one answer may take) and the
 * history's: the size past which the window warns, and the size now.
 *
 * Every control is bound to GSettings, so a change applies at once and a
 * change made elsewhere (another window, dconf) shows here at once too.
 * The one exception is the API key, which never goes near GSettings: it is
 * kept in the keyring under the provider and the base URL in use
 * (OpenRouter's own URL for OpenRouter), and never shown back. Its rows are
 * driven by SjKeyringKeyRows, as the transcription service's key's are.
 *
 * The model row's menu of the provider's models is in
 * sj-settings-page-models.c, the Voice group in sj-settings-page-voice.c.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-agent-config.h"
#include "sj-settings-page-private.h"
#include "sj-accessible.h"

/* The choices of the string keys, in the order of their combo rows. */
static const char * const provider_choices[] = { "openrouter", "custom", NULL };
static const char * const reasoning_choices[] = { "fast", "balanced", "deep", NULL };
static const char * const quantize_choices[] = { "next_beat", "next_cycle", "next_bar", "bars", NULL };
static const char * const midi_backend_choices[] = { "auto", "jack", "alsa", NULL };
static const char * const verify_choices[] = { "revert", "warn", NULL };
static const char * const budget_choices[] = { "none", "tokens", "money", NULL };

G_DEFINE_FINAL_TYPE (SjSettingsPage, sj_settings_page, GTK_TYPE_WIDGET)

enum {
  API_KEY_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Bindings ---------------------------------------------------------------- */

static gboolean
choice_to_position_cb (GValue   *value,
                       GVariant *variant,
                       gpointer  user_data)
{
  const char * const *choices = user_data;
  const char *choice = g_variant_get_string (variant, NULL);

  for (guint i = 0; choices[i] != NULL; i++)
    {
      if (g_str_equal (choices[i], choice))
        {
          g_value_set_uint (value, i);
          return TRUE;
        }
    }

  return FALSE;
}

static GVariant *
position_to_choice_cb (const GValue       *value,
                       const GVariantType *expected_type,
                       gpointer            user_data)
{
  const char * const *choices = user_data;
  guint position = g_value_get_uint (value);

  /* No selection (GTK_INVALID_LIST_POSITION) leaves the setting alone. */
  if (position >= g_strv_length ((char **)choices))
    return NULL;

  return g_variant_new_string (choices[position]);
}

/* For the rows that only make sense for one choice of a key. */
static gboolean
choice_is_cb (GValue   *value,
              GVariant *variant,
              gpointer  user_data)
{
  g_value_set_boolean (value, g_str_equal (g_variant_get_string (variant, NULL), user_data));
  return TRUE;
}

static void
bind_choices (SjSettingsPage     *self,
              const char         *key,
              AdwComboRow        *row,
              const char * const *choices)
{
  g_settings_bind_with_mapping (self->settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                choice_to_position_cb, position_to_choice_cb, (gpointer)choices, NULL);
}

static void
bind_only_for (SjSettingsPage *self,
               const char     *key,
               const char     *choice,
               gpointer        widget,
               const char     *property)
{
  g_settings_bind_with_mapping (self->settings, key, widget, property, G_SETTINGS_BIND_GET,
                                choice_is_cb, NULL, (gpointer)choice, NULL);
}

static void
bind_settings (SjSettingsPage *self)
{
  bind_choices (self, "provider", self->provider_row, provider_choices);
  /* Not bound to the key's writability: the provider decides. */
  g_settings_bind (self->settings, "base-url", self->base_url_row, "text",
                   G_SETTINGS_BIND_DEFAULT | G_SETTINGS_BIND_NO_SENSITIVITY);
  bind_only_for (self, "provider", "custom", self->base_url_row, "sensitive");
  bind_only_for (self, "provider", "custom", self->base_url_row, "visible");
  g_settings_bind (self->settings, "model", self->model_row, "text", G_SETTINGS_BIND_DEFAULT);
  bind_choices (self, "reasoning-mode", self->reasoning_row, reasoning_choices);
  g_settings_bind (self->settings, "temperature", self->temperature_spin, "value", G_SETTINGS_BIND_DEFAULT);

  bind_choices (self, "quantize", self->quantize_row, quantize_choices);
  bind_choices (self, "verify-landed-changes", self->verify_row, verify_choices);
  g_settings_bind (self->settings, "quantize-bars", self->bars_spin, "value", G_SETTINGS_BIND_DEFAULT);
  bind_only_for (self, "quantize", "bars", self->bars_row, "sensitive");
  g_settings_bind (self->settings, "bar-cycles", self->bar_cycles_spin, "value", G_SETTINGS_BIND_DEFAULT);

  g_settings_bind (self->settings, "max-repair-attempts", self->repair_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "tool-budget", self->tool_budget_spin, "value", G_SETTINGS_BIND_DEFAULT);
  bind_choices (self, "agent-budget-kind", self->budget_kind_row, budget_choices);
  g_settings_bind (self->settings, "agent-budget-tokens", self->budget_tokens_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "agent-budget-money", self->budget_money_spin, "value", G_SETTINGS_BIND_DEFAULT);
  bind_only_for (self, "agent-budget-kind", "tokens", self->budget_tokens_row, "visible");
  bind_only_for (self, "agent-budget-kind", "money", self->budget_money_row, "visible");
  g_settings_bind (self->settings, "stall-timeout", self->stall_timeout_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "answer-deadline", self->answer_deadline_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "history-size-limit-mb", self->history_limit_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "download-sounds", self->download_sounds_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "allow-local-sample-hosts", self->local_sample_hosts_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "realtime-audio", self->realtime_audio_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "master-limiter", self->master_limiter_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "mcp-server-enabled", self->mcp_server_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "osc-host", self->osc_host_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "osc-port", self->osc_port_spin, "value", G_SETTINGS_BIND_DEFAULT);
  bind_choices (self, "midi-backend", self->midi_backend_row, midi_backend_choices);
  g_settings_bind (self->settings, "midi-destination", self->midi_destination_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "midi-input", self->midi_input_row, "text", G_SETTINGS_BIND_DEFAULT);
}

/* The limits where 0 means none say so: "No limit" rather than 0, and
 * "No limit" typed back is 0. */
static gboolean
no_limit_output_cb (GtkSpinButton *spin,
                    gpointer       user_data)
{
  if (gtk_spin_button_get_value (spin) != 0)
    return FALSE;

  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (spin)), _("No limit")) != 0)
    gtk_editable_set_text (GTK_EDITABLE (spin), _("No limit"));
  return TRUE;
}

static int
no_limit_input_cb (GtkSpinButton *spin,
                   double        *new_value,
                   gpointer       user_data)
{
  g_autofree char *text = g_utf8_casefold (gtk_editable_get_text (GTK_EDITABLE (spin)), -1);
  g_autofree char *no_limit = g_utf8_casefold (_("No limit"), -1);

  if (!g_str_equal (g_strstrip (text), no_limit))
    return FALSE;

  *new_value = 0;
  return TRUE;
}

/* The provider and base URL the key is kept under and the models are asked
 * of. Returns FALSE while a custom endpoint has no URL yet. */
gboolean
_sj_settings_page_get_endpoint (SjSettingsPage  *self,
                                char           **provider,
                                char           **base_url)
{
  sj_agent_config_get_endpoint (self->settings, provider, base_url);

  return **base_url != '\0';
}

/* API key ----------------------------------------------------------------- */

/* The key rows follow the provider and base URL in use. */
static void
update_api_key_endpoint (SjSettingsPage *self)
{
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;

  _sj_settings_page_get_endpoint (self, &provider, &base_url);
  sj_keyring_key_rows_set_endpoint (self->api_key_rows, provider, base_url);
  sj_insecure_key_row_set_url (self->insecure_key_row, base_url);
}

static void
api_key_rows_changed_cb (SjSettingsPage *self)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  g_signal_emit (self, signals[API_KEY_CHANGED], 0);
}

static void
endpoint_changed_cb (SjSettingsPage *self,
                     const char     *key,
                     GSettings      *settings)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  update_api_key_endpoint (self);
  _sj_settings_page_invalidate_models (self);

  /* An open menu shows the new endpoint's models straight away. */
  if (gtk_widget_get_visible (GTK_WIDGET (self->models_popover)))
    sj_settings_page_refresh_models (self);
}

/* History ----------------------------------------------------------------- */

/* The history's size now, in the limit's megabytes (of 1024 × 1024 bytes,
 * as the window counts them), and whether it is past the limit. One
 * SQLite pragma: cheap enough for each time the page shows. */
static void
update_history_size (SjSettingsPage *self)
{
  g_autofree char *size = NULL;
  guint64 bytes;

  g_assert (SJ_IS_SETTINGS_PAGE (self));

  if (self->history == NULL)
    return;

  bytes = sj_history_store_get_size (self->history);
  /* Translators: the size of the chat history, in megabytes */
  size = g_strdup_printf (_("%.1f MB"), bytes / (1024.0 * 1024.0));
  gtk_label_set_text (self->history_size_label, size);
  adw_action_row_set_subtitle (self->history_size_row,
                               sj_history_store_get_over_limit (self->history)
                               ? _("Past the limit: delete old sessions on the Sessions page to make room")
                               : "");
}

/**
 * sj_settings_page_set_history:
 * @history: (nullable): the history whose size the History group shows
 *
 * Shows @history's size under the limit, updated each time the page is
 * shown and when the history passes its limit or comes back under it.
 */
void
sj_settings_page_set_history (SjSettingsPage *self,
                              SjHistoryStore *history)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));
  g_return_if_fail (history == NULL || SJ_IS_HISTORY_STORE (history));

  if (self->history != NULL)
    g_signal_handlers_disconnect_by_data (self->history, self);
  g_set_object (&self->history, history);
  gtk_widget_set_visible (GTK_WIDGET (self->history_size_row), history != NULL);
  if (history == NULL)
    return;

  g_signal_connect_object (history, "notify::over-limit", G_CALLBACK (update_history_size), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (history, "notify::size-limit", G_CALLBACK (update_history_size), self, G_CONNECT_SWAPPED);
  update_history_size (self);
}

static void
sj_settings_page_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (sj_settings_page_parent_class)->map (widget);

  update_history_size (SJ_SETTINGS_PAGE (widget));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_settings_page_dispose (GObject *object)
{
  SjSettingsPage *self = (SjSettingsPage *)object;
  GtkWidget *child;

  /* The callbacks hold no reference: once cancelled they return without
   * touching the page. The key rows cancel theirs as they go. */
  if (self->models_cancellable != NULL)
    g_cancellable_cancel (self->models_cancellable);
  g_clear_object (&self->api_key_rows);
  g_clear_object (&self->voice_key_rows);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->history != NULL)
    g_signal_handlers_disconnect_by_data (self->history, self);

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_SETTINGS_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->models_cancellable);
  g_clear_object (&self->filtered_models);
  g_clear_object (&self->models);
  g_clear_object (&self->settings);
  g_clear_object (&self->history);

  G_OBJECT_CLASS (sj_settings_page_parent_class)->dispose (object);
}

static void
sj_settings_page_class_init (SjSettingsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_settings_page_dispose;
  widget_class->map = sj_settings_page_map;

  /**
   * SjSettingsPage::api-key-changed:
   *
   * A key was stored or cleared: whoever uses it looks it up again.
   */
  signals[API_KEY_CHANGED] = g_signal_new ("api-key-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-settings-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, provider_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, model_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, reasoning_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, temperature_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, key_status_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, key_clear_button);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, key_entry_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, key_set_button);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, quantize_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, verify_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, bars_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, bars_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, bar_cycles_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, repair_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, tool_budget_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, budget_kind_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, budget_tokens_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, budget_tokens_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, budget_money_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, budget_money_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, stall_timeout_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, answer_deadline_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, history_limit_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, history_size_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, history_size_label);
  gtk_widget_class_bind_template_callback (widget_class, no_limit_output_cb);
  gtk_widget_class_bind_template_callback (widget_class, no_limit_input_cb);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, download_sounds_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, local_sample_hosts_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, realtime_audio_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, master_limiter_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, mcp_server_switch);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, osc_host_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, osc_port_spin);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, midi_backend_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, midi_destination_row);
  gtk_widget_class_bind_template_child (widget_class, SjSettingsPage, midi_input_row);
  _sj_settings_page_models_class_init (widget_class);
  _sj_settings_page_voice_class_init (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjsettingspage");
}

static void
sj_settings_page_init (SjSettingsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  sj_accessible_name_peek_buttons (GTK_WIDGET (self));

  _sj_settings_page_models_init (self);
}

/**
 * sj_settings_page_new:
 * @settings: settings of the io.github.strudeljam.StrudelJam schema
 *
 * Returns: (transfer full): a page whose controls follow @settings
 */
GtkWidget *
sj_settings_page_new (GSettings *settings)
{
  SjSettingsPage *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SJ_TYPE_SETTINGS_PAGE, NULL);
  self->settings = g_object_ref (settings);
  bind_settings (self);

  self->api_key_rows = sj_keyring_key_rows_new (self->key_status_row, self->key_clear_button, self->key_entry_row,
                                                self->key_set_button, _("Enter the base URL of the endpoint first"));
  g_signal_connect_object (self->api_key_rows, "changed", G_CALLBACK (api_key_rows_changed_cb), self,
                           G_CONNECT_SWAPPED);
  /* A key over plain HTTP to another computer needs the user's word. */
  self->insecure_key_row = SJ_INSECURE_KEY_ROW (sj_insecure_key_row_new (settings, GTK_WIDGET (self->base_url_row)));
  /* The OSC destinations answered, under the OSC port, with Forget. */
  sj_osc_destinations_row_new (settings, gtk_widget_get_ancestor (GTK_WIDGET (self->osc_port_spin),
                                                                  GTK_TYPE_LIST_BOX_ROW));
  update_api_key_endpoint (self);
  g_signal_connect_object (settings, "changed::provider", G_CALLBACK (endpoint_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "changed::base-url", G_CALLBACK (endpoint_changed_cb), self, G_CONNECT_SWAPPED);
  _sj_settings_page_voice_bind (self);

  return GTK_WIDGET (self);
}

/* Puts the keyboard in the API key entry: the fix for a missing or refused
 * key, offered by the problem banner. */
void
sj_settings_page_focus_api_key (SjSettingsPage *self)
{
  g_assert (SJ_IS_SETTINGS_PAGE (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->key_entry_row));
}
