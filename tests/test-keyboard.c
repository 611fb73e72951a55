/* test-keyboard.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The keyboard and a screen reader in the real window (issue 23): every
 * accelerator the shortcuts window lists typed with xdotool, Stop from the
 * code editor while an answer is stalled, and every control of every panel
 * page named.
 */

#include "config.h"

#include <string.h>

#include "sj-agent.h"
#include "sj-application-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

static SjTestKeyWindow keys;

/* The side panel's pages, as in test-panel. */
static const struct {
  const char *page;
  const char *title;
  const char *keys;
} pages[] = {
  { "chat", "Chat", "ctrl+l" },
  { "reference", "Reference", "ctrl+shift+r" },
  { "sounds", "Sounds", "ctrl+shift+s" },
  { "skills", "Skills", "ctrl+shift+j" },
  { "sessions", "Sessions", "ctrl+shift+h" },
  { "tool-logs", "Logs", "ctrl+shift+l" },
  { "console", "Console", "ctrl+shift+c" },
  { "agent-settings", "Settings", "ctrl+comma" },
};

/* Every shortcut the shortcuts window lists ------------------------------- */

/* Each listed accelerator; an entry such as "Tab <Shift>Tab" is two. */
static GPtrArray *
listed_accelerators (void)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/strudeljam/StrudelJam/gtk/help-overlay.ui");
  GPtrArray *listed = g_ptr_array_new_with_free_func (g_free);
  GSList *objects = gtk_builder_get_objects (builder);

  for (GSList *l = objects; l != NULL; l = l->next)
    if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
      {
        g_autofree char *accelerator = NULL;
        g_auto(GStrv) parts = NULL;

        g_object_get (l->data, "accelerator", &accelerator, NULL);
        parts = g_strsplit (accelerator, " ", -1);
        for (guint i = 0; parts[i] != NULL; i++)
          if (*parts[i] != '\0' && !g_ptr_array_find_with_equal_func (listed, parts[i], g_str_equal, NULL))
            g_ptr_array_add (listed, g_strdup (parts[i]));
      }
  g_slist_free (objects);

  return listed;
}

/* The xdotool name of @accelerator: "<Control><Shift>period" is
 * "ctrl+shift+period", as a US keyboard types it. */
static char *
xdotool_keys (const char *accelerator)
{
  GString *names = g_string_new (NULL);
  GdkModifierType mods;
  guint keyval;

  g_assert_true (gtk_accelerator_parse (accelerator, &keyval, &mods));
  if (mods & GDK_CONTROL_MASK)
    g_string_append (names, "ctrl+");
  if (mods & GDK_ALT_MASK)
    g_string_append (names, "alt+");
  if (mods & GDK_SHIFT_MASK)
    g_string_append (names, "shift+");
  g_string_append (names, gdk_keyval_name (keyval));

  return g_string_free (names, FALSE);
}

static void
count_cb (GSimpleAction *action,
          GVariant      *parameter,
          guint         *count)
{
  (*count)++;
}

/* Keys that act where the keyboard is rather than on a window action, and
 * the test that types them there. */
static const struct {
  const char *accelerator;
  const char *tested_in;
} context_keys[] = {
  { "Return", "test-composer (send), test-sounds-page (play), test-first-run" },
  { "<Shift>Return", "test-composer (a new line)" },
  { "Escape", "/keyboard/stop-agent here; test-chat (the message box); the reference's back" },
  { "Tab", "test-first-run (leaving the editor)" },
  { "<Shift>Tab", "test-first-run (back into the editor)" },
  { "F6", "/keyboard/every-shortcut here; test-first-run" },
  { "Down", "test-sounds-page (from the search to the list)" },
};

/* F1 opens the help: here only its activation counts, nothing is opened. */
static void
no_launcher (GtkWindow           *parent,
             const char          *uri,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (parent, NULL, callback, user_data);

  g_task_return_boolean (task, TRUE);
}

static gboolean
is_context_key (const char *accelerator)
{
  for (guint i = 0; i < G_N_ELEMENTS (context_keys); i++)
    if (g_str_equal (context_keys[i].accelerator, accelerator))
      return TRUE;
  return FALSE;
}

static gboolean
help_overlay_shown (gpointer data)
{
  GtkShortcutsWindow *overlay = gtk_application_window_get_help_overlay (data);

  return overlay != NULL && gtk_widget_get_visible (GTK_WIDGET (overlay));
}

/* Each accelerator of the shortcuts window, typed as real key presses,
 * activates its action once; the ones that act in place are tested where
 * they act (context_keys). */
static gboolean
window_is_active (gpointer data)
{
  return gtk_window_is_active (GTK_WINDOW (data));
}

static gboolean
has_dialog (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) other = g_list_model_get_item (toplevels, i);

      if (gtk_window_get_transient_for (other) == GTK_WINDOW (data) && gtk_widget_get_mapped (GTK_WIDGET (other)))
        return TRUE;
    }
  return FALSE;
}

