/* test-render-session-cli.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * `strudel-jam --render-session ID --output OUT.wav [--tail N]` (issue 33
 * item 4): the real binary, run under Xvfb (its hidden page needs a
 * display) with no network (the drums are the built-in kit's), over a
 * history written with the real store in the profile's data folder.
 * Usage errors exit 2 with the usage on stderr; no history, a bad or
 * missing ID and an empty session exit 2 with a JSON error; a code that
 * throws exits 1 naming the change and leaves no file; a good session
 * gives a WAV whose parts sound in their cycles and a JSON summary.
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sj-history-store.h"
#include "sj-test-files.h"
#include "sj-test-pcm.h"

#define RATE 48000

static char *home;
static char *out_dir;

typedef struct
{
  int         status;
  char       *out;
  char       *err;
  JsonObject *json;
} Run;

static void
run_clear (Run *run)
{
  g_free (run->out);
  g_free (run->err);
  g_clear_pointer (&run->json, json_object_unref);
}

static void
run_app (Run                *run,
         const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  int wait_status = 0;

  envp = g_environ_setenv (envp, "XDG_DATA_HOME", data, TRUE);
  envp = g_environ_setenv (envp, "XDG_CONFIG_HOME", config, TRUE);
  envp = g_environ_setenv (envp, "XDG_CACHE_HOME", cache, TRUE);
  envp = g_environ_setenv (envp, "STRUDEL_JAM_SOUNDS_URL", "http://127.0.0.1:9/", TRUE);
  g_ptr_array_add (argv, (char *)SJ_STRUDEL_JAM);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *)args[i]);
  g_ptr_array_add (argv, NULL);

  memset (run, 0, sizeof *run);
  g_assert_true (g_spawn_sync (NULL, (char **)argv->pdata, envp, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  if (json_parser_load_from_data (parser, run->out, -1, NULL) && json_parser_get_root (parser) != NULL &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    run->json = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
  g_test_message ("exit %d\nstdout: %s\nstderr: %s", run->status, run->out, run->err);
}

static const char *
error_code (Run *run)
{
  JsonObject *inner;

  g_assert_nonnull (run->json);
  g_assert_cmpstr (json_object_get_string_member (run->json, "status"), ==, "error");
  inner = json_object_get_object_member (run->json, "error");

  return json_object_get_string_member (inner, "code");
}

static SjHistoryStore *
open_store (void)
{
  g_autofree char *path = g_build_filename (home, "data", "strudel-jam", "history.sqlite3", NULL);
  g_autoptr(GError) error = NULL;
  SjHistoryStore *store = sj_history_store_new (path, &error);

  g_assert_no_error (error);

  return store;
}

static gint64
add_session (SjHistoryStore     *store,
             const char * const *codes,
             const double       *cycles)
{
  g_autoptr(GError) error = NULL;
  gint64 session = sj_history_store_create_session (store, "Jam", &error);

  g_assert_no_error (error);
  for (guint i = 0; codes[i] != NULL; i++)
    g_assert_cmpint (sj_history_store_record_snapshot (store, session, codes[i], cycles[i],
                                                       SJ_HISTORY_SOURCE_USER, 0, &error), >, 0);

  return session;
}

static void
test_usage (void)
{
  g_autofree char *out = g_build_filename (out_dir, "usage.wav", NULL);
  Run run;

  {
    const char *args[] = { "--render-session", "1", "--output", out, "--cycles", "4", NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--tail"));
    run_clear (&run);
  }
  {
    const char *args[] = { "--render-session", "1", NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--output"));
    run_clear (&run);
  }
  {
    const char *args[] = { "--render-session", "1", "--output", out, "--stems", out_dir, NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    run_clear (&run);
  }
  {
    const char *args[] = { "--render", "-", "--tail", "2", "--output", out, NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--tail"));
    run_clear (&run);
  }
  {
    const char *args[] = { "--render", "-", "--render-session", "1", "--output", out, NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    run_clear (&run);
  }
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* Before any history exists: nothing is created, the session is not there. */
static void
test_no_history (void)
{
  g_autofree char *out = g_build_filename (out_dir, "none.wav", NULL);
  g_autofree char *db = g_build_filename (home, "data", "strudel-jam", "history.sqlite3", NULL);
  const char *args[] = { "--render-session", "1", "--output", out, NULL };
  Run run;

  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
  run_app (&run, args);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_cmpstr (error_code (&run), ==, "session");
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_clear (&run);
}

