/* test-settings-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The agent's Settings page and the problem banner, as real widgets under
 * Xvfb. tests/test-secrets.sh runs this on a private session bus with a
 * gnome-keyring-daemon of its own (SJ_TEST_KEYRING=running), so the keys
 * the page stores (the model's, the transcription service's) go to a
 * throwaway keyring; run without the script, the
 * page tests skip rather than touch the keyring of whoever runs them.
 * settings-page-no-keyring runs it with no keyring at all
 * (SJ_TEST_KEYRING=none), for the keys' errors. A
 * SoupServer on the loopback interface plays the provider's /models.
 *
 * Every wait spins the main loop until what is waited for holds.
 */

#include "config.h"

#include <string.h>
#include <adwaita.h>
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <libsoup/soup.h>

#include "sj-insecure-key-row.h"
#include "sj-llm-client.h"
#include "sj-osc-destinations-row.h"
#include "sj-problem-banner-private.h"
#include "sj-resources.h"
#include "sj-secrets.h"
#include "sj-settings-page.h"
#include "sj-test-files.h"
#include "sj-test-settings.h"
#include "sj-test-widgets.h"

#define SCHEMA_ID "io.github.strudeljam.StrudelJam"
#define MODELS_BODY "{\"object\":\"list\",\"data\":[{\"id\":\"m1\"},{\"id\":\"m2\"},{\"id\":\"other/m3\"}]}"
#define WAIT_LIMIT_SECONDS 20

#define CHILD(page, name) gtk_widget_get_template_child (GTK_WIDGET (page), SJ_TYPE_SETTINGS_PAGE, name)
static gboolean
string_is (GSettings  *settings,
           const char *key,
           const char *value)
{
  g_autofree char *current = g_settings_get_string (settings, key);

  return g_strcmp0 (current, value) == 0;
}

#define WAIT_UNTIL(condition) G_STMT_START { \
    guint wait_timeout_id_ = g_timeout_add_seconds (WAIT_LIMIT_SECONDS, wait_timed_out_cb, (gpointer) #condition); \
    while (!(condition)) \
      g_main_context_iteration (NULL, TRUE); \
    g_source_remove (wait_timeout_id_); \
  } G_STMT_END

static struct
{
  SoupServer *server;
  char       *base_url;
  guint       status;
  guint       n_requests;
  char       *path;
  char       *authorization;
} provider;

static const char *api_key;

static gboolean
wait_timed_out_cb (gpointer user_data)
{
  g_error ("Waited %d s in vain for: %s", WAIT_LIMIT_SECONDS, (const char *)user_data);
  return G_SOURCE_REMOVE;
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  const char *authorization = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                            "Authorization");

  provider.n_requests++;
  g_free (provider.path);
  provider.path = g_strdup (path);
  g_free (provider.authorization);
  provider.authorization = g_strdup (authorization);

  soup_server_message_set_status (msg, provider.status, NULL);
  if (provider.status == SOUP_STATUS_OK)
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                      MODELS_BODY, strlen (MODELS_BODY));
  else
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                      "{\"error\":{\"message\":\"down\"}}", 27);
}

static void
start_provider (void)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  provider.status = SOUP_STATUS_OK;
  provider.server = soup_server_new (NULL, NULL);
  soup_server_add_handler (provider.server, NULL, server_cb, NULL, NULL);
  soup_server_listen_local (provider.server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (provider.server);
  provider.base_url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
}

static GSettings *
new_settings (void)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();

  return g_settings_new_with_backend (SCHEMA_ID, backend);
}

static gboolean
have_keyring (void)
{
  if (g_strcmp0 (g_getenv ("SJ_TEST_KEYRING"), "running") == 0)
    return TRUE;

  g_test_skip ("run by test-secrets.sh with a keyring of its own");
  return FALSE;
}

static SjSettingsPage *
show_page (GSettings  *settings,
           GtkWindow **window)
{
  GtkWidget *page = sj_settings_page_new (settings);

  *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (*window, 400, 700);
  gtk_window_set_child (*window, page);
  gtk_window_present (*window);
  return SJ_SETTINGS_PAGE (page);
}

static gboolean
subtitle_is (gpointer    row,
             const char *text)
{
  return g_strcmp0 (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), text) == 0;
}

static guint
count_rows (GtkListBox *list)
{
  guint n = 0;

  while (gtk_list_box_get_row_at_index (list, n) != NULL)
    n++;
  return n;
}

/* Bindings ---------------------------------------------------------------- */

