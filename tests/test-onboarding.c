/* test-onboarding.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Chat's first-start status page, in each state, as real widgets under
 * Xvfb: the chat panel with a real SjAgent and SjAgentConfig over settings
 * of its own. tests/test-secrets.sh runs it with a gnome-keyring of its own
 * ("running") or with no keyring at all ("none"), so a key pasted goes to
 * a throwaway keyring and the script checks it never leaks. A loopback
 * model server plays OpenRouter (its /key, /models and chat completions);
 * another plays a model server on this computer, found because the ports
 * searched are ports the test controls. Keys are real X key events
 * (xdotool): the key is pasted with Ctrl+V, URLs typed, Enter pressed.
 *
 * Every wait spins the main loop until what is waited for holds.
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <libsoup/soup.h>
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "sj-agent-config.h"
#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-llm-client-private.h"
#include "sj-local-servers-private.h"
#include "sj-resources.h"
#include "sj-secrets.h"
#include "sj-settings-page.h"
#include "sj-test-files.h"
#include "sj-test-model-server.h"
#include "sj-test-settings.h"
#include "sj-test-target.h"
#include "sj-test-widgets.h"

#define SCHEMA_ID "io.github.strudeljam.StrudelJam"
#define WAIT_LIMIT_SECONDS 30
#define HOSTED_MODELS \
  "{\"data\":[" \
  "{\"id\":\"openai/gpt-5-pro\",\"supported_parameters\":[\"tools\",\"reasoning\"]}," \
  "{\"id\":\"some/image-model\",\"supported_parameters\":[\"temperature\"]}," \
  "{\"id\":\"google/gemini-2.5-flash\",\"supported_parameters\":[\"tools\"]}]}"
#define LOCAL_MODELS \
  "{\"object\":\"list\",\"data\":[{\"id\":\"nomic-embed-text:latest\"},{\"id\":\"llama3.2:3b\"},{\"id\":\"qwen3:8b\"}]}"

#define CHILD(onboarding, name) GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (onboarding), SJ_TYPE_ONBOARDING, name))
#define WAIT_UNTIL(condition) G_STMT_START { \
    guint wait_timeout_id_ = g_timeout_add_seconds (WAIT_LIMIT_SECONDS, wait_timed_out_cb, (gpointer) #condition); \
    while (!(condition)) \
      g_main_context_iteration (NULL, TRUE); \
    g_source_remove (wait_timeout_id_); \
  } G_STMT_END
#define PRESS(fixture, ...) sj_test_key_window_press (&(fixture)->keys, (const char *[]) { __VA_ARGS__, NULL })

static const char *api_key;

typedef struct
{
  char              *dir;
  SjTestModelServer *openrouter;  /* plays OpenRouter */
  SjTestModelServer *local;       /* plays Ollama on this computer */
  GSettings         *settings;
  SjTestTarget      *target;
  SjHistoryStore    *store;
  SjAgent           *agent;
  SjAgentConfig     *config;

  SjTestKeyWindow    keys;
  SjChatPanel       *panel;
  SjOnboarding      *onboarding;
  GtkWidget         *composer_text;
} Fixture;

static gboolean
wait_timed_out_cb (gpointer user_data)
{
  g_error ("Waited %d s in vain for: %s", WAIT_LIMIT_SECONDS, (const char *)user_data);
  return G_SOURCE_REMOVE;
}

