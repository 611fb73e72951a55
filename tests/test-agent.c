/* test-agent.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The jam agent end to end, without a display: a real loopback HTTP server
 * plays the model from a script, the tools are the real ones (the dry-run
 * helper, the bundled knowledge), the history is a real SQLite file. Only
 * the Strudel page is replaced, by music in memory (sj-test-target.c);
 * the page itself is covered by the integration tests.
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sj-agent-private.h"
#include "sj-history-store-private.h"
#include "sj-llm-client-private.h"
#include "sj-redact.h"
#include "sj-test-files.h"
#include "sj-test-agent-stack.h"

#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"
#define PLANTED_KEY "plantedkey-4f7Qz9XwV2mL8sKd"

typedef struct
{
  SjTestAgentStack   stack;
  SjAgent           *agent;
  GString           *content;   /* text deltas seen */
  GString           *log;       /* every log line, unredacted */
  guint              retries;
  gboolean           stop_on_delta;
  gboolean           stop_on_request;
  gboolean           done;
  GError            *error;
} Fixture;

static Fixture *current;

static GLogWriterOutput
capture_log (GLogLevelFlags   level,
             const GLogField *fields,
             gsize            n_fields,
             gpointer         user_data)
{
  for (gsize i = 0; current != NULL && i < n_fields; i++)
    if (g_str_equal (fields[i].key, "MESSAGE"))
      g_string_append_printf (current->log, "%s\n", (const char *) fields[i].value);

  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    return g_log_writer_default (level, fields, n_fields, user_data);
  return G_LOG_WRITER_HANDLED;
}

static void
text_delta_cb (SjAgent    *agent,
               gint64      message_id,
               int         kind,
               const char *text,
               Fixture    *fixture)
{
  if (kind == SJ_AGENT_DELTA_CONTENT)
    g_string_append (fixture->content, text);
  if (fixture->stop_on_delta)
    sj_agent_stop (agent);
}

static void
retrying_cb (SjAgent    *agent,
             guint       attempt,
             guint       delay_ms,
             const char *reason,
             Fixture    *fixture)
{
  fixture->retries++;
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  current = fixture;
  fixture->content = g_string_new (NULL);
  fixture->log = g_string_new (NULL);
  sj_test_agent_stack_init (&fixture->stack, CODE);
  fixture->agent = sj_test_agent_stack_new_agent (&fixture->stack, PLANTED_KEY);
  _sj_agent_set_retry_policy (fixture->agent, 3, 5, 50);
  g_signal_connect (fixture->agent, "text-delta", G_CALLBACK (text_delta_cb), fixture);
  g_signal_connect (fixture->agent, "retrying", G_CALLBACK (retrying_cb), fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->agent);
  sj_test_agent_stack_clear (&fixture->stack);
  g_clear_error (&fixture->error);
  current = NULL;
  g_string_free (fixture->content, TRUE);
  g_string_free (fixture->log, TRUE);
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Fixture *fixture = user_data;

  g_clear_error (&fixture->error);
  sj_agent_send_finish (SJ_AGENT (object), result, &fixture->error);
  fixture->done = TRUE;
}

static void
wait_done (Fixture *fixture)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!fixture->done)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  g_assert_false (sj_agent_is_busy (fixture->agent));
}

static void
run_turn (Fixture    *fixture,
          const char *text)
{
  fixture->done = FALSE;
  g_string_truncate (fixture->content, 0);
  sj_agent_send_async (fixture->agent, text, NULL, send_cb, fixture);
  wait_done (fixture);
}

static GPtrArray *
messages (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *list = sj_history_store_list_messages (fixture->stack.store, sj_agent_get_session_id (fixture->agent), &error);

  g_assert_no_error (error);
  return list;
}

static SjHistoryMessage *
find_role (GPtrArray     *list,
           SjHistoryRole  role)
{
  for (guint i = list->len; i > 0; i--)
    if (((SjHistoryMessage *) g_ptr_array_index (list, i - 1))->role == role)
      return g_ptr_array_index (list, i - 1);
  return NULL;
}

static SjHistoryMessage *
last_of_role (GPtrArray     *list,
              SjHistoryRole  role)
{
  SjHistoryMessage *message = find_role (list, role);

  if (message == NULL)
    g_error ("No message of role %d", role);
  return message;
}

static GPtrArray *
tool_calls (Fixture *fixture,
            gint64   message_id)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *calls = sj_history_store_list_tool_calls (fixture->stack.store, message_id, &error);

  g_assert_no_error (error);
  return calls;
}

static const char *
last_user_content (JsonObject *request)
{
  JsonArray *list = json_object_get_array_member (request, "messages");

  for (guint i = json_array_get_length (list); i > 0; i--)
    {
      JsonObject *message = json_array_get_object_element (list, i - 1);

      if (g_str_equal (json_object_get_string_member (message, "role"), "user"))
        return json_object_get_string_member (message, "content");
    }
  return NULL;
}

static char *
apply_arguments (const char *base,
                 const char *search,
                 const char *replace)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "baseHash");
  json_builder_add_string_value (builder, base);
  json_builder_set_member_name (builder, "change");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "kind");
  json_builder_add_string_value (builder, "search_replace");
  json_builder_set_member_name (builder, "edits");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "search");
  json_builder_add_string_value (builder, search);
  json_builder_set_member_name (builder, "replace");
  json_builder_add_string_value (builder, replace);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
test_plain_answer (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;
  JsonObject *request;
  SjHistoryMessage *answer;
  const char *user;
  g_autofree char *hash = sj_code_hash (CODE);

  sj_test_model_server_reply_text (fixture->stack.server, "The `jux` function plays a pattern in stereo, *changed* on the right.", 4);
  run_turn (fixture, "What does jux do?");
  g_assert_no_error (fixture->error);
  g_assert_cmpstr (fixture->content->str, ==, "The `jux` function plays a pattern in stereo, *changed* on the right.");

  /* What the model got: the app's prompt, the tools, and the envelope
   * with the code it has not seen yet. */
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  g_assert_cmpstr (json_object_get_string_member (request, "model"), ==, "test/model");
  g_assert_true (json_object_get_boolean_member (request, "stream"));
  g_assert_cmpstr (json_object_get_string_member (request, "reasoning_effort"), ==, "medium");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "tools")), ==, 7);
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (request, "messages"), 0), "content"),
                            "apply_strudel_change"));
  user = last_user_content (request);
  g_assert_nonnull (strstr (user, "<runtime>"));
  g_assert_nonnull (strstr (user, hash));
  g_assert_nonnull (strstr (user, "\"playing\":true"));
  g_assert_nonnull (strstr (user, "\"quantize\":\"next_cycle\""));
  g_assert_nonnull (strstr (user, "\"repairsLeft\":4"));
  g_assert_nonnull (strstr (user, CODE));
  g_assert_true (g_str_has_suffix (user, "What does jux do?"));

  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 2);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_cmpstr (answer->content, ==, fixture->content->str);
  g_assert_cmpstr (answer->model, ==, "test/model");
  g_assert_cmpint (answer->started, >, 0);
  g_assert_cmpint (answer->ended, >=, answer->started);

  /* The same code: the envelope alone. Code changed by the musician: the
   * code again. */
  sj_test_model_server_reply_text (fixture->stack.server, "Sure.", 2);
  run_turn (fixture, "And chop?");
  user = last_user_content (sj_test_model_server_get_request (fixture->stack.server, 1));
  g_assert_nonnull (strstr (user, hash));
  g_assert_null (strstr (user, CODE));
  g_assert_null (strstr (user, "<code"));

  sj_test_model_server_reply_text (fixture->stack.server, "Nice edit.", 2);
  sj_test_target_set_code (fixture->stack.target, "s(\"sine\")");
  run_turn (fixture, "I changed it");
  user = last_user_content (sj_test_model_server_get_request (fixture->stack.server, 2));
  g_assert_nonnull (strstr (user, "<code"));
  g_assert_nonnull (strstr (user, "s(\"sine\")"));
}