static void
test_bindings (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  GtkWindow *window;
  SjSettingsPage *page;
  AdwComboRow *provider_row, *reasoning_row, *quantize_row;
  GtkWidget *base_url_row, *model_row, *bars_spin;
  GtkSpinButton *temperature_spin;
  static const struct {
    const char *spin;
    const char *key;
  } spins[] = {
    { "bars_spin", "quantize-bars" },
    { "bar_cycles_spin", "bar-cycles" },
    { "repair_spin", "max-repair-attempts" },
    { "tool_budget_spin", "tool-budget" },
    { "osc_port_spin", "osc-port" },
    { "stall_timeout_spin", "stall-timeout" },
    { "answer_deadline_spin", "answer-deadline" },
    { "history_limit_spin", "history-size-limit-mb" },
  };

  if (!have_keyring ())
    return;

  page = show_page (settings, &window);
  provider_row = ADW_COMBO_ROW (CHILD (page, "provider_row"));
  reasoning_row = ADW_COMBO_ROW (CHILD (page, "reasoning_row"));
  quantize_row = ADW_COMBO_ROW (CHILD (page, "quantize_row"));
  base_url_row = GTK_WIDGET (CHILD (page, "base_url_row"));
  model_row = GTK_WIDGET (CHILD (page, "model_row"));
  bars_spin = GTK_WIDGET (CHILD (page, "bars_spin"));
  temperature_spin = GTK_SPIN_BUTTON (CHILD (page, "temperature_spin"));

  /* The provider: OpenRouter needs no base URL, a custom endpoint does. */
  g_assert_cmpuint (adw_combo_row_get_selected (provider_row), ==, 0);
  g_assert_false (gtk_widget_get_sensitive (base_url_row));
  g_settings_set_string (settings, "provider", "custom");
  WAIT_UNTIL (adw_combo_row_get_selected (provider_row) == 1);
  WAIT_UNTIL (gtk_widget_get_sensitive (base_url_row) && gtk_widget_get_visible (base_url_row));
  adw_combo_row_set_selected (provider_row, 0);
  WAIT_UNTIL (sj_test_settings_string_is (settings, "provider", "openrouter"));
  WAIT_UNTIL (!gtk_widget_get_sensitive (base_url_row) && !gtk_widget_get_visible (base_url_row));
  adw_combo_row_set_selected (provider_row, 1);
  WAIT_UNTIL (sj_test_settings_string_is (settings, "provider", "custom"));
  WAIT_UNTIL (gtk_widget_get_sensitive (base_url_row));

  /* The base URL and the model, typed or set elsewhere. */
  gtk_editable_set_text (GTK_EDITABLE (base_url_row), "http://127.0.0.1:8080/v1");
  WAIT_UNTIL (sj_test_settings_string_is (settings, "base-url", "http://127.0.0.1:8080/v1"));
  g_settings_set_string (settings, "base-url", "http://localhost:1234/v1");
  WAIT_UNTIL (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (base_url_row)), "http://localhost:1234/v1") == 0);
  gtk_editable_set_text (GTK_EDITABLE (model_row), "qwen3:8b");
  WAIT_UNTIL (sj_test_settings_string_is (settings, "model", "qwen3:8b"));
  g_settings_set_string (settings, "model", "openai/gpt-4o");
  WAIT_UNTIL (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (model_row)), "openai/gpt-4o") == 0);

  /* Reasoning and temperature. */
  g_assert_cmpuint (adw_combo_row_get_selected (reasoning_row), ==, 1);
  adw_combo_row_set_selected (reasoning_row, 2);
  WAIT_UNTIL (sj_test_settings_string_is (settings, "reasoning-mode", "deep"));
  g_settings_set_string (settings, "reasoning-mode", "fast");
  WAIT_UNTIL (adw_combo_row_get_selected (reasoning_row) == 0);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (temperature_spin), 0.7, 1e-9);
  gtk_spin_button_set_value (temperature_spin, 1.3);
  WAIT_UNTIL (G_APPROX_VALUE (g_settings_get_double (settings, "temperature"), 1.3, 1e-9));
  g_settings_set_double (settings, "temperature", 0.2);
  WAIT_UNTIL (G_APPROX_VALUE (gtk_spin_button_get_value (temperature_spin), 0.2, 1e-9));

  /* When changes land: the bars only count for "every N bars". */
  g_assert_cmpuint (adw_combo_row_get_selected (quantize_row), ==, 1);
  g_assert_false (gtk_widget_is_sensitive (bars_spin));
  adw_combo_row_set_selected (quantize_row, 3);
  WAIT_UNTIL (sj_test_settings_string_is (settings, "quantize", "bars"));
  WAIT_UNTIL (gtk_widget_is_sensitive (bars_spin));
  g_settings_set_string (settings, "quantize", "next_bar");
  WAIT_UNTIL (adw_combo_row_get_selected (quantize_row) == 2);
  adw_combo_row_set_selected (quantize_row, 0);
  WAIT_UNTIL (sj_test_settings_string_is (settings, "quantize", "next_beat"));
  g_settings_set_string (settings, "quantize", "next_bar");
  WAIT_UNTIL (adw_combo_row_get_selected (quantize_row) == 2);
  WAIT_UNTIL (!gtk_widget_is_sensitive (bars_spin));
  g_settings_set_string (settings, "quantize", "bars");
  WAIT_UNTIL (gtk_widget_is_sensitive (bars_spin));

  /* The session budget (issue 32): its kind, and only its own amount shown. */
  {
    AdwComboRow *budget_row = ADW_COMBO_ROW (CHILD (page, "budget_kind_row"));
    GtkWidget *tokens_row = GTK_WIDGET (CHILD (page, "budget_tokens_row"));
    GtkWidget *money_row = GTK_WIDGET (CHILD (page, "budget_money_row"));
    GtkSpinButton *tokens_spin = GTK_SPIN_BUTTON (CHILD (page, "budget_tokens_spin"));
    GtkSpinButton *money_spin = GTK_SPIN_BUTTON (CHILD (page, "budget_money_spin"));

    g_assert_cmpuint (adw_combo_row_get_selected (budget_row), ==, 0);
    g_assert_false (gtk_widget_get_visible (tokens_row));
    g_assert_false (gtk_widget_get_visible (money_row));
    adw_combo_row_set_selected (budget_row, 1);
    WAIT_UNTIL (sj_test_settings_string_is (settings, "agent-budget-kind", "tokens"));
    WAIT_UNTIL (gtk_widget_get_visible (tokens_row) && !gtk_widget_get_visible (money_row));
    g_assert_cmpfloat (gtk_spin_button_get_value (tokens_spin), ==, 50000);
    gtk_spin_button_set_value (tokens_spin, 120000);
    WAIT_UNTIL (g_settings_get_uint (settings, "agent-budget-tokens") == 120000);
    g_settings_set_string (settings, "agent-budget-kind", "money");
    WAIT_UNTIL (adw_combo_row_get_selected (budget_row) == 2);
    WAIT_UNTIL (!gtk_widget_get_visible (tokens_row) && gtk_widget_get_visible (money_row));
    g_settings_set_double (settings, "agent-budget-money", 2.5);
    WAIT_UNTIL (G_APPROX_VALUE (gtk_spin_button_get_value (money_spin), 2.5, 1e-9));
    gtk_spin_button_set_value (money_spin, 0.75);
    WAIT_UNTIL (G_APPROX_VALUE (g_settings_get_double (settings, "agent-budget-money"), 0.75, 1e-9));
  }

  /* The numbers, both ways. */
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    {
      GtkSpinButton *spin = GTK_SPIN_BUTTON (CHILD (page, spins[i].spin));

      g_assert_cmpuint ((guint) gtk_spin_button_get_value (spin), ==, g_settings_get_uint (settings, spins[i].key));
      gtk_spin_button_set_value (spin, 7);
      WAIT_UNTIL (g_settings_get_uint (settings, spins[i].key) == 7);
      g_settings_set_uint (settings, spins[i].key, 3);
      WAIT_UNTIL (gtk_spin_button_get_value (spin) == 3);
    }

  /* The limits where 0 means none: named, titled in the musician's words,
   * at the schema's defaults, "No limit" at 0 (and typed back), both ways.
   * Activating the row puts the keyboard in its spin button. */
  {
    static const struct {
      const char *spin;
      const char *key;
      const char *title;
      const char *name;
      const char *subtitle;
      guint       default_value;
    } limits[] = {
      { "stall_timeout_spin", "stall-timeout", "Give up on a silent model after",
        "Give up on a silent model after, in seconds", "Reasoning models", 120 },
      { "answer_deadline_spin", "answer-deadline", "Longest answer", "Longest answer, in seconds",
        "keeping what arrived", 600 },
      { "history_limit_spin", "history-size-limit-mb", "Warn when history is larger than",
        "Warn when history is larger than, in megabytes", "never deleted without you", 1024 },
    };
    g_autoptr(GSettings) defaults = new_settings ();

    for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
      {
        GtkSpinButton *spin = GTK_SPIN_BUTTON (CHILD (page, limits[i].spin));
        AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (spin), ADW_TYPE_ACTION_ROW));
        g_autoptr(GSettings) fresh = new_settings ();
        GtkWindow *fresh_window;
        SjSettingsPage *fresh_page = show_page (fresh, &fresh_window);
        GtkSpinButton *fresh_spin = GTK_SPIN_BUTTON (CHILD (fresh_page, limits[i].spin));

        /* The real key's default, shown by a page of its own. */
        g_assert_cmpuint (g_settings_get_uint (defaults, limits[i].key), ==, limits[i].default_value);
        g_assert_cmpuint ((guint) gtk_spin_button_get_value (fresh_spin), ==, limits[i].default_value);
        gtk_window_destroy (fresh_window);

        gtk_test_accessible_assert_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, limits[i].name);
        g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, limits[i].title);
        g_assert_nonnull (strstr (adw_action_row_get_subtitle (row), limits[i].subtitle));
        g_assert_true (adw_action_row_get_activatable_widget (row) == GTK_WIDGET (spin));

        g_settings_set_uint (settings, limits[i].key, 0);
        WAIT_UNTIL (gtk_spin_button_get_value (spin) == 0);
        WAIT_UNTIL (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (spin)), "No limit") == 0);
        g_settings_set_uint (settings, limits[i].key, 90);
        WAIT_UNTIL (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (spin)), "90") == 0);
        /* Typed: a number, then "No limit" back, as the musician would. */
        gtk_editable_set_text (GTK_EDITABLE (spin), "45");
        gtk_spin_button_update (spin);
        WAIT_UNTIL (g_settings_get_uint (settings, limits[i].key) == 45);
        gtk_editable_set_text (GTK_EDITABLE (spin), "no limit");
        gtk_spin_button_update (spin);
        WAIT_UNTIL (g_settings_get_uint (settings, limits[i].key) == 0);
        g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "No limit");
        gtk_spin_button_set_value (spin, 300);
        WAIT_UNTIL (g_settings_get_uint (settings, limits[i].key) == 300);
      }

    /* No history given, no size to show. */
    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (CHILD (page, "history_size_row"))));
  }

  /* Downloading sounds: on by default; off is strictly offline, and the
   * row says so. Activating the row flips it, as a click would. */
  {
    GtkSwitch *toggle = GTK_SWITCH (CHILD (page, "download_sounds_switch"));
    AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle), ADW_TYPE_ACTION_ROW));

    g_assert_true (g_settings_get_boolean (settings, "download-sounds"));
    g_assert_true (gtk_switch_get_active (toggle));
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Download sounds when first played");
    g_assert_nonnull (strstr (adw_action_row_get_subtitle (row), "strictly offline"));
    g_assert_true (adw_action_row_get_activatable_widget (row) == GTK_WIDGET (toggle));
    adw_action_row_activate (row);
    WAIT_UNTIL (!g_settings_get_boolean (settings, "download-sounds"));
    g_settings_set_boolean (settings, "download-sounds", TRUE);
    WAIT_UNTIL (gtk_switch_get_active (toggle));
  }

  /* Real-time priority for the sound output: on by default, both ways. */
  {
    GtkSwitch *toggle = GTK_SWITCH (CHILD (page, "realtime_audio_switch"));
    AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle), ADW_TYPE_ACTION_ROW));

    g_assert_true (g_settings_get_boolean (settings, "realtime-audio"));
    g_assert_true (gtk_switch_get_active (toggle));
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Real-time audio priority");
    g_assert_nonnull (strstr (adw_action_row_get_subtitle (row), "rtkit"));
    g_assert_true (adw_action_row_get_activatable_widget (row) == GTK_WIDGET (toggle));
    adw_action_row_activate (row);
    WAIT_UNTIL (!g_settings_get_boolean (settings, "realtime-audio"));
    g_assert_false (gtk_switch_get_active (toggle));
    g_settings_set_boolean (settings, "realtime-audio", TRUE);
    WAIT_UNTIL (gtk_switch_get_active (toggle));
  }

  /* The master safety limiter (issue 29): on by default, both ways. */
  {
    GtkSwitch *toggle = GTK_SWITCH (CHILD (page, "master_limiter_switch"));
    AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle), ADW_TYPE_ACTION_ROW));

    g_assert_true (g_settings_get_boolean (settings, "master-limiter"));
    g_assert_true (gtk_switch_get_active (toggle));
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Master safety limiter");
    g_assert_nonnull (strstr (adw_action_row_get_subtitle (row), "Strudel website"));
    g_assert_true (adw_action_row_get_activatable_widget (row) == GTK_WIDGET (toggle));
    adw_action_row_activate (row);
    WAIT_UNTIL (!g_settings_get_boolean (settings, "master-limiter"));
    g_assert_false (gtk_switch_get_active (toggle));
    g_settings_set_boolean (settings, "master-limiter", TRUE);
    WAIT_UNTIL (gtk_switch_get_active (toggle));
  }

  /* A change that makes no sound (issue 29): put back by default, or kept
   * with a warning; the row is named for screen readers; both ways. */
  {
    AdwComboRow *verify_row = ADW_COMBO_ROW (CHILD (page, "verify_row"));

    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (verify_row)), ==,
                     "When a change makes no sound");
    gtk_test_accessible_assert_property (verify_row, GTK_ACCESSIBLE_PROPERTY_LABEL, "When a change makes no sound");
    g_assert_cmpuint (adw_combo_row_get_selected (verify_row), ==, 0);
    g_assert_true (string_is (settings, "verify-landed-changes", "revert"));
    adw_combo_row_set_selected (verify_row, 1);
    WAIT_UNTIL (string_is (settings, "verify-landed-changes", "warn"));
    g_settings_set_string (settings, "verify-landed-changes", "revert");
    WAIT_UNTIL (adw_combo_row_get_selected (verify_row) == 0);
  }

  /* Where .osc() and .midi() send: SuperDirt's address by default, MIDI
   * through JACK when there is a server, else ALSA. */
  {
    GtkWidget *osc_host_row = GTK_WIDGET (CHILD (page, "osc_host_row"));
    AdwComboRow *midi_backend_row = ADW_COMBO_ROW (CHILD (page, "midi_backend_row"));
    GtkWidget *midi_destination_row = GTK_WIDGET (CHILD (page, "midi_destination_row"));

    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (osc_host_row)), ==, "127.0.0.1");
    gtk_editable_set_text (GTK_EDITABLE (osc_host_row), "192.168.1.20");
    WAIT_UNTIL (sj_test_settings_string_is (settings, "osc-host", "192.168.1.20"));
    g_assert_cmpuint (adw_combo_row_get_selected (midi_backend_row), ==, 0);
    adw_combo_row_set_selected (midi_backend_row, 2);
    WAIT_UNTIL (sj_test_settings_string_is (settings, "midi-backend", "alsa"));
    g_settings_set_string (settings, "midi-backend", "jack");
    WAIT_UNTIL (adw_combo_row_get_selected (midi_backend_row) == 1);
    gtk_editable_set_text (GTK_EDITABLE (midi_destination_row), "FLUID Synth");
    WAIT_UNTIL (sj_test_settings_string_is (settings, "midi-destination", "FLUID Synth"));

    /* Record a Phrase's and Learn's input (issue 32): bound both ways, and
     * named for a screen reader by its title. */
    {
      GtkWidget *midi_input_row = GTK_WIDGET (CHILD (page, "midi_input_row"));

      g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (midi_input_row)), ==,
                       "MIDI input for Record a Phrase and Learn");
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (midi_input_row)), ==, "");
      gtk_editable_set_text (GTK_EDITABLE (midi_input_row), "Keystation");
      WAIT_UNTIL (sj_test_settings_string_is (settings, "midi-input", "Keystation"));
      g_settings_set_string (settings, "midi-input", "a2j:Arturia");
      WAIT_UNTIL (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (midi_input_row)), "a2j:Arturia") == 0);
      g_settings_reset (settings, "midi-input");
    }
  }

  gtk_window_destroy (window);
}