static gboolean
have_keyring (const char *mode)
{
  if (g_strcmp0 (g_getenv ("SJ_TEST_KEYRING"), mode) == 0)
    return TRUE;

  g_test_skip ("run by test-secrets.sh with the keyring this case is about");
  return FALSE;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();
  g_autoptr(SjKnowledge) knowledge = NULL;
  g_autoptr(SjDryRun) dry_run = sj_dry_run_new ();
  g_autoptr(SjChangeApplier) applier = NULL;
  g_autoptr(SjAgentTools) tools = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("sj-onboarding-XXXXXX", &error);
  g_assert_no_error (error);

  fixture->openrouter = sj_test_model_server_new ();
  sj_test_model_server_set_models (fixture->openrouter, HOSTED_MODELS);
  sj_test_model_server_set_api_key (fixture->openrouter, api_key);
  _sj_llm_client_set_openrouter_url (sj_test_model_server_get_url (fixture->openrouter));
  fixture->local = sj_test_model_server_new ();
  sj_test_model_server_set_models (fixture->local, LOCAL_MODELS);

  fixture->settings = g_settings_new_with_backend (SCHEMA_ID, backend);
  fixture->target = sj_test_target_new ("s(\"bd sd\")");
  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  applier = sj_change_applier_new (SJ_LIVE_TARGET (fixture->target), dry_run, knowledge, timeline);
  path = g_build_filename (fixture->dir, "history.db", NULL);
  fixture->store = sj_history_store_new (path, &error);
  g_assert_no_error (error);
  tools = sj_agent_tools_new (applier, knowledge, sj_knowledge_base_get_bundled ());
  fixture->agent = sj_agent_new (tools, fixture->store);

  fixture->panel = SJ_CHAT_PANEL (_sj_chat_panel_new ());
  fixture->onboarding = _sj_chat_panel_get_onboarding (fixture->panel);
  fixture->composer_text = sj_test_find_by_type (GTK_WIDGET (_sj_chat_panel_get_composer (fixture->panel)),
                                                 GTK_TYPE_TEXT_VIEW);
}

/* The config is made once the case has set the settings and the ports. */
static void
open_panel (Fixture *fixture)
{
  fixture->config = sj_agent_config_new (fixture->agent, fixture->settings);
  sj_chat_panel_set_agent (fixture->panel, fixture->agent, fixture->config);
  sj_test_key_window_open (&fixture->keys, GTK_WIDGET (fixture->panel), 420, 760, WAIT_LIMIT_SECONDS);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->keys.window != NULL)
    sj_test_key_window_close (&fixture->keys);
  else
    {
      /* Skipped before it was shown. */
      g_object_ref_sink (fixture->panel);
      g_object_unref (fixture->panel);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->config);
  g_clear_object (&fixture->agent);
  g_clear_object (&fixture->store);
  g_clear_object (&fixture->target);
  g_clear_object (&fixture->settings);
  g_clear_pointer (&fixture->openrouter, sj_test_model_server_free);
  g_clear_pointer (&fixture->local, sj_test_model_server_free);
  _sj_llm_client_set_openrouter_url (NULL);
  _sj_local_servers_set_ports (NULL, 0);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

/* What the panel shows ---------------------------------------------------- */

static gboolean
onboarding_shown (Fixture *fixture)
{
  return gtk_widget_get_mapped (GTK_WIDGET (fixture->onboarding)) &&
         !gtk_widget_get_mapped (fixture->composer_text);
}

static gboolean
composer_ready (Fixture *fixture)
{
  return gtk_widget_get_mapped (fixture->composer_text) &&
         !gtk_widget_get_mapped (GTK_WIDGET (fixture->onboarding)) &&
         gtk_widget_has_focus (fixture->composer_text);
}

static const char *
title (Fixture *fixture)
{
  return adw_status_page_get_title (ADW_STATUS_PAGE (CHILD (fixture->onboarding, "status_page")));
}

static gboolean
description_has (Fixture    *fixture,
                 const char *text)
{
  const char *description = adw_status_page_get_description (ADW_STATUS_PAGE (CHILD (fixture->onboarding, "status_page")));

  return description != NULL && strstr (description, text) != NULL;
}

static gboolean
step_is (Fixture    *fixture,
         const char *name)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (CHILD (fixture->onboarding, "steps"))), name) == 0;
}

static gboolean
label_has (Fixture    *fixture,
           const char *name,
           const char *text)
{
  GtkWidget *label = CHILD (fixture->onboarding, name);

  return gtk_widget_get_visible (label) && strstr (gtk_label_get_label (GTK_LABEL (label)), text) != NULL;
}

static gboolean
focus_within (Fixture    *fixture,
              const char *name)
{
  GtkWidget *widget = CHILD (fixture->onboarding, name);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (fixture->keys.window));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

