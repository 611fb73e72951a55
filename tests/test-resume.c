/* test-resume.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Pick up where you left off", with a real crash. The built strudel-jam
 * runs as a process of its own under Xvfb, set up (in a keyfile GSettings
 * of its own, which outlives the process) to talk to a loopback server
 * standing in for the model. The musician's message is typed into its
 * composer with real X key events (xdotool), after its own
 * win.focus-composer action is activated over D-Bus. While the server holds
 * the answer open, half said, and once the app has committed that half to
 * its history, the app gets SIGKILL: no handler, no flush, no cleanup.
 *
 * Then the app starts again, here in this process so its widgets can be
 * looked at: the chat reopens on that session with the message and the
 * half answer, marked interrupted (its label, its accessible description),
 * the Sessions and Logs pages follow, and the answer's own Regenerate
 * button gets a complete answer in its place.
 *
 * Nothing waits by sleeping: D-Bus signals, file monitor events on the
 * history and the main loop tell when what is awaited holds; the deadline
 * only turns a hang into a failure.
 */

#include "config.h"

#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-message-row-private.h"
#include "sj-sessions-page-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-test-widgets.h"
#include "sj-tool-logs-page-private.h"
#include "sj-window-private.h"

#define APP_ID      "io.github.strudeljam.StrudelJam"
#define WINDOW_PATH "/io/github/strudeljam/StrudelJam/window/1"
#define MESSAGE     "make it groovier"
/* Ends with a space: the timed commit writes up to the last one. */
#define PARTIAL     "Let me swing the hats a little and move the kick "
#define REGENERATED "Swung the hats by a sixteenth; the kick is where it was."

/* The first run ------------------------------------------------------------ */

typedef struct
{
  GDBusConnection *bus;
  gboolean         ready;
} PageReady;

/* Whether a Changed signal of the window's actions enables "play". */
static void
actions_changed_cb (GDBusConnection *bus,
                    const char      *sender,
                    const char      *path,
                    const char      *interface,
                    const char      *signal,
                    GVariant        *parameters,
                    gpointer         user_data)
{
  PageReady *ready = user_data;
  g_autoptr(GVariant) enabled = g_variant_get_child_value (parameters, 1);
  gboolean play = FALSE;

  if (g_variant_lookup (enabled, "play", "b", &play) && play)
    ready->ready = TRUE;
}

static void
describe_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  PageReady *ready = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, NULL);
  gboolean enabled = FALSE;

  /* No window yet: its Changed signal will say. */
  if (reply != NULL)
    g_variant_get (reply, "((bgav))", &enabled, NULL, NULL);
  if (enabled)
    ready->ready = TRUE;
}

static void
name_appeared_cb (GDBusConnection *bus,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  g_dbus_connection_call (bus, APP_ID, WINDOW_PATH, "org.gtk.Actions", "Describe", g_variant_new ("(s)", "play"),
                          G_VARIANT_TYPE ("((bgav))"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, describe_cb, user_data);
}

static gboolean
page_is_ready (gpointer data)
{
  return ((PageReady *) data)->ready;
}

static void
activate_window_action (GDBusConnection *bus,
                        const char      *name)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  /* The reply comes once the app has run the action. */
  reply = g_dbus_connection_call_sync (bus, APP_ID, WINDOW_PATH, "org.gtk.Actions", "Activate",
                                       g_variant_new ("(sava{sv})", name, NULL, NULL),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
}

static char *
xdotool_output (const char * const *args)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = 0;

  g_strv_builder_add (builder, "xdotool");
  g_strv_builder_addv (builder, (const char **) args);
  argv = g_strv_builder_end (builder);
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                &out, NULL, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("xdotool %s failed", args[0]);

  return g_strstrip (out);
}

static gboolean
request_arrived (gpointer data)
{
  return sj_test_model_server_get_n_requests (data) > 0;
}

/* The last answer in the history, as the file holds it. */
typedef struct
{
  char   *path;
  gint64  session;
  char   *content;
  char   *status;
} Stored;