/* History ----------------------------------------------------------------- */

/* The History group shows the history's size now, in the limit's
 * megabytes, and says when it is past the limit the window sets from the
 * setting; nothing is deleted. */
static void
test_history_size (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  g_autoptr(SjHistoryStore) history = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *big = NULL;
  g_autofree char *expected = NULL;
  GtkWindow *window;
  SjSettingsPage *page;
  GtkWidget *group, *size_row;
  GtkLabel *size_label;
  gint64 session;

  if (!have_keyring ())
    return;

  history = sj_history_store_new (":memory:", &error);
  g_assert_no_error (error);
  session = sj_history_store_create_session (history, "Jam", &error);
  g_assert_no_error (error);
  big = g_strnfill (3 * 1024 * 1024, 'x');
  sj_history_store_append_message (history, session, SJ_HISTORY_ROLE_USER, big, NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sj_history_store_get_size (history), >, 3 * 1024 * 1024);

  page = show_page (settings, &window);
  sj_settings_page_set_history (page, history);
  size_row = GTK_WIDGET (CHILD (page, "history_size_row"));
  size_label = GTK_LABEL (CHILD (page, "history_size_label"));
  group = gtk_widget_get_ancestor (size_row, ADW_TYPE_PREFERENCES_GROUP);
  g_assert_cmpstr (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)), ==, "History");
  g_assert_true (gtk_widget_get_ancestor (GTK_WIDGET (CHILD (page, "history_limit_spin")),
                                          ADW_TYPE_PREFERENCES_GROUP) == group);
  g_assert_true (gtk_widget_get_visible (size_row));
  WAIT_UNTIL (gtk_widget_get_mapped (size_row));

  expected = g_strdup_printf ("%.1f MB", sj_history_store_get_size (history) / (1024.0 * 1024.0));
  g_assert_cmpstr (gtk_label_get_text (size_label), ==, expected);
  g_assert_true (g_str_has_prefix (expected, "3."));
  g_assert_true (subtitle_is (size_row, ""));

  /* Past the limit (as the window sets it from history-size-limit-mb). */
  sj_history_store_set_size_limit (history, 1024 * 1024);
  g_assert_true (sj_history_store_get_over_limit (history));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (size_row)), "Sessions page"));
  sj_history_store_set_size_limit (history, 0);
  g_assert_true (subtitle_is (size_row, ""));

  /* Shown again, the page counts again. */
  gtk_widget_set_visible (GTK_WIDGET (page), FALSE);
  WAIT_UNTIL (!gtk_widget_get_mapped (size_row));
  sj_history_store_append_message (history, session, SJ_HISTORY_ROLE_USER, big, NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  gtk_widget_set_visible (GTK_WIDGET (page), TRUE);
  WAIT_UNTIL (gtk_widget_get_mapped (size_row));
  g_free (expected);
  expected = g_strdup_printf ("%.1f MB", sj_history_store_get_size (history) / (1024.0 * 1024.0));
  g_assert_true (g_str_has_prefix (expected, "6."));
  g_assert_cmpstr (gtk_label_get_text (size_label), ==, expected);

  sj_settings_page_set_history (page, NULL);
  g_assert_false (gtk_widget_get_visible (size_row));
  gtk_window_destroy (window);
}

