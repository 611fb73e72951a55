/* test-usage.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the agent costs (issue 32), without a model: the provider's usage
 * object parsed at the boundary (with and without its fields, malformed,
 * huge, negative; a local server's cost), sums, the caption, and the
 * history's message_usage table against a real SQLite file: the round
 * trip, a session's sum that keeps regenerated answers, and a history of
 * schema version 4 migrated.
 */

#include "config.h"

#include <math.h>
#include <sqlite3.h>

#include "sj-history-store-private.h"
#include "sj-json.h"
#include "sj-test-files.h"
#include "sj-usage.h"

static SjUsage
parse (const char *json,
       gboolean    local)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  SjUsage usage;

  node = sj_json_parse (json, -1, NULL, &error);
  g_assert_no_error (error);
  sj_usage_parse (JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL, local, &usage);
  return usage;
}

static void
test_parse_full (void)
{
  SjUsage usage = parse ("{\"prompt_tokens\": 1000, \"completion_tokens\": 234, \"total_tokens\": 1234,"
                         " \"completion_tokens_details\": {\"reasoning_tokens\": 34}, \"cost\": 0.0021}", FALSE);

  g_assert_cmpint (usage.prompt_tokens, ==, 1000);
  g_assert_cmpint (usage.completion_tokens, ==, 234);
  g_assert_cmpint (usage.reasoning_tokens, ==, 34);
  g_assert_cmpfloat_with_epsilon (usage.cost, 0.0021, 1e-12);
  g_assert_cmpint (sj_usage_get_total_tokens (&usage), ==, 1234);
  g_assert_true (sj_usage_is_known (&usage));
}

static void
test_parse_missing (void)
{
  SjUsage usage;

  /* No usage at all: unknown, never 0. */
  g_assert_false (sj_usage_parse (NULL, FALSE, &usage));
  g_assert_cmpint (usage.prompt_tokens, ==, -1);
  g_assert_cmpint (usage.completion_tokens, ==, -1);
  g_assert_cmpint (usage.reasoning_tokens, ==, -1);
  g_assert_true (isnan (usage.cost));
  g_assert_cmpint (sj_usage_get_total_tokens (&usage), ==, -1);

  /* Tokens without a cost and without reasoning details. */
  usage = parse ("{\"prompt_tokens\": 12, \"completion_tokens\": 3}", FALSE);
  g_assert_cmpint (usage.prompt_tokens, ==, 12);
  g_assert_cmpint (usage.reasoning_tokens, ==, -1);
  g_assert_true (isnan (usage.cost));

  /* A local server costs 0, whatever it says or does not. */
  usage = parse ("{}", TRUE);
  g_assert_cmpint (usage.prompt_tokens, ==, -1);
  g_assert_cmpfloat (usage.cost, ==, 0);
  usage = parse ("{\"prompt_tokens\": 5, \"cost\": 3.5}", TRUE);
  g_assert_cmpint (usage.prompt_tokens, ==, 5);
  g_assert_cmpfloat (usage.cost, ==, 0);
}

static void
test_parse_malformed (void)
{
  SjUsage usage;

  usage = parse ("{\"prompt_tokens\": \"1000\", \"completion_tokens\": 2.5, \"cost\": \"0.1\","
                 " \"completion_tokens_details\": 7}", FALSE);
  g_assert_false (sj_usage_is_known (&usage));

  usage = parse ("{\"prompt_tokens\": null, \"completion_tokens\": [1], \"cost\": {\"usd\": 1},"
                 " \"completion_tokens_details\": {\"reasoning_tokens\": true}}", FALSE);
  g_assert_false (sj_usage_is_known (&usage));

  /* A whole number sent as a double is a count. */
  usage = parse ("{\"prompt_tokens\": 12.0, \"cost\": 0}", FALSE);
  g_assert_cmpint (usage.prompt_tokens, ==, 12);
  g_assert_cmpfloat (usage.cost, ==, 0);

  /* Not an object: nothing. */
  usage = parse ("[1, 2]", FALSE);
  g_assert_false (sj_usage_is_known (&usage));
}

static void
test_parse_bounds (void)
{
  SjUsage usage;

  usage = parse ("{\"prompt_tokens\": -5, \"completion_tokens\": -1, \"cost\": -0.01,"
                 " \"completion_tokens_details\": {\"reasoning_tokens\": -3}}", FALSE);
  g_assert_false (sj_usage_is_known (&usage));

  usage = parse ("{\"prompt_tokens\": 9223372036854775807, \"completion_tokens\": 1e300, \"cost\": 1e308}", FALSE);
  g_assert_false (sj_usage_is_known (&usage));

  usage = parse ("{\"prompt_tokens\": 1000000001, \"completion_tokens\": 1000000000, \"cost\": 10000.5}", FALSE);
  g_assert_cmpint (usage.prompt_tokens, ==, -1);
  g_assert_cmpint (usage.completion_tokens, ==, SJ_USAGE_MAX_TOKENS);
  g_assert_true (isnan (usage.cost));
}