static const char *
selected_model (Fixture *fixture)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (ADW_COMBO_ROW (CHILD (fixture->onboarding, "model_row")));

  return item != NULL ? gtk_string_object_get_string (item) : NULL;
}

static const char *
entry_text (Fixture    *fixture,
            const char *name)
{
  return gtk_editable_get_text (GTK_EDITABLE (CHILD (fixture->onboarding, name)));
}

/* Types @text where the keyboard is, as the musician would. */
static void
type_text (Fixture    *fixture,
           const char *text)
{
  sj_test_run_xdotool ((const char *[]) { "type", "--delay", "10", text, NULL });
  sj_test_key_window_press (&fixture->keys, (const char *[]) { NULL });
}

/* Pastes @text with Ctrl+V from the clipboard, as a key is pasted. */
static void
paste_text (Fixture    *fixture,
            const char *text)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (fixture->keys.window)), text);
  PRESS (fixture, "ctrl+v");
}

/* The agent answers: the composer sends to the model the setup chose. */
static void
assert_model_answers (Fixture           *fixture,
                      SjTestModelServer *server,
                      const char        *model)
{
  GListModel *messages = _sj_chat_panel_get_messages (fixture->panel);

  sj_test_model_server_reply_text (server, "Ready to jam.", 4);
  sj_composer_set_text (_sj_chat_panel_get_composer (fixture->panel), "hello");
  PRESS (fixture, "Return");
  WAIT_UNTIL (!sj_agent_is_busy (fixture->agent) && g_list_model_get_n_items (messages) == 2);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (server), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (sj_test_model_server_get_request (server, 0), "model"), ==, model);
  {
    g_autoptr(SjChatMessage) answer = g_list_model_get_item (messages, 1);

    g_assert_cmpstr (sj_chat_message_get_content (answer), ==, "Ready to jam.");
  }
}

/* Writes the window to @name in SJ_TEST_OUTPUT_DIR (or the temporary
 * directory), for a look at each state. */
static void
screenshot (Fixture    *fixture,
            const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  sj_test_key_window_wait_frames (&fixture->keys, 3);
  texture = sj_test_render_widget (GTK_WIDGET (fixture->keys.window));
  path = sj_test_save_png (texture, name);
}

/* The states -------------------------------------------------------------- */

static void
assert_accessible (Fixture *fixture)
{
  static const char * const named[] = {
    "key_row", "key_button", "detect_button", "local_row", "local_button", "model_row",
  };

  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (CHILD (fixture->onboarding, named[i])),
                                                     GTK_ACCESSIBLE_PROPERTY_LABEL));
}

/* A first start: no key, no model. A key pasted is checked, kept in the
 * keyring, the models fetched and the suggested one selected; Enter
 * starts, and the composer takes the keyboard. */