/* API key ----------------------------------------------------------------- */

static void
test_api_key (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  g_autofree char *stored = NULL;
  GtkWindow *window;
  SjSettingsPage *page;
  GtkWidget *status_row, *entry_row, *set_button, *clear_button, *focus;

  if (!have_keyring ())
    return;

  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", provider.base_url);
  page = show_page (settings, &window);
  status_row = GTK_WIDGET (CHILD (page, "key_status_row"));
  entry_row = GTK_WIDGET (CHILD (page, "key_entry_row"));
  set_button = GTK_WIDGET (CHILD (page, "key_set_button"));
  clear_button = GTK_WIDGET (CHILD (page, "key_clear_button"));

  WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
  g_assert_false (gtk_widget_get_sensitive (set_button));
  g_assert_false (gtk_widget_get_sensitive (clear_button));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (set_button)), ==, "Set");

  /* The banner's fix puts the keyboard in the entry. */
  sj_settings_page_focus_api_key (page);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_true (focus == entry_row || gtk_widget_is_ancestor (focus, entry_row));

  /* Set: into the keyring, out of the entry. */
  gtk_editable_set_text (GTK_EDITABLE (entry_row), api_key);
  WAIT_UNTIL (gtk_widget_get_sensitive (set_button));
  g_signal_emit_by_name (set_button, "clicked");
  WAIT_UNTIL (subtitle_is (status_row, "Stored in the keyring"));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry_row)), ==, "");
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (set_button)), ==, "Replace");
  g_assert_true (gtk_widget_get_sensitive (clear_button));
  stored = sj_test_settings_lookup_key ("custom", provider.base_url, WAIT_LIMIT_SECONDS);
  /* Not g_assert_cmpstr: a failure would print the key. */
  g_assert_true (g_strcmp0 (stored, api_key) == 0);

  /* The models are asked for with the stored key. */
  sj_settings_page_refresh_models (page);
  WAIT_UNTIL (count_rows (GTK_LIST_BOX (CHILD (page, "models_list"))) == 3);
  g_assert_nonnull (provider.authorization);
  g_assert_true (g_str_has_prefix (provider.authorization, "Bearer ") &&
                 g_strcmp0 (provider.authorization + strlen ("Bearer "), api_key) == 0);

  /* Keys are kept per endpoint: OpenRouter has none. */
  g_settings_set_string (settings, "provider", "openrouter");
  WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
  g_settings_set_string (settings, "provider", "custom");
  WAIT_UNTIL (subtitle_is (status_row, "Stored in the keyring"));

  /* Clear. */
  g_signal_emit_by_name (clear_button, "clicked");
  WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
  g_clear_pointer (&stored, g_free);
  stored = sj_test_settings_lookup_key ("custom", provider.base_url, WAIT_LIMIT_SECONDS);
  g_assert_null (stored);
  g_assert_false (gtk_widget_get_sensitive (clear_button));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (set_button)), ==, "Set");

  /* A key stored or cleared elsewhere (the Chat's status page, another
   * window) shows here at once. */
  {
    g_autoptr(GAsyncResult) result = NULL;

    sj_secrets_store_api_key_async ("custom", provider.base_url, api_key, NULL, sj_test_store_result_cb, &result);
    WAIT_UNTIL (subtitle_is (status_row, "Stored in the keyring"));
    WAIT_UNTIL (result != NULL);
    g_assert_true (sj_secrets_store_api_key_finish (result, NULL));
    g_clear_object (&result);
    sj_secrets_clear_api_key_async ("custom", provider.base_url, NULL, sj_test_store_result_cb, &result);
    WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
    WAIT_UNTIL (result != NULL);
  }

  gtk_window_destroy (window);
}

