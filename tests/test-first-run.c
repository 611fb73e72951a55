/* test-first-run.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A first run with the keyboard only (issue 15): from the very first start
 * to a playing pattern the agent changed, in the real window under Xvfb,
 * every step a real key typed with xdotool. Nothing is clicked, activated
 * or called: the test only reads state (widgets, settings, the page's).
 *
 * The start is a newcomer's: private XDG directories, no settings, and an
 * empty gnome-keyring of the test's own (test-secrets.sh "running"), so the
 * Chat asks to connect a model with both ways open, as on a desktop. The
 * model is a loopback server on a port the test makes the search for local
 * servers probe (_sj_local_servers_set_ports), so it is found as Ollama
 * would be; it scripts the agent's answer to "make it busier": an
 * apply_strudel_change that doubles the hi-hats of the demo.
 *
 * At each step the keyboard must be where a keyboard user expects it: in
 * the editor's text at the start (the page's own focus, not only GTK's),
 * out of the editor with Tab and F6, in the status page's next step with
 * Ctrl+L, on Start Jamming, in the composer once the jam starts, and back
 * in the editor when F9 hides the panel it was in. Keys typed into the web
 * view are handled by the page after GTK has seen them, so where the
 * keyboard ends up is waited for, never assumed.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-change.h"
#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-code-store.h"
#include "sj-local-servers-private.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-test-settings.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define FOCUS_TIMEOUT_S 20
#define LOCAL_MODELS \
  "{\"object\":\"list\",\"data\":[{\"id\":\"nomic-embed-text:latest\"},{\"id\":\"qwen3:8b\"}]}"
#define ONBOARDING_CHILD(window, name) \
  GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (_sj_chat_panel_get_onboarding ((window)->chat_panel)), \
                                             SJ_TYPE_ONBOARDING, name))
#define PRESS(...) press ((const char *[]) { __VA_ARGS__, NULL })

static SjTestKeyWindow keys;

typedef struct
{
  char   *state;      /* the latest swap-changed state */
  double  scheduled;  /* the boundary a scheduled swap is for */
  double  applied;    /* the cycle it landed at */
  double  cycle_then; /* the page's cycle when it was scheduled */
} SwapEvents;

static void
press (const char * const *names)
{
  sj_test_key_window_press (&keys, names);
}

/* Types @text where the keyboard is, as the musician would. */
static void
type_text (const char *text)
{
  sj_test_run_xdotool ((const char *[]) { "type", "--delay", "15", text, NULL });
  press ((const char *[]) { NULL });
}

/* Writes the window to first-run-@name.png in SJ_TEST_OUTPUT_DIR. */
static void
screenshot (const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *file = g_strdup_printf ("first-run-%s.png", name);
  g_autofree char *path = NULL;

  sj_test_key_window_wait_frames (&keys, 3);
  texture = sj_test_render_widget (GTK_WIDGET (keys.window));
  path = sj_test_save_png (texture, file);
  g_test_message ("Screenshot written to %s", path);
}

/* Where the keyboard is ------------------------------------------------- */

/* Whether typing goes into the code: GTK's focus is the web view, and the
 * page's is the editor's text (CodeMirror's .cm-content), not the page. */
static gboolean
editor_has_keyboard (gpointer data)
{
  SjWindow *window = data;
  GtkWidget *view = sj_repl_get_widget (_sj_window_get_repl (window));
  g_autoptr(JsonNode) node = NULL;

  if (gtk_root_get_focus (GTK_ROOT (window)) != view)
    return FALSE;

  node = sj_test_call_js (_sj_window_get_repl (window),
                          "return document.hasFocus() && document.activeElement !== null && "
                          "document.activeElement.classList.contains('cm-content');");
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_boolean (node);
}