static void
read_last_answer (Stored *stored)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_clear_pointer (&stored->content, g_free);
  g_clear_pointer (&stored->status, g_free);
  if (!g_file_test (stored->path, G_FILE_TEST_EXISTS) ||
      sqlite3_open_v2 (stored->path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    {
      sqlite3_close (db);
      return;
    }
  sqlite3_busy_timeout (db, 2000);
  /* A streaming answer's text is its row's and the pieces saved so far. */
  if (sqlite3_prepare_v2 (db, "SELECT m.session_id, m.content || COALESCE((SELECT group_concat(content, '') "
                              "FROM (SELECT content FROM message_parts WHERE message_id = m.id ORDER BY id)), ''), "
                              "m.status FROM messages m WHERE m.role = 'assistant' "
                              "ORDER BY m.id DESC LIMIT 1", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    {
      stored->session = sqlite3_column_int64 (stmt, 0);
      stored->content = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
      stored->status = g_strdup ((const char *) sqlite3_column_text (stmt, 2));
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

static gboolean
partial_committed (gpointer data)
{
  Stored *stored = data;

  read_last_answer (stored);
  return g_strcmp0 (stored->content, PARTIAL) == 0 && g_strcmp0 (stored->status, "streaming") == 0;
}

static void
history_changed_cb (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other,
                    GFileMonitorEvent  event,
                    gpointer           user_data)
{
  /* Only wakes the main loop: partial_committed () reads the file. */
}

static void
become_group_leader (gpointer data)
{
  setpgid (0, 0);
}

/* Runs the app, types the message, and kills the app mid-answer. */
static void
crash_mid_answer (SjTestModelServer *server,
                  Stored            *stored)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GSubprocess) app = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GFileMonitor) monitor = NULL;
  g_autoptr(GFile) data_dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *window = NULL;
  g_autofree char *keyfile = NULL;
  g_autofree char *remembered = NULL;
  g_autofree char *expected = NULL;
  PageReady ready = { 0 };
  guint subscription, watch;
  pid_t pid;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  ready.bus = bus;
  subscription = g_dbus_connection_signal_subscribe (bus, NULL, "org.gtk.Actions", "Changed", WINDOW_PATH, NULL,
                                                     G_DBUS_SIGNAL_FLAGS_NONE, actions_changed_cb, &ready, NULL);
  watch = g_bus_watch_name_on_connection (bus, APP_ID, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                          name_appeared_cb, NULL, &ready, NULL);

  /* Its own process group, so its WebKit helpers go with it at the end;
   * its output goes to the test's log, never into the TAP stream. */
  g_subprocess_launcher_setenv (launcher, "GTK_A11Y", "none", TRUE);
  g_subprocess_launcher_set_child_setup (launcher, become_group_leader, NULL, NULL);
  g_subprocess_launcher_take_stdout_fd (launcher, dup (STDERR_FILENO));
  app = g_subprocess_launcher_spawn (launcher, &error, SJ_APP_BINARY, NULL);
  g_assert_no_error (error);
  pid = atoi (g_subprocess_get_identifier (app));

  sj_test_spin_until (page_is_ready, &ready, "the app's page to be ready");
  g_dbus_connection_signal_unsubscribe (bus, subscription);
  g_bus_unwatch_name (watch);

  /* There is no window manager under Xvfb: give the window the focus. */
  {
    g_autofree char *pid_text = g_strdup_printf ("%d", pid);
    g_auto(GStrv) ids = NULL;

    window = xdotool_output ((const char *[]) { "search", "--onlyvisible", "--pid", pid_text, NULL });
    ids = g_strsplit (window, "\n", 2);
    g_free (window);
    window = g_strdup (ids[0]);
  }
  sj_test_run_xdotool ((const char *[]) { "windowfocus", "--sync", window, NULL });

  /* Ctrl+L's action, then the musician's keys and Enter. */
  activate_window_action (bus, "focus-composer");
  sj_test_run_xdotool ((const char *[]) { "type", "--delay", "20", MESSAGE, NULL });
  sj_test_run_xdotool ((const char *[]) { "key", "Return", NULL });

  sj_test_spin_until (request_arrived, server, "the app's request to the model");
  g_assert_true (g_str_has_suffix (json_object_get_string_member (json_array_get_object_element (
                   json_object_get_array_member (sj_test_model_server_get_request (server, 0), "messages"), 1), "content"),
                 MESSAGE));

  /* The first half of the answer reaches the file within about a second. */
  data_dir = g_file_new_build_filename (g_get_user_data_dir (), "strudel-jam", NULL);
  monitor = g_file_monitor_directory (data_dir, G_FILE_MONITOR_NONE, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (monitor, "changed", G_CALLBACK (history_changed_cb), NULL);
  sj_test_spin_until (partial_committed, stored, "the first half of the answer in the history");

  /* The app remembered its session as it began. */
  keyfile = g_build_filename (g_get_user_config_dir (), "glib-2.0", "settings", "keyfile", NULL);
  g_assert_true (g_file_get_contents (keyfile, &remembered, NULL, NULL));
  expected = g_strdup_printf ("last-session=%" G_GINT64_FORMAT "\n", stored->session);
  g_assert_nonnull (strstr (remembered, expected));

  /* Mid-stream: the server still holds the answer open. */
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_subprocess_wait (app, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (app));
  g_assert_cmpint (g_subprocess_get_term_sig (app), ==, SIGKILL);
  /* Its helpers, if any outlived it. */
  kill (-pid, SIGKILL);

  /* Left "streaming" by the dead process, until something opens it. */
  read_last_answer (stored);
  g_assert_cmpstr (stored->status, ==, "streaming");
}

/* The restart ------------------------------------------------------------- */

typedef struct
{
  SjWindow      *window;
  SjChatMessage *message;
} RowOf;

/* The mapped row bound to a message, or NULL. */
static SjMessageRow *
row_for (SjWindow      *window,
         SjChatMessage *message)
{
  g_autoptr(GPtrArray) rows = sj_test_find_all_by_type (GTK_WIDGET (window->chat_panel), SJ_TYPE_MESSAGE_ROW);

  for (guint i = 0; i < rows->len; i++)
    if (_sj_message_row_get_message (rows->pdata[i]) == message && gtk_widget_get_mapped (rows->pdata[i]))
      return rows->pdata[i];

  return NULL;
}

static gboolean
row_shown (gpointer data)
{
  RowOf *row = data;

  return row_for (row->window, row->message) != NULL;
}

static GtkWidget *
find_button (GtkWidget  *root,
             const char *action)
{
  g_autoptr(GPtrArray) buttons = sj_test_find_all_by_type (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (buttons->pdata[i]), action) == 0)
      return buttons->pdata[i];

  return NULL;
}

static GtkLabel *
find_label_containing (GtkWidget  *root,
                       const char *text)
{
  g_autoptr(GPtrArray) labels = sj_test_find_all_by_type (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_text (labels->pdata[i]), text) != NULL)
      return labels->pdata[i];

  return NULL;
}

static gboolean
regenerated (gpointer data)
{
  SjWindow *window = data;
  GListModel *messages = _sj_chat_panel_get_messages (window->chat_panel);
  g_autoptr(SjChatMessage) last = NULL;

  if (sj_agent_is_busy (window->agent) || g_list_model_get_n_items (messages) != 2)
    return FALSE;
  last = g_list_model_get_item (messages, 1);
  return sj_chat_message_get_status (last) == SJ_HISTORY_MESSAGE_COMPLETE;
}

/* The window as the musician finds it after the crash, for the docs. */
static void
save_screenshot (SjWindow *window)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  sj_test_wait_widget_frames (GTK_WIDGET (window), 5, SJ_TEST_WAIT_TIMEOUT_S);

  texture = sj_test_render_widget (GTK_WIDGET (window));
  path = sj_test_save_png (texture, "strudel-jam-interrupted.png");
  g_test_message ("Screenshot written to %s", path);
}