/* Closes the dialog an action opens over @window (once it is there: Render
 * to File reads the code from the page first). */
static void
close_other_windows (SjWindow *window)
{
  g_autoptr(GListModel) toplevels = gtk_window_get_toplevels ();

  sj_test_spin_until (has_dialog, window, "the action's dialog");
  g_object_ref (toplevels);
  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GtkWindow) other = g_list_model_get_item (toplevels, i - 1);

      if (other != GTK_WINDOW (window) && gtk_widget_get_visible (GTK_WIDGET (other)) &&
          gtk_window_get_transient_for (other) == GTK_WINDOW (window))
        gtk_window_destroy (other);
    }
  /* The keyboard back to the main window, as the window manager does. */
  gtk_window_present (GTK_WINDOW (window));
  sj_test_spin_until (window_is_active, window, "the window to take the keyboard again");
  sj_test_key_window_wait_frames (&keys, 3);
}

static void
test_every_shortcut (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  GtkApplication *app = GTK_APPLICATION (g_application_get_default ());
  g_autoptr(GPtrArray) listed = listed_accelerators ();
  guint typed = 0;

  g_assert_cmpuint (listed->len, >=, 20);
  for (guint i = 0; i < listed->len; i++)
    {
      const char *accelerator = g_ptr_array_index (listed, i);
      g_auto(GStrv) actions = gtk_application_get_actions_for_accel (app, accelerator);
      g_autofree char *keys_name = NULL;
      GActionMap *map;
      GAction *action;
      guint count = 0;
      gulong handler;

      if (actions[0] == NULL)
        {
          if (!is_context_key (accelerator))
            g_error ("%s is in the shortcuts window, but no action has it and no test types it", accelerator);
          continue;
        }

      /* Quitting would end the test; its accelerator is all there is to check. */
      if (g_str_equal (actions[0], "app.quit"))
        continue;
      /* The shortcuts window takes the keyboard: typed last, below. */
      if (g_str_equal (actions[0], "win.show-help-overlay"))
        continue;

      map = g_str_has_prefix (actions[0], "app.") ? G_ACTION_MAP (app) : G_ACTION_MAP (window);
      action = g_action_map_lookup_action (map, strchr (actions[0], '.') + 1);
      g_assert_nonnull (action);
      g_assert_true (G_IS_SIMPLE_ACTION (action));

      keys_name = xdotool_keys (accelerator);
      handler = g_signal_connect (action, "activate", G_CALLBACK (count_cb), &count);
      sj_test_key_window_press (&keys, (const char *[]) { keys_name, NULL });
      g_signal_handler_disconnect (action, handler);
      g_test_message ("%s (%s): %s, activated %u time(s)", accelerator, keys_name, actions[0], count);
      if (count != 1)
        g_error ("%s, typed as %s, activated %s %u times", accelerator, keys_name, actions[0], count);
      typed++;

      /* Render to File opened its dialog: closed, for the next keys. */
      if (g_str_equal (actions[0], "win.render"))
        close_other_windows (window);

      /* F9 hid the panel: show it again for the next keys. */
      if (!gtk_widget_get_visible (window->panel))
        sj_test_key_window_press (&keys, (const char *[]) { "F9", NULL });
    }
  g_assert_cmpuint (typed, >=, 16);

  /* F6 moves between the editor and the side panel. */
  gtk_widget_grab_focus (sj_repl_get_widget (_sj_window_get_repl (window)));
  sj_test_key_window_press (&keys, (const char *[]) { "F6", NULL });
  sj_test_spin_until ((gboolean (*) (gpointer))sj_test_has_focus_within, window->panel, "F6 to reach the panel");

  /* Ctrl+? shows the shortcuts window. */
  {
    /* GTK 4.8's shortcuts window warns about a label of its own ("reported
     * min width -3") as it lays out: warnings are not fatal while it shows. */
    GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

    /* No F12 barrier: the shortcuts window takes the keyboard. */
    sj_test_run_xdotool ((const char *[]) { "key", "ctrl+question", NULL });
    sj_test_spin_until (help_overlay_shown, window, "the shortcuts window");
    gtk_widget_set_visible (GTK_WIDGET (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window))), FALSE);
    sj_test_key_window_wait_frames (&keys, 3);
    g_log_set_always_fatal (fatal);
  }
  sj_test_key_window_attach (&keys, GTK_WINDOW (window), WAIT_TIMEOUT_S);
  sj_test_key_window_press (&keys, (const char *[]) { NULL });
}

static gboolean
agent_busy (gpointer data)
{
  return sj_agent_is_busy (data);
}

static gboolean
agent_idle (gpointer data)
{
  return !sj_agent_is_busy (data);
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GError **error = user_data;

  sj_agent_send_finish (SJ_AGENT (object), result, error);
}

/* A stalled answer stops from the keyboard with the code editor focused:
 * Escape, and Ctrl+Shift+. as a US keyboard sends it (Ctrl+>). */
