/* bench-agent.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * bench/agent: the agent's own cost, measured side by side with a floor.
 *
 * 1. Tool round trip. A loopback model server (the tests' scripted one)
 *    answers with one tool call per round; the time from the last byte of
 *    its answer leaving the server to the next request (carrying the tool
 *    result) arriving there is the round trip, the dry-run's own time is
 *    taken out. The peer is the floor: the same server answering a plain
 *    request to a bare libsoup client, which is the HTTP part any agent
 *    pays.
 * 2. Streamed text into the history: chunks per second through the store
 *    (buffered, committed each second), against the obvious way of doing
 *    it, a transaction per chunk, on the same SQLite settings.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libsoup/soup.h>
#include <sqlite3.h>

#include "sj-agent.h"
#include "sj-test-model-server.h"
#include "sj-test-target.h"

#define TURN_CALLS 10
#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
percentile (GArray *values,
            double  p)
{
  g_array_sort (values, compare_double);
  return g_array_index (values, double, MIN (values->len - 1, (guint) floor (p * (values->len - 1) + 0.5)));
}

typedef struct
{
  gboolean done;
  GArray  *agent_overhead;  /* what the agent reports, µs */
  GArray  *dry_run;         /* per round, µs, from the tool log */
} Run;

static void
request_sent_cb (SjAgent *agent,
                 guint    round,
                 gint64   overhead_us,
                 Run     *run)
{
  if (round > 1)
    {
      double value = overhead_us / 1000.0;

      g_array_append_val (run->agent_overhead, value);
    }
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_agent_send_finish (SJ_AGENT (object), result, &error))
    g_printerr ("turn failed: %s\n", error->message);
  run->done = TRUE;
}

static char *
apply_args (const char *base,
            guint       from,
            guint       to)
{
  return g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"search_replace\",\"edits\":[{\"search\":\"lpf(%u)\",\"replace\":\"lpf(%u)\"}]}}",
                          base, from, to);
}

/* Runs @rounds tool calls of @tool in one turn; returns the round trips
 * measured at the server, dry-run excluded, in ms. */
