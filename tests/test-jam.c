/* test-jam.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The whole jam in the real window under Xvfb: the musician writes in the
 * Chat, the agent (over a loopback server standing in for the model) calls
 * apply_strudel_change, the real page swaps the change in on its boundary,
 * and every page of the panel follows: the answer is marked "Applied at
 * cycle N" when the swap lands, the call is in the Logs, the session in
 * Sessions.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-session-item.h"
#include "sj-sessions-page-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-test-widgets.h"
#include "sj-tool-call-item.h"
#include "sj-tool-log-row.h"
#include "sj-tool-logs-page-private.h"
#include "sj-window-private.h"

static const char base_code[] = "$: note(\"c3*4\").s(\"sine\").gain(.2)\n";

static gboolean
agent_idle (gpointer data)
{
  SjWindow *window = data;

  return !sj_agent_is_busy (window->agent);
}

static gboolean
marked_applied (gpointer data)
{
  SjChatMessage *message = data;

  return sj_chat_message_get_swap (message) == SJ_CHAT_SWAP_APPLIED;
}

static gboolean
mapped_tool_row (GtkWidget *widget)
{
  if (SJ_IS_TOOL_LOG_ROW (widget) && gtk_widget_get_mapped (widget))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (mapped_tool_row (child))
      return TRUE;
  return FALSE;
}

/* The window as the musician sees it after the jam, for the README. */
static void
save_screenshot (SjWindow *window)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  adw_view_stack_set_visible_child_name (window->panel_stack, "chat");
  sj_test_wait_widget_frames (GTK_WIDGET (window), 10, SJ_TEST_WAIT_TIMEOUT_S);

  texture = sj_test_render_widget (GTK_WIDGET (window));
  path = sj_test_save_png (texture, "strudel-jam-chat.png");
  g_test_message ("Screenshot written to %s", path);
}

/* What the calls answered, for a failure's log. */
static void
print_tool_results (GListModel *messages)
{
  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i);
      GListModel *calls = sj_chat_message_get_tool_calls (message);

      g_test_message ("message %u: %s", i, sj_chat_message_get_content (message));
      for (guint j = 0; j < g_list_model_get_n_items (calls); j++)
        {
          g_autoptr(SjToolCallItem) item = g_list_model_get_item (calls, j);

          g_test_message ("  %s → %s", sj_tool_call_item_get_call (item)->name,
                          sj_tool_call_item_get_call (item)->result);
        }
    }
}