/* Voice ------------------------------------------------------------------- */

/* Whether @text appears in no value of @settings. */
static gboolean
nowhere_in_settings (GSettings  *settings,
                     const char *text)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (settings, keys[i]);
      g_autofree char *printed = g_variant_print (value, FALSE);

      if (strstr (printed, text) != NULL)
        return FALSE;
    }

  return TRUE;
}

static gboolean
string_setting_is (GSettings  *settings,
                   const char *key,
                   const char *value)
{
  g_autofree char *current = g_settings_get_string (settings, key);

  return g_str_equal (current, value);
}

static gboolean
text_is (gpointer    editable,
         const char *text)
{
  return g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (editable)), text) == 0;
}

/* The Voice group: every control named for a screen reader, each switch
 * and entry bound to its setting both ways, and the transcription key
 * stored in the keyring under the service's URL, apart from the model's
 * key, shown as stored, cleared, and never in GSettings. */
static void
test_voice (void)
{
  static const struct {
    const char *name;
    const char *key;
    const char *title;
    gboolean    default_value;
  } switches[] = {
    { "voice_send_switch", "voice-send-automatically", "Send what was said at once", FALSE },
    { "voice_duck_switch", "voice-duck-music", "Lower the music while listening", TRUE },
  };
  static const struct {
    const char *name;
    const char *key;
    const char *title;
    const char *default_value;
    const char *typed;
  } entries[] = {
    { "voice_endpoint_row", "voice-endpoint-url", "Transcription service URL (optional)", "", "http://127.0.0.1:9/v1" },
    { "voice_model_row", "voice-endpoint-model", "Transcription model", "whisper-1", "large-v3" },
  };
  g_autoptr(GSettings) settings = new_settings ();
  g_autoptr(GString) unnamed = g_string_new (NULL);
  g_autofree char *stored = NULL;
  g_autofree char *other_url = g_strconcat (provider.base_url, "/other", NULL);
  GtkWindow *window;
  SjSettingsPage *page;
  GtkWidget *group, *endpoint_row, *key_row, *status_row, *clear_button;
  guint checked = 0;

  if (!have_keyring ())
    return;

  page = show_page (settings, &window);
  group = gtk_widget_get_ancestor (GTK_WIDGET (CHILD (page, "voice_send_switch")), ADW_TYPE_PREFERENCES_GROUP);
  endpoint_row = GTK_WIDGET (CHILD (page, "voice_endpoint_row"));
  key_row = GTK_WIDGET (CHILD (page, "voice_key_row"));
  status_row = GTK_WIDGET (CHILD (page, "voice_key_status_row"));
  clear_button = GTK_WIDGET (CHILD (page, "voice_key_clear_button"));
  g_assert_cmpstr (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)), ==, "Voice");
  WAIT_UNTIL (gtk_widget_get_mapped (group));

  /* Named: the two switches and their rows, the two entries, the key's
   * state with its Clear button, the key's entry and its peek button. */
  sj_test_collect_unnamed (group, "Voice", unnamed, &checked);
  g_test_message ("%u controls of the Voice group checked", checked);
  if (unnamed->len > 0)
    g_error ("Controls without an accessible name:\n%s", unnamed->str);
  g_assert_cmpuint (checked, >=, 9);

  /* The switches: each its row's, named as its row, both ways. */
  for (guint i = 0; i < G_N_ELEMENTS (switches); i++)
    {
      GtkSwitch *toggle = GTK_SWITCH (CHILD (page, switches[i].name));
      AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle), ADW_TYPE_ACTION_ROW));
      gboolean value = switches[i].default_value;

      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, switches[i].title);
      g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, switches[i].title);
      g_assert_true (adw_action_row_get_activatable_widget (row) == GTK_WIDGET (toggle));
      g_assert_cmpint (g_settings_get_boolean (settings, switches[i].key), ==, value);
      g_assert_cmpint (gtk_switch_get_active (toggle), ==, value);

      /* A click on the row, as on the switch. */
      adw_action_row_activate (row);
      WAIT_UNTIL (g_settings_get_boolean (settings, switches[i].key) == !value);
      gtk_switch_set_active (toggle, value);
      WAIT_UNTIL (g_settings_get_boolean (settings, switches[i].key) == value);
      g_settings_set_boolean (settings, switches[i].key, !value);
      WAIT_UNTIL (gtk_switch_get_active (toggle) == !value);
      g_settings_set_boolean (settings, switches[i].key, value);
      WAIT_UNTIL (gtk_switch_get_active (toggle) == value);
    }

  /* The offline recogniser (issue 30): Moonshine by default, the row and
   * the voice-engine setting bound both ways, named for a screen reader. */
  {
    AdwComboRow *engine_row = ADW_COMBO_ROW (CHILD (page, "voice_engine_row"));
    g_autofree char *engine = g_settings_get_string (settings, "voice-engine");

    gtk_test_accessible_assert_property (GTK_ACCESSIBLE (engine_row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                         "Offline recogniser");
    g_assert_cmpstr (engine, ==, "moonshine");
    g_assert_cmpuint (adw_combo_row_get_selected (engine_row), ==, 0);
    adw_combo_row_set_selected (engine_row, 1);
    WAIT_UNTIL (string_setting_is (settings, "voice-engine", "pocketsphinx"));
    g_settings_set_string (settings, "voice-engine", "moonshine");
    WAIT_UNTIL (adw_combo_row_get_selected (engine_row) == 0);
  }

  /* The service's URL and model, typed or set elsewhere. */
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      GtkWidget *row = GTK_WIDGET (CHILD (page, entries[i].name));

      g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, entries[i].title);
      g_assert_true (text_is (row, entries[i].default_value));
      gtk_editable_set_text (GTK_EDITABLE (row), entries[i].typed);
      WAIT_UNTIL (sj_test_settings_string_is (settings, entries[i].key, entries[i].typed));
      g_settings_set_string (settings, entries[i].key, "set-elsewhere");
      WAIT_UNTIL (text_is (row, "set-elsewhere"));
      g_settings_set_string (settings, entries[i].key, entries[i].default_value);
      WAIT_UNTIL (text_is (row, entries[i].default_value));
    }

  /* No URL, nowhere to keep a key: the entry is off, and says why. */
  WAIT_UNTIL (!gtk_widget_get_sensitive (key_row));
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (status_row)), "Enter the service URL first"));
  g_assert_false (gtk_widget_get_sensitive (clear_button));

  /* A URL typed: no key yet. */
  gtk_editable_set_text (GTK_EDITABLE (endpoint_row), provider.base_url);
  WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
  g_assert_true (gtk_widget_get_sensitive (key_row));
  g_assert_false (gtk_widget_get_sensitive (clear_button));

  /* Applied: into the keyring under the transcription service's URL, out
   * of the entry, apart from the model's key, nowhere in the settings. */
  gtk_editable_set_text (GTK_EDITABLE (key_row), api_key);
  g_signal_emit_by_name (key_row, "apply");
  WAIT_UNTIL (subtitle_is (status_row, "Stored in the keyring"));
  g_assert_true (text_is (key_row, ""));
  g_assert_true (gtk_widget_get_sensitive (clear_button));
  stored = sj_test_settings_lookup_key (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, provider.base_url, WAIT_LIMIT_SECONDS);
  /* Not g_assert_cmpstr: a failure would print the key. */
  g_assert_true (g_strcmp0 (stored, api_key) == 0);
  g_clear_pointer (&stored, g_free);
  stored = sj_test_settings_lookup_key ("custom", provider.base_url, WAIT_LIMIT_SECONDS);
  g_assert_null (stored);
  WAIT_UNTIL (subtitle_is (CHILD (page, "key_status_row"), "No key stored"));
  g_assert_true (nowhere_in_settings (settings, api_key));

  /* Kept per URL: another service has none, the first one keeps its. */
  g_settings_set_string (settings, "voice-endpoint-url", other_url);
  WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
  g_assert_false (gtk_widget_get_sensitive (clear_button));
  g_settings_set_string (settings, "voice-endpoint-url", provider.base_url);
  WAIT_UNTIL (subtitle_is (status_row, "Stored in the keyring"));

  /* Cleared from the keyring. */
  g_signal_emit_by_name (clear_button, "clicked");
  WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
  stored = sj_test_settings_lookup_key (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, provider.base_url, WAIT_LIMIT_SECONDS);
  g_assert_null (stored);
  g_assert_false (gtk_widget_get_sensitive (clear_button));

  /* Stored elsewhere (another window): shown here at once. */
  {
    g_autoptr(GAsyncResult) result = NULL;

    sj_secrets_store_api_key_async (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, provider.base_url, api_key, NULL,
                                    sj_test_store_result_cb, &result);
    WAIT_UNTIL (subtitle_is (status_row, "Stored in the keyring"));
    WAIT_UNTIL (result != NULL);
    g_assert_true (sj_secrets_store_api_key_finish (result, NULL));
    g_clear_object (&result);
    sj_secrets_clear_api_key_async (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, provider.base_url, NULL,
                                    sj_test_store_result_cb, &result);
    WAIT_UNTIL (subtitle_is (status_row, "No key stored"));
    WAIT_UNTIL (result != NULL);
  }
  g_assert_true (nowhere_in_settings (settings, api_key));

  gtk_window_destroy (window);
}

