/* test-agent-usage.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the agent costs (issue 32), through the real agent and the
 * loopback model server: the usage the provider sends in the last chunk
 * of a stream (and a stream without one) kept per answer and summed over
 * a turn's requests, the caption it makes, what OpenRouter and a local
 * server are asked and cost, and the session's budget reached mid-turn:
 * the model calls a tool with usage that crosses it, and the request
 * that would follow the tool is never sent (the server counts them).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-agent-private.h"
#include "sj-test-agent-stack.h"
#include "sj-test-files.h"

#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"

#define TEXT_EVENT(text) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"" text "\"},\"finish_reason\":null}]}\n\n"
#define STOP_EVENT "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
#define READ_CODE_EVENT(id) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"" id "\"," \
  "\"type\":\"function\",\"function\":{\"name\":\"read_code\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
#define USAGE_EVENT(usage) "data: {\"id\":\"x\",\"choices\":[],\"usage\":" usage "}\n\n"
#define DONE_EVENT "data: [DONE]\n\n"

typedef struct
{
  SjTestAgentStack  stack;
  SjAgent          *agent;
  gboolean          done;
  GError           *error;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  sj_test_agent_stack_init (&fixture->stack, CODE);
  fixture->agent = sj_test_agent_stack_new_agent (&fixture->stack, NULL);
  _sj_agent_set_retry_policy (fixture->agent, 0, 5, 50);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->agent);
  sj_test_agent_stack_clear (&fixture->stack);
  g_clear_error (&fixture->error);
}

/* The agent as it talks to OpenRouter (played by the loopback server). */
static void
use_openrouter (Fixture *fixture)
{
  g_autoptr(SjLlmClient) client = sj_llm_client_new (sj_test_model_server_get_url (fixture->stack.server), NULL);

  sj_agent_set_client (fixture->agent, client, TRUE);
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
run_turn (Fixture    *fixture,
          const char *text)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  fixture->done = FALSE;
  sj_agent_send_async (fixture->agent, text, NULL, send_cb, fixture);
  while (!fixture->done)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  g_assert_false (sj_agent_is_busy (fixture->agent));
}

static SjHistoryMessage *
last_of_role (GPtrArray     *list,
              SjHistoryRole  role)
{
  for (guint i = list->len; i > 0; i--)
    if (((SjHistoryMessage *) g_ptr_array_index (list, i - 1))->role == role)
      return g_ptr_array_index (list, i - 1);
  g_error ("No message of role %d", role);
  return NULL;
}

static GPtrArray *
messages (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *list = sj_history_store_list_messages (fixture->stack.store, sj_agent_get_session_id (fixture->agent), &error);

  g_assert_no_error (error);
  return list;
}

static void
answer_usage (Fixture *fixture,
              SjUsage *usage)
{
  g_autoptr(GPtrArray) list = messages (fixture);
  g_autoptr(GError) error = NULL;

  g_assert_true (sj_history_store_get_message_usage (fixture->stack.store,
                                                     last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->id,
                                                     usage, &error));
  g_assert_no_error (error);
}

/* OpenRouter's usage in the last chunk: asked for, kept, captioned. */
static void
test_usage_from_stream (Fixture       *fixture,
                        gconstpointer  data)
{
  const char * const events[] = {
    TEXT_EVENT ("Hats added."), STOP_EVENT,
    USAGE_EVENT ("{\"prompt_tokens\":1000,\"completion_tokens\":234,\"total_tokens\":1234,"
                 "\"completion_tokens_details\":{\"reasoning_tokens\":34},\"cost\":0.0021}"),
    DONE_EVENT, NULL
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *caption = NULL;
  JsonObject *request;
  SjUsage usage;

  use_openrouter (fixture);
  sj_test_model_server_reply_events (fixture->stack.server, events);
  run_turn (fixture, "Add hats");
  g_assert_no_error (fixture->error);

  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (request, "stream_options"), "include_usage"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (request, "usage"), "include"));

  answer_usage (fixture, &usage);
  g_assert_cmpint (usage.prompt_tokens, ==, 1000);
  g_assert_cmpint (usage.completion_tokens, ==, 234);
  g_assert_cmpint (usage.reasoning_tokens, ==, 34);
  g_assert_cmpfloat_with_epsilon (usage.cost, 0.0021, 1e-12);
  caption = sj_usage_format (&usage);
  g_assert_cmpstr (caption, ==, "1234 tokens · $0.0021");

  g_assert_true (sj_history_store_get_session_usage (fixture->stack.store, sj_agent_get_session_id (fixture->agent),
                                                     &usage, &error));
  g_assert_cmpint (sj_usage_get_total_tokens (&usage), ==, 1234);
}

