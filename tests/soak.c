/* soak.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The soak test: the real window plays a four-voice pattern for a long time
 * (10 minutes by default) while, every 30 seconds, the code changes the way
 * the agent changes it (a whole new text, evaluated while playing). It
 * samples the memory of the app and its WebKit processes and the page's
 * scheduler counters, and fails when memory grows by more than 5 % after
 * the first minute, when any event fires late, or when a change fails.
 * Changes land as the agent's do: a swap at the next cycle boundary. The
 * drums come from the sound library (cache, download or built-in kit).
 *
 * Not part of the default test suite: run it with bench/soak, which also
 * records the sound and counts GStreamer's warnings.
 */

#include "config.h"

#include <stdlib.h>

#include "sj-test-app.h"
#include "sj-window-private.h"

/* A sustained pad keeps the signal continuous, so that bench/soak can tell
 * a dropout from a rest. Each variant changes what an agent would change:
 * the filter, the chords, a voice added or taken away. */
static const char *variants[] = {
  "setcpm(120/4)\n"
  "$: note(\"<c2 c2 eb2 g1>*4\").s(\"sawtooth\").lpf(600).lpq(4).decay(.2).sustain(.3).gain(.4)\n"
  "$: n(\"<0 2 3 4>\").chord(\"<Cm7 Ab^7 Fm7 G7>\").voicing().s(\"triangle\").struct(\"~ x ~ x\").room(.4).gain(.25)\n"
  "$: n(\"0 2 4 <7 6> 4 2\").scale(\"C4:minor\").s(\"square\").lpf(1800).delay(.3).gain(.15)\n"
  "$: note(\"<c3 ab2 f2 g2>\").s(\"sawtooth\").attack(.3).release(1.5).lpf(900).room(.6).gain(.12)\n"
  "$: s(\"bd*2, ~ sd, hh*8\").gain(.5)\n",

  "setcpm(120/4)\n"
  "$: note(\"<c2 c2 eb2 g1>*4\").s(\"sawtooth\").lpf(sine.range(400, 1200).slow(4)).lpq(6).decay(.2).sustain(.3).gain(.4)\n"
  "$: n(\"<0 2 3 4>\").chord(\"<Cm7 Ab^7 Fm7 G7>\").voicing().s(\"triangle\").struct(\"~ x ~ x\").room(.4).gain(.25)\n"
  "$: n(\"0 2 4 <7 6> 4 2\").scale(\"C4:minor\").s(\"square\").lpf(1800).delay(.3).gain(.15)\n"
  "$: note(\"<c3 ab2 f2 g2>\").s(\"sawtooth\").attack(.3).release(1.5).lpf(900).room(.6).gain(.12)\n"
  "$: s(\"bd*2, ~ sd, hh*8\").gain(.5)\n",

  "setcpm(120/4)\n"
  "$: note(\"<c2 c2 eb2 g1>*4\").s(\"sawtooth\").lpf(sine.range(400, 1200).slow(4)).lpq(6).decay(.2).sustain(.3).gain(.4)\n"
  "$: n(\"<0 2 3 4>\").chord(\"<Cm9 Ab^7 Fm9 G7>\").voicing().s(\"triangle\").struct(\"~ x ~ [x x]\").room(.4).gain(.25)\n"
  "$: n(\"0 2 4 <7 6> 4 2\").scale(\"C4:minor\").s(\"square\").lpf(1800).delay(.3).gain(.15)\n"
  "$: note(\"<c3 ab2 f2 g2>\").s(\"sawtooth\").attack(.3).release(1.5).lpf(900).room(.6).gain(.12)\n"
  "$: note(\"c1*4\").s(\"sine\").penv(24).pdecay(.08).decay(.3).sustain(0).gain(.8)\n"
  "$: s(\"~ cp, hh*8, [~ oh]*2\").gain(.45)\n",

  "setcpm(120/4)\n"
  "$: note(\"<c2 c2 eb2 g1>*4\").s(\"sawtooth\").lpf(700).lpq(6).decay(.2).sustain(.3).gain(.4)\n"
  "$: n(\"<0 2 3 4>\").chord(\"<Cm9 Ab^7 Fm9 G7>\").voicing().s(\"triangle\").struct(\"~ x ~ [x x]\").room(.4).gain(.25)\n"
  "$: n(\"0 2 4 <7 6> 4 [2 3]\").scale(\"C4:minor\").s(\"square\").lpf(2400).delay(.4).gain(.15)\n"
  "$: note(\"<c3 ab2 f2 g2>\").s(\"sawtooth\").attack(.3).release(1.5).lpf(900).room(.6).gain(.12)\n"
  "$: s(\"bd*2, ~ sd, hh*8\").gain(.5)\n",
};