static void
test_apply_scheduled (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *args = apply_arguments (hash, "lpf(800)", "lpf(1200)");
  g_autofree char *result = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  SjHistoryMessage *answer;
  SjHistoryToolCall *call;

  sj_test_model_server_reply_tool_call (fixture->stack.server, "Opening the filter.", "call_1", "apply_strudel_change", args);
  sj_test_model_server_reply_text (fixture->stack.server, "Opened the filter to 1200 Hz from cycle 13; notes and tempo unchanged.", 8);
  run_turn (fixture, "brighter please");
  g_assert_no_error (fixture->error);

  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(1200)");
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 2);
  result = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "call_1");
  g_assert_nonnull (result);
  g_assert_nonnull (strstr (result, "\"status\":\"scheduled\""));
  g_assert_nonnull (strstr (result, "\"toolCallsLeft\":11"));

  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_cmpstr (answer->content, ==, "Opening the filter.\n\nOpened the filter to 1200 Hz from cycle 13; notes and tempo unchanged.");
  calls = tool_calls (fixture, answer->id);
  g_assert_cmpuint (calls->len, ==, 1);
  call = g_ptr_array_index (calls, 0);
  g_assert_cmpstr (call->name, ==, "apply_strudel_change");
  g_assert_cmpint (call->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_cmpfloat (call->apply_cycle, ==, 13);
  g_assert_nonnull (strstr (call->arguments, "lpf(1200)"));

  /* The timeline is persisted: what played before, and the agent's change
   * tied to its message. */
  snapshots = sj_history_store_list_snapshots (fixture->stack.store, sj_agent_get_session_id (fixture->agent), NULL);
  g_assert_cmpuint (snapshots->len, ==, 2);
  g_assert_cmpstr (((SjHistorySnapshot *) g_ptr_array_index (snapshots, 0))->code, ==, CODE);
  g_assert_cmpint (((SjHistorySnapshot *) g_ptr_array_index (snapshots, 1))->source, ==, SJ_HISTORY_SOURCE_AGENT);
  g_assert_cmpint (((SjHistorySnapshot *) g_ptr_array_index (snapshots, 1))->message_id, ==, answer->id);
  g_assert_cmpfloat (((SjHistorySnapshot *) g_ptr_array_index (snapshots, 1))->cycle, ==, 13);

  /* The model wrote the new code: its hash is known, no code resent. */
  sj_test_model_server_reply_text (fixture->stack.server, "Yes.", 2);
  run_turn (fixture, "good");
  g_assert_null (strstr (last_user_content (sj_test_model_server_get_request (fixture->stack.server, 2)), "<code"));
}

static void
test_repair_after_unknown_symbol (Fixture       *fixture,
                                  gconstpointer  data)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *bad = apply_arguments (hash, "lpf(800)", "lpf(800).reverbb(0.4)");
  g_autofree char *good = apply_arguments (hash, "lpf(800)", "lpf(800).room(0.4)");
  g_autofree char *rejection = NULL;
  g_autofree char *knowledge = NULL;
  g_autofree char *applied = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) calls = NULL;

  sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, "c1", "apply_strudel_change", bad);
  sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, "c2", "strudel_knowledge", "{\"query\":\"reverb\"}");
  sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, "c3", "apply_strudel_change", good);
  sj_test_model_server_reply_text (fixture->stack.server, "Added reverb with room(0.4) from cycle 13.", 6);
  run_turn (fixture, "add reverb");
  g_assert_no_error (fixture->error);

  rejection = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "c1");
  g_assert_nonnull (strstr (rejection, "\"status\":\"rejected\""));
  g_assert_nonnull (strstr (rejection, "reverbb"));
  g_assert_nonnull (strstr (rejection, "unknownSymbols"));
  g_assert_nonnull (strstr (rejection, "\"repairsLeft\":4"));
  knowledge = sj_test_model_server_find_tool_result (fixture->stack.server, 2, "c2");
  g_assert_nonnull (strstr (knowledge, "\"ok\":true"));
  g_assert_nonnull (strstr (knowledge, "room"));
  applied = sj_test_model_server_find_tool_result (fixture->stack.server, 3, "c3");
  g_assert_nonnull (strstr (applied, "\"status\":\"scheduled\""));
  g_assert_nonnull (strstr (sj_test_target_get_code (fixture->stack.target), "room(0.4)"));

  list = messages (fixture);
  calls = tool_calls (fixture, last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->id);
  g_assert_cmpuint (calls->len, ==, 3);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->status, ==, SJ_HISTORY_TOOL_FAILED);
  g_assert_true (isnan (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->apply_cycle));
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 2))->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);
  /* No app line: the change did land. */
  g_assert_null (find_role (list, SJ_HISTORY_ROLE_SYSTEM));
}

static void
test_repair_limit (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *bad = apply_arguments (hash, "lpf(800)", "lpf(800).reverbb(0.4)");
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *system;
  JsonObject *final;

  sj_agent_set_limits (fixture->agent, 1, 12);
  /* The first try and one repair are rejected: the limit. */
  sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, "c1", "apply_strudel_change", bad);
  sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, "c2", "apply_strudel_change", bad);
  sj_test_model_server_reply_text (fixture->stack.server, "I could not find a working reverb; nothing changed. Try room(0.4)?", 6);
  run_turn (fixture, "add reverb");
  g_assert_no_error (fixture->error);

  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 3);
  final = sj_test_model_server_get_request (fixture->stack.server, 2);
  /* The model was told to stop calling tools, and why. */
  g_assert_cmpstr (json_object_get_string_member (final, "tool_choice"), ==, "none");
  g_assert_nonnull (strstr (last_user_content (final), "repair limit"));
  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, CODE);
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->stack.target), ==, 0);

  /* The transcript says plainly that nothing was applied. */
  list = messages (fixture);
  g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  system = last_of_role (list, SJ_HISTORY_ROLE_SYSTEM);
  g_assert_nonnull (system);
  g_assert_nonnull (strstr (system->content, "Nothing was applied"));
}

static void
test_stop_mid_stream (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *answer;
  JsonArray *history;
  JsonObject *last_assistant = NULL;

  sj_test_model_server_reply_hold (fixture->stack.server, "Let me think about a groove that");
  fixture->stop_on_delta = TRUE;
  fixture->done = FALSE;
  sj_agent_send_async (fixture->agent, "make it groovier", NULL, send_cb, fixture);
  wait_done (fixture);
  fixture->stop_on_delta = FALSE;
  g_assert_error (fixture->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_STOPPED);
  g_assert_cmpstr (answer->content, !=, "");
  g_assert_true (g_str_has_prefix ("Let me think about a groove that", answer->content));
  g_assert_null (find_role (list, SJ_HISTORY_ROLE_SYSTEM));

  /* The conversation goes on, and the model sees what it had said. */
  sj_test_model_server_reply_text (fixture->stack.server, "OK.", 2);
  run_turn (fixture, "never mind");
  g_assert_no_error (fixture->error);
  history = json_object_get_array_member (sj_test_model_server_get_request (fixture->stack.server, 1), "messages");
  for (guint i = 0; i < json_array_get_length (history); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (history, i), "role"), "assistant"))
      last_assistant = json_array_get_object_element (history, i);
  g_assert_nonnull (last_assistant);
  g_assert_cmpstr (json_object_get_string_member (last_assistant, "content"), ==, answer->content);
}

