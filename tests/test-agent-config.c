/* test-agent-config.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjAgentConfig against a real Secret Service (tests/test-secrets.sh runs
 * it with a gnome-keyring of its own, locked, or with no keyring at all)
 * and custom endpoints on the loopback interface (a model server, and a
 * port where nothing answers): the agent works when it can, and otherwise
 * says why and what to do, in the order the musician would fix it.
 */

#include "config.h"

#include <string.h>

#include "sj-agent-config.h"
#include "sj-agent-private.h"
#include "sj-llm-client-private.h"
#include "sj-secrets.h"
#include "sj-test-model-server.h"
#include "sj-test-target.h"

typedef struct
{
  SjTestModelServer *server;
  GSettings     *settings;
  SjAgent       *agent;
  SjAgentConfig *config;
  char          *dir;
  guint          changes;
} Fixture;

static void
changed_cb (SjAgentConfig *config,
            Fixture       *fixture)
{
  fixture->changes++;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(SjTestTarget) target = sj_test_target_new ("s(\"sine\")");
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(SjKnowledge) knowledge = NULL;
  g_autoptr(SjDryRun) dry_run = sj_dry_run_new ();
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();
  g_autoptr(SjChangeApplier) applier = NULL;
  g_autoptr(SjAgentTools) tools = NULL;
  g_autoptr(SjHistoryStore) store = NULL;
  g_autofree char *path = NULL;

  fixture->server = sj_test_model_server_new ();
  fixture->dir = g_dir_make_tmp ("sj-agent-config-XXXXXX", NULL);
  path = g_build_filename (fixture->dir, "history.db", NULL);
  store = sj_history_store_new (path, NULL);
  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  applier = sj_change_applier_new (SJ_LIVE_TARGET (target), dry_run, knowledge, timeline);
  tools = sj_agent_tools_new (applier, knowledge, sj_knowledge_base_get_bundled ());
  fixture->agent = sj_agent_new (tools, store);
  fixture->settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_settings_set_string (fixture->settings, "model", "some/model");
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->config);
  g_clear_object (&fixture->agent);
  g_settings_reset (fixture->settings, "provider");
  g_settings_reset (fixture->settings, "base-url");
  g_settings_reset (fixture->settings, "model");
  g_settings_reset (fixture->settings, "answer-deadline");
  g_clear_object (&fixture->settings);
  g_clear_pointer (&fixture->server, sj_test_model_server_free);
  g_free (fixture->dir);
}

/* Creates the config (or reloads it) and waits for its lookup. */
static const GError *
settle (Fixture *fixture)
{
  guint before = fixture->changes;

  if (fixture->config == NULL)
    {
      fixture->config = sj_agent_config_new (fixture->agent, fixture->settings);
      g_signal_connect (fixture->config, "changed", G_CALLBACK (changed_cb), fixture);
    }
  else
    sj_agent_config_reload (fixture->config);

  while (fixture->changes == before)
    g_main_context_iteration (NULL, TRUE);

  return sj_agent_config_get_problem (fixture->config);
}

/* Waits for the config to set the agent up again by itself. */
static const GError *
settle_by_itself (Fixture *fixture)
{
  guint before = fixture->changes;

  while (fixture->changes == before)
    g_main_context_iteration (NULL, TRUE);

  return sj_agent_config_get_problem (fixture->config);
}

/* A loopback URL nothing listens on: a port that was free a moment ago. */
static char *
unreachable_url (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  g_socket_close (socket, NULL);

  return g_strdup_printf ("http://127.0.0.1:%u/v1", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (sj_secrets_store_api_key_finish (result, NULL));
  *done = TRUE;
}

static void
test_running (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *unreachable = unreachable_url ();
  gboolean done = FALSE;
  const GError *problem;

  /* OpenRouter without a key: the way forward. Without a model as well,
   * the key comes first: it is what the musician fixes first. */
  g_settings_set_string (fixture->settings, "model", "");
  problem = settle (fixture);
  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NO_API_KEY);
  g_assert_nonnull (strstr (problem->message, "No OpenRouter API key"));

  /* A key stored anywhere sets the agent up again by itself: now the model
   * is what is missing. */
  sj_secrets_store_api_key_async ("openrouter", SJ_LLM_CLIENT_OPENROUTER_URL, "sk-or-v1-testtesttesttesttest", NULL, store_cb, &done);
  problem = settle_by_itself (fixture);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NO_MODEL);
  g_assert_nonnull (strstr (problem->message, "No model"));
  g_settings_set_string (fixture->settings, "model", "some/model");
  g_assert_null (settle_by_itself (fixture));

  /* A local endpoint needs no key, but it has to answer (any answer: the
   * test server has no model list). */
  g_settings_set_string (fixture->settings, "provider", "custom");
  g_settings_set_string (fixture->settings, "base-url", sj_test_model_server_get_url (fixture->server));
  g_assert_null (settle (fixture));

  /* Nothing answers there: said so, with the address. */
  g_settings_set_string (fixture->settings, "base-url", unreachable);
  problem = settle_by_itself (fixture);
  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (problem->message, unreachable));
  /* Asked again on a reload: still nothing. */
  problem = settle (fixture);
  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_UNREACHABLE);
  g_settings_set_string (fixture->settings, "base-url", sj_test_model_server_get_url (fixture->server));
  g_assert_null (settle_by_itself (fixture));

  /* No model: said so. */
  g_settings_set_string (fixture->settings, "model", "  ");
  problem = settle (fixture);
  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NO_MODEL);
  g_assert_nonnull (strstr (problem->message, "No model"));

  /* No base URL: said so. */
  g_settings_set_string (fixture->settings, "model", "some/model");
  g_settings_set_string (fixture->settings, "base-url", " ");
  problem = settle (fixture);
  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED);
  g_assert_nonnull (strstr (problem->message, "base URL"));
}

