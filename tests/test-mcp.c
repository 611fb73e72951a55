/* test-mcp.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * `strudel-jam --mcp` end to end (issue 34): this test is the primary
 * instance of the app on its private session bus with the real window and
 * page; the official MCP TypeScript SDK client (tests/mcp-client/jam.mjs,
 * the pinned @modelcontextprotocol/sdk) runs the real binary with --mcp
 * and talks to the window through it. Checked: initialize, tools/list with
 * the agent's own tools and schemas, tools/call of every tool, read_code
 * giving the editor's code, a change landing on the next cycle in the real
 * page and the editor, resources; the musician's Allow / Block question
 * (remembered), the setting that turns it off, every call in the Logs page
 * as coming from its client, and Cancel Change and Panic on a change an
 * MCP client scheduled.
 */

#include "config.h"

#include "sj-agent-tools.h"
#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-knowledge-base.h"
#include "sj-repl-private.h"
#include "sj-settings-page-private.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-tool-call-item.h"
#include "sj-tool-logs-page-private.h"
#include "sj-window-private.h"

static SjTestSwapEvent swap_event;

typedef struct
{
  GSubprocess  *process;
  GAsyncResult *result;
} Client;

static void
client_start (Client     *client,
              const char *name,
              const char *plan)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (SJ_MCP_CLIENT_DIR, "jam.mjs", NULL);

  client->result = NULL;
  client->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                      "node", script, SJ_STRUDEL_JAM, name, plan, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (client->process, NULL, NULL, sj_test_store_result_cb, &client->result);
}

/* The client's lines, as JSON objects: the "initialized" one first. */
static GPtrArray *
client_finish (Client *client)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify)json_object_unref);

  g_assert_true (g_subprocess_communicate_utf8_finish (client->process, sj_test_wait_result (&client->result),
                                                       &out, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&client->result);
  g_assert_true (g_subprocess_get_if_exited (client->process));
  g_assert_cmpint (g_subprocess_get_exit_status (client->process), ==, 0);
  g_clear_object (&client->process);

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;

      if (*lines[i] == '\0')
        continue;
      node = json_from_string (lines[i], &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      g_ptr_array_add (objects, json_object_ref (json_node_get_object (node)));
    }
  g_assert_cmpuint (objects->len, >=, 1);
  g_assert_true (json_object_has_member (g_ptr_array_index (objects, 0), "initialized"));

  return objects;
}

static GPtrArray *
run_client (const char *name,
            const char *plan)
{
  Client client = { 0 };

  client_start (&client, name, plan);
  return client_finish (&client);
}

static JsonObject *
step_result (GPtrArray *lines,
             guint      step)
{
  JsonObject *line = g_ptr_array_index (lines, step + 1);

  g_assert_cmpint (json_object_get_int_member (line, "step"), ==, step);
  if (!json_object_get_boolean_member (line, "ok"))
    g_error ("step %u failed: %s", step,
             json_object_get_string_member (json_object_get_object_member (line, "error"), "message"));

  return json_object_get_object_member (line, "result");
}

static const char *
step_error (GPtrArray *lines,
            guint      step)
{
  JsonObject *line = g_ptr_array_index (lines, step + 1);

  g_assert_false (json_object_get_boolean_member (line, "ok"));
  return json_object_get_string_member (json_object_get_object_member (line, "error"), "message");
}

static JsonObject *
structured (JsonObject *result)
{
  g_assert_true (json_object_has_member (result, "structuredContent"));
  return json_object_get_object_member (result, "structuredContent");
}

typedef struct
{
  SjWindow   *window;
  const char *client;
} DialogWait;

static gboolean
dialog_asked (gpointer data)
{
  DialogWait *wait = data;
  AdwMessageDialog *dialog = _sj_window_get_mcp_dialog (wait->window, wait->client);

  return dialog != NULL && gtk_widget_get_mapped (GTK_WIDGET (dialog));
}