static void
test_stop_during_tool (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *result = NULL;
  const char *ids[] = { "r1", "r2" };
  const char *names[] = { "read_code", "strudel_knowledge" };
  const char *args[] = { "{}", "{\"query\":\"lpf\"}" };
  SjHistoryMessage *answer;

  /* The turn's own read of the code passes; the tool's read waits. */
  sj_test_target_hold_fetches (fixture->stack.target, 1);
  sj_test_model_server_reply_tool_calls (fixture->stack.server, 2, ids, names, args);
  fixture->done = FALSE;
  sj_agent_send_async (fixture->agent, "what is playing?", NULL, send_cb, fixture);
  while (sj_test_model_server_get_n_requests (fixture->stack.server) < 1 || sj_test_model_server_get_last_byte_time (fixture->stack.server, 0) == 0)
    g_main_context_iteration (NULL, TRUE);
  /* Let the answer reach the agent and the read start. */
  for (guint i = 0; i < 50 && !fixture->done; i++)
    g_main_context_iteration (NULL, FALSE);
  sj_agent_stop (fixture->agent);
  wait_done (fixture);
  g_assert_error (fixture->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  sj_test_target_hold_fetches (fixture->stack.target, 0);

  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_STOPPED);
  calls = tool_calls (fixture, answer->id);
  /* Both calls are in the log, canceled: none pending, none lost. */
  g_assert_cmpuint (calls->len, ==, 2);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->status, ==, SJ_HISTORY_TOOL_CANCELED);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->status, ==, SJ_HISTORY_TOOL_CANCELED);

  /* Every call has its result in what the model gets next. */
  sj_test_model_server_reply_text (fixture->stack.server, "OK.", 2);
  run_turn (fixture, "go on");
  g_assert_no_error (fixture->error);
  result = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "r2");
  g_assert_nonnull (strstr (result, "canceled"));
}

static void
test_dropped_mid_stream (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *answer;
  SjHistoryMessage *system;

  sj_test_model_server_reply_drop (fixture->stack.server, "Here is a bassline idea: ");
  run_turn (fixture, "add a bassline");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK);

  /* Text was shown: no silent retry that would repeat it. */
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
  g_assert_cmpuint (fixture->retries, ==, 0);
  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_cmpstr (answer->content, ==, "Here is a bassline idea: ");
  system = last_of_role (list, SJ_HISTORY_ROLE_SYSTEM);
  g_assert_nonnull (strstr (system->content, "broke off"));

  /* Regenerate replaces that answer. */
  sj_test_model_server_reply_text (fixture->stack.server, "A bassline it is.", 4);
  fixture->done = FALSE;
  sj_agent_regenerate_async (fixture->agent, NULL, send_cb, fixture);
  wait_done (fixture);
  g_assert_no_error (fixture->error);
  g_clear_pointer (&list, g_ptr_array_unref);
  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (last_of_role (list, SJ_HISTORY_ROLE_USER)->content, ==, "add a bassline");
  g_assert_cmpstr (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->content, ==, "A bassline it is.");
  /* The model gets the user message once, not twice. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (sj_test_model_server_get_request (fixture->stack.server, 1), "messages")), ==, 2);
}

static char *
deep_brackets (guint depth)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');

  return g_string_free (text, FALSE);
}

#define EVENT_FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"

/* A stream chunk nested 100,000 deep crashed the app (issue 23): the turn
 * ends with a clear message, and the answer is not left streaming. */
static void
test_deep_chunk (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *brackets = deep_brackets (100000);
  g_autofree char *deep = g_strdup_printf ("data: {\"choices\":%s}\n\n", brackets);
  const char *events[] = { "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", deep,
                           EVENT_FINISH ("stop"), "data: [DONE]\n\n", NULL };
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *answer;

  sj_test_model_server_reply_events (fixture->stack.server, events);
  run_turn (fixture, "hello");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL);
  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_cmpstr (answer->content, ==, "Hi");
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "INPUT_TOO_DEEP"));

  /* The jam goes on. */
  sj_test_model_server_reply_text (fixture->stack.server, "Still here.", 4);
  run_turn (fixture, "again");
  g_assert_no_error (fixture->error);
}

/* Tool arguments nested 100,000 deep: the call fails with INPUT_TOO_DEEP,
 * the model hears why, and the turn goes on. */
static void
test_deep_arguments (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *brackets = deep_brackets (100000);
  g_autofree char *call = g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                                           "\"id\":\"d1\",\"type\":\"function\",\"function\":{\"name\":"
                                           "\"strudel_knowledge\",\"arguments\":\"{\\\"query\\\":%s}\"}}]}}]}\n\n",
                                           brackets);
  const char *events[] = { call, EVENT_FINISH ("tool_calls"), "data: [DONE]\n\n", NULL };
  g_autofree char *result = NULL;
  g_autoptr(GPtrArray) list = NULL;

  sj_test_model_server_reply_events (fixture->stack.server, events);
  sj_test_model_server_reply_text (fixture->stack.server, "My call was too deep.", 6);
  run_turn (fixture, "hello");
  g_assert_no_error (fixture->error);
  result = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "d1");
  g_assert_nonnull (strstr (result, "INPUT_TOO_DEEP"));
  list = messages (fixture);
  g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
}

/* Keep-alive comments only, or content of the wrong type: the answer says
 * the model sent nothing, rather than stay an empty bubble. */
static void
test_empty_answer (Fixture       *fixture,
                   gconstpointer  data)
{
  const char *comments[] = { ": keep-alive\n\n", ": OPENROUTER PROCESSING\n\n", EVENT_FINISH ("stop"),
                             "data: [DONE]\n\n", NULL };
  const char *wrong_type[] = { "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":42}}]}\n\n",
                               EVENT_FINISH ("stop"), "data: [DONE]\n\n", NULL };
  const char * const *cases[] = { comments, wrong_type };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) list = NULL;

      sj_test_model_server_reply_events (fixture->stack.server, cases[i]);
      run_turn (fixture, "hello");
      g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_EMPTY_ANSWER);
      list = messages (fixture);
      g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->status, ==, SJ_HISTORY_MESSAGE_ERROR);
      g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "The model sent an empty answer"));
    }
}

/* A connection that goes quiet ends the turn after the stall timeout with
 * what arrived kept, a message, and Regenerate working. */
static void
test_stalled (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(SjLlmClient) client = sj_llm_client_new (sj_test_model_server_get_url (fixture->stack.server), NULL);
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *answer;

  _sj_llm_client_set_stall_timeout_ms (client, 300);
  sj_agent_set_client (fixture->agent, client, FALSE);
  sj_test_model_server_reply_hold (fixture->stack.server, "Thinking about");
  run_turn (fixture, "hello");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_STALLED);
  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_cmpstr (answer->content, ==, "Thinking about");
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "stopped answering"));

  sj_test_model_server_reply_text (fixture->stack.server, "Back.", 4);
  fixture->done = FALSE;
  sj_agent_regenerate_async (fixture->agent, NULL, send_cb, fixture);
  wait_done (fixture);
  g_assert_no_error (fixture->error);
}

static void
test_dropped_before_answer (Fixture       *fixture,
                            gconstpointer  data)
{
  sj_test_model_server_reply_drop (fixture->stack.server, "");
  sj_test_model_server_reply_status (fixture->stack.server, 502, NULL, NULL);
  sj_test_model_server_reply_text (fixture->stack.server, "Back again.", 4);
  run_turn (fixture, "hello");
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->retries, ==, 2);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 3);
  g_assert_cmpstr (fixture->content->str, ==, "Back again.");
}

