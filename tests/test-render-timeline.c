/* test-render-timeline.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A session's code timeline for "Render Jam to File" (issue 33 item 4),
 * from snapshots recorded in a real history store (SQLite file in a
 * temporary folder): changes at their cycles, changes with no cycle,
 * duplicates, changes replaced before they sounded, play restarts, the
 * caps, an empty or missing session, and the JSON the page takes.
 */

#include "config.h"

#include <math.h>

#include "sj-render-timeline.h"
#include "sj-test-files.h"

typedef struct
{
  char           *dir;
  SjHistoryStore *store;
  gint64          session;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("sj-render-timeline-XXXXXX", NULL);
  path = g_build_filename (fixture->dir, "history.sqlite3", NULL);
  fixture->store = sj_history_store_new (path, &error);
  g_assert_no_error (error);
  fixture->session = sj_history_store_create_session (fixture->store, "Jam", &error);
  g_assert_no_error (error);
  g_assert_cmpint (fixture->session, >, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->store);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static void
add (Fixture    *fixture,
     const char *code,
     double      cycle)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (sj_history_store_record_snapshot (fixture->store, fixture->session, code, cycle,
                                                     SJ_HISTORY_SOURCE_AGENT, 0, &error), >, 0);
  g_assert_no_error (error);
}

static SjRenderTimeline *
load (Fixture *fixture,
      int      tail)
{
  g_autoptr(GError) error = NULL;
  SjRenderTimeline *timeline = sj_render_timeline_load (fixture->store, fixture->session, tail, &error);

  g_assert_no_error (error);
  g_assert_nonnull (timeline);

  return timeline;
}

static void
assert_change (SjRenderTimeline *timeline,
               guint             index,
               const char       *code,
               double            at,
               double            origin,
               guint             play)
{
  const SjRenderChange *change = sj_render_timeline_get_change (timeline, index);

  g_assert_cmpstr (change->code, ==, code);
  g_assert_cmpfloat_with_epsilon (change->at, at, 1e-9);
  g_assert_cmpfloat_with_epsilon (change->origin, origin, 1e-9);
  g_assert_cmpuint (change->play, ==, play);
}

/* Three changes at known cycles: each from its cycle, the last for the tail. */
static void
test_known_cycles (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;

  add (fixture, "s(\"bd*4\")", 0);
  add (fixture, "s(\"hh*8\")", 4);
  add (fixture, "silence", 8.5);
  timeline = load (fixture, 8);

  g_assert_cmpuint (sj_render_timeline_get_n_changes (timeline), ==, 3);
  g_assert_cmpuint (sj_render_timeline_get_n_plays (timeline), ==, 1);
  assert_change (timeline, 0, "s(\"bd*4\")", 0, 0, 0);
  assert_change (timeline, 1, "s(\"hh*8\")", 4, 4, 0);
  assert_change (timeline, 2, "silence", 8.5, 8.5, 0);
  g_assert_cmpfloat_with_epsilon (sj_render_timeline_get_end (timeline), 16.5, 1e-9);
  g_assert_cmpint (sj_render_timeline_get_cycles (timeline), ==, 17);
}

/* The session began while the music played: rendered from its first change. */
static void
test_starts_late (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;

  add (fixture, "a", 40);
  add (fixture, "b", 44);
  timeline = load (fixture, 2);

  assert_change (timeline, 0, "a", 0, 40, 0);
  assert_change (timeline, 1, "b", 4, 44, 0);
  g_assert_cmpint (sj_render_timeline_get_cycles (timeline), ==, 6);
}

/* No cycle (NULL in the store, or the -1 of the musician's code recorded
 * before an agent's change): the first whole cycle after the previous
 * change; first of all, cycle 0. */
static void
test_unknown_cycles (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;

  add (fixture, "typed", NAN);
  add (fixture, "agent", 8);
  add (fixture, "typed again", -1);
  add (fixture, "agent again", 16);
  timeline = load (fixture, 4);

  g_assert_cmpuint (sj_render_timeline_get_n_changes (timeline), ==, 4);
  assert_change (timeline, 0, "typed", 0, 0, 0);
  assert_change (timeline, 1, "agent", 8, 8, 0);
  assert_change (timeline, 2, "typed again", 9, 9, 0);
  assert_change (timeline, 3, "agent again", 16, 16, 0);
  g_assert_cmpint (sj_render_timeline_get_cycles (timeline), ==, 20);
}

/* Replaced before it sounded: several changes at the same cycle (applied
 * while stopped all land at 0), a code with no cycle the next change
 * lands on; repeated code changes nothing. */
static void
test_replaced_and_duplicates (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;

  add (fixture, "first", 0);
  add (fixture, "second", 0);
  add (fixture, "second", 0);
  add (fixture, "third", 4);
  add (fixture, "third", NAN);       /* the same code again */
  add (fixture, "typed", NAN);       /* placed at 5 */
  add (fixture, "agent", 5);         /* lands on it */
  add (fixture, "agent", NAN);       /* the same code again */
  timeline = load (fixture, 8);

  g_assert_cmpuint (sj_render_timeline_get_n_changes (timeline), ==, 3);
  assert_change (timeline, 0, "second", 0, 0, 0);
  assert_change (timeline, 1, "third", 4, 4, 0);
  assert_change (timeline, 2, "agent", 5, 5, 0);
}

/* Stop and play again: cycles go back; each play is a segment after the
 * previous one, which ends `tail` cycles after its last change; the new
 * play starts with the code the old one ended with. */
