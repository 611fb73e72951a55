/* test-agent-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Skills in the agent, end to end without a display: the loopback model
 * server (sj-test-model-server.c) plays the model and keeps every request
 * it got, so the tests read exactly what the model was told. The skills
 * are the fixtures of tests/data/skills; the tools, the dry-run and the
 * history (a real SQLite file) are the real ones.
 *
 * Covered: "make it jazzy" puts the jazz rules into that request and
 * "make it faster" does not; a scripted model calls skills_list and
 * activate_skills (an unknown name first, answered with suggestions) and
 * the activated skill comes with the next message; pins made before the
 * first message are the session's and persist in the SQLite file across
 * reopening the store; the skills a turn used are recorded on its answer
 * (the chat's chips) and announced by SjAgent::skills-used.
 */

#include "config.h"

#include <string.h>

#include "sj-agent-private.h"
#include "sj-test-files.h"
#include "sj-test-agent-stack.h"

#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"
#define FIXTURES SJ_TEST_DATA "/skills"

typedef struct
{
  SjTestAgentStack   stack;
  SjSkillRegistry   *skills;
  SjAgent           *agent;
  gint64             skills_used;  /* the message of the last SjAgent::skills-used */
  guint              pins_changed;
  gboolean           done;
  GError            *error;
} Fixture;

static void
skills_used_cb (SjAgent *agent,
                gint64   message_id,
                Fixture *fixture)
{
  fixture->skills_used = message_id;
}

static void
pins_changed_cb (SjAgent *agent,
                 Fixture *fixture)
{
  fixture->pins_changed++;
}

static SjAgent *
new_agent (Fixture *fixture)
{
  SjAgent *agent = sj_test_agent_stack_new_agent (&fixture->stack, "test-key");

  sj_agent_set_skills (agent, fixture->skills);
  g_signal_connect (agent, "skills-used", G_CALLBACK (skills_used_cb), fixture);
  g_signal_connect (agent, "pins-changed", G_CALLBACK (pins_changed_cb), fixture);

  return agent;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  sj_test_agent_stack_init (&fixture->stack, CODE);
  fixture->skills = sj_skill_registry_new_for_roots (FIXTURES "/bundled", FIXTURES "/user", NULL);
  fixture->agent = new_agent (fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->agent);
  g_clear_object (&fixture->skills);
  sj_test_agent_stack_clear (&fixture->stack);
  g_clear_error (&fixture->error);
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
  g_assert_no_error (fixture->error);
}

static const char *
last_user_content (Fixture *fixture,
                   guint    request)
{
  JsonArray *list = json_object_get_array_member (sj_test_model_server_get_request (fixture->stack.server, request), "messages");

  for (guint i = json_array_get_length (list); i > 0; i--)
    {
      JsonObject *message = json_array_get_object_element (list, i - 1);

      if (g_str_equal (json_object_get_string_member (message, "role"), "user"))
        return json_object_get_string_member (message, "content");
    }
  g_assert_not_reached ();
}

/* The last assistant message of the session and its recorded skills, as
 * "name:how name:how". */
static char *
answer_skills (Fixture *fixture,
               gint64  *out_message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = sj_history_store_list_messages (fixture->stack.store, sj_agent_get_session_id (fixture->agent), &error);
  g_autoptr(GPtrArray) uses = NULL;
  GString *text = g_string_new (NULL);
  gint64 id = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < messages->len; i++)
    if (((SjHistoryMessage *) g_ptr_array_index (messages, i))->role == SJ_HISTORY_ROLE_ASSISTANT)
      id = ((SjHistoryMessage *) g_ptr_array_index (messages, i))->id;
  g_assert_cmpint (id, !=, 0);

  uses = sj_history_store_list_message_skills (fixture->stack.store, id, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < uses->len; i++)
    {
      SjHistorySkillUse *use = g_ptr_array_index (uses, i);

      g_string_append_printf (text, "%s%s:%s", i > 0 ? " " : "", use->name, use->how);
    }
  if (out_message != NULL)
    *out_message = id;

  return g_string_free (text, FALSE);
}