static void
test_rate_limited (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;

  sj_test_model_server_reply_status (fixture->stack.server, 429, "0", "{\"error\":{\"message\":\"Rate limit exceeded\"}}");
  sj_test_model_server_reply_text (fixture->stack.server, "Here now.", 4);
  run_turn (fixture, "hello");
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->retries, ==, 1);
  g_assert_cmpstr (fixture->content->str, ==, "Here now.");

  /* Retries run out: a clear error in the transcript. */
  for (guint i = 0; i < 4; i++)
    sj_test_model_server_reply_status (fixture->stack.server, 429, "0", "{\"error\":{\"message\":\"Rate limit exceeded\"}}");
  run_turn (fixture, "again");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_RATE_LIMITED);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 6);
  list = messages (fixture);
  g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "rate-limiting"));
}

static void
test_malformed_tool_call (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autofree char *result = NULL;
  g_autofree char *unknown = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  const char *ids[] = { "m1", "m2" };
  const char *names[] = { "apply_strudel_change", "play_louder" };
  const char *args[] = { "{\"baseHash\": \"abc\", \"change\": {\"kind\": \"full_co", "{}" };

  sj_test_model_server_reply_tool_calls (fixture->stack.server, 2, ids, names, args);
  sj_test_model_server_reply_text (fixture->stack.server, "Sorry, my call was broken; nothing changed.", 6);
  run_turn (fixture, "louder");
  g_assert_no_error (fixture->error);

  result = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "m1");
  g_assert_nonnull (strstr (result, "INVALID_ARGUMENTS"));
  g_assert_nonnull (strstr (result, "not valid JSON"));
  unknown = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "m2");
  g_assert_nonnull (strstr (unknown, "UNKNOWN_TOOL"));
  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, CODE);

  list = messages (fixture);
  calls = tool_calls (fixture, last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->id);
  g_assert_cmpuint (calls->len, ==, 2);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->status, ==, SJ_HISTORY_TOOL_FAILED);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->status, ==, SJ_HISTORY_TOOL_FAILED);
}

static void
test_tool_budget (Fixture       *fixture,
                  gconstpointer  data)
{
  const char *ids[] = { "k1", "k2", "k3" };
  const char *names[] = { "strudel_knowledge", "strudel_knowledge", "strudel_knowledge" };
  const char *args[] = { "{\"query\":\"lpf\"}", "{\"query\":\"room\"}", "{\"query\":\"jux\"}" };
  g_autofree char *third = NULL;
  g_autoptr(GPtrArray) list = NULL;

  sj_agent_set_limits (fixture->agent, 4, 2);
  sj_test_model_server_reply_tool_calls (fixture->stack.server, 3, ids, names, args);
  sj_test_model_server_reply_text (fixture->stack.server, "I looked things up; nothing changed.", 6);
  run_turn (fixture, "explain");
  g_assert_no_error (fixture->error);

  third = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "k3");
  g_assert_nonnull (strstr (third, "TOOL_BUDGET_EXHAUSTED"));
  g_assert_cmpstr (json_object_get_string_member (sj_test_model_server_get_request (fixture->stack.server, 1), "tool_choice"), ==, "none");
  list = messages (fixture);
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "tool budget"));
}


/* A provider that ignores tool_choice "none" and keeps calling tools: the
 * turn asks exactly tool budget + 1 times, then ends with a message. */
static void
test_tool_choice_ignored (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;

  sj_agent_set_limits (fixture->agent, 4, 2);
  /* Without the bound a fourth request would follow (and get a 500). */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *id = g_strdup_printf ("k%u", i);

      sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, id, "strudel_knowledge", "{\"query\":\"lpf\"}");
    }
  run_turn (fixture, "explain");
  g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_TOO_MANY_REQUESTS);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (sj_test_model_server_get_request (fixture->stack.server, 2), "tool_choice"), ==, "none");
  list = messages (fixture);
  g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "kept calling tools"));
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "3 requests"));

  /* The next message starts afresh, and the transcript is well-formed. */
  sj_test_model_server_reply_text (fixture->stack.server, "Fine.", 4);
  run_turn (fixture, "again");
  g_assert_no_error (fixture->error);
}

/* An answer past 4 MiB of text ends the turn with a message naming the
 * limit; the text before it stays in the chat and the history. */
static void
test_answer_too_large (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *text = g_strnfill (4 * 1024 * 1024 + 64 * 1024, 'a');
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *answer;

  sj_test_model_server_reply_text (fixture->stack.server, text, 64 * 1024);
  run_turn (fixture, "hello");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_ANSWER_TOO_LARGE);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_cmpuint (strlen (answer->content), ==, 4 * 1024 * 1024);
  g_assert_cmpuint (fixture->content->len, ==, 4 * 1024 * 1024);
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "4 MiB limit for its text"));
}

/* An answer that keeps coming past its deadline ends with a message; what
 * arrived is kept. */
static void
test_deadline (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SjLlmClient) client = sj_llm_client_new (sj_test_model_server_get_url (fixture->stack.server), NULL);
  g_autoptr(GPtrArray) list = NULL;
  SjHistoryMessage *answer;

  _sj_llm_client_set_deadline_ms (client, 300);
  sj_agent_set_client (fixture->agent, client, FALSE);
  /* 40 pieces 50 ms apart: 2 s, never quiet, past the deadline. */
  sj_test_model_server_reply_slow_text (fixture->stack.server, "abcdefghijklmnopqrstuvwxyzabcdefghijklmn", 1, 50);
  run_turn (fixture, "hello");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_DEADLINE);
  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  g_assert_true (g_str_has_prefix (answer->content, "abc"));
  g_assert_cmpuint (strlen (answer->content), <, 40);
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "deadline"));
}

static void
test_resend_edited (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;

  sj_test_model_server_reply_text (fixture->stack.server, "Answer one.", 4);
  run_turn (fixture, "make it fsater");
  sj_test_model_server_reply_text (fixture->stack.server, "Answer two.", 4);
  fixture->done = FALSE;
  sj_agent_resend_async (fixture->agent, "make it faster", NULL, send_cb, fixture);
  wait_done (fixture);
  g_assert_no_error (fixture->error);

  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (((SjHistoryMessage *) g_ptr_array_index (list, 0))->content, ==, "make it faster");
  g_assert_cmpstr (((SjHistoryMessage *) g_ptr_array_index (list, 1))->content, ==, "Answer two.");
  g_assert_null (strstr (last_user_content (sj_test_model_server_get_request (fixture->stack.server, 1)), "fsater"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (sj_test_model_server_get_request (fixture->stack.server, 1), "messages")), ==, 2);
}

/* Busy and the session, as properties -------------------------------------- */

typedef struct
{
  Fixture *fixture;
  GString *log;
} Events;

static void
busy_notify_cb (SjAgent    *agent,
                GParamSpec *pspec,
                GString    *log)
{
  gboolean busy;

  g_object_get (agent, "busy", &busy, NULL);
  g_string_append_printf (log, "busy=%d ", busy);
}

static void
session_notify_cb (SjAgent    *agent,
                   GParamSpec *pspec,
                   GString    *log)
{
  g_string_append (log, "session ");
}

static void
finished_event_cb (SjAgent *agent,
                   gint64   message_id,
                   int      status,
                   GString *log)
{
  g_string_append (log, "finished ");
}

static void
events_send_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Events *events = user_data;

  g_string_append (events->log, "done ");
  send_cb (object, result, events->fixture);
}