typedef struct
{
  double  seconds;
  double  change_seconds;
  double  sample_seconds;

  SjRepl *repl;
  gint64  started;
  guint   changes;
  guint   failed_changes;
  GArray *samples;   /* (elapsed seconds, PSS MiB) pairs */
  gboolean done;
} Soak;

typedef struct
{
  double t;
  double pss;
} Sample;

/* Mean PSS of the samples taken in [from, to) seconds. Memory moves with
 * garbage collection by tens of MiB, so windows are compared, not points. */
static double
mean_pss (Soak   *soak,
          double  from,
          double  to)
{
  double sum = 0;
  guint n = 0;

  for (guint i = 0; i < soak->samples->len; i++)
    {
      Sample *sample = &g_array_index (soak->samples, Sample, i);

      if (sample->t >= from && sample->t < to)
        {
          sum += sample->pss;
          n++;
        }
    }

  return n > 0 ? sum / n : 0;
}

/* Summed PSS (KiB) of @root and all its descendants. */
static double
tree_pss_kib (int root)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  g_autoptr(GHashTable) parents = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) tree = g_array_new (FALSE, FALSE, sizeof (int));
  const char *name;
  double total = 0;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "stat", NULL);
      g_autofree char *stat = NULL;
      const char *after_comm;
      int pid = atoi (name), ppid = 0;

      if (pid <= 0 || !g_file_get_contents (path, &stat, NULL, NULL))
        continue;
      /* The command name may hold spaces; fields resume after its ')'. */
      if ((after_comm = strrchr (stat, ')')) != NULL && sscanf (after_comm + 2, "%*c %d", &ppid) == 1)
        g_hash_table_insert (parents, GINT_TO_POINTER (pid), GINT_TO_POINTER (ppid));
    }

  g_array_append_val (tree, root);
  for (guint i = 0; i < tree->len; i++)
    {
      GHashTableIter iter;
      gpointer pid, ppid;

      g_hash_table_iter_init (&iter, parents);
      while (g_hash_table_iter_next (&iter, &pid, &ppid))
        {
          if (GPOINTER_TO_INT (ppid) == g_array_index (tree, int, i))
            {
              int child = GPOINTER_TO_INT (pid);
              g_array_append_val (tree, child);
            }
        }
    }

  for (guint i = 0; i < tree->len; i++)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/smaps_rollup", g_array_index (tree, int, i));
      g_autofree char *rollup = NULL;
      const char *pss;

      if (g_file_get_contents (path, &rollup, NULL, NULL) && (pss = strstr (rollup, "\nPss:")) != NULL)
        total += g_ascii_strtod (pss + strlen ("\nPss:"), NULL);
    }

  return total;
}

static double
elapsed (Soak *soak)
{
  return (g_get_monotonic_time () - soak->started) / (double)G_USEC_PER_SEC;
}

static void
change_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Soak *soak = user_data;
  g_autoptr(SjSwapResult) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = sj_repl_schedule_swap_finish (SJ_REPL (object), result, &error);
  if (outcome == NULL || outcome->status != SJ_SWAP_SCHEDULED)
    {
      soak->failed_changes++;
      g_printerr ("soak: change %u failed: %s\n", soak->changes, error ? error->message : "evaluation error");
    }
}

/* SJ_SOAK_CODE=FILE plays that code instead, every change the same:
 * for finding what grows (a pattern without sound, say). */
static const char *
variant (guint n)
{
  static char *override;

  if (override == NULL && g_getenv ("SJ_SOAK_CODE") != NULL &&
      !g_file_get_contents (g_getenv ("SJ_SOAK_CODE"), &override, NULL, NULL))
    g_error ("Cannot read SJ_SOAK_CODE");

  return override != NULL ? override : variants[n % G_N_ELEMENTS (variants)];
}