static void
test_auto (Fixture       *fixture,
           gconstpointer  data)
{
  g_autofree char *used = NULL;
  const char *user;
  gint64 answer;

  sj_test_model_server_reply_text (fixture->stack.server, "Swung it.", 4);
  run_turn (fixture, "make it jazzy");

  user = last_user_content (fixture, 0);
  g_assert_nonnull (strstr (user, "<skills>\n<skill name=\"jazz\" title=\"Jazz\" why=\"auto\">\n- JAZZ-RULES"));
  /* The rules come before the musician's words, after the runtime block. */
  g_assert_true (strstr (user, "<runtime>") < strstr (user, "<skills>"));
  g_assert_true (g_str_has_suffix (user, "</skills>\n\nmake it jazzy"));
  used = answer_skills (fixture, &answer);
  g_assert_cmpstr (used, ==, "jazz:auto");
  g_assert_cmpint (fixture->skills_used, ==, answer);

  /* A message that names no style brings no skill. */
  fixture->skills_used = 0;
  sj_test_model_server_reply_text (fixture->stack.server, "Faster.", 4);
  run_turn (fixture, "make it faster");
  user = last_user_content (fixture, 1);
  g_assert_null (strstr (user, "<skills>"));
  g_assert_null (strstr (user, "JAZZ-RULES"));
  g_clear_pointer (&used, g_free);
  used = answer_skills (fixture, NULL);
  g_assert_cmpstr (used, ==, "");
  g_assert_cmpint (fixture->skills_used, ==, 0);

  /* Disabled skills never join. */
  sj_skill_registry_set_enabled (fixture->skills, "jazz", FALSE);
  sj_test_model_server_reply_text (fixture->stack.server, "Hmm.", 4);
  run_turn (fixture, "make it jazzier");
  g_assert_null (strstr (last_user_content (fixture, 2), "JAZZ-RULES"));
}

static void
test_tools (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *list = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *activated = NULL;
  g_autofree char *used = NULL;
  JsonObject *result;
  JsonArray *skills;
  gint64 answer;

  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-list", "skills_list", "{\"tag\": \"genre\"}");
  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-typo", "activate_skills", "{\"names\": [\"jaz\"]}");
  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-jazz", "activate_skills", "{\"names\": [\"jazz\"]}");
  sj_test_model_server_reply_text (fixture->stack.server, "Jazz it is.", 4);
  run_turn (fixture, "play something a bit like Coltrane");
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 4);

  /* skills_list: the enabled genre skills, none active yet. */
  list = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "call-list");
  json_parser_load_from_data (parser, list, -1, &error);
  g_assert_no_error (error);
  result = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "ok");
  skills = json_object_get_array_member (result, "skills");
  g_assert_cmpuint (json_array_get_length (skills), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (skills, 0), "name"), ==, "drum-and-bass");
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (skills, 0), "active"));

  /* An unknown name: a structured error with the closest names. */
  unknown = sj_test_model_server_find_tool_result (fixture->stack.server, 2, "call-typo");
  g_assert_nonnull (strstr (unknown, "\"code\":\"UNKNOWN_SKILL\""));
  g_assert_nonnull (strstr (unknown, "\"suggestions\":[\"jazz\"]"));

  /* The rules, the templates and the patterns. */
  activated = sj_test_model_server_find_tool_result (fixture->stack.server, 3, "call-jazz");
  g_assert_nonnull (strstr (activated, "\"status\":\"ok\""));
  g_assert_nonnull (strstr (activated, "JAZZ-RULES"));
  g_assert_nonnull (strstr (activated, "\"title\":\"Swing hats\""));
  g_assert_nonnull (strstr (activated, "\"name\":\"ii-V-I\""));

  /* The tool log has them like any other tool. */
  used = answer_skills (fixture, &answer);
  g_assert_cmpstr (used, ==, "jazz:tool");
  calls = sj_history_store_list_tool_calls (fixture->stack.store, answer, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 3);
  g_assert_cmpstr (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->name, ==, "skills_list");
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 1))->status, ==, SJ_HISTORY_TOOL_FAILED);
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 2))->status, ==, SJ_HISTORY_TOOL_SUCCEEDED);

  /* Activated, it comes with the session's next messages. */
  sj_test_model_server_reply_text (fixture->stack.server, "Done.", 4);
  run_turn (fixture, "now add a bass line");
  g_assert_nonnull (strstr (last_user_content (fixture, 4), "<skill name=\"jazz\" title=\"Jazz\" why=\"tool\">"));
  g_clear_pointer (&used, g_free);
  used = answer_skills (fixture, NULL);
  g_assert_cmpstr (used, ==, "jazz:tool");
}