static void
test_properties (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GAsyncResult) refused = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) not_configured = g_error_new_literal (SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED, "No model.");
  Events events = { fixture, log };
  gboolean busy = TRUE;
  gint64 session = -1;
  gint64 first;

  g_object_get (fixture->agent, "busy", &busy, "session-id", &session, NULL);
  g_assert_false (busy);
  g_assert_cmpint (session, ==, 0);
  g_signal_connect (fixture->agent, "notify::busy", G_CALLBACK (busy_notify_cb), log);
  g_signal_connect (fixture->agent, "notify::session-id", G_CALLBACK (session_notify_cb), log);
  g_signal_connect (fixture->agent, "message-finished", G_CALLBACK (finished_event_cb), log);

  /* The first message creates the session; the agent is busy from the
   * send until the answer is finished, and no longer by the time the
   * caller hears of it. */
  sj_test_model_server_reply_text (fixture->stack.server, "One.", 2);
  fixture->done = FALSE;
  sj_agent_send_async (fixture->agent, "play something", NULL, events_send_cb, &events);
  g_assert_cmpstr (log->str, ==, "session busy=1 ");
  wait_done (fixture);
  g_assert_no_error (fixture->error);
  g_assert_cmpstr (log->str, ==, "session busy=1 finished busy=0 done ");
  first = sj_agent_get_session_id (fixture->agent);
  g_assert_cmpint (first, >, 0);
  g_object_get (fixture->agent, "session-id", &session, NULL);
  g_assert_cmpint (session, ==, first);

  /* The next message, in the same session: busy and back once, even with
   * a message refused meanwhile. */
  g_string_truncate (log, 0);
  sj_test_model_server_reply_text (fixture->stack.server, "Two.", 2);
  fixture->done = FALSE;
  sj_agent_send_async (fixture->agent, "and again", NULL, events_send_cb, &events);
  sj_agent_send_async (fixture->agent, "too soon", NULL, store_result_cb, &refused);
  wait_done (fixture);
  g_assert_no_error (fixture->error);
  while (refused == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (sj_agent_send_finish (fixture->agent, refused, &error));
  g_assert_error (error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUSY);
  g_assert_cmpstr (log->str, ==, "busy=1 finished busy=0 done ");
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, first);

  /* A new session, the first one taken up again, and again: each time
   * whoever shows the session hears of it. */
  g_string_truncate (log, 0);
  sj_agent_new_session (fixture->agent);
  g_assert_cmpstr (log->str, ==, "session ");
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, 0);
  g_assert_true (sj_agent_load_session (fixture->agent, first, NULL));
  g_assert_cmpstr (log->str, ==, "session session ");
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, first);
  g_assert_true (sj_agent_load_session (fixture->agent, first, NULL));
  g_assert_cmpstr (log->str, ==, "session session session ");

  /* A turn that ends at once (no model set up) is busy and back all the
   * same. */
  g_string_truncate (log, 0);
  sj_agent_set_config_error (fixture->agent, not_configured);
  fixture->done = FALSE;
  sj_agent_send_async (fixture->agent, "anyone there?", NULL, events_send_cb, &events);
  g_assert_cmpstr (log->str, ==, "busy=1 busy=0 ");
  wait_done (fixture);
  g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED);
  g_assert_cmpstr (log->str, ==, "busy=1 busy=0 done ");
}

static void
test_condense (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *big = g_strnfill (3000, 'x');
  JsonObject *request;
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) node = NULL;

  _sj_agent_set_token_budget (fixture->agent, 6000);
  /* Turns with large tool outputs: read_code of a long program. */
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *code = g_strdup_printf ("// %s %u\n%s", big, i, CODE);
      g_autofree char *id = g_strdup_printf ("read%u", i);

      sj_test_target_set_code (fixture->stack.target, code);
      sj_test_model_server_reply_tool_call (fixture->stack.server, NULL, id, "read_code", "{}");
      sj_test_model_server_reply_text (fixture->stack.server, "Read it.", 4);
      run_turn (fixture, "read the code");
      g_assert_no_error (fixture->error);
    }

  request = sj_test_model_server_get_request (fixture->stack.server, sj_test_model_server_get_n_requests (fixture->stack.server) - 1);
  node = json_node_init_object (json_node_alloc (), request);
  json = json_to_string (node, FALSE);
  /* The current turn is whole; the older turns' copies of the long code
   * are gone (a turn's code and its read_code output are some 2,300
   * tokens: without condensing, the request would be about 10,000). */
  {
    guint copies = 0;

    for (const char *p = strstr (json, big); p != NULL; p = strstr (p + 1, big))
      copies++;
    /* Each turn carried three copies (envelope, read_code's text and its
     * numbered lines): 12 in all without condensing. */
    g_test_message ("%u copies of the long code kept of 12", copies);
    g_assert_cmpuint (copies, >=, 3);
    g_assert_cmpuint (copies, <=, 6);
  }
  g_assert_nonnull (strstr (json, "condensed"));
  g_assert_cmpuint (strlen (json) / 4, <, 6500);
  /* The system prompt and the words of every turn are kept. */
  g_assert_nonnull (strstr (json, "apply_strudel_change"));
  g_assert_nonnull (strstr (json, "Read it."));
}

static void
test_reasoning_effort (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(SjLlmClient) client = sj_llm_client_new (sj_test_model_server_get_url (fixture->stack.server), NULL);
  JsonObject *request;

  /* OpenRouter's shape. */
  sj_agent_set_client (fixture->agent, client, TRUE);
  sj_agent_set_model (fixture->agent, "some/model", "deep", 0.3);
  sj_test_model_server_reply_text (fixture->stack.server, "One.", 4);
  run_turn (fixture, "hi");
  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (request, "reasoning"), "effort"), ==, "high");
  g_assert_false (json_object_has_member (request, "reasoning_effort"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (request, "temperature"), 0.3, 1e-9);

  /* A server that refuses it for this model: sent again without, and
   * left out from then on. */
  sj_agent_set_client (fixture->agent, client, FALSE);
  sj_agent_set_model (fixture->agent, "plain/model", "fast", 0.3);
  sj_test_model_server_reply_status (fixture->stack.server, 400, NULL, "{\"error\":{\"message\":\"Unsupported parameter: reasoning_effort\"}}");
  sj_test_model_server_reply_text (fixture->stack.server, "Two.", 4);
  sj_test_model_server_reply_text (fixture->stack.server, "Three.", 4);
  run_turn (fixture, "hi");
  g_assert_no_error (fixture->error);
  g_assert_cmpstr (json_object_get_string_member (sj_test_model_server_get_request (fixture->stack.server, 1), "reasoning_effort"), ==, "low");
  g_assert_false (json_object_has_member (sj_test_model_server_get_request (fixture->stack.server, 2), "reasoning_effort"));
  run_turn (fixture, "hi");
  g_assert_false (json_object_has_member (sj_test_model_server_get_request (fixture->stack.server, 3), "reasoning_effort"));

  /* A model the list says cannot reason gets none. */
  _sj_agent_set_reasoning_supported (fixture->agent, "other/model", FALSE);
  sj_agent_set_model (fixture->agent, "other/model", "deep", 0.3);
  sj_test_model_server_reply_text (fixture->stack.server, "Four.", 4);
  run_turn (fixture, "hi");
  g_assert_false (json_object_has_member (sj_test_model_server_get_request (fixture->stack.server, 4), "reasoning_effort"));
}