/* Runs the client, answers the question it raises with @response. */
static GPtrArray *
run_client_answering (SjWindow   *window,
                      const char *name,
                      const char *plan,
                      const char *response)
{
  DialogWait wait = { window, name };
  Client client = { 0 };
  AdwMessageDialog *dialog;

  client_start (&client, name, plan);
  sj_test_spin_until (dialog_asked, &wait, "the musician to be asked about the MCP client");
  dialog = _sj_window_get_mcp_dialog (window, name);
  g_assert_true (adw_message_dialog_has_response (dialog, "allow"));
  g_assert_true (adw_message_dialog_has_response (dialog, "block"));
  adw_message_dialog_response (dialog, response);

  return client_finish (&client);
}

static gboolean
editor_has (gpointer data)
{
  return g_strcmp0 (_sj_repl_get_code (_sj_window_get_repl (sj_test_current_window ())), data) == 0;
}

static SjWindow *
playing_window (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  Progress progress = { repl, 0, 0 };
  g_autoptr(JsonObject) outcome = NULL;

  if (!sj_repl_get_state (repl)->playing)
    {
      outcome = sj_test_evaluate (repl, NULL);
      g_assert_true (json_object_get_boolean_member (outcome, "ok"));
    }
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  sj_test_spin_until (sj_test_progressed, &progress, "the music to play");

  return window;
}

/* The Logs page lists @tool as called by @client. */
static gboolean
logged_from (SjWindow   *window,
             const char *tool,
             const char *client)
{
  GListModel *calls = _sj_tool_logs_page_get_calls (window->tool_logs_page);

  for (guint i = 0; i < g_list_model_get_n_items (calls); i++)
    {
      g_autoptr(SjToolCallItem) item = g_list_model_get_item (calls, i);

      if (g_strcmp0 (sj_tool_call_item_get_call (item)->name, tool) == 0 &&
          g_strcmp0 (sj_tool_call_item_get_origin (item), client) == 0)
        return TRUE;
    }

  return FALSE;
}