static void
test_tools_errors (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *empty = NULL;
  g_autofree char *wrong = NULL;
  g_autofree char *none = NULL;

  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-empty", "activate_skills", "{}");
  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-wrong", "activate_skills", "{\"names\": \"jazz\"}");
  sj_test_model_server_reply_text (fixture->stack.server, "Sorry.", 4);
  run_turn (fixture, "hello");
  empty = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "call-empty");
  g_assert_nonnull (strstr (empty, "\"code\":\"INVALID_ARGUMENTS\""));
  wrong = sj_test_model_server_find_tool_result (fixture->stack.server, 2, "call-wrong");
  g_assert_nonnull (strstr (wrong, "\"code\":\"INVALID_ARGUMENTS\""));

  /* Without a registry the tools say so and nothing else changes. */
  sj_agent_set_skills (fixture->agent, NULL);
  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-none", "skills_list", "{}");
  sj_test_model_server_reply_text (fixture->stack.server, "OK.", 4);
  run_turn (fixture, "make it jazzy");
  g_assert_null (strstr (last_user_content (fixture, 4), "<skills>"));
  none = sj_test_model_server_find_tool_result (fixture->stack.server, 4, "call-none");
  g_assert_nonnull (strstr (none, "\"code\":\"SKILLS_UNAVAILABLE\""));
}

/* Tags activate every enabled skill that has them, highest priority first. */
static void
test_tags (Fixture       *fixture,
           gconstpointer  data)
{
  g_autofree char *result = NULL;
  g_autofree char *used = NULL;

  sj_test_model_server_reply_tool_call (fixture->stack.server, "", "call-tags", "activate_skills", "{\"tags\": [\"technique\", \"nope\"]}");
  sj_test_model_server_reply_text (fixture->stack.server, "Pumping.", 4);
  run_turn (fixture, "something that breathes");
  result = sj_test_model_server_find_tool_result (fixture->stack.server, 1, "call-tags");
  g_assert_nonnull (strstr (result, "\"status\":\"ok\""));
  g_assert_nonnull (strstr (result, "SIDECHAIN-RULES"));
  g_assert_null (strstr (result, "JAZZ-RULES"));
  used = answer_skills (fixture, NULL);
  g_assert_cmpstr (used, ==, "sidechain:tool");
}

/* Old turns lose their skills' rules when the prompt is condensed, as
 * their envelopes: each turn carries the skills it uses itself. */
static void
test_condense (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SjAgentContext) context = sj_agent_context_new ("system");
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *filler = g_strnfill (4000, 'x');
  const char *first;

  sj_agent_context_add_user (context, "make it jazzy", "<runtime>{}</runtime>", NULL, NULL,
                             "<skills>\n<skill name=\"jazz\">JAZZ-RULES</skill>\n</skills>");
  sj_agent_context_add_assistant (context, filler, NULL);
  sj_agent_context_add_user (context, "again", "<runtime>{}</runtime>", NULL, NULL,
                             "<skills>\n<skill name=\"dub\">DUB-RULES</skill>\n</skills>");
  messages = sj_agent_context_build_messages (context);
  first = json_object_get_string_member (json_array_get_object_element (messages, 1), "content");
  g_assert_cmpstr (first, ==, "<runtime>{}</runtime>\n<skills>\n<skill name=\"jazz\">JAZZ-RULES</skill>\n</skills>\n\nmake it jazzy");
  g_clear_pointer (&messages, json_array_unref);

  g_strfreev (sj_agent_context_condense (context, sj_agent_context_estimate_tokens (context) - 1));
  messages = sj_agent_context_build_messages (context);
  first = json_object_get_string_member (json_array_get_object_element (messages, 1), "content");
  g_assert_null (strstr (first, "JAZZ-RULES"));
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (messages, 3), "content"),
                            "DUB-RULES"));
}