static void
test_not_configured (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) no_keyring = g_error_new_literal (SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED,
                                                      "No keyring is available to keep the API key. Start GNOME Keyring, or use a local model that needs no key.");
  g_autoptr(GPtrArray) list = NULL;

  sj_agent_set_config_error (fixture->agent, no_keyring);
  run_turn (fixture, "make it groovier");
  g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 0);

  /* The musician's words are kept, and the way forward is said. */
  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (last_of_role (list, SJ_HISTORY_ROLE_USER)->content, ==, "make it groovier");
  g_assert_nonnull (strstr (last_of_role (list, SJ_HISTORY_ROLE_SYSTEM)->content, "local model"));
}

static void
test_redaction (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *hash = sj_code_hash (CODE);
  g_autofree char *args = apply_arguments (hash, "lpf(800)", "lpf(900) // " PLANTED_KEY);
  g_autofree char *export = NULL;
  g_autofree char *db_path = g_build_filename (fixture->stack.dir, "history.db", NULL);
  g_autofree char *wal_path = g_strconcat (db_path, "-wal", NULL);
  g_autoptr(GError) error = NULL;

  /* The key comes back from the model, in its text and in a tool call, and
   * in a provider error. */
  sj_test_model_server_reply_tool_call (fixture->stack.server, "Your key is " PLANTED_KEY ".", "x1", "apply_strudel_change", args);
  sj_test_model_server_reply_text (fixture->stack.server, "Done; and the key " PLANTED_KEY " again.", 5);
  run_turn (fixture, "my key is " PLANTED_KEY ", and api_key=" PLANTED_KEY);
  sj_test_model_server_reply_status (fixture->stack.server, 401, NULL, "{\"error\":{\"message\":\"Invalid key " PLANTED_KEY "\"}}");
  run_turn (fixture, "again");
  g_assert_error (fixture->error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_UNAUTHORIZED);
  g_assert_true (sj_history_store_flush (fixture->stack.store, NULL));

  export = sj_history_store_export_markdown (fixture->stack.store, sj_agent_get_session_id (fixture->agent), &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (export, "[redacted]"));
  g_assert_null (strstr (export, PLANTED_KEY));

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *bytes = NULL;
      gsize len = 0;

      if (!g_file_get_contents (i == 0 ? db_path : wal_path, &bytes, &len, NULL))
        continue;
      g_assert_null (g_strstr_len (bytes, len, PLANTED_KEY));
      g_assert_null (g_strstr_len (bytes, len, "plantedkey-4f7"));
    }
  g_assert_null (strstr (fixture->log->str, PLANTED_KEY));
}

/* Taking up where the app stopped ------------------------------------------ */

/* A conversation the model can take: the system prompt first and only
 * there, never an empty answer, never two user messages in a row, every
 * tool call answered right after it, once, and no tool result that
 * answers nothing; the last message is what the model answers. */
static void
assert_well_formed (JsonObject *request)
{
  JsonArray *list = json_object_get_array_member (request, "messages");
  g_autoptr(GHashTable) open_calls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *previous = NULL;
  guint n = json_array_get_length (list);

  g_assert_cmpuint (n, >=, 2);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *message = json_array_get_object_element (list, i);
      const char *role = json_object_get_string_member (message, "role");
      const char *content = json_object_get_string_member_with_default (message, "content", "");

      g_assert_true ((i == 0) == g_str_equal (role, "system"));
      /* The calls of an answer are all answered before anything else. */
      if (!g_str_equal (role, "tool"))
        g_assert_cmpuint (g_hash_table_size (open_calls), ==, 0);

      if (g_str_equal (role, "user"))
        {
          g_assert_cmpstr (previous, !=, "user");
          g_assert_cmpstr (content, !=, "");
        }
      else if (g_str_equal (role, "assistant"))
        {
          JsonArray *calls = json_object_has_member (message, "tool_calls") ? json_object_get_array_member (message, "tool_calls") : NULL;

          g_assert_true (*content != '\0' || (calls != NULL && json_array_get_length (calls) > 0));
          for (guint k = 0; calls != NULL && k < json_array_get_length (calls); k++)
            g_assert_true (g_hash_table_add (open_calls, g_strdup (json_object_get_string_member (json_array_get_object_element (calls, k), "id"))));
        }
      else if (g_str_equal (role, "tool"))
        g_assert_true (g_hash_table_remove (open_calls, json_object_get_string_member (message, "tool_call_id")));
      else if (i != 0)
        g_error ("Unexpected role %s", role);

      previous = role;
    }

  g_assert_cmpuint (g_hash_table_size (open_calls), ==, 0);
  g_assert_cmpstr (previous, !=, "assistant");
}

/* The fixture's agent starts again, as at the next start of the app, with
 * the same tools and model, on @store, or with %NULL on its own history
 * closed and opened again. The old agent goes first: it holds its store,
 * which must be closed for the new one to see nobody streams any more. */
static void
restart_on_store (Fixture        *fixture,
                  SjHistoryStore *store)
{
  g_autoptr(SjAgentTools) tools = g_object_ref (_sj_agent_get_tools (fixture->agent));
  g_autoptr(SjLlmClient) client = sj_llm_client_new (sj_test_model_server_get_url (fixture->stack.server), PLANTED_KEY);
  g_autofree char *path = NULL;

  g_clear_object (&fixture->agent);
  if (store == NULL)
    {
      g_autoptr(GError) error = NULL;

      path = g_strdup (_sj_history_store_get_path (fixture->stack.store));
      g_clear_object (&fixture->stack.store);
      fixture->stack.store = sj_history_store_new (path, &error);
      g_assert_no_error (error);
    }
  else
    g_set_object (&fixture->stack.store, store);

  fixture->agent = sj_agent_new (tools, fixture->stack.store);
  sj_agent_set_client (fixture->agent, client, FALSE);
  sj_agent_set_model (fixture->agent, "test/model", "balanced", 0.5);
  g_signal_connect (fixture->agent, "text-delta", G_CALLBACK (text_delta_cb), fixture);
}

/* What a run that died mid-answer leaves in the fixture's history: the
 * musician's message, then an answer with its first words committed and
 * two finished tool calls, still "streaming". The store that wrote it is
 * closed without finishing it, and the fixture's agent starts again on a
 * store opened anew, as at the next start. */