static GArray *
measure_tool (const char *tool,
              guint       rounds,
              GArray    **agent_side)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(SjTestTarget) target = sj_test_target_new (CODE);
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(SjKnowledge) knowledge = NULL;
  g_autoptr(SjDryRun) dry_run = sj_dry_run_new ();
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();
  g_autoptr(SjChangeApplier) applier = NULL;
  g_autoptr(SjAgentTools) tools = NULL;
  g_autoptr(SjHistoryStore) store = NULL;
  g_autoptr(SjAgent) agent = NULL;
  g_autoptr(SjLlmClient) client = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sj-bench-agent-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "history.db", NULL);
  SjSwapPolicy policy = { SJ_QUANTIZE_NEXT_CYCLE, 1, 4, FALSE, 1 };
  g_autofree char *hash = sj_code_hash (CODE);
  GArray *server_side = g_array_new (FALSE, FALSE, sizeof (double));
  Run run = { FALSE, g_array_new (FALSE, FALSE, sizeof (double)), NULL };

  sj_sounds_index_load_bundled (sounds);
  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  applier = sj_change_applier_new (SJ_LIVE_TARGET (target), dry_run, knowledge, timeline);
  sj_change_applier_set_defaults (applier, &policy);
  tools = sj_agent_tools_new (applier, knowledge, sj_knowledge_base_get_bundled ());
  store = sj_history_store_new (path, NULL);
  agent = sj_agent_new (tools, store);
  client = sj_llm_client_new (sj_test_model_server_get_url (server), NULL);
  sj_agent_set_client (agent, client, FALSE);
  sj_agent_set_model (agent, "bench", "fast", 0);
  sj_agent_set_limits (agent, 4, TURN_CALLS);
  g_signal_connect (agent, "request-sent", G_CALLBACK (request_sent_cb), &run);

  for (guint i = 0; i < rounds; i++)
    {
      g_autofree char *id = g_strdup_printf ("call%u", i);
      g_autofree char *args = NULL;

      if (g_str_equal (tool, "apply_strudel_change"))
        {
          g_autofree char *code = g_strdup_printf ("note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(%u)", 801 + i);

          args = apply_args (hash, 800 + i, 801 + i);
          g_free (hash);
          hash = sj_code_hash (code);
        }
      else if (g_str_equal (tool, "strudel_knowledge"))
        args = g_strdup ((const char *[]) { "{\"query\":\"lpf\"}", "{\"query\":\"sounds:bd\"}", "{\"query\":\"reverb\"}", "{\"query\":\"jux\"}" }[i % 4]);
      else if (g_str_equal (tool, "search_knowledge"))
        args = g_strdup ((const char *[]) { "{\"query\":\"\\\\.lpf\\\\(\"}", "{\"query\":\"euclid\"}", "{\"query\":\"room|delay\"}" }[i % 3]);
      else
        args = g_strdup ("{}");

      sj_test_model_server_reply_tool_call (server, NULL, id, tool, args);
      if (i % TURN_CALLS == TURN_CALLS - 1 || i == rounds - 1)
        sj_test_model_server_reply_text (server, "Done.", 5);
    }

  /* Turns of ten tool calls, within the default tool budget, as a jam
   * goes: the conversation grows from turn to turn. */
  for (guint turn = 0; turn * TURN_CALLS < rounds; turn++)
    {
      guint first = turn * (TURN_CALLS + 1);
      guint calls = MIN (TURN_CALLS, rounds - turn * TURN_CALLS);

      run.done = FALSE;
      sj_agent_send_async (agent, "bench", NULL, send_cb, &run);
      while (!run.done)
        g_main_context_iteration (NULL, TRUE);

      for (guint k = 0; k < calls; k++)
        {
          double total = (sj_test_model_server_get_request_time (server, first + k + 1) -
                          sj_test_model_server_get_last_byte_time (server, first + k)) / 1000.0;

          g_array_append_val (server_side, total);
        }
    }

  *agent_side = run.agent_overhead;

  {
    g_autoptr(GFile) file = g_file_new_for_path (dir);
    g_autoptr(GFileEnumerator) children = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME, 0, NULL, NULL);
    GFileInfo *info;

    g_clear_object (&store);
    while (children && (info = g_file_enumerator_next_file (children, NULL, NULL)) != NULL)
      {
        g_autoptr(GFile) child = g_file_get_child (file, g_file_info_get_name (info));

        g_file_delete (child, NULL, NULL);
        g_object_unref (info);
      }
    g_file_delete (file, NULL, NULL);
  }

  return server_side;
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GBytes **answer = user_data;

  *answer = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
  if (*answer == NULL)
    *answer = g_bytes_new (NULL, 0);
}

/* The peer: the same loopback server and client library, no agent. */
static GArray *
measure_floor (guint rounds)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(SoupSession) session = soup_session_new ();
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *url = g_strconcat (sj_test_model_server_get_url (server), "/chat/completions", NULL);

  for (guint i = 0; i <= rounds; i++)
    sj_test_model_server_reply_tool_call (server, NULL, "x", "read_code", "{}");

  for (guint i = 0; i <= rounds; i++)
    {
      g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
      g_autoptr(GBytes) body = g_bytes_new_static ("{\"messages\":[]}", 15);
      GBytes *answer = NULL;

      /* Asynchronous, as the agent's client is: the server runs in this
       * thread's main loop. */
      soup_message_set_request_body_from_bytes (msg, "application/json", body);
      soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, read_cb, &answer);
      while (answer == NULL)
        g_main_context_iteration (NULL, TRUE);
      g_bytes_unref (answer);
      if (i > 0)
        {
          double value = (sj_test_model_server_get_request_time (server, i) -
                          sj_test_model_server_get_last_byte_time (server, i - 1)) / 1000.0;

          g_array_append_val (values, value);
        }
    }

  return values;
}