static void
test_jam (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_autofree char *hash = sj_code_hash (base_code);
  g_autofree char *args = NULL;
  g_autofree char *code = NULL;
  g_autoptr(JsonObject) evaluated = NULL;
  g_autoptr(SjChatMessage) answer = NULL;
  SjWindow *window;
  SjRepl *repl;
  GListModel *messages;
  SjTestSwapEvent event = { 0 };
  Progress progress = { NULL, 1, 0 };
  gint64 session;

  /* A local model: no key, no keyring needed. */
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");

  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  progress.repl = repl;
  g_assert_nonnull (sj_window_get_agent (window));
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");

  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);
  evaluated = sj_test_evaluate (repl, base_code);
  sj_test_spin_until (sj_test_progressed, &progress, "the base pattern to play");

  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"search_replace\",\"edits\":[{\"search\":\"c3*4\",\"replace\":\"e3*8\"}]}}", hash);
  sj_test_model_server_reply_tool_call (server, NULL, "call_1", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "Eighth notes on **e3**, from the next cycle; sound and level kept.", 6);

  /* What the composer does when the musician presses Enter. */
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "make it busier");
  g_assert_true (sj_agent_is_busy (window->agent));
  sj_test_spin_until (agent_idle, window, "the agent to answer");

  /* The change went through the real page. */
  code = sj_test_fetch_code (repl);
  if (strstr (code, "e3*8") == NULL)
    print_tool_results (_sj_chat_panel_get_messages (window->chat_panel));
  g_assert_nonnull (strstr (code, "e3*8"));
  sj_test_spin_until (sj_test_swap_applied, &event, "the change to land");

  /* The chat: the musician's message and the answer, marked when it landed. */
  messages = _sj_chat_panel_get_messages (window->chat_panel);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  answer = g_list_model_get_item (messages, 1);
  g_assert_cmpint (sj_chat_message_get_role (answer), ==, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_nonnull (strstr (sj_chat_message_get_content (answer), "Eighth notes"));
  g_assert_cmpuint (g_list_model_get_n_items (sj_chat_message_get_tool_calls (answer)), ==, 1);
  sj_test_spin_until (marked_applied, answer, "the answer to be marked applied");
  g_assert_cmpfloat (sj_chat_message_get_swap_cycle (answer), ==, event.cycle);

  save_screenshot (window);
  /* The answer shows its finished call. */
  g_assert_true (mapped_tool_row (GTK_WIDGET (window->chat_panel)));

  /* The Logs and Sessions follow. */
  g_assert_cmpuint (g_list_model_get_n_items (_sj_tool_logs_page_get_calls (window->tool_logs_page)), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (_sj_sessions_page_get_sessions (window->sessions_page)), ==, 1);
  g_assert_cmpint (_sj_sessions_page_get_current (window->sessions_page), ==, sj_agent_get_session_id (window->agent));
  /* With what the session cost (issue 32): the loopback server's usage of
   * both requests of the turn, a server on this machine costing nothing. */
  {
    g_autoptr(SjSessionItem) item = g_list_model_get_item (_sj_sessions_page_get_sessions (window->sessions_page), 0);

    g_assert_cmpstr (sj_session_item_get_usage (item), ==, "240 tokens · $0");
  }

  /* A new session empties the chat; the old one comes back from Sessions. */
  session = sj_agent_get_session_id (window->agent);
  g_action_group_activate_action (G_ACTION_GROUP (window), "new-session", NULL);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);
  g_assert_cmpint (sj_agent_get_session_id (window->agent), ==, 0);
  g_signal_emit_by_name (window->sessions_page, "session-activated", session);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  g_assert_cmpint (sj_agent_get_session_id (window->agent), ==, session);

  /* Ctrl+Shift+G: the last answer again, from anywhere in the window. */
  sj_test_model_server_reply_text (server, "Same change, said again.", 6);
  g_action_group_activate_action (G_ACTION_GROUP (window), "regenerate", NULL);
  sj_test_spin_until (agent_idle, window, "the answer to be regenerated");
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  {
    g_autoptr(SjChatMessage) again = g_list_model_get_item (messages, 1);

    g_assert_cmpstr (sj_chat_message_get_content (again), ==, "Same change, said again.");
  }

  /* Apply on a code block: the same safe path, dry-run then the boundary. */
  g_clear_pointer (&event.state, g_free);
  g_action_group_activate_action (G_ACTION_GROUP (window), "apply-code",
                                  g_variant_new_string ("$: note(\"g3*4\").s(\"sine\").gain(.2)\n"));
  sj_test_spin_until (sj_test_swap_applied, &event, "the code block to land");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, "$: note(\"g3*4\").s(\"sine\").gain(.2)\n");

  /* Apply on a skill's example in the Skills page: the same path. */
  g_clear_pointer (&event.state, g_free);
  g_action_group_activate_action (G_ACTION_GROUP (window), "apply-code",
                                  g_variant_new_string ("$: note(\"c3*2\").s(\"triangle\").gain(.2)\n"));
  sj_test_spin_until (sj_test_swap_applied, &event, "the skill's example to land");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, "$: note(\"c3*2\").s(\"triangle\").gain(.2)\n");

  g_signal_handlers_disconnect_by_func (repl, sj_test_swap_changed_cb, &event);
  g_free (event.state);
  sj_test_close_window (window);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int status;

  /* Private user directories: the history is the test's own. */
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/jam/chat-to-music", test_jam);

  status = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);
  return status;
}