static gint64
plant_interrupted (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  gint64 session, answer;

  session = sj_history_store_create_session (fixture->stack.store, "make it groovier", &error);
  sj_history_store_append_message (fixture->stack.store, session, SJ_HISTORY_ROLE_USER, "make it groovier", NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  answer = sj_history_store_append_message (fixture->stack.store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, "test/model",
                                            SJ_HISTORY_MESSAGE_STREAMING, &error);
  sj_history_store_append_text (fixture->stack.store, answer, "Swinging the hats and", NULL);
  sj_history_store_record_tool_call (fixture->stack.store, answer, "read_code", "{}", "{\"code\":\"s(\\\"hh*8\\\")\"}",
                                     SJ_HISTORY_TOOL_SUCCEEDED, 2, NAN, &error);
  sj_history_store_record_tool_call (fixture->stack.store, answer, "apply_strudel_change", "{\"baseHash\":\"x\"}",
                                     "{\"status\":\"canceled\"}", SJ_HISTORY_TOOL_CANCELED, 5, NAN, &error);
  g_assert_no_error (error);
  restart_on_store (fixture, NULL);

  /* Nobody remembered a session: the latest one. */
  g_assert_true (sj_agent_resume (fixture->agent, -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, session);

  return answer;
}

/* Regenerate on an answer the app stopped in the middle of: it goes, a
 * new one takes its place, and the model is asked the musician's message
 * once, in a well-formed conversation. */
static void
test_regenerate_interrupted (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;
  gint64 answer = plant_interrupted (fixture);
  SjHistoryMessage *last;
  JsonObject *request;

  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 2);
  last = g_ptr_array_index (list, 1);
  g_assert_cmpint (last->id, ==, answer);
  g_assert_cmpint (last->status, ==, SJ_HISTORY_MESSAGE_INTERRUPTED);
  g_assert_cmpstr (last->content, ==, "Swinging the hats and");
  g_assert_cmpint (sj_agent_get_last_user_message (fixture->agent), ==, ((SjHistoryMessage *) g_ptr_array_index (list, 0))->id);

  sj_test_model_server_reply_text (fixture->stack.server, "Swung the hats by a sixteenth.", 4);
  fixture->done = FALSE;
  sj_agent_regenerate_async (fixture->agent, NULL, send_cb, fixture);
  wait_done (fixture);
  g_assert_no_error (fixture->error);

  g_clear_pointer (&list, g_ptr_array_unref);
  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (((SjHistoryMessage *) g_ptr_array_index (list, 0))->content, ==, "make it groovier");
  last = g_ptr_array_index (list, 1);
  g_assert_cmpint (last->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
  g_assert_cmpstr (last->content, ==, "Swung the hats by a sixteenth.");
  {
    g_autoptr(GPtrArray) calls = tool_calls (fixture, answer);

    g_assert_cmpuint (calls->len, ==, 0);
  }

  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  assert_well_formed (request);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 2);
  g_assert_true (g_str_has_suffix (last_user_content (request), "make it groovier"));
}

/* The musician goes on after an interrupted answer: the model gets it as
 * far as it went, told it was cut off, and its tool calls not at all (no
 * call without its result), in a well-formed conversation. */
static void
test_continue_after_interrupted (Fixture       *fixture,
                                 gconstpointer  data)
{
  g_autoptr(GPtrArray) list = NULL;
  JsonObject *request;
  JsonArray *history;
  JsonObject *cut;

  plant_interrupted (fixture);
  sj_test_model_server_reply_text (fixture->stack.server, "Picking up: the hats swing now.", 4);
  run_turn (fixture, "go on");
  g_assert_no_error (fixture->error);

  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  assert_well_formed (request);
  history = json_object_get_array_member (request, "messages");
  g_assert_cmpuint (json_array_get_length (history), ==, 4);
  cut = json_array_get_object_element (history, 2);
  g_assert_cmpstr (json_object_get_string_member (cut, "role"), ==, "assistant");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (cut, "content"), "Swinging the hats and\n\n<app-note>"));
  g_assert_nonnull (strstr (json_object_get_string_member (cut, "content"), "stopped before this answer was finished"));
  g_assert_false (json_object_has_member (cut, "tool_calls"));
  g_assert_true (g_str_has_suffix (last_user_content (request), "go on"));

  /* The interrupted answer stays as it was; the new one is complete. */
  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, 4);
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (list, 1))->status, ==, SJ_HISTORY_MESSAGE_INTERRUPTED);
  g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (list, 3))->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
}

/* An answer interrupted before its first word still reads as something. */
static void
test_interrupted_empty (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  JsonObject *request;
  gint64 session;

  session = sj_history_store_create_session (fixture->stack.store, "quiet", &error);
  sj_history_store_append_message (fixture->stack.store, session, SJ_HISTORY_ROLE_USER, "hello", NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  sj_history_store_append_message (fixture->stack.store, session, SJ_HISTORY_ROLE_ASSISTANT, NULL, "test/model",
                                   SJ_HISTORY_MESSAGE_STREAMING, &error);
  g_assert_no_error (error);
  restart_on_store (fixture, NULL);
  g_assert_true (sj_agent_resume (fixture->agent, session, &error));
  g_assert_no_error (error);

  sj_test_model_server_reply_text (fixture->stack.server, "Hi.", 4);
  run_turn (fixture, "still there?");
  g_assert_no_error (fixture->error);
  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  assert_well_formed (request);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (request, "messages"), 2), "content"),
                                   "<app-note>"));
}

/* Which session the agent takes up at start. */
static void
test_resume (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  gint64 first, second;

  /* An empty history: a new session. */
  g_assert_true (sj_agent_resume (fixture->agent, -1, &error));
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, 0);

  sj_test_model_server_reply_text (fixture->stack.server, "One.", 4);
  run_turn (fixture, "first");
  first = sj_agent_get_session_id (fixture->agent);
  sj_agent_new_session (fixture->agent);
  sj_test_model_server_reply_text (fixture->stack.server, "Two.", 4);
  run_turn (fixture, "second");
  second = sj_agent_get_session_id (fixture->agent);
  g_assert_cmpint (first, !=, second);

  /* The remembered one, even when another was updated since. */
  g_assert_true (sj_agent_resume (fixture->agent, first, &error));
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, first);
  /* None remembered, or one deleted since: the latest. */
  g_assert_true (sj_agent_resume (fixture->agent, -1, &error));
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, second);
  g_assert_true (sj_agent_resume (fixture->agent, second + 100, &error));
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, second);
  /* A new session, remembered as such. */
  sj_agent_new_session (fixture->agent);
  g_assert_true (sj_agent_resume (fixture->agent, 0, &error));
  g_assert_cmpint (sj_agent_get_session_id (fixture->agent), ==, 0);
  g_assert_no_error (error);

  /* The model gets the session back. */
  g_assert_true (sj_agent_resume (fixture->agent, first, &error));
  sj_test_model_server_reply_text (fixture->stack.server, "Three.", 4);
  run_turn (fixture, "again");
  {
    JsonObject *request = sj_test_model_server_get_request (fixture->stack.server, 2);

    assert_well_formed (request);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "messages")), ==, 4);
  }
}

static GString *
long_answer (void)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < 400; i++)
    g_string_append_printf (text, "Groove %03u. ", i);
  return text;
}

/* The process that gets killed: streams a long answer into @db_path and
 * writes a line to stdout every 100 ms while it does. */
static int
stream_child (const char *db_path)
{
  Fixture child = { 0 };
  g_autoptr(SjHistoryStore) store = NULL;
  g_autoptr(SjAgentTools) tools = NULL;
  g_autoptr(SjLlmClient) client = NULL;
  g_autoptr(GString) text = long_answer ();
  gint64 tick;

  fixture_set_up (&child, NULL);
  store = sj_history_store_new (db_path, NULL);
  tools = g_object_ref (_sj_agent_get_tools (child.agent));
  client = sj_llm_client_new (sj_test_model_server_get_url (child.stack.server), NULL);
  g_clear_object (&child.agent);
  child.agent = sj_agent_new (tools, store);
  sj_agent_set_client (child.agent, client, FALSE);
  sj_agent_set_model (child.agent, "m", "fast", 0);

  /* 10-character pieces every 5 ms: 2,000 characters a second. */
  sj_test_model_server_reply_slow_text (child.stack.server, text->str, 10, 5);
  sj_agent_send_async (child.agent, "a long one", NULL, NULL, NULL);

  tick = g_get_monotonic_time ();
  while (TRUE)
    {
      g_main_context_iteration (NULL, TRUE);
      if (g_get_monotonic_time () - tick > 100000)
        {
          tick = g_get_monotonic_time ();
          g_print ("tick\n");
          fflush (stdout);
        }
    }

  return 0;
}

/* A process streams a long answer and is killed with SIGKILL: what it had
 * committed is there, a clean prefix of the answer, and at most about a
 * second of text is lost. */