/* No keyring ------------------------------------------------------------- */

static gboolean
subtitle_has_prefix (gpointer    row,
                     const char *prefix)
{
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));

  return subtitle != NULL && g_str_has_prefix (subtitle, prefix);
}

static void
count_cb (guint *count)
{
  (*count)++;
}

/* Stores @entry_row's key with @set_button, or with the entry's own apply
 * button when there is none, into no keyring at all. */
static void
assert_store_fails (GtkWidget *status_row,
                    GtkWidget *entry_row,
                    GtkWidget *set_button)
{
  WAIT_UNTIL (subtitle_has_prefix (status_row, "No keyring available: "));
  gtk_editable_set_text (GTK_EDITABLE (entry_row), api_key);
  if (set_button != NULL)
    g_signal_emit_by_name (set_button, "clicked");
  else
    g_signal_emit_by_name (entry_row, "apply");
  g_assert_true (subtitle_is (status_row, "Storing the key…"));

  /* Said where the key's status is; the key stays in the entry, so trying
   * again needs no retyping. */
  WAIT_UNTIL (!subtitle_is (status_row, "Storing the key…"));
  g_assert_true (subtitle_has_prefix (status_row, "No keyring available: ") ||
                 subtitle_has_prefix (status_row, "The key could not be stored: "));
  g_assert_true (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (entry_row)), api_key) == 0);
  g_assert_true (gtk_widget_get_sensitive (entry_row));
  if (set_button != NULL)
    g_assert_true (gtk_widget_get_sensitive (set_button));
  gtk_editable_set_text (GTK_EDITABLE (entry_row), "");
}

/* Both keys with no Secret Service on the bus (test-secrets.sh none): what
 * went wrong is said in each key's own status row, and a key that could
 * not be stored is not lost. */
static void
test_no_keyring (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  GtkWindow *window;
  SjSettingsPage *page;
  guint n_changed = 0;

  if (g_strcmp0 (g_getenv ("SJ_TEST_KEYRING"), "none") != 0)
    {
      g_test_skip ("run by test-secrets.sh with no keyring");
      return;
    }

  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", provider.base_url);
  g_settings_set_string (settings, "voice-endpoint-url", provider.base_url);
  page = show_page (settings, &window);
  g_signal_connect_swapped (page, "api-key-changed", G_CALLBACK (count_cb), &n_changed);

  assert_store_fails (GTK_WIDGET (CHILD (page, "key_status_row")), GTK_WIDGET (CHILD (page, "key_entry_row")),
                      GTK_WIDGET (CHILD (page, "key_set_button")));
  assert_store_fails (GTK_WIDGET (CHILD (page, "voice_key_status_row")), GTK_WIDGET (CHILD (page, "voice_key_row")),
                      NULL);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (CHILD (page, "key_clear_button"))));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (CHILD (page, "voice_key_clear_button"))));
  g_assert_cmpuint (n_changed, ==, 0);

  gtk_window_destroy (window);
}

/* Models ------------------------------------------------------------------ */