/* The answer deadline is a setting: the client the config sets up has it,
 * and a change of it sets the agent up again. */
static void
test_answer_deadline (Fixture       *fixture,
                      gconstpointer  data)
{
  g_settings_set_string (fixture->settings, "provider", "custom");
  g_settings_set_string (fixture->settings, "base-url", sj_test_model_server_get_url (fixture->server));
  g_assert_null (settle (fixture));
  g_assert_nonnull (fixture->agent->client);
  g_assert_cmpuint (fixture->agent->client->deadline_ms, ==, 600 * 1000);

  g_settings_set_uint (fixture->settings, "answer-deadline", 1);
  g_assert_null (settle_by_itself (fixture));
  g_assert_cmpuint (fixture->agent->client->deadline_ms, ==, 1000);
}

/* The session budget (issue 32) is read from the settings, and a change
 * of it applies at once, without setting the agent up again; a custom
 * endpoint on the loopback is a local server, OpenRouter is not. */
static void
test_budget (Fixture       *fixture,
             gconstpointer  data)
{
  g_settings_set_string (fixture->settings, "provider", "custom");
  g_settings_set_string (fixture->settings, "base-url", sj_test_model_server_get_url (fixture->server));
  g_settings_set_string (fixture->settings, "agent-budget-kind", "tokens");
  g_settings_set_uint (fixture->settings, "agent-budget-tokens", 20000);
  g_assert_null (settle (fixture));
  g_assert_cmpint (fixture->agent->budget_kind, ==, SJ_AGENT_BUDGET_TOKENS);
  g_assert_cmpuint (fixture->agent->budget_tokens, ==, 20000);
  g_assert_true (fixture->agent->local);

  g_settings_set_string (fixture->settings, "agent-budget-kind", "money");
  g_settings_set_double (fixture->settings, "agent-budget-money", 3.25);
  g_assert_cmpint (fixture->agent->budget_kind, ==, SJ_AGENT_BUDGET_MONEY);
  g_assert_cmpfloat (fixture->agent->budget_money, ==, 3.25);
  g_settings_set_string (fixture->settings, "agent-budget-kind", "none");
  g_assert_cmpint (fixture->agent->budget_kind, ==, SJ_AGENT_BUDGET_NONE);

  g_settings_reset (fixture->settings, "agent-budget-kind");
  g_settings_reset (fixture->settings, "agent-budget-tokens");
  g_settings_reset (fixture->settings, "agent-budget-money");
}

static void
test_locked (Fixture       *fixture,
             gconstpointer  data)
{
  const GError *problem = settle (fixture);

  /* A locked keyring shows no items: the agent asks for a key, and
   * storing it is where the page reports the lock. */
  g_assert_nonnull (problem);
  g_assert_nonnull (strstr (problem->message, "API key"));
}

static void
test_no_keyring (Fixture       *fixture,
                 gconstpointer  data)
{
  const GError *problem = settle (fixture);

  g_assert_error (problem, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NO_KEYRING);
  g_assert_nonnull (strstr (problem->message, "No keyring"));
  g_assert_nonnull (strstr (problem->message, "local model"));

  /* A local model works without any keyring. */
  g_settings_set_string (fixture->settings, "provider", "custom");
  g_settings_set_string (fixture->settings, "base-url", sj_test_model_server_get_url (fixture->server));
  g_assert_null (settle (fixture));
}

static void
test_not_in_wrapper (void)
{
  g_test_skip ("run through tests/test-secrets.sh, with a keyring of its own");
}

int
main (int   argc,
      char *argv[])
{
  const char *mode;

  g_test_init (&argc, &argv, NULL);
  g_log_writer_default_set_use_stderr (TRUE);

  mode = g_getenv ("SJ_TEST_KEYRING");
  if (g_strcmp0 (mode, "running") == 0)
    {
      g_test_add ("/agent-config/running", Fixture, NULL, fixture_set_up, test_running, fixture_tear_down);
      g_test_add ("/agent-config/answer-deadline", Fixture, NULL, fixture_set_up, test_answer_deadline, fixture_tear_down);
      g_test_add ("/agent-config/budget", Fixture, NULL, fixture_set_up, test_budget, fixture_tear_down);
    }
  else if (g_strcmp0 (mode, "locked") == 0)
    g_test_add ("/agent-config/locked", Fixture, NULL, fixture_set_up, test_locked, fixture_tear_down);
  else if (g_strcmp0 (mode, "none") == 0)
    g_test_add ("/agent-config/no-keyring", Fixture, NULL, fixture_set_up, test_no_keyring, fixture_tear_down);
  else
    g_test_add_func ("/agent-config/not-in-wrapper", test_not_in_wrapper);

  return g_test_run ();
}