static void
test_no_key (Fixture       *fixture,
             gconstpointer  data)
{
  guint16 ports[] = { sj_test_closed_port () };
  g_autofree char *stored = NULL;

  if (!have_keyring ("running"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  open_panel (fixture);

  WAIT_UNTIL (onboarding_shown (fixture));
  g_assert_cmpstr (title (fixture), ==, "Connect a Model");
  g_assert_true (description_has (fixture, "OpenRouter API key"));
  g_assert_true (step_is (fixture, "connect"));
  g_assert_false (gtk_widget_get_visible (CHILD (fixture->onboarding, "retry_button")));
  g_assert_true (gtk_widget_is_sensitive (CHILD (fixture->onboarding, "key_row")));
  g_assert_false (gtk_widget_get_sensitive (CHILD (fixture->onboarding, "key_button")));
  assert_accessible (fixture);

  /* Nothing on this computer: said so, the usual URL offered. */
  WAIT_UNTIL (strstr (gtk_label_get_label (GTK_LABEL (CHILD (fixture->onboarding, "local_status"))),
                      "Nothing answers on the usual ports") != NULL);
  g_assert_cmpstr (entry_text (fixture, "local_row"), ==, "http://localhost:11434/v1");
  screenshot (fixture, "strudel-jam-onboarding.png");

  /* Ctrl+L puts the keyboard in the key row; the key is pasted. */
  sj_chat_panel_focus_composer (fixture->panel);
  g_assert_true (focus_within (fixture, "key_row"));
  paste_text (fixture, api_key);
  WAIT_UNTIL (gtk_widget_get_sensitive (CHILD (fixture->onboarding, "key_button")));
  PRESS (fixture, "Return");

  /* Checked with OpenRouter, kept in the keyring, out of the entry. */
  WAIT_UNTIL (step_is (fixture, "model"));
  g_assert_true (g_strcmp0 (sj_test_model_server_get_checked_key (fixture->openrouter), api_key) == 0);
  g_assert_cmpuint (sj_test_model_server_get_n_model_lists (fixture->openrouter), ==, 1);
  stored = sj_test_settings_lookup_key ("openrouter", sj_test_model_server_get_url (fixture->openrouter), WAIT_LIMIT_SECONDS);
  /* Not g_assert_cmpstr: a failure would print the key. */
  g_assert_true (g_strcmp0 (stored, api_key) == 0);
  g_assert_cmpstr (entry_text (fixture, "key_row"), ==, "");

  /* The models that call tools, the suggested one selected. */
  g_assert_cmpstr (title (fixture), ==, "Choose a Model");
  g_assert_true (description_has (fixture, "2 models"));
  g_assert_cmpuint (g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (CHILD (fixture->onboarding, "model_row")))), ==, 2);
  g_assert_cmpstr (selected_model (fixture), ==, "google/gemini-2.5-flash");
  g_assert_true (focus_within (fixture, "start_button"));
  g_assert_true (onboarding_shown (fixture));
  screenshot (fixture, "strudel-jam-onboarding-model.png");

  /* Enter: the setting written, the composer ready with the keyboard. */
  PRESS (fixture, "Return");
  WAIT_UNTIL (composer_ready (fixture));
  g_assert_true (sj_test_settings_string_is (fixture->settings, "provider", "openrouter"));
  g_assert_true (sj_test_settings_string_is (fixture->settings, "model", "google/gemini-2.5-flash"));
  g_assert_null (sj_agent_config_get_problem (fixture->config));

  assert_model_answers (fixture, fixture->openrouter, "google/gemini-2.5-flash");

  /* Cleared elsewhere (Settings): the status page is back. */
  {
    g_autoptr(GAsyncResult) result = NULL;

    sj_secrets_clear_api_key_async ("openrouter", sj_test_model_server_get_url (fixture->openrouter), NULL,
                                    sj_test_store_result_cb, &result);
    WAIT_UNTIL (onboarding_shown (fixture));
    g_assert_cmpstr (title (fixture), ==, "Connect a Model");
    WAIT_UNTIL (result != NULL);
  }
}