static void
test_sum_and_format (void)
{
  SjUsage total = SJ_USAGE_INIT;
  SjUsage first = parse ("{\"prompt_tokens\": 1000, \"completion_tokens\": 200, \"cost\": 0.002}", FALSE);
  SjUsage second = parse ("{\"prompt_tokens\": 30, \"completion_tokens\": 4,"
                          " \"completion_tokens_details\": {\"reasoning_tokens\": 2}}", FALSE);
  SjUsage none = SJ_USAGE_INIT;
  g_autofree char *caption = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *one = NULL;

  unknown = sj_usage_format (&total);
  g_assert_cmpstr (unknown, ==, "tokens unknown");

  sj_usage_add (&total, &first);
  sj_usage_add (&total, &second);
  sj_usage_add (&total, &none);
  g_assert_cmpint (total.prompt_tokens, ==, 1030);
  g_assert_cmpint (total.completion_tokens, ==, 204);
  g_assert_cmpint (total.reasoning_tokens, ==, 2);
  g_assert_cmpfloat_with_epsilon (total.cost, 0.002, 1e-12);

  /* The tests run in the C locale, which does not group digits. */
  caption = sj_usage_format (&total);
  g_assert_cmpstr (caption, ==, "1234 tokens · $0.0020");

  one = sj_usage_format_tokens (1);
  g_assert_cmpstr (one, ==, "1 token");
  g_clear_pointer (&caption, g_free);
  caption = sj_usage_format_cost (12.5);
  g_assert_cmpstr (caption, ==, "$12.50");
  g_clear_pointer (&caption, g_free);
  caption = sj_usage_format_cost (0);
  g_assert_cmpstr (caption, ==, "$0");
  g_clear_pointer (&caption, g_free);
  caption = sj_usage_format_cost (0.5);
  g_assert_cmpstr (caption, ==, "$0.50");
  g_clear_pointer (&caption, g_free);
  caption = sj_usage_format_cost (0.00004);
  g_assert_cmpstr (caption, ==, "$0.000040");

  /* A cost known, the tokens not. */
  none.cost = 0;
  g_clear_pointer (&caption, g_free);
  caption = sj_usage_format (&none);
  g_assert_cmpstr (caption, ==, "tokens unknown · $0");
}

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-usage-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->path = g_build_filename (fixture->dir, "history.sqlite3", NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->path);
}

static gint64
add_answer (SjHistoryStore *store,
            gint64          session)
{
  g_autoptr(GError) error = NULL;
  gint64 id;

  g_assert_cmpint (sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_USER, "Add hats", NULL,
                                                    SJ_HISTORY_MESSAGE_COMPLETE, &error), >, 0);
  id = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "Hats.", "m",
                                        SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  return id;
}