static void
test_restart (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;

  add (fixture, "a", 0);
  add (fixture, "b", 12);
  add (fixture, "c", 4);    /* restarted: b from 0, c at 4 */
  add (fixture, "d", 0);    /* restarted again, changed while stopped */
  add (fixture, "e", 2);
  timeline = load (fixture, 3);

  g_assert_cmpuint (sj_render_timeline_get_n_plays (timeline), ==, 3);
  g_assert_cmpuint (sj_render_timeline_get_n_changes (timeline), ==, 6);
  assert_change (timeline, 0, "a", 0, 0, 0);
  assert_change (timeline, 1, "b", 12, 12, 0);
  /* play 0 ends at 12 + 3 */
  assert_change (timeline, 2, "b", 15, 0, 1);
  assert_change (timeline, 3, "c", 19, 4, 1);
  /* play 1 ends at 4 + 3 */
  assert_change (timeline, 4, "d", 22, 0, 2);
  assert_change (timeline, 5, "e", 24, 2, 2);
  g_assert_cmpint (sj_render_timeline_get_cycles (timeline), ==, 27);
}

static void
test_empty_and_missing (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjRenderTimeline) timeline = NULL;

  timeline = sj_render_timeline_load (fixture->store, fixture->session, 8, &error);
  g_assert_null (timeline);
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_NO_CODE);
  g_assert_cmpstr (sj_render_error_code (error), ==, "no-code");
  g_clear_error (&error);

  timeline = sj_render_timeline_load (fixture->store, fixture->session + 1000, 8, &error);
  g_assert_null (timeline);
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_SESSION);
  g_assert_cmpstr (sj_render_error_code (error), ==, "session");
  g_clear_error (&error);

  add (fixture, "a", 0);
  timeline = sj_render_timeline_load (fixture->store, fixture->session, -1, &error);
  g_assert_null (timeline);
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES);
}

static void
test_caps (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjRenderTimeline) timeline = NULL;
  g_autoptr(GPtrArray) snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_history_snapshot_free);

  /* One change too many (built in memory: the rule is the count). */
  for (guint i = 0; i <= SJ_RENDER_TIMELINE_MAX_CHANGES; i++)
    {
      SjHistorySnapshot *snapshot = g_new0 (SjHistorySnapshot, 1);

      snapshot->code = g_strdup_printf ("s(\"bd\").gain(%u)", i);
      snapshot->cycle = i * 0.09;
      g_ptr_array_add (snapshots, snapshot);
    }
  timeline = sj_render_timeline_build (snapshots, 8, &error);
  g_assert_null (timeline);
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_TOO_MANY_CHANGES);
  g_assert_cmpstr (sj_render_error_code (error), ==, "too-many-changes");
  g_clear_error (&error);

  /* Exactly the cap is fine. */
  g_ptr_array_remove_index (snapshots, snapshots->len - 1);
  timeline = sj_render_timeline_build (snapshots, 8, &error);
  g_assert_no_error (error);
  g_assert_nonnull (timeline);
  g_clear_pointer (&timeline, sj_render_timeline_free);

  /* Longer than a render may be, from the store. */
  add (fixture, "a", 0);
  add (fixture, "b", SJ_RENDER_MAX_CYCLES - 4);
  timeline = sj_render_timeline_load (fixture->store, fixture->session, 8, &error);
  g_assert_null (timeline);
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_TOO_LONG);
  g_clear_error (&error);
  timeline = sj_render_timeline_load (fixture->store, fixture->session, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sj_render_timeline_get_cycles (timeline), ==, SJ_RENDER_MAX_CYCLES);
}

/* What the page is given, and render options that pass their check. */
static void
test_json_and_options (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;
  g_autoptr(SjRenderOptions) options = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *output = g_build_filename (fixture->dir, "jam.wav", NULL);
  JsonObject *root;
  JsonArray *changes;
  JsonObject *second;

  add (fixture, "s(\"bd*4\")", 0);
  add (fixture, "s(\"hh*8\")\n// \"quoted\" \\ text", 2.25);
  timeline = load (fixture, 8);
  json = sj_render_timeline_to_json (timeline);
  node = json_from_string (json, &error);
  g_assert_no_error (error);
  root = json_node_get_object (node);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (root, "end"), 10.25, 1e-9);
  changes = json_object_get_array_member (root, "changes");
  g_assert_cmpuint (json_array_get_length (changes), ==, 2);
  second = json_array_get_object_element (changes, 1);
  g_assert_cmpstr (json_object_get_string_member (second, "code"), ==, "s(\"hh*8\")\n// \"quoted\" \\ text");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (second, "at"), 2.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (second, "origin"), 2.25, 1e-9);
  g_assert_cmpint (json_object_get_int_member (second, "play"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (second, "snapshot"), >, 0);

  options = sj_render_timeline_to_options (timeline);
  g_assert_cmpint (options->cycles, ==, 11);
  g_assert_cmpint (options->tail, ==, 8);
  g_assert_cmpstr (options->timeline, ==, json);
  options->output = g_strdup (output);
  g_assert_true (sj_render_options_check (options, &error));
  g_assert_no_error (error);

  /* A jam is one file: no stems. */
  options->stems_dir = g_strdup (fixture->dir);
  g_assert_false (sj_render_options_check (options, &error));
  g_assert_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/render-timeline/known-cycles", test_known_cycles);
  ADD ("/render-timeline/starts-late", test_starts_late);
  ADD ("/render-timeline/unknown-cycles", test_unknown_cycles);
  ADD ("/render-timeline/replaced-and-duplicates", test_replaced_and_duplicates);
  ADD ("/render-timeline/restart", test_restart);
  ADD ("/render-timeline/empty-and-missing", test_empty_and_missing);
  ADD ("/render-timeline/caps", test_caps);
  ADD ("/render-timeline/json-and-options", test_json_and_options);
#undef ADD

  return g_test_run ();
}