/* A turn of two requests (a tool call, then the words): their sum. */
static void
test_usage_summed_over_turn (Fixture       *fixture,
                             gconstpointer  data)
{
  const char * const first[] = {
    READ_CODE_EVENT ("call_1"),
    USAGE_EVENT ("{\"prompt_tokens\":900,\"completion_tokens\":20,\"cost\":0.001}"),
    DONE_EVENT, NULL
  };
  const char * const second[] = {
    TEXT_EVENT ("It is a saw bass."), STOP_EVENT,
    USAGE_EVENT ("{\"prompt_tokens\":1100,\"completion_tokens\":80,\"cost\":0.0015}"),
    DONE_EVENT, NULL
  };
  g_autofree char *caption = NULL;
  SjUsage usage;

  use_openrouter (fixture);
  sj_test_model_server_reply_events (fixture->stack.server, first);
  sj_test_model_server_reply_events (fixture->stack.server, second);
  run_turn (fixture, "What plays?");
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 2);

  answer_usage (fixture, &usage);
  g_assert_cmpint (usage.prompt_tokens, ==, 2000);
  g_assert_cmpint (usage.completion_tokens, ==, 100);
  g_assert_cmpint (usage.reasoning_tokens, ==, -1);
  g_assert_cmpfloat_with_epsilon (usage.cost, 0.0025, 1e-12);
  caption = sj_usage_format (&usage);
  g_assert_cmpstr (caption, ==, "2100 tokens · $0.0025");
}

/* No usage chunk: OpenRouter's answer is unknown, not free; a local
 * server's costs 0 but its tokens stay unknown. */
static void
test_usage_absent (Fixture       *fixture,
                   gconstpointer  data)
{
  const char * const hats[] = { TEXT_EVENT ("Hats added."), STOP_EVENT, DONE_EVENT, NULL };
  const char * const snare[] = { TEXT_EVENT ("Snare added."), STOP_EVENT, DONE_EVENT, NULL };
  g_autofree char *caption = NULL;
  JsonObject *request;
  SjUsage usage;

  use_openrouter (fixture);
  sj_test_model_server_reply_events (fixture->stack.server, hats);
  run_turn (fixture, "Add hats");
  g_assert_no_error (fixture->error);
  answer_usage (fixture, &usage);
  g_assert_false (sj_usage_is_known (&usage));
  caption = sj_usage_format (&usage);
  g_assert_cmpstr (caption, ==, "tokens unknown");

  /* The stack's own client: a custom endpoint on the loopback, so local. */
  g_clear_object (&fixture->agent);
  fixture->agent = sj_test_agent_stack_new_agent (&fixture->stack, NULL);
  sj_test_model_server_reply_events (fixture->stack.server, snare);
  run_turn (fixture, "Add a snare");
  g_assert_no_error (fixture->error);
  request = sj_test_model_server_get_request (fixture->stack.server, 1);
  g_assert_false (json_object_has_member (request, "usage"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (request, "stream_options"), "include_usage"));
  answer_usage (fixture, &usage);
  g_assert_cmpint (usage.prompt_tokens, ==, -1);
  g_assert_cmpfloat (usage.cost, ==, 0);
  g_clear_pointer (&caption, g_free);
  caption = sj_usage_format (&usage);
  g_assert_cmpstr (caption, ==, "tokens unknown · $0");
}