/* A key OpenRouter refuses: said under the key, never stored. */
static void
test_refused_key (Fixture       *fixture,
                  gconstpointer  data)
{
  guint16 ports[] = { sj_test_closed_port () };
  g_autofree char *stored = NULL;

  if (!have_keyring ("running"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  open_panel (fixture);
  WAIT_UNTIL (onboarding_shown (fixture));

  sj_chat_panel_focus_composer (fixture->panel);
  paste_text (fixture, "sk-or-v1-refused-refused-refused");
  WAIT_UNTIL (gtk_widget_get_sensitive (CHILD (fixture->onboarding, "key_button")));
  PRESS (fixture, "Return");
  WAIT_UNTIL (label_has (fixture, "key_error", "OpenRouter refused this key"));
  g_assert_cmpstr (sj_test_model_server_get_checked_key (fixture->openrouter), ==, "sk-or-v1-refused-refused-refused");
  g_assert_cmpuint (sj_test_model_server_get_n_model_lists (fixture->openrouter), ==, 0);
  g_assert_true (step_is (fixture, "connect"));
  g_assert_true (onboarding_shown (fixture));
  stored = sj_test_settings_lookup_key ("openrouter", sj_test_model_server_get_url (fixture->openrouter), WAIT_LIMIT_SECONDS);
  g_assert_null (stored);

  /* The key stays for mending; mending it clears the error. */
  g_assert_cmpstr (entry_text (fixture, "key_row"), ==, "sk-or-v1-refused-refused-refused");
  g_assert_true (focus_within (fixture, "key_row"));
  PRESS (fixture, "BackSpace");
  g_assert_false (gtk_widget_get_visible (CHILD (fixture->onboarding, "key_error")));
}

/* A server on this computer is found, its models fetched: Enter twice and
 * the composer is ready, the Settings page agreeing. */
static void
test_local_detected (Fixture       *fixture,
                     gconstpointer  data)
{
  guint16 ports[] = { sj_test_closed_port (), sj_test_model_server_get_port (fixture->local) };
  const char *local_url = sj_test_model_server_get_url (fixture->local);
  GtkWindow *settings_window;
  GtkWidget *settings_page;
  g_autofree char *status = NULL;

  if (!have_keyring ("running"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  open_panel (fixture);
  WAIT_UNTIL (onboarding_shown (fixture));
  WAIT_UNTIL (g_strcmp0 (entry_text (fixture, "local_row"), local_url) == 0);
  status = g_strdup_printf ("Found a model server at %s.", local_url);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (CHILD (fixture->onboarding, "local_status"))), ==, status);

  /* In the server's row, as a click puts the keyboard; Enter connects. */
  gtk_widget_grab_focus (CHILD (fixture->onboarding, "local_row"));
  PRESS (fixture, "Return");
  WAIT_UNTIL (step_is (fixture, "model"));
  g_assert_true (description_has (fixture, local_url));
  /* The embedding model is not offered; qwen3 is suggested. */
  g_assert_cmpuint (g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (CHILD (fixture->onboarding, "model_row")))), ==, 2);
  g_assert_cmpstr (selected_model (fixture), ==, "qwen3:8b");

  PRESS (fixture, "Return");
  WAIT_UNTIL (composer_ready (fixture));
  g_assert_true (sj_test_settings_string_is (fixture->settings, "provider", "custom"));
  g_assert_true (sj_test_settings_string_is (fixture->settings, "base-url", local_url));
  g_assert_true (sj_test_settings_string_is (fixture->settings, "model", "qwen3:8b"));

  assert_model_answers (fixture, fixture->local, "qwen3:8b");

  /* The Settings page, bound to the same settings, shows the same (last:
   * its window takes the X focus from the key window). */
  settings_page = sj_settings_page_new (fixture->settings);
  settings_window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_child (settings_window, settings_page);
  gtk_window_present (settings_window);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (gtk_widget_get_template_child (settings_page, SJ_TYPE_SETTINGS_PAGE, "model_row"))), ==, "qwen3:8b");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (gtk_widget_get_template_child (settings_page, SJ_TYPE_SETTINGS_PAGE, "base_url_row"))), ==, local_url);
  gtk_window_destroy (settings_window);
}