static void
test_models (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  g_autofree char *unreachable = g_strdup_printf ("http://127.0.0.1:%u/v1", sj_test_closed_port ());
  g_autofree char *other_url = g_strconcat (provider.base_url, "/other", NULL);
  GtkWindow *window;
  SjSettingsPage *page;
  GtkListBox *list;
  GtkStack *stack;
  GtkWidget *error_row, *popover;
  guint n_requests;

  if (!have_keyring ())
    return;

  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", provider.base_url);
  page = show_page (settings, &window);
  list = GTK_LIST_BOX (CHILD (page, "models_list"));
  stack = GTK_STACK (CHILD (page, "models_stack"));
  error_row = GTK_WIDGET (CHILD (page, "models_error_row"));
  popover = GTK_WIDGET (CHILD (page, "models_popover"));
  provider.status = SOUP_STATUS_OK;

  /* Fetched from the loopback provider, in its order. */
  sj_settings_page_refresh_models (page);
  WAIT_UNTIL (count_rows (list) == 3);
  g_assert_cmpstr (provider.path, ==, "/v1/models");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "models");
  g_assert_false (gtk_widget_get_visible (error_row));

  /* The menu searches them; choosing one sets the model. */
  n_requests = provider.n_requests;
  gtk_menu_button_popup (GTK_MENU_BUTTON (CHILD (page, "models_button")));
  WAIT_UNTIL (gtk_widget_get_mapped (popover));
  g_assert_cmpuint (provider.n_requests, ==, n_requests);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (page, "models_search")), "M3");
  WAIT_UNTIL (count_rows (list) == 1);
  g_signal_emit_by_name (list, "row-activated", gtk_list_box_get_row_at_index (list, 0));
  WAIT_UNTIL (sj_test_settings_string_is (settings, "model", "other/m3"));
  WAIT_UNTIL (!gtk_widget_get_visible (popover));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (CHILD (page, "model_row"))), ==, "other/m3");

  /* Another endpoint: its models are fetched when the menu opens. */
  g_settings_set_string (settings, "base-url", other_url);
  WAIT_UNTIL (count_rows (list) == 0);
  gtk_menu_button_popup (GTK_MENU_BUTTON (CHILD (page, "models_button")));
  WAIT_UNTIL (count_rows (list) == 3);
  g_assert_cmpstr (provider.path, ==, "/v1/other/models");
  gtk_popover_popdown (GTK_POPOVER (popover));

  /* A failing provider is reported in the page and in the menu. */
  provider.status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
  sj_settings_page_refresh_models (page);
  WAIT_UNTIL (gtk_widget_get_visible (error_row));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "error");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (error_row)), !=, "");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (CHILD (page, "models_error_label"))), ==,
                   adw_action_row_get_subtitle (ADW_ACTION_ROW (error_row)));
  g_assert_cmpuint (count_rows (list), ==, 0);

  /* So is one that cannot be reached; a new endpoint clears the old error. */
  provider.status = SOUP_STATUS_OK;
  g_settings_set_string (settings, "base-url", unreachable);
  WAIT_UNTIL (!gtk_widget_get_visible (error_row));
  sj_settings_page_refresh_models (page);
  WAIT_UNTIL (gtk_widget_get_visible (error_row));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "error");

  /* And Refresh recovers once it answers again. */
  g_settings_set_string (settings, "base-url", provider.base_url);
  sj_settings_page_refresh_models (page);
  WAIT_UNTIL (count_rows (list) == 3);
  g_assert_false (gtk_widget_get_visible (error_row));

  /* Gone mid-fetch: the page's callbacks must not run on a dead page. */
  sj_settings_page_refresh_models (page);
  gtk_window_destroy (window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Problem banner ---------------------------------------------------------- */

static void
count_activation_cb (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  (*(guint *)user_data)++;
}

static void
test_banner (void)
{
  static const struct {
    SjProblem   problem;
    const char *detail;
    const char *text;
    const char *button;
    const char *action;
  } cases[] = {
    { SJ_PROBLEM_NO_API_KEY, NULL, "needs an API key", "Add Key", "win.show-agent-settings" },
    { SJ_PROBLEM_NO_KEYRING, NULL, "Secret Service", "Use a Local Model", "win.show-agent-settings" },
    { SJ_PROBLEM_UNAUTHORIZED, NULL, "did not accept the API key", "Replace Key", "win.show-agent-settings" },
    { SJ_PROBLEM_OFFLINE, NULL, "cannot be reached", "Retry", "agent.retry" },
    { SJ_PROBLEM_RATE_LIMITED, "Try again in 17 seconds.", "too many requests", "Retry", "agent.retry" },
  };
  g_autoptr(GSimpleActionGroup) win = g_simple_action_group_new ();
  g_autoptr(GSimpleActionGroup) agent = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) settings_action = g_simple_action_new ("show-agent-settings", NULL);
  g_autoptr(GSimpleAction) retry_action = g_simple_action_new ("retry", NULL);
  guint n_settings = 0, n_retries = 0;
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  SjProblemBanner *banner = SJ_PROBLEM_BANNER (_sj_problem_banner_new ());
  GtkRevealer *revealer = GTK_REVEALER (gtk_widget_get_first_child (GTK_WIDGET (banner)));
  GtkWidget *box = gtk_revealer_get_child (revealer);
  GtkWidget *button = GTK_WIDGET (_sj_problem_banner_get_button (banner));

  g_signal_connect (settings_action, "activate", G_CALLBACK (count_activation_cb), &n_settings);
  g_signal_connect (retry_action, "activate", G_CALLBACK (count_activation_cb), &n_retries);
  g_action_map_add_action (G_ACTION_MAP (win), G_ACTION (settings_action));
  g_action_map_add_action (G_ACTION_MAP (agent), G_ACTION (retry_action));
  gtk_widget_insert_action_group (GTK_WIDGET (window), "win", G_ACTION_GROUP (win));
  gtk_widget_insert_action_group (GTK_WIDGET (window), "agent", G_ACTION_GROUP (agent));
  gtk_window_set_child (window, GTK_WIDGET (banner));
  gtk_window_present (window);

  g_assert_true (gtk_widget_has_css_class (box, "sj-problem-banner"));
  g_assert_false (gtk_revealer_get_reveal_child (revealer));
  g_assert_cmpint (_sj_problem_banner_get_problem (banner), ==, SJ_PROBLEM_NONE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *text;

      sj_problem_banner_show (banner, cases[i].problem, cases[i].detail);
      text = _sj_problem_banner_get_message (banner);
      g_assert_true (gtk_revealer_get_reveal_child (revealer));
      g_assert_cmpint (_sj_problem_banner_get_problem (banner), ==, cases[i].problem);
      g_assert_nonnull (strstr (text, cases[i].text));
      if (cases[i].detail != NULL)
        g_assert_true (g_str_has_suffix (text, cases[i].detail));
      g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, cases[i].button);
      g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, cases[i].action);
      /* The agent's problems have no title: the chat says the rest. */
      g_assert_null (_sj_problem_banner_get_title (banner));
      gtk_test_accessible_assert_property (button, GTK_ACCESSIBLE_PROPERTY_LABEL, cases[i].button);
    }

  /* The no-keyring text also offers the way without a key. */
  sj_problem_banner_show (banner, SJ_PROBLEM_NO_KEYRING, NULL);
  g_assert_nonnull (strstr (_sj_problem_banner_get_message (banner), "needs no key"));

  /* The buttons drive the window's actions. */
  sj_problem_banner_show (banner, SJ_PROBLEM_NO_API_KEY, NULL);
  WAIT_UNTIL (gtk_widget_get_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (n_settings, ==, 1);
  sj_problem_banner_show (banner, SJ_PROBLEM_OFFLINE, NULL);
  WAIT_UNTIL (gtk_widget_get_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (n_retries, ==, 1);

  sj_problem_banner_hide (banner);
  g_assert_false (gtk_revealer_get_reveal_child (revealer));
  g_assert_cmpint (_sj_problem_banner_get_problem (banner), ==, SJ_PROBLEM_NONE);
  sj_problem_banner_show (banner, SJ_PROBLEM_UNAUTHORIZED, NULL);
  sj_problem_banner_show (banner, SJ_PROBLEM_NONE, "ignored");
  g_assert_false (gtk_revealer_get_reveal_child (revealer));

  gtk_window_destroy (window);
}

static void
test_problem_from_error (void)
{
  static const struct {
    const char *domain;
    gint        code;
    SjProblem   problem;
  } cases[] = {
    { "llm", SJ_LLM_CLIENT_ERROR_UNAUTHORIZED, SJ_PROBLEM_UNAUTHORIZED },
    { "llm", SJ_LLM_CLIENT_ERROR_RATE_LIMITED, SJ_PROBLEM_RATE_LIMITED },
    { "llm", SJ_LLM_CLIENT_ERROR_NETWORK, SJ_PROBLEM_OFFLINE },
    { "llm", SJ_LLM_CLIENT_ERROR_SERVER, SJ_PROBLEM_NONE },
    { "llm", SJ_LLM_CLIENT_ERROR_PROTOCOL, SJ_PROBLEM_NONE },
    { "llm", SJ_LLM_CLIENT_ERROR_REJECTED, SJ_PROBLEM_NONE },
    { "secrets", SJ_SECRETS_ERROR_NO_KEYRING, SJ_PROBLEM_NO_KEYRING },
    { "secrets", SJ_SECRETS_ERROR_LOCKED, SJ_PROBLEM_NONE },
    { "secrets", SJ_SECRETS_ERROR_FAILED, SJ_PROBLEM_NONE },
    { "io", G_IO_ERROR_CANCELLED, SJ_PROBLEM_NONE },
    /* The same code numbers in another domain are not those problems. */
    { "io", SJ_LLM_CLIENT_ERROR_UNAUTHORIZED, SJ_PROBLEM_NONE },
  };

  g_assert_cmpint (sj_problem_from_error (NULL), ==, SJ_PROBLEM_NONE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GQuark domain = g_str_equal (cases[i].domain, "llm") ? SJ_LLM_CLIENT_ERROR :
                      g_str_equal (cases[i].domain, "secrets") ? SJ_SECRETS_ERROR : G_IO_ERROR;
      g_autoptr(GError) error = g_error_new_literal (domain, cases[i].code, "test");

      g_assert_cmpint (sj_problem_from_error (error), ==, cases[i].problem);
    }
}

/* Keys over plain HTTP ------------------------------------------------------- */

/* Under each base URL, a switch that allows the key over plain http:// to
 * that address; shown only when the URL is http:// to another computer. */
static void
test_insecure_key (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  g_autoptr(GPtrArray) rows = NULL;
  g_auto(GStrv) allowed = NULL;
  GtkWindow *window;
  SjSettingsPage *page;
  SjInsecureKeyRow *model_row, *voice_row;

  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", "http://10.0.0.5:8080/v1/");
  g_settings_set_string (settings, "voice-endpoint-url", "https://api.example.com/v1");
  page = show_page (settings, &window);
  rows = sj_test_find_all_by_type (GTK_WIDGET (page), SJ_TYPE_INSECURE_KEY_ROW);
  g_assert_cmpuint (rows->len, ==, 2);
  /* The model's group comes first. */
  model_row = rows->pdata[0];
  voice_row = rows->pdata[1];

  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (model_row)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (voice_row)));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (model_row)), "http://10.0.0.5:8080/v1"));
  g_assert_false (gtk_switch_get_active (sj_insecure_key_row_get_switch (model_row)));

  /* On: the address is allowed; off again: no longer. */
  gtk_switch_set_active (sj_insecure_key_row_get_switch (model_row), TRUE);
  allowed = g_settings_get_strv (settings, "insecure-key-urls");
  g_assert_cmpuint (g_strv_length (allowed), ==, 1);
  g_assert_cmpstr (allowed[0], ==, "http://10.0.0.5:8080/v1");
  g_clear_pointer (&allowed, g_strfreev);

  /* This computer needs no permission; back to the address, still allowed. */
  g_settings_set_string (settings, "base-url", "http://127.0.0.1:11434/v1");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (model_row)));
  g_settings_set_string (settings, "base-url", "http://10.0.0.5:8080/v1");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (model_row)));
  g_assert_true (gtk_switch_get_active (sj_insecure_key_row_get_switch (model_row)));
  gtk_switch_set_active (sj_insecure_key_row_get_switch (model_row), FALSE);
  allowed = g_settings_get_strv (settings, "insecure-key-urls");
  g_assert_cmpuint (g_strv_length (allowed), ==, 0);
  g_clear_pointer (&allowed, g_strfreev);

  /* The transcription service's URL has its own. */
  g_settings_set_string (settings, "voice-endpoint-url", "http://192.168.1.9:8000/v1");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (voice_row)));
  gtk_switch_set_active (sj_insecure_key_row_get_switch (voice_row), TRUE);
  allowed = g_settings_get_strv (settings, "insecure-key-urls");
  g_assert_cmpstrv (allowed, ((const char * const[]) { "http://192.168.1.9:8000/v1", NULL }));

  gtk_window_destroy (window);
}