static void
test_pinning (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) reopened = NULL;
  g_auto(GStrv) pinned = NULL;
  g_autoptr(GPtrArray) uses = NULL;
  g_autofree char *used = NULL;
  gint64 session, answer;

  /* Pinned before the first message: the session does not exist yet. */
  g_assert_true (sj_agent_set_skill_pinned (fixture->agent, "dub", TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->pins_changed, ==, 1);
  g_assert_false (sj_agent_set_skill_pinned (fixture->agent, "../dub", TRUE, &error));
  g_assert_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_cmpuint (fixture->pins_changed, ==, 1);
  pinned = sj_agent_get_pinned_skills (fixture->agent);
  g_assert_cmpstr (pinned[0], ==, "dub");
  g_clear_pointer (&pinned, g_strfreev);

  /* Pinned first, then the message's own skills. */
  sj_test_model_server_reply_text (fixture->stack.server, "Echoes on.", 4);
  run_turn (fixture, "make it jazzy");
  g_assert_nonnull (strstr (last_user_content (fixture, 0),
                            "<skills>\n<skill name=\"dub\" title=\"Dub\" why=\"pinned\">\n- DUB-RULES"));
  g_assert_nonnull (strstr (last_user_content (fixture, 0), "<skill name=\"jazz\" title=\"Jazz\" why=\"auto\">"));
  used = answer_skills (fixture, &answer);
  g_assert_cmpstr (used, ==, "dub:pinned jazz:auto");
  session = sj_agent_get_session_id (fixture->agent);
  {
    /* The export says which skills the answer had. */
    g_autofree char *markdown = sj_history_store_export_markdown (fixture->stack.store, session, &error);

    g_assert_no_error (error);
    g_assert_nonnull (strstr (markdown, "*Skills: Dub, Jazz*\n\n"));
  }

  /* In the SQLite file: another connection, then another agent, read it. */
  g_clear_object (&fixture->agent);
  g_clear_object (&fixture->stack.store);
  reopened = sj_history_store_new (fixture->stack.db_path, &error);
  g_assert_no_error (error);
  pinned = sj_history_store_list_session_skills (reopened, session, SJ_HISTORY_SKILL_PINNED, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (pinned), ==, 1);
  g_assert_cmpstr (pinned[0], ==, "dub");
  g_clear_pointer (&pinned, g_strfreev);
  uses = sj_history_store_list_message_skills (reopened, answer, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (uses->len, ==, 2);
  g_assert_cmpstr (((SjHistorySkillUse *) g_ptr_array_index (uses, 0))->title, ==, "Dub");

  fixture->stack.store = g_steal_pointer (&reopened);
  fixture->agent = new_agent (fixture);
  g_assert_true (sj_agent_load_session (fixture->agent, session, &error));
  g_assert_no_error (error);
  pinned = sj_agent_get_pinned_skills (fixture->agent);
  g_assert_cmpuint (g_strv_length (pinned), ==, 1);
  g_assert_cmpstr (pinned[0], ==, "dub");

  sj_test_model_server_reply_text (fixture->stack.server, "Still dub.", 4);
  run_turn (fixture, "more reverb");
  g_assert_nonnull (strstr (last_user_content (fixture, 1), "why=\"pinned\""));

  /* Unpinned, it is gone from the next message. */
  fixture->pins_changed = 0;
  g_assert_true (sj_agent_set_skill_pinned (fixture->agent, "dub", FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->pins_changed, ==, 1);
  sj_test_model_server_reply_text (fixture->stack.server, "Dry.", 4);
  run_turn (fixture, "more reverb");
  g_assert_null (strstr (last_user_content (fixture, 2), "DUB-RULES"));

  /* A new session starts without pins. */
  sj_agent_new_session (fixture->agent);
  g_clear_pointer (&pinned, g_strfreev);
  pinned = sj_agent_get_pinned_skills (fixture->agent);
  g_assert_cmpuint (g_strv_length (pinned), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/agent-skills/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("auto", test_auto);
  ADD ("tools", test_tools);
  ADD ("tools-errors", test_tools_errors);
  ADD ("tags", test_tags);
  ADD ("condense", test_condense);
  ADD ("pinning", test_pinning);

#undef ADD

  return g_test_run ();
}