static void
test_stop_agent (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  const char *stop_keys[] = { "Escape", "ctrl+shift+period" };
  SjAgent *agent;

  sj_test_model_server_set_models (server, "{\"data\":[{\"id\":\"test/model\"}]}");
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  agent = sj_window_get_agent (window);

  for (guint i = 0; i < G_N_ELEMENTS (stop_keys); i++)
    {
      g_autoptr(GError) error = NULL;

      sj_test_model_server_reply_hold (server, "Thinking about it");
      sj_agent_send_async (agent, "make it groovier", NULL, sent_cb, &error);
      sj_test_spin_until (agent_busy, agent, "the agent to answer");
      gtk_widget_grab_focus (sj_repl_get_widget (_sj_window_get_repl (window)));
      sj_test_key_window_press (&keys, (const char *[]) { stop_keys[i], NULL });
      sj_test_spin_until (agent_idle, agent, "the key to stop the agent");
      g_test_message ("%s stopped the agent", stop_keys[i]);
      /* The key went no further: the editor still has the keyboard. */
      g_assert_true (gtk_widget_has_focus (sj_repl_get_widget (_sj_window_get_repl (window))) ||
                     sj_test_has_focus_within (sj_repl_get_widget (_sj_window_get_repl (window))));
    }

  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

static void
count_signal_cb (SjRepl *repl,
                 guint  *count)
{
  (*count)++;
}

static gboolean
count_is_positive (gpointer data)
{
  return *(guint *)data > 0;
}

/* A label under @root whose text is @text. */
static gboolean
shows_label (GtkWidget  *root,
             const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    if ((GTK_IS_LABEL (child) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (child)), text) == 0) ||
        shows_label (child, text))
      return TRUE;
  return FALSE;
}

/* Ctrl+Enter in an empty editor says so (upstream only throws into the
 * page's console), and nothing starts playing. */
static void
test_empty_code_play (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonNode) cleared = NULL;
  guint said = 0;
  gulong id;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "the music to stop");
  cleared = sj_test_call_js (repl, "window.sjBridge.setCode('  \\n'); return true;");
  id = g_signal_connect (repl, "nothing-to-play", G_CALLBACK (count_signal_cb), &said);
  gtk_widget_grab_focus (sj_repl_get_widget (repl));
  sj_test_key_window_press (&keys, (const char *[]) { "ctrl+Return", NULL });
  sj_test_spin_until (count_is_positive, &said, "Ctrl+Enter on empty code to be said");
  sj_test_key_window_wait_frames (&keys, 3);
  /* Shown at once, even with another toast up (a high-priority toast). */
  g_assert_true (shows_label (GTK_WIDGET (window),
                              "Nothing to play: the editor is empty. Open the Reference for an example, or ask the agent."));
  g_assert_false (sj_repl_get_state (repl)->playing);
  g_signal_handler_disconnect (repl, id);
}

/* Every button, toggle, expander, entry and activatable row of the main
 * view and of every panel page has an accessible name, and icon-only
 * buttons keep their tooltips. */
static void
test_accessible_names (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_autoptr(GString) unnamed = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  guint checked = 0;

  /* Before a model is set up: the onboarding. */
  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      adw_view_stack_set_visible_child_name (window->panel_stack, pages[p].page);
      sj_test_key_window_wait_frames (&keys, 3);
      sj_test_collect_unnamed (GTK_WIDGET (window), pages[p].page, unnamed, &checked);
    }

  /* With a model and a conversation: the composer, messages, tool logs,
   * a session. */
  sj_test_model_server_set_models (server, "{\"data\":[{\"id\":\"test/model\"}]}");
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  sj_test_model_server_reply_tool_call (server, "Looking it up.", "k1", "strudel_knowledge", "{\"query\":\"lpf\"}");
  sj_test_model_server_reply_text (server, "Here is **an answer** with `code`.", 8);
  sj_agent_send_async (sj_window_get_agent (window), "what is lpf", NULL, sent_cb, &error);
  sj_test_spin_until (agent_busy, sj_window_get_agent (window), "the agent to answer");
  sj_test_spin_until (agent_idle, sj_window_get_agent (window), "the answer");
  g_assert_no_error (error);

  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      adw_view_stack_set_visible_child_name (window->panel_stack, pages[p].page);
      sj_test_key_window_wait_frames (&keys, 3);
      sj_test_collect_unnamed (GTK_WIDGET (window), pages[p].page, unnamed, &checked);
    }

  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");

  g_test_message ("%u controls checked", checked);
  if (unnamed->len > 0)
    g_error ("Controls without an accessible name:\n%s", unnamed->str);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Accessible properties are only kept with the test backend. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();
  _sj_application_set_uri_launcher (no_launcher);

  g_test_add_func ("/keyboard/stop-agent", test_stop_agent);
  g_test_add_func ("/keyboard/every-shortcut", test_every_shortcut);
  g_test_add_func ("/keyboard/accessible-names", test_accessible_names);
  g_test_add_func ("/keyboard/empty-code-play", test_empty_code_play);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