static gboolean
change_timeout_cb (gpointer user_data)
{
  Soak *soak = user_data;

  soak->changes++;
  sj_repl_schedule_swap_async (soak->repl, variant (soak->changes), "next_cycle", 1, 4, FALSE, FALSE, NULL,
                               change_cb, soak);

  return G_SOURCE_CONTINUE;
}

static gboolean
sample_timeout_cb (gpointer user_data)
{
  Soak *soak = user_data;
  const SjReplState *state = sj_repl_get_state (soak->repl);
  double t = elapsed (soak);

  Sample sample = { t, tree_pss_kib (getpid ()) / 1024.0 };

  g_array_append_val (soak->samples, sample);
  g_print ("soak t=%.0fs pss=%.1fMiB cycle=%.2f triggered=%" G_GINT64_FORMAT " late=%" G_GINT64_FORMAT
           " max_late_ms=%.1f changes=%u\n",
           t, sample.pss, state->cycle, state->triggered, state->late, state->max_late_ms, soak->changes);

  if (t >= soak->seconds)
    soak->done = TRUE;

  return G_SOURCE_CONTINUE;
}

static gboolean
soak_done (gpointer data)
{
  return ((Soak *)data)->done;
}

/* --print-variants: the codes as a JSON array of strings, the first the one
 * that starts, then one per change in turn. bench/soak --chromium plays the
 * same in Chromium beside the app. */
static void
print_variants (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  guint n = g_getenv ("SJ_SOAK_CODE") != NULL ? 1 : G_N_ELEMENTS (variants);

  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_string_value (builder, variant (i));
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  text = json_to_string (root, FALSE);
  g_print ("%s\n", text);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(JsonObject) outcome = NULL;
  Soak soak = { .seconds = 600, .change_seconds = 30, .sample_seconds = 5 };
  double first, last;
  Progress progress = { NULL, 1.0, 0 };
  const SjReplState *state;
  double growth;
  guint change_id, sample_id;
  gboolean ok;

  if (argc == 2 && g_str_equal (argv[1], "--print-variants"))
    {
      print_variants ();
      return EXIT_SUCCESS;
    }

  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (g_str_equal (argv[i], "--minutes"))
        soak.seconds = 60 * g_ascii_strtod (argv[i + 1], NULL);
      else if (g_str_equal (argv[i], "--change-seconds"))
        soak.change_seconds = g_ascii_strtod (argv[i + 1], NULL);
    }

  soak.samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  home = sj_test_app_init ();
  sj_test_app_start ();

  soak.repl = _sj_window_get_repl (sj_test_open_window ());
  outcome = sj_test_evaluate (soak.repl, variant (0));
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  progress.repl = soak.repl;
  sj_test_spin_until (sj_test_progressed, &progress, "the music to start");

  soak.started = g_get_monotonic_time ();
  change_id = g_timeout_add ((guint)(soak.change_seconds * 1000), change_timeout_cb, &soak);
  sample_id = g_timeout_add ((guint)(soak.sample_seconds * 1000), sample_timeout_cb, &soak);

  /* The deadline guard of sj_test_spin_until() is shorter than a soak, so
   * the loop runs here until the last sample. */
  while (!soak_done (&soak))
    g_main_context_iteration (NULL, TRUE);

  g_source_remove (change_id);
  g_source_remove (sample_id);

  /* Growth after the first minute: the second minute's mean against the
   * last minute's. */
  state = sj_repl_get_state (soak.repl);
  first = mean_pss (&soak, 60, 120);
  last = mean_pss (&soak, soak.seconds - 60, soak.seconds + 1);
  growth = first > 0 ? (last - first) / first : 0;
  ok = state->playing && state->late == 0 && soak.failed_changes == 0 && growth <= 0.05;

  g_print ("soak: %.1f min, %u changes (%u failed), %" G_GINT64_FORMAT " events, %" G_GINT64_FORMAT
           " late; memory %.1f MiB in the second minute, %.1f MiB in the last (%+.1f %%): %s\n",
           elapsed (&soak) / 60, soak.changes, soak.failed_changes, state->triggered, state->late,
           first, last, growth * 100, ok ? "PASS" : "FAIL");
  g_array_unref (soak.samples);

  sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