static void
test_kill_9_mid_answer (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(SjChatMessage) user = NULL;
  g_autoptr(SjChatMessage) answer = NULL;
  g_autoptr(SjChatMessage) again = NULL;
  Stored stored = { 0 };
  SjMessageRow *row;
  GtkWidget *regenerate;
  GListModel *messages;
  SjWindow *window;
  JsonObject *request;

  /* A local model: no key, no keyring. Written to the keyfile, which the
   * app reads when it starts. */
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  g_settings_sync ();

  stored.path = g_build_filename (g_get_user_data_dir (), "strudel-jam", "history.sqlite3", NULL);
  sj_test_model_server_reply_hold (server, PARTIAL);
  crash_mid_answer (server, &stored);

  /* The next start. */
  sj_test_model_server_reply_text (server, REGENERATED, 6);
  sj_test_app_start ();
  window = sj_test_open_window ();
  g_assert_nonnull (sj_window_get_agent (window));
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");

  /* The last session, its message and the half answer, interrupted. */
  g_assert_cmpint (sj_agent_get_session_id (window->agent), ==, stored.session);
  messages = _sj_chat_panel_get_messages (window->chat_panel);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  user = g_list_model_get_item (messages, 0);
  answer = g_list_model_get_item (messages, 1);
  g_assert_cmpint (sj_chat_message_get_role (user), ==, SJ_HISTORY_ROLE_USER);
  g_assert_cmpstr (sj_chat_message_get_content (user), ==, MESSAGE);
  g_assert_cmpint (sj_chat_message_get_role (answer), ==, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_INTERRUPTED);
  g_assert_cmpstr (sj_chat_message_get_content (answer), ==, PARTIAL);
  g_assert_true (sj_chat_message_get_is_last (answer));
  read_last_answer (&stored);
  g_assert_cmpstr (stored.status, ==, "interrupted");

  /* The Sessions and Logs pages follow. */
  g_assert_cmpint (_sj_sessions_page_get_current (window->sessions_page), ==, stored.session);
  g_assert_cmpuint (g_list_model_get_n_items (_sj_sessions_page_get_sessions (window->sessions_page)), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (_sj_tool_logs_page_get_calls (window->tool_logs_page)), ==, 0);

  /* The row says so, to the eye and to a screen reader, and offers
   * Regenerate. */
  adw_view_stack_set_visible_child_name (window->panel_stack, "chat");
  sj_test_spin_until (row_shown, &(RowOf) { window, answer }, "the interrupted answer's row");
  row = row_for (window, answer);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (row), "Interrupted — the app stopped before this answer finished"));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (row), "swing the hats"));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Interrupted answer: the app stopped before it finished, and only its beginning was kept");
  regenerate = find_button (GTK_WIDGET (row), "chat.regenerate");
  g_assert_nonnull (regenerate);
  g_assert_true (gtk_widget_get_mapped (regenerate));
  g_assert_true (gtk_widget_is_sensitive (regenerate));
  save_screenshot (window);

  /* The row goes with the answer it replaces, as the click is handled. */
  g_object_ref (regenerate);
  sj_test_click (regenerate);
  g_object_unref (regenerate);
  sj_test_spin_until (regenerated, window, "the regenerated answer");
  again = g_list_model_get_item (messages, 1);
  g_assert_cmpstr (sj_chat_message_get_content (again), ==, REGENERATED);
  g_assert_cmpstr (sj_chat_message_get_content (user), ==, MESSAGE);

  /* The model was asked the message once more, and only it. */
  g_assert_cmpuint (sj_test_model_server_get_n_requests (server), ==, 2);
  request = sj_test_model_server_get_request (server, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 2);
  read_last_answer (&stored);
  g_assert_cmpstr (stored.status, ==, "complete");
  g_assert_cmpstr (stored.content, ==, REGENERATED);

  sj_test_close_window (window);
  g_free (stored.path);
  g_free (stored.content);
  g_free (stored.status);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int status;

  /* Private user directories; settings in a keyfile there, which both the
   * app's process and this one read. */
  home = sj_test_app_init ();
  g_setenv ("GSETTINGS_BACKEND", "keyfile", TRUE);
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  g_setenv ("GTK_A11Y", "test", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/resume/kill-9-mid-answer", test_kill_9_mid_answer);

  status = g_test_run ();

  if (sj_test_app != NULL)
    sj_test_app_stop ();
  sj_test_remove_tree (home);
  return status;
}