/* Every tool, the resources, a change that lands. */
static void
test_jam (void)
{
  SjWindow *window = playing_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  const char *code = "setcpm(60)\n$: note(\"c3 e3 g3\").s(\"triangle\").gain(.3)\n";
  g_autofree char *plan = NULL;
  g_autoptr(GPtrArray) lines = NULL;
  g_autoptr(JsonArray) definitions = sj_agent_tools_get_definitions ();
  g_autofree char *editor_code = g_strdup (_sj_repl_get_code (repl));
  JsonObject *initialized;
  JsonArray *tools;
  JsonObject *result;
  JsonObject *applied;

  plan = g_strdup_printf ("[{\"list\": \"tools\"},"
                          " {\"tool\": \"read_code\"},"
                          " {\"tool\": \"strudel_knowledge\", \"arguments\": {\"query\": \"lpf\"}},"
                          " {\"tool\": \"search_knowledge\", \"arguments\": {\"query\": \"lpf\"}},"
                          " {\"tool\": \"skills_list\"},"
                          " {\"tool\": \"activate_skills\", \"arguments\": {\"names\": [\"no-such-skill\"]}},"
                          " {\"tool\": \"listen\", \"arguments\": {\"cycles\": 1}},"
                          " {\"list\": \"resources\"},"
                          " {\"resource\": \"strudel://code/current\"},"
                          " {\"resource\": \"strudel://reference\"},"
                          " {\"tool\": \"no_such_tool\"},"
                          " {\"tool\": \"apply_strudel_change\", \"code\": %s, \"policy\": {\"quantize\": \"next_cycle\"}}]",
                          "\"setcpm(60)\\n$: note(\\\"c3 e3 g3\\\").s(\\\"triangle\\\").gain(.3)\\n\"");
  lines = run_client_answering (window, "test-jam", plan, "allow");
  g_assert_cmpuint (lines->len, ==, 13);

  initialized = json_object_get_object_member (g_ptr_array_index (lines, 0), "initialized");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (initialized, "server"), "name"), ==,
                   "strudel-jam");

  /* The agent's own tools, schemas and all. */
  tools = json_object_get_array_member (step_result (lines, 0), "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, json_array_get_length (definitions));
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      JsonObject *function = json_object_get_object_member (json_array_get_object_element (definitions, i), "function");

      g_assert_cmpstr (json_object_get_string_member (tool, "name"), ==, json_object_get_string_member (function, "name"));
      g_assert_true (json_node_equal (json_object_get_member (tool, "inputSchema"),
                                      json_object_get_member (function, "parameters")));
    }

  /* read_code is the editor's code. */
  result = structured (step_result (lines, 1));
  g_assert_cmpstr (json_object_get_string_member (result, "code"), ==, editor_code);
  g_assert_nonnull (json_object_get_string_member (result, "hash"));

  for (guint step = 2; step <= 6; step++)
    {
      result = step_result (lines, step);
      g_assert_true (json_object_has_member (result, "content"));
      g_assert_true (json_object_has_member (result, "structuredContent"));
    }
  g_assert_false (json_object_get_boolean_member (step_result (lines, 2), "isError"));
  g_assert_false (json_object_get_boolean_member (step_result (lines, 4), "isError"));
  g_assert_nonnull (json_object_get_array_member (structured (step_result (lines, 4)), "skills"));

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (step_result (lines, 7), "resources")), ==, 2);
  result = json_array_get_object_element (json_object_get_array_member (step_result (lines, 8), "contents"), 0);
  g_assert_cmpstr (json_object_get_string_member (result, "text"), ==, editor_code);
  result = json_array_get_object_element (json_object_get_array_member (step_result (lines, 9), "contents"), 0);
  g_assert_nonnull (strstr (json_object_get_string_member (result, "text"), "mini"));

  g_assert_nonnull (strstr (step_error (lines, 10), "Unknown tool"));

  /* The change lands on the next cycle in the real page and the editor. */
  applied = structured (step_result (lines, 11));
  g_assert_cmpstr (json_object_get_string_member (applied, "status"), !=, "rejected");
  sj_test_spin_until (editor_has, (gpointer)code, "the MCP client's change in the editor");

  /* Every call in the Logs page, from its client. */
  g_assert_true (logged_from (window, "read_code", "test-jam"));
  g_assert_true (logged_from (window, "listen", "test-jam"));
  g_assert_true (logged_from (window, "apply_strudel_change", "test-jam"));

  /* The session read back: the client's calls stay in Logs, the chat holds
   * no row for them (only the note that said a client was jamming). */
  {
    gint64 session = sj_agent_get_session_id (sj_window_get_agent (window));
    GListModel *messages = _sj_chat_panel_get_messages (window->chat_panel);
    guint n;

    g_assert_cmpint (session, >, 0);
    sj_chat_panel_load_session (window->chat_panel, session);
    n = g_list_model_get_n_items (messages);
    for (guint i = 0; i < n; i++)
      {
        g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i);

        g_assert_cmpint (sj_chat_message_get_role (message), !=, SJ_HISTORY_ROLE_TOOL);
      }
    g_assert_true (logged_from (window, "apply_strudel_change", "test-jam"));
  }
}

/* Blocked: refused with a clear message, and not asked again. */
static void
test_block (void)
{
  SjWindow *window = playing_window ();
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  g_autoptr(GPtrArray) lists = NULL;

  first = run_client_answering (window, "test-blocked", "[{\"tool\": \"read_code\"}]", "block");
  g_assert_nonnull (strstr (step_error (first, 0), "blocked"));

  second = run_client ("test-blocked", "[{\"tool\": \"read_code\"}, {\"resource\": \"strudel://code/current\"}]");
  g_assert_nonnull (strstr (step_error (second, 0), "blocked"));
  g_assert_nonnull (strstr (step_error (second, 1), "blocked"));
  g_assert_null (_sj_window_get_mcp_dialog (window, "test-blocked"));
  g_assert_false (logged_from (window, "read_code", "test-blocked"));
}

/* The setting off: every call says the musician turned it off. */
static void
test_setting (void)
{
  SjWindow *window = playing_window ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GPtrArray) lines = NULL;

  GtkSwitch *toggle;

  /* The row in Settings turns it off. */
  sj_window_get_agent (window);
  toggle = window->settings_page->mcp_server_switch;
  g_assert_true (gtk_switch_get_active (toggle));
  gtk_switch_set_active (toggle, FALSE);
  g_assert_false (g_settings_get_boolean (settings, "mcp-server-enabled"));
  lines = run_client ("test-jam", "[{\"list\": \"tools\"}, {\"tool\": \"read_code\"}]");
  g_assert_nonnull (strstr (step_error (lines, 0), "turned"));
  g_assert_nonnull (strstr (step_error (lines, 1), "turned"));
  gtk_switch_set_active (toggle, TRUE);
  g_assert_true (g_settings_get_boolean (settings, "mcp-server-enabled"));
}