/* Names where the keyboard is, for a failure message. */
static char *
describe_focus (SjWindow *window)
{
  GString *text = g_string_new (NULL);

  for (GtkWidget *widget = gtk_root_get_focus (GTK_ROOT (window));
       widget != NULL && widget != GTK_WIDGET (window);
       widget = gtk_widget_get_parent (widget))
    {
      const char *id = gtk_buildable_get_buildable_id (GTK_BUILDABLE (widget));

      const char *tooltip = gtk_widget_get_tooltip_text (widget);

      g_string_append_printf (text, "%s%s%s%s%s < ", G_OBJECT_TYPE_NAME (widget), id != NULL ? "#" : "", id != NULL ? id : "",
                              tooltip != NULL ? " " : "", tooltip != NULL ? tooltip : "");
    }

  return g_string_free (text, FALSE);
}

static gboolean
deadline_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits until the keyboard is where @done says, and fails naming where it
 * is instead. */
static void
wait_keyboard (SjWindow    *window,
               gboolean   (*done) (gpointer),
               gpointer     data,
               const char  *what)
{
  gboolean timed_out = FALSE;
  guint deadline = g_timeout_add_seconds (FOCUS_TIMEOUT_S, deadline_cb, &timed_out);

  while (!done (data))
    {
      if (timed_out)
        {
          g_autofree char *focus = describe_focus (window);
          g_autoptr(JsonNode) node = sj_test_call_js (_sj_window_get_repl (window),
                                                      "return `${document.hasFocus()} ${document.activeElement?.className}`;");

          g_error ("Timed out waiting for %s: the keyboard is in %s (in the page: %s)", what, focus,
                   json_node_get_string (node));
        }
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (deadline);
}

static void
wait_editor_has_keyboard (SjWindow   *window,
                          const char *what)
{
  wait_keyboard (window, editor_has_keyboard, window, what);
}

static gboolean
focus_within (gpointer data)
{
  return sj_test_has_focus_within (GTK_WIDGET (data));
}

static void
wait_focus_within (SjWindow   *window,
                   GtkWidget  *widget,
                   const char *what)
{
  wait_keyboard (window, focus_within, widget, what);
}

/* What the window shows --------------------------------------------------- */

static gboolean
local_server_found (gpointer data)
{
  SjWindow *window = data;
  GtkWidget *status = ONBOARDING_CHILD (window, "local_status");

  return g_str_has_prefix (gtk_label_get_label (GTK_LABEL (status)), "Found ");
}

static gboolean
model_step_shown (gpointer data)
{
  SjWindow *window = data;
  GtkStack *steps = GTK_STACK (ONBOARDING_CHILD (window, "steps"));

  return g_strcmp0 (gtk_stack_get_visible_child_name (steps), "model") == 0;
}

static GtkWidget *
composer_text (SjWindow *window)
{
  return sj_test_find_by_type (GTK_WIDGET (_sj_chat_panel_get_composer (window->chat_panel)), GTK_TYPE_TEXT_VIEW);
}

/* The jam has started: the composer in the status page's place, with the
 * keyboard. */
static gboolean
composer_ready (gpointer data)
{
  SjWindow *window = data;
  GtkWidget *text = composer_text (window);

  return gtk_widget_get_mapped (text) &&
         !gtk_widget_get_mapped (GTK_WIDGET (_sj_chat_panel_get_onboarding (window->chat_panel))) &&
         gtk_widget_has_focus (text);
}

/* The musician's message is in the chat: Enter sent it. */
static gboolean
message_sent (gpointer data)
{
  return g_list_model_get_n_items (_sj_chat_panel_get_messages (((SjWindow *) data)->chat_panel)) > 0;
}

static gboolean
agent_idle (gpointer data)
{
  return !sj_agent_is_busy (((SjWindow *) data)->agent);
}

static void
swap_changed_cb (SjRepl     *repl,
                 const char *state,
                 double      cycle,
                 SwapEvents *events)
{
  g_free (events->state);
  events->state = g_strdup (state);
  if (g_str_equal (state, "scheduled"))
    {
      events->scheduled = cycle;
      events->cycle_then = sj_repl_get_state (repl)->cycle;
    }
  else if (g_str_equal (state, "applied"))
    events->applied = cycle;
}

static gboolean
swap_applied (gpointer data)
{
  return g_strcmp0 (((SwapEvents *) data)->state, "applied") == 0;
}

static gboolean
answer_marked_applied (gpointer data)
{
  return sj_chat_message_get_swap (SJ_CHAT_MESSAGE (data)) == SJ_CHAT_SWAP_APPLIED;
}

typedef struct
{
  SjRepl     *repl;
  const char *text;
} CodeCheck;

static gboolean
code_has (gpointer data)
{
  CodeCheck *check = data;
  g_autofree char *code = sj_test_fetch_code (check->repl);

  return strstr (code, check->text) != NULL;
}

/* The hi-hats the live pattern plays in [@cycle, @cycle + 1). */
static guint
count_hats (SjRepl *repl,
            double  cycle)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) haps = NULL;
  guint hats = 0;

  _sj_repl_query_haps_async (repl, cycle, cycle + 1, 500, NULL, sj_test_store_result_cb, &result);
  haps = _sj_repl_query_haps_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (haps); i++)
    if (strstr (json_object_get_string_member (json_array_get_object_element (haps, i), "show"), "hh") != NULL)
      hats++;

  return hats;
}