/* The budget reached mid-turn: the tool call's answer crosses it, the
 * tool still runs and is answered, and the request after it is never
 * sent; the turn ends with the budget's error and says so in the
 * transcript; the music is unchanged. The next message is refused before
 * any request. */
static void
test_budget_mid_turn (Fixture       *fixture,
                      gconstpointer  data)
{
  const char * const first[] = {
    READ_CODE_EVENT ("call_1"),
    USAGE_EVENT ("{\"prompt_tokens\":800,\"completion_tokens\":300}"),
    DONE_EVENT, NULL
  };
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GError) error = NULL;
  SjHistoryMessage *answer;
  SjHistoryMessage *system;
  SjUsage usage;
  guint n_messages;
  gint64 answer_id;

  sj_agent_set_budget (fixture->agent, SJ_AGENT_BUDGET_TOKENS, 1000, 1.0);
  sj_test_model_server_reply_events (fixture->stack.server, first);
  sj_test_model_server_reply_text (fixture->stack.server, "Never sent.", 4);
  run_turn (fixture, "What plays?");

  g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUDGET_USED_UP);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);

  list = messages (fixture);
  answer = last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT);
  answer_id = answer->id;
  g_assert_cmpint (answer->status, ==, SJ_HISTORY_MESSAGE_ERROR);
  calls = sj_history_store_list_tool_calls (fixture->stack.store, answer->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 1);
  system = last_of_role (list, SJ_HISTORY_ROLE_SYSTEM);
  g_assert_cmpstr (system->content, ==,
                   "The session’s budget of 1000 tokens is used up: raise it in Settings → Limits to go on.");
  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, CODE);

  answer_usage (fixture, &usage);
  g_assert_cmpint (sj_usage_get_total_tokens (&usage), ==, 1100);

  /* The next message: kept, refused at once, no request, no empty answer. */
  n_messages = list->len;
  run_turn (fixture, "Go on");
  g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUDGET_USED_UP);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
  g_clear_pointer (&list, g_ptr_array_unref);
  list = messages (fixture);
  g_assert_cmpuint (list->len, ==, n_messages + 2);
  g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_USER)->id, >, answer_id);
  g_assert_cmpint (last_of_role (list, SJ_HISTORY_ROLE_ASSISTANT)->id, ==, answer_id);

  /* Raised, the agent goes on. */
  sj_agent_set_budget (fixture->agent, SJ_AGENT_BUDGET_TOKENS, 50000, 1.0);
  run_turn (fixture, "Go on");
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 2);
}

/* A money budget counts OpenRouter's cost; unknown costs never reach it. */
static void
test_budget_money (Fixture       *fixture,
                   gconstpointer  data)
{
  const char * const costly[] = {
    TEXT_EVENT ("Done."), STOP_EVENT,
    USAGE_EVENT ("{\"prompt_tokens\":10,\"completion_tokens\":2,\"cost\":0.75}"),
    DONE_EVENT, NULL
  };

  use_openrouter (fixture);
  sj_agent_set_budget (fixture->agent, SJ_AGENT_BUDGET_MONEY, 0, 0.5);
  sj_test_model_server_reply_text (fixture->stack.server, "Tokens, no cost.", 4);
  run_turn (fixture, "One");
  g_assert_no_error (fixture->error);
  sj_test_model_server_reply_events (fixture->stack.server, costly);
  run_turn (fixture, "Two");
  g_assert_no_error (fixture->error);
  run_turn (fixture, "Three");
  g_assert_error (fixture->error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_BUDGET_USED_UP);
  g_assert_nonnull (strstr (fixture->error->message, "$0.50"));
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/agent-usage/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("from-stream", test_usage_from_stream);
  ADD ("summed-over-turn", test_usage_summed_over_turn);
  ADD ("absent", test_usage_absent);
  ADD ("budget-mid-turn", test_budget_mid_turn);
  ADD ("budget-money", test_budget_money);

#undef ADD

  return g_test_run ();
}