static gboolean
swap_is (gpointer data)
{
  return g_strcmp0 (swap_event.state, data) == 0;
}

/* Cancel Change and Panic work on a change an MCP client scheduled. */
static void
test_cancel_and_panic (void)
{
  SjWindow *window = playing_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *plan = "[{\"tool\": \"apply_strudel_change\", \"code\": \"$: s(\\\"bd*4\\\")\\n\","
                     " \"policy\": {\"quantize\": \"bars\", \"bars\": 8}}]";
  const char *actions[] = { "cancel-change", "panic" };
  gulong handler;

  /* Allowed before: no question. */
  g_settings_set_value (settings, "mcp-clients", g_variant_new_parsed ("{'test-cancel': true}"));
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &swap_event);

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      g_autoptr(GPtrArray) lines = NULL;
      Client client = { 0 };
      JsonObject *result;

      if (i > 0)
        playing_window ();
      g_clear_pointer (&swap_event.state, g_free);
      /* The call waits to hear the change (verify-landed-changes): it is
       * canceled under it. */
      client_start (&client, "test-cancel", plan);
      sj_test_spin_until (swap_is, "scheduled", "the MCP change to be scheduled");

      g_action_group_activate_action (G_ACTION_GROUP (window), actions[i], NULL);
      sj_test_spin_until (swap_is, "canceled", "the MCP change to be canceled");

      lines = client_finish (&client);
      result = structured (step_result (lines, 0));
      g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "scheduled");
      /* What the call waited to hear never sounded: the verifier says
       * canceled, or unverified when its wait ended with the swap. */
      if (json_object_has_member (result, "verification"))
        {
          const char *status = json_object_get_string_member (json_object_get_object_member (result, "verification"),
                                                               "status");

          g_assert_true (g_str_equal (status, "canceled") || g_str_equal (status, "unverified"));
        }
      g_assert_false (editor_has ((gpointer)"$: s(\"bd*4\")\n"));
      while (_sj_window_is_panicking (window))
        g_main_context_iteration (NULL, TRUE);
    }

  g_signal_handler_disconnect (repl, handler);
}

/* bench/mcp (SJ_MCP_BENCH=N) ------------------------------------------------ */

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *)a;
  double y = *(const double *)b;

  return x < y ? -1 : x > y;
}

static void
report (const char *what,
        GArray     *in_app,
        GArray     *mcp)
{
  double a50, a99, m50, m99;

  g_array_sort (in_app, compare_doubles);
  g_array_sort (mcp, compare_doubles);
  a50 = g_array_index (in_app, double, in_app->len / 2);
  a99 = g_array_index (in_app, double, MIN (in_app->len - 1, (guint)(in_app->len * 0.99)));
  m50 = g_array_index (mcp, double, mcp->len / 2);
  m99 = g_array_index (mcp, double, MIN (mcp->len - 1, (guint)(mcp->len * 0.99)));
  g_test_message ("BENCH %s: in-app agent tool call median %.2f ms p99 %.2f ms (n=%u); "
                  "MCP (SDK client, stdio, D-Bus) median %.2f ms p99 %.2f ms (n=%u); ratio %.1fx",
                  what, a50, a99, in_app->len, m50, m99, mcp->len, m50 / a50);
}

static double
in_app_call (SjAgentTools *tools,
             const char   *name,
             const char   *arguments,
             char        **hash)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(SjToolOutcome) outcome = NULL;
  gint64 start = g_get_monotonic_time ();
  double ms;

  sj_agent_tools_call_async (tools, name, "bench", arguments, NULL, sj_test_store_result_cb, &result);
  outcome = sj_agent_tools_call_finish (tools, sj_test_wait_result (&result));
  ms = (g_get_monotonic_time () - start) / 1000.0;
  if (outcome->status != SJ_HISTORY_TOOL_SUCCEEDED)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), outcome->result);
      g_autofree char *text = json_to_string (node, FALSE);

      g_error ("%s failed: %s", name, text);
    }
  if (hash != NULL)
    {
      g_free (*hash);
      *hash = g_strdup (outcome->known_hash);
    }

  return ms;
}

