/* sj-window-agent.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's side of the jam agent: the history, the agent over this
 * window's music (its apply pipeline and the app's knowledge), its setup
 * from the settings and the keyring, and the side-panel pages around it
 * (Chat, Tool Logs, Sessions, Agent Settings), kept in step: a new
 * session shows everywhere, a finished tool call appears in the Tool Logs,
 * a swap that lands is marked on the answer that queued it.
 *
 * The pages follow the agent rather than the commands that change it: a
 * GSignalGroup holds the window's connections to the agent, and its
 * SjAgent:session-id says which session to show, whether the musician
 * chose one, asked for a new one, or started one with a first message.
 * The session is remembered in GSettings as it changes, and taken up
 * again at the next start, after a crash too.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-window-private.h"

/* The chat follows the agent's session itself; the Tool Logs and the
 * Sessions list follow it here. The list is read again each time, as it
 * does not follow the history live. */
static void
agent_session_cb (SjWindow   *self,
                  GParamSpec *pspec,
                  SjAgent    *agent)
{
  gint64 session = sj_agent_get_session_id (agent);

  /* At once, not when the window closes: a crash reopens it too. */
  g_settings_set_int64 (self->settings, "last-session", session);
  sj_tool_logs_page_set_session (self->tool_logs_page, session);
  sj_sessions_page_reload (self->sessions_page);
  sj_sessions_page_set_current (self->sessions_page, session);
}

static void
tool_finished_cb (SjWindow *self,
                  gint64    message_id,
                  gint64    tool_call_id)
{
  sj_tool_logs_page_add_call (self->tool_logs_page, tool_call_id);
}

static void
session_activated_cb (SjWindow *self,
                      gint64    session_id)
{
  g_autoptr(GError) error = NULL;

  if (!sj_agent_load_session (self->agent, session_id, &error))
    {
      _sj_window_show_toast (self, error->message, NULL, NULL);
      return;
    }
  adw_view_stack_set_visible_child_name (self->panel_stack, "chat");
}

static void
new_session_cb (SjWindow *self)
{
  sj_agent_new_session (self->agent);
  adw_view_stack_set_visible_child_name (self->panel_stack, "chat");
  sj_chat_panel_focus_composer (self->chat_panel);
}

static void
session_deleted_cb (SjWindow *self,
                    gint64    session_id)
{
  if (session_id == sj_agent_get_session_id (self->agent))
    new_session_cb (self);
}

static void
revert_requested_cb (SjWindow   *self,
                     const char *code)
{
  _sj_window_apply_code (self, code, _("Revert"));
}

static void
swap_changed_cb (SjWindow   *self,
                 const char *state,
                 double      cycle)
{
  /* A change being listened to is Applied only once it was heard
   * (sj-window-levels.c). */
  if (g_strcmp0 (state, "applied") == 0 && self->verifier != NULL &&
      sj_change_verifier_is_checking (self->verifier, cycle))
    return;

  sj_chat_panel_swap_changed (self->chat_panel, state, cycle);
}

static void
api_key_changed_cb (SjWindow *self)
{
  sj_agent_config_reload (self->agent_config);
}

static SjHistoryStore *
open_history (SjWindow *self)
{
  g_autoptr(GError) error = NULL;
  SjHistoryStore *store;

  store = sj_history_store_new (NULL, &error);
  if (store != NULL)
    return store;

  /* A history written by a newer version, or a damaged one, is left as it
   * is; the agent still works, in a history that is not kept. */
  g_warning ("Could not open the chat history: %s", error->message);
  {
    g_autofree char *title = g_strdup_printf (_("The chat history could not be opened (%s). This session will not be kept."),
                                              error->message);
    _sj_window_show_toast (self, title, NULL, NULL);
  }
  return sj_history_store_new (":memory:", NULL);
}

/* The history's size limit is the musician's to act on: past it, they are
 * told, and shown the sessions they can delete. Nothing is deleted. */
static void
history_over_limit_cb (SjWindow *self)
{
  g_autofree char *title = NULL;

  if (!sj_history_store_get_over_limit (self->history))
    return;

  title = g_strdup_printf (_("History is larger than its limit (%u MB). Delete old sessions to make room; new messages are still saved."),
                           g_settings_get_uint (self->settings, "history-size-limit-mb"));
  _sj_window_show_toast (self, title, _("Sessions"), "win.show-sessions");
}