/* The shortcuts window names every key of the path. */
static void
assert_in_shortcuts_window (const char * const *accelerators)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/strudeljam/StrudelJam/gtk/help-overlay.ui");
  g_autoptr(GPtrArray) listed = g_ptr_array_new_with_free_func (g_free);
  GSList *objects = gtk_builder_get_objects (builder);

  for (GSList *l = objects; l != NULL; l = l->next)
    if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
      {
        char *accelerator = NULL;

        g_object_get (l->data, "accelerator", &accelerator, NULL);
        g_ptr_array_add (listed, accelerator);
      }
  g_slist_free (objects);

  for (guint i = 0; accelerators[i] != NULL; i++)
    {
      gboolean found = FALSE;

      for (guint j = 0; j < listed->len && !found; j++)
        found = g_strcmp0 (g_ptr_array_index (listed, j), accelerators[i]) == 0;
      if (!found)
        g_error ("%s is not in the shortcuts window", accelerators[i]);
    }
}

/* The first run ----------------------------------------------------------- */

static void
test_keyboard_only (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_autofree char *hash = sj_code_hash (sj_code_store_get_demo_code ());
  g_autofree char *args = NULL;
  g_autofree char *code = NULL;
  g_autofree char *message = NULL;
  g_autoptr(SjChatMessage) answer = NULL;
  SwapEvents events = { NULL, -1, -1, -1 };
  guint16 ports[1];
  SjWindow *window;
  SjRepl *repl;
  GtkWidget *onboarding;
  GtkWidget *status_page;
  Progress progress = { NULL, 1, 0 };
  CodeCheck busier = { NULL, "hh*8" };

  if (g_strcmp0 (g_getenv ("SJ_TEST_KEYRING"), "running") != 0)
    {
      g_test_skip ("run by test-secrets.sh with a keyring of its own, as on a desktop");
      return;
    }

  /* The model on this computer, and what it answers to "make it busier". */
  sj_test_model_server_set_models (server, LOCAL_MODELS);
  ports[0] = sj_test_model_server_get_port (server);
  _sj_local_servers_set_ports (ports, G_N_ELEMENTS (ports));
  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"search_replace\","
                          "\"edits\":[{\"search\":\"[~ hh]*4\",\"replace\":\"hh*8\"}]}}", hash);
  sj_test_model_server_reply_tool_call (server, NULL, "call_1", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "Eighth-note hi-hats from the next cycle; everything else kept.", 8);
  /* Strictly offline: the demo's drums are the built-in kit's. */
  g_settings_set_boolean (settings, "download-sounds", FALSE);

  /* 1. The first start: the demo in the editor, the Chat asking for a
   *    model with both ways, the keyboard in the code. */
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  progress.repl = repl;
  g_signal_connect (repl, "swap-changed", G_CALLBACK (swap_changed_cb), &events);
  sj_test_key_window_attach (&keys, GTK_WINDOW (window), SJ_TEST_WAIT_TIMEOUT_S);

  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, sj_code_store_get_demo_code ());
  g_assert_nonnull (strstr (code, "s(\"bd*4"));
  g_assert_false (sj_repl_get_state (repl)->playing);
  g_assert_true (gtk_widget_get_visible (window->panel));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "chat");
  onboarding = GTK_WIDGET (_sj_chat_panel_get_onboarding (window->chat_panel));
  g_assert_true (gtk_widget_get_mapped (onboarding));
  g_assert_false (gtk_widget_get_mapped (composer_text (window)));
  status_page = ONBOARDING_CHILD (window, "status_page");
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status_page)), ==, "Connect a Model");
  g_assert_true (gtk_widget_is_sensitive (ONBOARDING_CHILD (window, "key_row")));
  sj_test_widgets_spin_until (local_server_found, window, SJ_TEST_WAIT_TIMEOUT_S, "the local server to be found");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (ONBOARDING_CHILD (window, "local_row"))), ==,
                   sj_test_model_server_get_url (server));
  wait_editor_has_keyboard (window, "the keyboard in the editor at the first start");
  screenshot ("start");

  /* 2. Ways out of the editor and back: Tab and Shift+Tab (the editor does
   *    not indent with Tab), F6 and F6 again. */
  PRESS ("Tab");
  wait_focus_within (window, window->panel, "Tab to leave the editor for the side panel");
  /* A round trip to the page: a key it had handed back to GTK would have
   * moved the keyboard on by now. One Tab is one step: the Chat's button. */
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_true (gtk_widget_has_focus (sj_test_find_by_type (GTK_WIDGET (window->panel_switcher), GTK_TYPE_TOGGLE_BUTTON)));
  PRESS ("shift+Tab");
  wait_editor_has_keyboard (window, "Shift+Tab to come back into the editor");
  PRESS ("F6");
  wait_focus_within (window, window->panel, "F6 to go to the side panel");
  PRESS ("F6");
  wait_editor_has_keyboard (window, "F6 to come back to the editor");

  /* 3. Ctrl+L: the status page's next step, the key; Tab on to the server
   *    found on this computer, never leaving the page. */
  PRESS ("ctrl+l");
  wait_focus_within (window, ONBOARDING_CHILD (window, "key_row"), "Ctrl+L to put the keyboard in the key row");
  for (guint tabs = 0; !sj_test_has_focus_within (ONBOARDING_CHILD (window, "local_row")); tabs++)
    {
      g_assert_cmpuint (tabs, <, 4);
      PRESS ("Tab");
      g_assert_true (sj_test_has_focus_within (onboarding));
    }
  screenshot ("local-way");

  /* 4. Enter: its models; the suggested one selected, the keyboard on
   *    Start Jamming. */
  PRESS ("Return");
  sj_test_widgets_spin_until (model_step_shown, window, SJ_TEST_WAIT_TIMEOUT_S, "the model step");
  {
    GtkStringObject *item = adw_combo_row_get_selected_item (ADW_COMBO_ROW (ONBOARDING_CHILD (window, "model_row")));

    g_assert_cmpstr (gtk_string_object_get_string (item), ==, "qwen3:8b");
  }
  g_assert_true (gtk_widget_has_focus (ONBOARDING_CHILD (window, "start_button")));
  screenshot ("model");

  /* 5. Enter: Start Jamming. The setting written, the composer in the
   *    page's place with the keyboard. */
  PRESS ("Return");
  sj_test_widgets_spin_until (composer_ready, window, SJ_TEST_WAIT_TIMEOUT_S, "the composer with the keyboard");
  g_assert_true (sj_test_settings_string_is (settings, "provider", "custom"));
  g_assert_true (sj_test_settings_string_is (settings, "base-url", sj_test_model_server_get_url (server)));
  g_assert_true (sj_test_settings_string_is (settings, "model", "qwen3:8b"));

  /* 6. Ctrl+Enter plays from wherever the keyboard is, the composer
   *    included: the window's accelerator, before the composer sees it. */
  PRESS ("ctrl+Return");
  sj_test_spin_until (sj_test_progressed, &progress, "the demo to play");
  g_assert_true (gtk_widget_has_focus (composer_text (window)));
  message = sj_composer_get_text (_sj_chat_panel_get_composer (window->chat_panel));
  g_assert_cmpstr (message, ==, "");
  g_clear_pointer (&message, g_free);
  g_assert_cmpuint (count_hats (repl, ceil (sj_repl_get_state (repl)->cycle) + 1), ==, 4);

  /* 7. "make it busier", Enter: the agent's change goes through the real
   *    page and lands on the next cycle while the music plays on. */
  type_text ("make it busier");
  message = sj_composer_get_text (_sj_chat_panel_get_composer (window->chat_panel));
  g_assert_cmpstr (message, ==, "make it busier");
  PRESS ("Return");
  sj_test_widgets_spin_until (message_sent, window, SJ_TEST_WAIT_TIMEOUT_S, "Enter to send the message");
  sj_test_spin_until (agent_idle, window, "the agent to answer");
  g_assert_cmpuint (sj_test_model_server_get_n_requests (server), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (sj_test_model_server_get_request (server, 0), "model"), ==,
                   "qwen3:8b");

  busier.repl = repl;
  sj_test_spin_until (code_has, &busier, "the change in the editor");
  sj_test_spin_until (swap_applied, &events, "the change to land");
  g_test_message ("scheduled at cycle %.3f for cycle %g, applied at %g",
                  events.cycle_then, events.scheduled, events.applied);
  g_assert_cmpfloat (events.applied, ==, events.scheduled);
  g_assert_cmpfloat (events.applied, ==, floor (events.applied));
  g_assert_cmpfloat (events.applied, >, events.cycle_then);
  g_assert_true (sj_repl_get_state (repl)->playing);
  g_assert_cmpuint (count_hats (repl, events.applied), ==, 8);

  answer = g_list_model_get_item (_sj_chat_panel_get_messages (window->chat_panel), 1);
  g_assert_cmpint (sj_chat_message_get_role (answer), ==, SJ_HISTORY_ROLE_ASSISTANT);
  sj_test_spin_until (answer_marked_applied, answer, "the answer to be marked applied");
  g_assert_cmpfloat (sj_chat_message_get_swap_cycle (answer), ==, events.applied);

  /* The music goes on past the boundary, and the keyboard is still where
   * the next message is written. */
  progress.cycle = events.applied + 1;
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_spin_until (sj_test_progressed, &progress, "the changed pattern to play on");
  g_assert_true (gtk_widget_has_focus (composer_text (window)));
  screenshot ("changed");

  /* 8. F9 hides the panel that has the keyboard: the keyboard goes to the
   *    editor, where Ctrl+. stops the music. */
  PRESS ("F9");
  g_assert_false (gtk_widget_get_visible (window->panel));
  wait_editor_has_keyboard (window, "the keyboard in the editor once F9 hid the panel");
  PRESS ("ctrl+period");
  sj_test_spin_until (sj_test_stopped, repl, "the music to stop");
  PRESS ("F9");
  g_assert_true (gtk_widget_get_visible (window->panel));

  /* Every key of the path is in the shortcuts window. */
  assert_in_shortcuts_window ((const char *[]) {
    "<Control>Return", "<Control>period", "<Control>l", "<Control>e", "F6", "F9", NULL });

  g_signal_handlers_disconnect_by_func (repl, swap_changed_cb, &events);
  g_free (events.state);
  sj_test_close_window (window);
  _sj_local_servers_set_ports (NULL, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int status;

  /* stdout is the TAP stream: the debug messages go with the other logs. */
  g_log_writer_default_set_use_stderr (TRUE);

  /* Real X key events through GTK's own input method. */
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  g_setenv ("GTK_IM_MODULE", "gtk-im-context-simple", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);

  /* Private user directories: this is the app's very first start. */
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  {
    g_autofree char *xdotool = g_find_program_in_path ("xdotool");

    if (xdotool == NULL)
      g_error ("xdotool is needed to type real keys (apt-get install xdotool)");
  }

  g_test_add_func ("/first-run/keyboard-only", test_keyboard_only);

  status = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);
  return status;
}