static void
mcp_calls (const char *plan,
           GArray     *times)
{
  g_autoptr(GPtrArray) lines = run_client ("bench", plan);

  for (guint i = 1; i < lines->len; i++)
    {
      JsonObject *line = g_ptr_array_index (lines, i);
      double ms = json_object_get_double_member (line, "ms");

      g_assert_true (json_object_get_boolean_member (line, "ok"));
      g_assert_false (json_object_get_boolean_member (json_object_get_object_member (line, "result"), "isError"));
      g_array_append_val (times, ms);
    }
}

static void
test_bench (void)
{
  SjWindow *window = playing_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(SjAgentTools) tools = NULL;
  g_autoptr(GArray) read_app = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) read_mcp = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) apply_app = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) apply_mcp = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *hash = NULL;
  g_autofree char *read_plan = NULL;
  const char *codes[] = { "$: s(\\\"bd*2\\\").gain(.3)\\n", "$: s(\\\"bd*4\\\").gain(.3)\\n" };
  guint n = (guint)g_ascii_strtoull (g_getenv ("SJ_MCP_BENCH"), NULL, 10);
  guint rounds = 5;
  guint per_round = MAX (1, n / rounds);
  guint flip = 0;

  /* The agent's path: a tools instance on the window's applier, as
   * sj-window-agent.c builds it. */
  tools = sj_agent_tools_new (sj_window_get_applier (window),
                              sj_application_get_knowledge (sj_test_app),
                              sj_knowledge_base_get_bundled ());
  g_settings_set_value (settings, "mcp-clients", g_variant_new_parsed ("{'bench': true}"));

  read_plan = g_strdup_printf ("[{\"repeat\": %u, \"step\": {\"tool\": \"read_code\"}}]", per_round);
  /* Changes are applied with the music stopped, so both sides measure the
   * pipeline (dry-run and swap) rather than the wait for a boundary. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");

  /* Warm up both sides, then interleave rounds so both share the noise. */
  in_app_call (tools, "read_code", "{}", &hash);
  mcp_calls ("[{\"repeat\": 3, \"step\": {\"tool\": \"read_code\"}}]", g_array_new (FALSE, FALSE, sizeof (double)));
  for (guint r = 0; r < rounds; r++)
    {
      g_autoptr(GString) plan = g_string_new ("[");

      for (guint i = 0; i < per_round; i++)
        {
          double ms = in_app_call (tools, "read_code", "{}", &hash);

          g_array_append_val (read_app, ms);
        }
      mcp_calls (read_plan, read_mcp);

      for (guint i = 0; i < per_round; i++)
        {
          g_autofree char *arguments = NULL;
          double ms;

          in_app_call (tools, "read_code", "{}", &hash);
          arguments = g_strdup_printf ("{\"baseHash\": \"%s\", \"change\": {\"kind\": \"full_code\", \"code\": \"%s\"}}",
                                       hash, codes[flip++ % 2]);
          ms = in_app_call (tools, "apply_strudel_change", arguments, NULL);
          g_array_append_val (apply_app, ms);
        }
      for (guint i = 0; i < per_round; i++)
        g_string_append_printf (plan, "%s{\"tool\": \"apply_strudel_change\", \"code\": \"%s\"}",
                                i > 0 ? ", " : "", codes[flip++ % 2]);
      g_string_append (plan, "]");
      mcp_calls (plan->str, apply_mcp);
    }

  report ("read_code", read_app, read_mcp);
  report ("apply_strudel_change (stopped: dry-run and swap)", apply_app, apply_mcp);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);

  gtk_init ();
  sj_test_app = sj_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (sj_test_app), NULL, NULL));
  g_assert_false (g_application_get_is_remote (G_APPLICATION (sj_test_app)));
  g_application_hold (G_APPLICATION (sj_test_app));

  g_test_add_func ("/mcp/jam", test_jam);
  g_test_add_func ("/mcp/block", test_block);
  g_test_add_func ("/mcp/setting", test_setting);
  g_test_add_func ("/mcp/cancel-and-panic", test_cancel_and_panic);
  if (g_getenv ("SJ_MCP_BENCH") != NULL)
    g_test_add_func ("/mcp/bench", test_bench);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