static void
test_history_round_trip (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = sj_history_store_new (fixture->path, &error);
  SjUsage usage = parse ("{\"prompt_tokens\": 1000, \"completion_tokens\": 234,"
                         " \"completion_tokens_details\": {\"reasoning_tokens\": 34}, \"cost\": 0.0021}", FALSE);
  SjUsage tokens_only = parse ("{\"prompt_tokens\": 66}", FALSE);
  SjUsage read;
  gint64 session, other, first, second, unknown;

  g_assert_no_error (error);
  session = sj_history_store_create_session (store, "Jam", &error);
  other = sj_history_store_create_session (store, "Other", &error);
  first = add_answer (store, session);
  second = add_answer (store, session);
  unknown = add_answer (store, other);

  /* Nothing kept yet: unknown, for the answer and the session. */
  g_assert_true (sj_history_store_get_message_usage (store, first, &read, &error));
  g_assert_false (sj_usage_is_known (&read));
  g_assert_true (sj_history_store_get_session_usage (store, session, &read, &error));
  g_assert_false (sj_usage_is_known (&read));

  /* Kept, then replaced as the turn goes on. */
  g_assert_true (sj_history_store_set_message_usage (store, first, &tokens_only, &error));
  g_assert_true (sj_history_store_set_message_usage (store, first, &usage, &error));
  g_assert_true (sj_history_store_set_message_usage (store, second, &tokens_only, &error));
  g_assert_no_error (error);

  g_assert_true (sj_history_store_get_message_usage (store, first, &read, &error));
  g_assert_cmpint (read.prompt_tokens, ==, 1000);
  g_assert_cmpint (read.completion_tokens, ==, 234);
  g_assert_cmpint (read.reasoning_tokens, ==, 34);
  g_assert_cmpfloat_with_epsilon (read.cost, 0.0021, 1e-12);
  g_assert_true (sj_history_store_get_message_usage (store, second, &read, &error));
  g_assert_cmpint (read.prompt_tokens, ==, 66);
  g_assert_cmpint (read.completion_tokens, ==, -1);
  g_assert_true (isnan (read.cost));

  g_assert_true (sj_history_store_get_session_usage (store, session, &read, &error));
  g_assert_cmpint (read.prompt_tokens, ==, 1066);
  g_assert_cmpint (read.completion_tokens, ==, 234);
  g_assert_cmpfloat_with_epsilon (read.cost, 0.0021, 1e-12);

  /* An all-unknown row keeps its session unknown. */
  g_assert_true (sj_history_store_set_message_usage (store, unknown, &(SjUsage) SJ_USAGE_INIT, &error));
  g_assert_true (sj_history_store_get_session_usage (store, other, &read, &error));
  g_assert_false (sj_usage_is_known (&read));

  /* No such message: an error, nothing written. */
  g_assert_false (sj_history_store_set_message_usage (store, 9999, &usage, &error));
  g_assert_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A regenerated answer was paid for: the session still counts it, and
   * the answer that takes its id starts from nothing. */
  g_assert_true (sj_history_store_delete_messages_from (store, session, second - 1, &error));
  g_assert_true (sj_history_store_get_session_usage (store, session, &read, &error));
  g_assert_cmpint (read.prompt_tokens, ==, 1066);
  second = add_answer (store, session);
  g_assert_true (sj_history_store_get_message_usage (store, second, &read, &error));
  g_assert_false (sj_usage_is_known (&read));

  /* Kept across a reopen; gone with its session. */
  g_clear_object (&store);
  store = sj_history_store_new (fixture->path, &error);
  g_assert_no_error (error);
  g_assert_true (sj_history_store_get_message_usage (store, first, &read, &error));
  g_assert_cmpint (read.prompt_tokens, ==, 1000);
  g_assert_true (sj_history_store_delete_session (store, session, &error));
  g_assert_true (sj_history_store_get_session_usage (store, session, &read, &error));
  g_assert_false (sj_usage_is_known (&read));
  g_assert_no_error (error);
}

static gint64
query_int (sqlite3    *db,
           const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 value;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  value = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return value;
}

/* A history of schema version 4 (as the release before usage wrote it:
 * no message_usage table) with a session: opened, it gains the table,
 * keeps its rows, and its answers read as unknown until one is kept. */
static void
test_migrate_v4 (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjHistoryStore) store = sj_history_store_new (fixture->path, &error);
  SjUsage usage = parse ("{\"prompt_tokens\": 7, \"completion_tokens\": 8, \"cost\": 0.5}", FALSE);
  SjUsage read;
  gint64 session, answer;
  sqlite3 *db;

  g_assert_no_error (error);
  session = sj_history_store_create_session (store, "Old jam", &error);
  answer = add_answer (store, session);
  g_clear_object (&store);

  /* Back to version 4. */
  g_assert_cmpint (sqlite3_open (fixture->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "DROP TABLE message_usage; ALTER TABLE tool_calls DROP COLUMN text_offset; PRAGMA user_version = 4", NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE name = 'message_usage'"), ==, 0);
  sqlite3_close (db);

  store = sj_history_store_new (fixture->path, &error);
  g_assert_no_error (error);

  g_assert_cmpint (sqlite3_open (fixture->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, SJ_HISTORY_STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE name = 'message_usage'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM messages"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);
  sqlite3_close (db);

  g_assert_true (sj_history_store_get_session_usage (store, session, &read, &error));
  g_assert_false (sj_usage_is_known (&read));
  g_assert_true (sj_history_store_set_message_usage (store, answer, &usage, &error));
  g_assert_true (sj_history_store_get_session_usage (store, session, &read, &error));
  g_assert_no_error (error);
  g_assert_cmpint (sj_usage_get_total_tokens (&read), ==, 15);
  g_assert_cmpfloat (read.cost, ==, 0.5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/usage/parse-full", test_parse_full);
  g_test_add_func ("/usage/parse-missing", test_parse_missing);
  g_test_add_func ("/usage/parse-malformed", test_parse_malformed);
  g_test_add_func ("/usage/parse-bounds", test_parse_bounds);
  g_test_add_func ("/usage/sum-and-format", test_sum_and_format);
  g_test_add ("/usage/history-round-trip", Fixture, NULL, fixture_setup, test_history_round_trip, fixture_teardown);
  g_test_add ("/usage/migrate-v4", Fixture, NULL, fixture_setup, test_migrate_v4, fixture_teardown);

  return g_test_run ();
}