/* Nothing answers, here or at the URL typed: said so, with the address. */
static void
test_nothing_answering (Fixture       *fixture,
                        gconstpointer  data)
{
  guint16 ports[] = { sj_test_closed_port (), sj_test_closed_port () };
  g_autofree char *typed = g_strdup_printf ("http://127.0.0.1:%u/v1", sj_test_closed_port ());

  if (!have_keyring ("running"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  open_panel (fixture);
  WAIT_UNTIL (onboarding_shown (fixture));
  WAIT_UNTIL (strstr (gtk_label_get_label (GTK_LABEL (CHILD (fixture->onboarding, "local_status"))),
                      "Nothing answers on the usual ports") != NULL);

  gtk_widget_grab_focus (CHILD (fixture->onboarding, "local_row"));
  PRESS (fixture, "ctrl+a");
  type_text (fixture, typed);
  g_assert_cmpstr (entry_text (fixture, "local_row"), ==, typed);
  PRESS (fixture, "Return");
  WAIT_UNTIL (label_has (fixture, "local_error", "Nothing answers at"));
  g_assert_true (label_has (fixture, "local_error", typed));
  g_assert_true (step_is (fixture, "connect"));
  screenshot (fixture, "strudel-jam-onboarding-nothing.png");
  g_assert_true (onboarding_shown (fixture));

  /* Looking again finds nothing either; the URL typed stays until then. */
  gtk_widget_activate (CHILD (fixture->onboarding, "detect_button"));
  WAIT_UNTIL (gtk_widget_get_sensitive (CHILD (fixture->onboarding, "detect_button")));
  g_assert_true (strstr (gtk_label_get_label (GTK_LABEL (CHILD (fixture->onboarding, "local_status"))),
                         "Nothing answers on the usual ports") != NULL);
}

/* The custom endpoint set up before does not answer: said so; once a
 * server answers there, Try Again gives the composer back. */
static void
test_unreachable (Fixture       *fixture,
                  gconstpointer  data)
{
  guint16 ports[] = { sj_test_closed_port () };
  guint16 port = sj_test_closed_port ();
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_keyring ("running"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  g_settings_set_string (fixture->settings, "provider", "custom");
  g_settings_set_string (fixture->settings, "base-url", url);
  g_settings_set_string (fixture->settings, "model", "qwen3:8b");
  open_panel (fixture);

  WAIT_UNTIL (onboarding_shown (fixture));
  g_assert_cmpstr (title (fixture), ==, "The Model Server Does Not Answer");
  g_assert_true (description_has (fixture, url));
  g_assert_true (gtk_widget_get_visible (CHILD (fixture->onboarding, "retry_button")));

  /* The server starts; Try Again, from the keyboard. */
  server = soup_server_new (NULL, NULL);
  soup_server_listen_local (server, port, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  gtk_widget_grab_focus (CHILD (fixture->onboarding, "retry_button"));
  PRESS (fixture, "space");
  WAIT_UNTIL (composer_ready (fixture));
  g_assert_null (sj_agent_config_get_problem (fixture->config));
  soup_server_disconnect (server);
}

/* A key is stored but no model chosen: straight to the model step, and
 * back to the ways on request. */
static void
test_no_model (Fixture       *fixture,
               gconstpointer  data)
{
  guint16 ports[] = { sj_test_closed_port () };
  g_autoptr(GAsyncResult) result = NULL;

  if (!have_keyring ("running"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  sj_secrets_store_api_key_async ("openrouter", sj_test_model_server_get_url (fixture->openrouter), api_key, NULL,
                                  sj_test_store_result_cb, &result);
  WAIT_UNTIL (result != NULL);
  g_assert_true (sj_secrets_store_api_key_finish (result, NULL));
  open_panel (fixture);

  WAIT_UNTIL (onboarding_shown (fixture) && step_is (fixture, "model"));
  g_assert_cmpstr (title (fixture), ==, "Choose a Model");
  g_assert_cmpstr (selected_model (fixture), ==, "google/gemini-2.5-flash");
  /* The stored key was used, and checked. */
  g_assert_true (g_strcmp0 (sj_test_model_server_get_checked_key (fixture->openrouter), api_key) == 0);

  sj_chat_panel_focus_composer (fixture->panel);
  g_assert_true (focus_within (fixture, "start_button"));
  PRESS (fixture, "Tab", "Return");
  WAIT_UNTIL (step_is (fixture, "connect"));
  g_assert_true (focus_within (fixture, "key_row"));
  g_assert_true (onboarding_shown (fixture));
}

/* Without a keyring the Chat says so at once once its window is open:
 * within NO_KEYRING_MAX_USEC when nothing could provide one, and within the
 * keyring's deadline (2 s) and a margin when one is activatable but never
 * appears (SJ_TEST_KEYRING=stuck) or owned but silent (silent); it used to
 * look ready for D-Bus's 25 s.  Under 1 s on a quiet machine; the bounds
 * leave room for a loaded one, where the first frames alone take seconds. */
#define NO_KEYRING_MAX_USEC (3 * G_USEC_PER_SEC)
#define SILENT_KEYRING_MAX_USEC (5 * G_USEC_PER_SEC)

/* Connecting a model server on this computer never waits on the keyring. */
#define LOCAL_CONNECT_MAX_USEC (3 * G_USEC_PER_SEC)

static double
seconds_since (gint64 started)
{
  return (g_get_monotonic_time () - started) / (double) G_USEC_PER_SEC;
}

/* No keyring: said so, the key way closed, the local way open and enough. */
static void
test_no_keyring (Fixture       *fixture,
                 gconstpointer  data)
{
  guint16 ports[] = { sj_test_model_server_get_port (fixture->local) };
  const char *mode = g_getenv ("SJ_TEST_KEYRING");
  gint64 started;

  if (g_strcmp0 (mode, "silent") != 0 && g_strcmp0 (mode, "stuck") != 0 && !have_keyring ("none"))
    return;

  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  started = g_get_monotonic_time ();
  open_panel (fixture);
  g_test_message ("the window opened in %.2f s", seconds_since (started));
  started = g_get_monotonic_time ();

  WAIT_UNTIL (onboarding_shown (fixture) && g_strcmp0 (title (fixture), "No Keyring") == 0);
  g_test_message ("No Keyring shown %.2f s after the window opened (%s)", seconds_since (started), mode);
  g_assert_cmpint (g_get_monotonic_time () - started, <,
                   g_str_equal (mode, "none") ? NO_KEYRING_MAX_USEC : SILENT_KEYRING_MAX_USEC);
  g_assert_true (description_has (fixture, "needs no key"));
  g_assert_false (gtk_widget_is_sensitive (CHILD (fixture->onboarding, "key_row")));
  g_assert_true (gtk_widget_get_visible (CHILD (fixture->onboarding, "retry_button")));
  WAIT_UNTIL (g_strcmp0 (entry_text (fixture, "local_row"), sj_test_model_server_get_url (fixture->local)) == 0);
  if (g_str_equal (mode, "none"))
    screenshot (fixture, "strudel-jam-onboarding-no-keyring.png");

  /* Ctrl+L goes to the way that works, and it takes no time. */
  sj_chat_panel_focus_composer (fixture->panel);
  g_assert_true (focus_within (fixture, "local_row"));
  started = g_get_monotonic_time ();
  PRESS (fixture, "Return");
  WAIT_UNTIL (step_is (fixture, "model"));
  g_test_message ("the local server's models shown %.2f s after Return", seconds_since (started));
  g_assert_cmpint (g_get_monotonic_time () - started, <, LOCAL_CONNECT_MAX_USEC);
  g_assert_cmpstr (selected_model (fixture), !=, NULL);
  started = g_get_monotonic_time ();
  PRESS (fixture, "Return");
  WAIT_UNTIL (composer_ready (fixture));
  g_test_message ("connected %.2f s after Return", seconds_since (started));
  g_assert_cmpint (g_get_monotonic_time () - started, <, LOCAL_CONNECT_MAX_USEC);
  g_assert_true (sj_test_settings_string_is (fixture->settings, "provider", "custom"));

  assert_model_answers (fixture, fixture->local, "qwen3:8b");
}

int
main (int   argc,
      char *argv[])
{
  /* Real X key events through GTK's own input method; accessible names
   * checked with the test backend. */
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  g_setenv ("GTK_IM_MODULE", "gtk-im-context-simple", TRUE);
  g_setenv ("GTK_A11Y", "test", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);

  /* stdout is the TAP stream: the debug messages go with the other logs. */
  g_log_writer_default_set_use_stderr (TRUE);
  sj_test_tolerate_gtk_snapshot_race ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  sj_register_resource ();

  {
    g_autofree char *xdotool = g_find_program_in_path ("xdotool");

    if (xdotool == NULL)
      g_error ("xdotool is needed to type real keys (apt-get install xdotool)");
  }

  api_key = g_getenv ("SJ_TEST_API_KEY");
  if (api_key == NULL || *api_key == '\0')
    api_key = "sk-or-v1-test-onboarding";

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/onboarding/no-key", test_no_key);
  ADD ("/onboarding/refused-key", test_refused_key);
  ADD ("/onboarding/local-detected", test_local_detected);
  ADD ("/onboarding/nothing-answering", test_nothing_answering);
  ADD ("/onboarding/unreachable", test_unreachable);
  ADD ("/onboarding/no-model", test_no_model);
  ADD ("/onboarding/no-keyring", test_no_keyring);
#undef ADD

  return g_test_run ();
}