static void
history_size_limit_changed_cb (SjWindow *self)
{
  guint64 megabytes = g_settings_get_uint (self->settings, "history-size-limit-mb");

  sj_history_store_set_size_limit (self->history, megabytes * 1024 * 1024);
}

/* Built once the window has its application (the knowledge is the app's). */
static gboolean
build_agent_cb (gpointer user_data)
{
  SjWindow *self = user_data;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(SjAgentTools) tools = NULL;
  g_autoptr(GError) error = NULL;

  if (self->agent != NULL || !SJ_IS_APPLICATION (app))
    return G_SOURCE_REMOVE;

  self->history = open_history (self);
  g_signal_connect_object (self->history, "notify::over-limit", G_CALLBACK (history_over_limit_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::history-size-limit-mb",
                           G_CALLBACK (history_size_limit_changed_cb), self, G_CONNECT_SWAPPED);
  history_size_limit_changed_cb (self);
  tools = sj_agent_tools_new (sj_window_get_applier (self),
                              sj_application_get_knowledge (SJ_APPLICATION (app)),
                              sj_knowledge_base_get_bundled ());
  sj_agent_tools_set_levels (tools, self->levels);
  sj_agent_tools_set_verifier (tools, self->verifier);
  self->agent = sj_agent_new (tools, self->history);
  sj_agent_set_skills (self->agent, sj_application_get_skills (SJ_APPLICATION (app)));
  /* Where the musician left off, before the pages show the session. */
  if (!sj_agent_resume (self->agent, g_settings_get_int64 (self->settings, "last-session"), &error))
    g_warning ("Could not reopen the last chat session: %s", error->message);
  self->agent_config = sj_agent_config_new (self->agent, self->settings);

  self->sessions_page = SJ_SESSIONS_PAGE (sj_sessions_page_new (self->history));
  sj_sessions_page_set_toast_overlay (self->sessions_page, self->toast_overlay);
  adw_bin_set_child (self->sessions_bin, GTK_WIDGET (self->sessions_page));
  self->settings_page = SJ_SETTINGS_PAGE (sj_settings_page_new (self->settings));
  sj_settings_page_set_history (self->settings_page, self->history);
  adw_bin_set_child (self->settings_bin, GTK_WIDGET (self->settings_page));
  sj_tool_logs_page_set_store (self->tool_logs_page, self->history);
  sj_chat_panel_set_agent (self->chat_panel, self->agent, self->agent_config);
  g_signal_group_set_target (self->agent_signals, self->agent);

  g_signal_connect_object (self->sessions_page, "session-activated", G_CALLBACK (session_activated_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sessions_page, "new-session-requested", G_CALLBACK (new_session_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sessions_page, "session-deleted", G_CALLBACK (session_deleted_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sessions_page, "revert-requested", G_CALLBACK (revert_requested_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sessions_page, "render-requested", G_CALLBACK (_sj_window_render_session), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings_page, "api-key-changed", G_CALLBACK (api_key_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "swap-changed", G_CALLBACK (swap_changed_cb), self, G_CONNECT_SWAPPED);

  agent_session_cb (self, NULL, self->agent);

  return G_SOURCE_REMOVE;
}

/**
 * sj_window_get_agent:
 *
 * Returns: (transfer none) (nullable): the window's jam agent, %NULL
 *   before the window belongs to the application
 */
SjAgent *
sj_window_get_agent (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  build_agent_cb (self);
  return self->agent;
}

static void
show_page (SjWindow   *self,
           const char *name)
{
  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, name);
}

static void
focus_composer_action (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  SjWindow *self = user_data;

  show_page (self, "chat");
  sj_chat_panel_focus_composer (self->chat_panel);
}

static void
show_agent_page_action (GSimpleAction *action,
                        GVariant      *param,
                        gpointer       user_data)
{
  SjWindow *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action)) + strlen ("show-");

  show_page (self, name);
  if (g_str_equal (name, "agent-settings") && self->settings_page != NULL)
    sj_settings_page_focus_api_key (self->settings_page);
}

static void
new_session_action (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       user_data)
{
  SjWindow *self = user_data;

  if (sj_window_get_agent (self) != NULL)
    new_session_cb (self);
}

static void
stop_agent_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  SjWindow *self = user_data;

  if (self->agent != NULL)
    sj_agent_stop (self->agent);
}

static void
regenerate_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  SjWindow *self = user_data;

  show_page (self, "chat");
  gtk_widget_activate_action (GTK_WIDGET (self->chat_panel), "chat.regenerate", NULL);
}

static void
edit_last_action (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  SjWindow *self = user_data;

  show_page (self, "chat");
  gtk_widget_activate_action (GTK_WIDGET (self->chat_panel), "chat.edit-last", NULL);
}

/* The banner's Retry: the last answer again. */
static void
retry_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  SjWindow *self = user_data;

  gtk_widget_activate_action (GTK_WIDGET (self->chat_panel), "chat.regenerate", NULL);
}