/* The OSC destinations answered, and Forget. */
static void
test_osc_destinations (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  g_autoptr(GVariant) answers = NULL;
  GtkWindow *window;
  SjSettingsPage *page;
  SjOscDestinationsRow *row;
  GtkButton *forget;

  page = show_page (settings, &window);
  row = SJ_OSC_DESTINATIONS_ROW (sj_test_find_by_type (GTK_WIDGET (page), SJ_TYPE_OSC_DESTINATIONS_ROW));
  g_assert_nonnull (row);
  forget = sj_osc_destinations_row_get_button (row);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, "Code has asked for none yet");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (forget)));

  g_settings_set_value (settings, "osc-destinations",
                        g_variant_new_parsed ("{'10.0.0.5:57120': true, '192.168.1.3:9000': false}"));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                   "Allowed: 10.0.0.5:57120\nBlocked: 192.168.1.3:9000");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (forget)));

  g_signal_emit_by_name (forget, "clicked");
  answers = g_settings_get_value (settings, "osc-destinations");
  g_assert_cmpuint (g_variant_n_children (answers), ==, 0);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (forget)));

  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  /* The private session bus has no accessibility bus to offer; the test
   * backend needs none, and keeps the accessible properties to check. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  sj_test_tolerate_gtk_snapshot_race ();
  g_test_init (&argc, &argv, NULL);
  /* stdout is the TAP stream: GTK's debug messages (the script sets
   * G_MESSAGES_DEBUG=all) go with the other logs. */
  g_log_writer_default_set_use_stderr (TRUE);
  adw_init ();
  sj_register_resource ();

  api_key = g_getenv ("SJ_TEST_API_KEY");
  if (api_key == NULL || *api_key == '\0')
    api_key = "sk-test-settings-page";
  start_provider ();

  g_test_add_func ("/settings-page/bindings", test_bindings);
  g_test_add_func ("/settings-page/history-size", test_history_size);
  g_test_add_func ("/settings-page/api-key", test_api_key);
  g_test_add_func ("/settings-page/models", test_models);
  g_test_add_func ("/settings-page/voice", test_voice);
  g_test_add_func ("/settings-page/no-keyring", test_no_keyring);
  g_test_add_func ("/settings-page/insecure-key", test_insecure_key);
  g_test_add_func ("/settings-page/osc-destinations", test_osc_destinations);
  g_test_add_func ("/problem-banner/show", test_banner);
  g_test_add_func ("/problem-banner/from-error", test_problem_from_error);

  status = g_test_run ();

  soup_server_disconnect (provider.server);
  g_clear_object (&provider.server);
  g_free (provider.base_url);
  g_free (provider.path);
  g_free (provider.authorization);
  return status;
}