static void
test_bad_sessions (void)
{
  g_autoptr(SjHistoryStore) store = open_store ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = g_build_filename (out_dir, "bad.wav", NULL);
  g_autofree char *id = NULL;
  gint64 empty = sj_history_store_create_session (store, "Empty", &error);
  Run run;

  g_assert_no_error (error);
  {
    const char *args[] = { "--render-session", "abc", "--output", out, NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_cmpstr (error_code (&run), ==, "session");
    run_clear (&run);
  }
  {
    const char *args[] = { "--render-session", "99999", "--output", out, NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_cmpstr (error_code (&run), ==, "session");
    run_clear (&run);
  }
  id = g_strdup_printf ("%" G_GINT64_FORMAT, empty);
  {
    const char *args[] = { "--render-session", id, "--output", out, NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_cmpstr (error_code (&run), ==, "no-code");
    g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (run.json, "error"),
                                                             "message"), "no code"));
    run_clear (&run);
  }
  {
    const char *args[] = { "--render-session", id, "--output", out, "--tail", "5000", NULL };
    run_app (&run, args);
    g_assert_cmpint (run.status, ==, 2);
    run_clear (&run);
  }
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* A code that throws: which change, exit 1, no file and nothing beside it. */
static void
test_throwing_change (void)
{
  g_autoptr(SjHistoryStore) store = open_store ();
  const char *codes[] = { "s(\"bd*4\")", "s(\"hh*8\").gain(", "silence", NULL };
  const double cycles[] = { 0, 2, 4 };
  gint64 session = add_session (store, codes, cycles);
  g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, session);
  g_autofree char *out = g_build_filename (out_dir, "throws.wav", NULL);
  const char *args[] = { "--render-session", id, "--output", out, NULL };
  g_autoptr(GDir) dir = NULL;
  const char *message;
  Run run;

  run_app (&run, args);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (error_code (&run), ==, "pattern");
  message = json_object_get_string_member (json_object_get_object_member (run.json, "error"), "message");
  g_assert_nonnull (strstr (message, "change 2 of 3 (cycle 2)"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  dir = g_dir_open (out_dir, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
  run_clear (&run);
}

/* A code that evaluates but throws while the render queries it. */
static void
test_throwing_query (void)
{
  g_autoptr(SjHistoryStore) store = open_store ();
  const char *codes[] = { "s(\"bd*4\")", "s(\"hh*8\").fmap(() => { throw new Error('broken at query') })", NULL };
  const double cycles[] = { 0, 2 };
  gint64 session = add_session (store, codes, cycles);
  g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, session);
  g_autofree char *out = g_build_filename (out_dir, "throws-later.wav", NULL);
  const char *args[] = { "--render-session", id, "--output", out, NULL };
  g_autoptr(GDir) dir = NULL;
  const char *message;
  Run run;

  run_app (&run, args);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (error_code (&run), ==, "pattern");
  message = json_object_get_string_member (json_object_get_object_member (run.json, "error"), "message");
  g_assert_nonnull (strstr (message, "change 2 of 2 (cycle 2)"));
  g_assert_nonnull (strstr (message, "broken at query"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  dir = g_dir_open (out_dir, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
  run_clear (&run);
}

static void
test_render (void)
{
  g_autoptr(SjHistoryStore) store = open_store ();
  const char *codes[] = { "setcps(1)\ns(\"bd*4\")", "s(\"hh*8\")", "silence", NULL };
  const double cycles[] = { 0, 2, 4 };
  gint64 session = add_session (store, codes, cycles);
  g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, session);
  g_autofree char *out = g_build_filename (out_dir, "jam.wav", NULL);
  const char *args[] = { "--render-session", id, "--output", out, "--tail", "2", NULL };
  g_autofree char *bytes = NULL;
  const gint16 *samples;
  gsize size;
  Run run;

  run_app (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (run.json);
  g_assert_cmpstr (json_object_get_string_member (run.json, "status"), ==, "ok");
  /* 6 cycles at the 1 cps the first code sets. */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (run.json, "seconds"), 6, 0.01);
  g_assert_cmpint (json_object_get_int_member (run.json, "cycles"), ==, 6);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (run.json, "changes")), ==, 3);

  g_assert_true (g_file_get_contents (out, &bytes, &size, NULL));
  g_assert_cmpuint (size, ==, 44 + 6 * RATE * 4);
  samples = (const gint16 *)(bytes + 44);
  /* Cycles 0–2 and 2–4 sound; from cycle 4.5 on, silence. */
  g_test_message ("RMS 0-2 s %.1f, 2-4 s %.1f, 4.5-6 s %.1f dBFS",
                  sj_test_pcm_rms_db (samples, 2 * RATE * 2),
                  sj_test_pcm_rms_db (samples + 2 * RATE * 2, 2 * RATE * 2),
                  sj_test_pcm_rms_db (samples + (gsize)(4.5 * RATE) * 2, (gsize)(1.5 * RATE) * 2));
  g_assert_cmpfloat (sj_test_pcm_rms_db (samples, 2 * RATE * 2), >, -40);
  g_assert_cmpfloat (sj_test_pcm_rms_db (samples + 2 * RATE * 2, 2 * RATE * 2), >, -50);
  g_assert_cmpfloat (sj_test_pcm_rms_db (samples + (gsize)(4.5 * RATE) * 2, (gsize)(1.5 * RATE) * 2), <, -70);
  /* The kick's low end is in the first part, not the second (hats only). */
  g_assert_cmpfloat (sj_test_pcm_power_at (samples, 2 * RATE, 60, RATE), >,
                     10 * sj_test_pcm_power_at (samples + 2 * RATE * 2, 2 * RATE, 60, RATE));
  run_clear (&run);
  g_unlink (out);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  home = g_dir_make_tmp ("sj-render-session-XXXXXX", NULL);
  out_dir = g_build_filename (home, "out", NULL);
  g_mkdir (out_dir, 0755);

  g_test_add_func ("/render-session-cli/usage", test_usage);
  g_test_add_func ("/render-session-cli/no-history", test_no_history);
  g_test_add_func ("/render-session-cli/bad-sessions", test_bad_sessions);
  g_test_add_func ("/render-session-cli/throwing-change", test_throwing_change);
  g_test_add_func ("/render-session-cli/throwing-query", test_throwing_query);
  g_test_add_func ("/render-session-cli/render", test_render);

  ret = g_test_run ();
  sj_test_remove_tree (home);
  g_free (home);
  g_free (out_dir);

  return ret;
}