/* Stop from the keyboard wherever the focus is, the code editor (the page,
 * which takes every key) included: the window sees these keys first, in
 * the capture phase, and takes them only while the agent answers, so
 * Escape keeps its meaning everywhere else. Ctrl+Shift+. arrives as
 * Ctrl+> on a US layout and as Ctrl+: on a German one: all are Stop. */
static gboolean
stop_shortcut_cb (GtkWidget *widget,
                  GVariant  *args,
                  gpointer   user_data)
{
  SjWindow *self = SJ_WINDOW (widget);

  if (self->agent == NULL || !sj_agent_is_busy (self->agent))
    return FALSE;

  sj_agent_stop (self->agent);
  return TRUE;
}

static void
add_stop_shortcut (SjWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  GtkShortcutTrigger *trigger;

  trigger = gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_period, GDK_CONTROL_MASK | GDK_SHIFT_MASK),
                                         gtk_keyval_trigger_new (GDK_KEY_greater, GDK_CONTROL_MASK));
  trigger = gtk_alternative_trigger_new (trigger, gtk_keyval_trigger_new (GDK_KEY_colon, GDK_CONTROL_MASK));
  trigger = gtk_alternative_trigger_new (trigger, gtk_keyval_trigger_new (GDK_KEY_Escape, 0));

  gtk_event_controller_set_name (controller, "sj-stop-agent");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (trigger, gtk_callback_action_new (stop_shortcut_cb, NULL, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

static const GActionEntry agent_entries[] = {
  { "focus-composer", focus_composer_action },
  { "show-chat", show_agent_page_action },
  { "show-tool-logs", show_agent_page_action },
  { "show-sessions", show_agent_page_action },
  { "show-agent-settings", show_agent_page_action },
  { "new-session", new_session_action },
  { "stop-agent", stop_agent_action },
  { "regenerate", regenerate_action },
  { "edit-last-message", edit_last_action },
};

static const GActionEntry retry_entries[] = {
  { "retry", retry_action },
};

void
_sj_window_agent_class_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (SJ_TYPE_CHAT_PANEL);
  g_type_ensure (SJ_TYPE_TOOL_LOGS_PAGE);

}

/* An answer finished: the Sessions list shows what the session cost so
 * far (issue 32), so it is read again. */
static void
agent_message_finished_cb (SjWindow *self,
                           gint64    message_id,
                           int       status,
                           SjAgent  *agent)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_sessions_page_reload (self->sessions_page);
}

void
_sj_window_agent_init (SjWindow *self)
{
  g_autoptr(GSimpleActionGroup) agent_group = g_simple_action_group_new ();

  self->agent_signals = g_signal_group_new (SJ_TYPE_AGENT);
  g_signal_group_connect_object (self->agent_signals, "tool-finished", G_CALLBACK (tool_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "notify::session-id", G_CALLBACK (agent_session_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "message-finished", G_CALLBACK (agent_message_finished_cb), self,
                                 G_CONNECT_SWAPPED);

  g_action_map_add_action_entries (G_ACTION_MAP (self), agent_entries, G_N_ELEMENTS (agent_entries), self);
  g_action_map_add_action_entries (G_ACTION_MAP (agent_group), retry_entries, G_N_ELEMENTS (retry_entries), self);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "agent", G_ACTION_GROUP (agent_group));
  add_stop_shortcut (self);

  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, build_agent_cb, g_object_ref (self), g_object_unref);
}

void
_sj_window_agent_dispose (SjWindow *self)
{
  g_clear_object (&self->agent_signals);
  if (self->agent != NULL)
    sj_agent_stop (self->agent);
  g_clear_object (&self->agent_config);
  g_clear_object (&self->agent);
  g_clear_object (&self->history);
}