static double
store_chunks_per_second (guint chunks)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-bench-store-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "history.db", NULL);
  g_autoptr(SjHistoryStore) store = sj_history_store_new (path, NULL);
  gint64 session = sj_history_store_create_session (store, "bench", NULL);
  gint64 message = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "", "m",
                                                    SJ_HISTORY_MESSAGE_STREAMING, NULL);
  gint64 start = g_get_monotonic_time ();
  double seconds;

  for (guint i = 0; i < chunks; i++)
    {
      sj_history_store_append_text (store, message, "token ", NULL);
      /* The main loop runs between chunks as it does while streaming, so
       * the once-a-second commit happens on time. */
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
  sj_history_store_finish_message (store, message, SJ_HISTORY_MESSAGE_COMPLETE, NULL);
  seconds = (g_get_monotonic_time () - start) / 1e6;

  g_clear_object (&store);
  return chunks / seconds;
}

/* The peer: a transaction per chunk, the same journal mode and sync. */
static double
naive_chunks_per_second (guint chunks)
{
  g_autofree char *dir = g_dir_make_tmp ("sj-bench-naive-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "naive.db", NULL);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 start;
  double seconds;

  sqlite3_open (path, &db);
  sqlite3_exec (db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                    "CREATE TABLE messages (id INTEGER PRIMARY KEY, content TEXT NOT NULL DEFAULT '');"
                    "INSERT INTO messages (content) VALUES ('');", NULL, NULL, NULL);
  sqlite3_prepare_v2 (db, "UPDATE messages SET content = content || ?1 WHERE id = 1", -1, &stmt, NULL);

  start = g_get_monotonic_time ();
  for (guint i = 0; i < chunks; i++)
    {
      sqlite3_bind_text (stmt, 1, "token ", -1, SQLITE_STATIC);
      sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  seconds = (g_get_monotonic_time () - start) / 1e6;

  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return chunks / seconds;
}

int
main (int   argc,
      char *argv[])
{
  const char *tools[] = { "read_code", "strudel_knowledge", "search_knowledge", "apply_strudel_change" };
  guint rounds = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 100;
  guint chunks = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 20000;
  g_autoptr(GArray) floor_values = measure_floor (rounds);
  double floor_p50 = percentile (floor_values, 0.5);
  double floor_p99 = percentile (floor_values, 0.99);
  double ours, naive;

  g_print ("bench/agent: %u tool rounds per tool, loopback model server, dry-run excluded\n\n", rounds);
  g_print ("%-22s %10s %10s %12s %12s %10s\n", "tool round trip (ms)", "p50", "p99", "agent p50", "agent p99", "p50/floor");
  g_print ("%-22s %10.3f %10.3f %12s %12s %10s\n", "HTTP floor (peer)", floor_p50, floor_p99, "-", "-", "1.0");

  for (guint t = 0; t < G_N_ELEMENTS (tools); t++)
    {
      g_autoptr(GArray) agent_side = NULL;
      g_autoptr(GArray) server_side = measure_tool (tools[t], rounds, &agent_side);
      double p50, p99;

      /* For apply the server's figure includes the dry-run: the agent's
       * own figure takes it out, and is what the target is about. */
      if (g_str_equal (tools[t], "apply_strudel_change"))
        {
          p50 = percentile (agent_side, 0.5) + floor_p50;
          p99 = percentile (agent_side, 0.99) + floor_p99;
          g_print ("%-22s %10.3f %10.3f %12.3f %12.3f %10.1f  (server side: agent's figure + HTTP floor)\n", tools[t], p50, p99,
                   percentile (agent_side, 0.5), percentile (agent_side, 0.99), p50 / floor_p50);
        }
      else
        {
          p50 = percentile (server_side, 0.5);
          p99 = percentile (server_side, 0.99);
          g_print ("%-22s %10.3f %10.3f %12.3f %12.3f %10.1f\n", tools[t], p50, p99,
                   percentile (agent_side, 0.5), percentile (agent_side, 0.99), p50 / floor_p50);
        }
    }

  g_print ("\ntarget: agent overhead per tool round trip under 5 ms (p99 above)\n\n");

  ours = store_chunks_per_second (chunks);
  naive = naive_chunks_per_second (chunks);
  g_print ("%-40s %14s\n", "streamed chunks into SQLite", "chunks/s");
  g_print ("%-40s %14.0f\n", "SjHistoryStore (committed each second)", ours);
  g_print ("%-40s %14.0f\n", "a transaction per chunk (peer)", naive);
  g_print ("%-40s %14.1f\n", "ratio", ours / naive);

  return 0;
}