static void
test_kill_9 (gconstpointer data)
{
  const char *self_path = data;
  g_autofree char *dir = g_dir_make_tmp ("sj-agent-kill-XXXXXX", NULL);
  g_autofree char *db_path = g_build_filename (dir, "history.db", NULL);
  g_autoptr(GString) text = long_answer ();
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;
  guint ticks = 0;

  child = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self_path, "--stream-child", db_path, NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (child));

  /* About 1.5 s of streaming (some 3,000 characters), then SIGKILL. */
  while (ticks < 15)
    {
      g_autofree char *line = g_data_input_stream_read_line (lines, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      ticks++;
    }
  g_subprocess_send_signal (child, SIGKILL);
  g_subprocess_wait (child, NULL, &error);
  g_assert_no_error (error);

  {
    g_autoptr(SjHistoryStore) store = sj_history_store_new (db_path, &error);
    g_autoptr(GPtrArray) sessions = NULL;
    g_autoptr(GPtrArray) list = NULL;
    SjHistoryMessage *answer;

    g_assert_no_error (error);
    sessions = sj_history_store_list_sessions (store, &error);
    g_assert_cmpuint (sessions->len, ==, 1);
    list = sj_history_store_list_messages (store, ((SjHistorySession *) g_ptr_array_index (sessions, 0))->id, &error);
    g_assert_cmpuint (list->len, ==, 2);
    answer = g_ptr_array_index (list, 1);
    /* A prefix of what was streamed, and more than what had streamed a
     * second before the kill (1.5 s at 2,000 characters a second, less
     * one second, with room for a loaded machine). */
    g_assert_true (g_str_has_prefix (text->str, answer->content));
    g_assert_cmpuint (strlen (answer->content), >, 200);
    g_test_message ("kill -9: %zu characters committed of about 3,000 streamed", strlen (answer->content));

    /* Never left streaming: the store opened after the kill marked it. */
    g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_INTERRUPTED);

    /* The next start takes the session up, and Regenerate answers anew. */
    {
      Fixture fixture = { 0 };
      g_autoptr(GPtrArray) after = NULL;

      fixture_set_up (&fixture, NULL);
      restart_on_store (&fixture, store);
      g_assert_true (sj_agent_resume (fixture.agent, -1, &error));
      g_assert_cmpint (sj_agent_get_session_id (fixture.agent), ==, answer->session_id);
      sj_test_model_server_reply_text (fixture.stack.server, "Shorter this time.", 4);
      sj_agent_regenerate_async (fixture.agent, NULL, send_cb, &fixture);
      wait_done (&fixture);
      g_assert_no_error (fixture.error);
      assert_well_formed (sj_test_model_server_get_request (fixture.stack.server, 0));

      after = sj_history_store_list_messages (store, answer->session_id, &error);
      g_assert_cmpuint (after->len, ==, 2);
      g_assert_cmpint (((SjHistoryMessage *) g_ptr_array_index (after, 1))->status, ==, SJ_HISTORY_MESSAGE_COMPLETE);
      g_assert_cmpstr (((SjHistoryMessage *) g_ptr_array_index (after, 1))->content, ==, "Shorter this time.");
      fixture_tear_down (&fixture, NULL);
    }
  }

  sj_test_remove_tree (dir);
}

static void
test_replace (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjChangeResult) good = NULL;
  g_autoptr(SjChangeResult) bad = NULL;
  GAsyncResult *result = NULL;

  /* A whole new program, against whatever plays: scheduled. */
  sj_change_applier_replace_async (fixture->stack.applier, "s(\"sine\").lpf(500)", "user", NULL, store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  good = sj_change_applier_apply_finish (fixture->stack.applier, result, &error);
  g_clear_object (&result);
  g_assert_no_error (error);
  g_assert_cmpint (good->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_cmpfloat (good->apply_at_cycle, ==, 13);
  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, "s(\"sine\").lpf(500)");

  /* Code the dry-run refuses: rejected, the music untouched. */
  sj_change_applier_replace_async (fixture->stack.applier, "s(\"sine\").reverbb(1)", "user", NULL, store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  bad = sj_change_applier_apply_finish (fixture->stack.applier, result, &error);
  g_clear_object (&result);
  g_assert_no_error (error);
  g_assert_cmpint (bad->status, ==, SJ_CHANGE_STATUS_REJECTED);
  g_assert_cmpint (bad->phase, ==, SJ_CHANGE_PHASE_COMPILE);
  g_assert_true (g_str_equal (((SjChangeUnknownName *) g_ptr_array_index (bad->unknown_symbols, 0))->name, "reverbb"));
  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, "s(\"sine\").lpf(500)");
  g_assert_cmpuint (sj_test_target_get_n_swaps (fixture->stack.target), ==, 1);
}

/* The app's log writer masks the key in anything logged, by anyone. */
static void
test_log_writer (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(SjLlmClient) client = sj_llm_client_new ("http://127.0.0.1:1/v1", PLANTED_KEY);

      g_log_set_writer_func (sj_redact_log_writer, NULL, NULL);
      g_message ("the provider said: invalid key %s", PLANTED_KEY);
      g_message ("Authorization: Bearer %s", PLANTED_KEY);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout_unmatched ("*" PLANTED_KEY "*");
  g_test_trap_assert_stderr_unmatched ("*" PLANTED_KEY "*");
  /* GLib tests print messages on stderr. */
  g_test_trap_assert_stderr ("*invalid key [redacted]*");
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 3 && g_str_equal (argv[1], "--stream-child"))
    return stream_child (argv[2]);

  g_test_init (&argc, &argv, NULL);
  /* Every log line is kept, unredacted, for the redaction test to scan. */
  if (!g_test_subprocess ())
    g_log_set_writer_func (capture_log, NULL, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/agent/plain-answer", test_plain_answer);
  ADD ("/agent/apply-scheduled", test_apply_scheduled);
  ADD ("/agent/repair-after-unknown-symbol", test_repair_after_unknown_symbol);
  ADD ("/agent/repair-limit", test_repair_limit);
  ADD ("/agent/stop-mid-stream", test_stop_mid_stream);
  ADD ("/agent/stop-during-tool", test_stop_during_tool);
  ADD ("/agent/dropped-mid-stream", test_dropped_mid_stream);
  ADD ("/agent/dropped-before-answer", test_dropped_before_answer);
  ADD ("/agent/rate-limited", test_rate_limited);
  ADD ("/agent/malformed-tool-call", test_malformed_tool_call);
  ADD ("/agent/deep-chunk", test_deep_chunk);
  ADD ("/agent/deep-arguments", test_deep_arguments);
  ADD ("/agent/empty-answer", test_empty_answer);
  ADD ("/agent/stalled", test_stalled);
  ADD ("/agent/tool-choice-ignored", test_tool_choice_ignored);
  ADD ("/agent/answer-too-large", test_answer_too_large);
  ADD ("/agent/deadline", test_deadline);
  ADD ("/agent/tool-budget", test_tool_budget);
  ADD ("/agent/resend-edited", test_resend_edited);
  ADD ("/agent/properties", test_properties);
  ADD ("/agent/condense", test_condense);
  ADD ("/agent/reasoning-effort", test_reasoning_effort);
  ADD ("/agent/not-configured", test_not_configured);
  ADD ("/agent/redaction", test_redaction);
  ADD ("/agent/replace", test_replace);
  ADD ("/agent/resume", test_resume);
  ADD ("/agent/regenerate-interrupted", test_regenerate_interrupted);
  ADD ("/agent/continue-after-interrupted", test_continue_after_interrupted);
  ADD ("/agent/interrupted-empty", test_interrupted_empty);
#undef ADD
  g_test_add_data_func ("/agent/kill-9", argv[0], test_kill_9);
  g_test_add_func ("/agent/log-writer", test_log_writer);

  return g_test_run ();
}
