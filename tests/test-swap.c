/* test-swap.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Quantized swaps in the real page under Xvfb: while a pattern plays, new
 * code takes over exactly at a cycle boundary. Every event the scheduler
 * triggers is recorded by the page (sjBridge.recordEvents) and compared with
 * what the old pattern before the boundary and the new one from there on
 * must produce: none lost, none twice, none from a pattern that should not
 * play, the first new onset exactly at the boundary, and the audio times
 * following one continuous tempo map. Also: rejected code, superseded and
 * canceled swaps, the user's own evaluation, swapping while stopped, and
 * tempo changes that land at the boundary.
 *
 * With SJ_SWAP_BENCH=N in the environment, /swap/bench runs N swaps at each
 * of several tempos and prints the exactness figures (bench/swap does that).
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <webkit/webkit.h>

#include "sj-test-app.h"
#include "sj-window-private.h"

/* Two patterns that cannot be mistaken for each other: different notes,
 * sounds and densities. Quiet and short, as nobody listens under Xvfb. */
typedef struct
{
  const char *note;
  guint       per_cycle;
  const char *code;
} Voice;

static const Voice voice_a = { "c3", 4, "note(\"c3*4\").s(\"sine\").decay(.05).sustain(0).gain(.05)" };
static const Voice voice_b = { "e3", 8, "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)" };
/* A pattern that must never be heard in the tests that use it. */
#define CODE_NEVER "note(\"g3*2\").s(\"square\").decay(.05).sustain(0).gain(.05)"
#define NOTE_NEVER "g3"

/* Exact times: Strudel's onsets and query bounds are fractions. */
typedef struct
{
  gint64 num;
  gint64 den;
} Rational;

static Rational
parse_fraction (const char *text)
{
  Rational r = { 0, 1 };
  char *end = NULL;

  g_assert_nonnull (text);
  r.num = g_ascii_strtoll (text, &end, 10);
  if (*end == '/')
    r.den = g_ascii_strtoll (end + 1, &end, 10);
  g_assert_cmpint (*end, ==, '\0');
  g_assert_cmpint (r.den, >, 0);
  /* Products below must stay far from overflowing. */
  g_assert_cmpint (ABS (r.num), <, (gint64)1 << 44);
  g_assert_cmpint (r.den, <, (gint64)1 << 44);

  return r;
}

static int
rational_cmp (Rational a,
              Rational b)
{
  /* Numerators and denominators stay below 2^44 (checked when parsed), so
   * the cross products need more than 64 bits. */
#ifdef __SIZEOF_INT128__
  __int128 l = (__int128)a.num * b.den;
  __int128 r = (__int128)b.num * a.den;
#else
  long double l = (long double)a.num * b.den;
  long double r = (long double)b.num * a.den;
#endif

  return l < r ? -1 : l > r ? 1 : 0;
}

static double
rational_value (Rational r)
{
  return (double)r.num / r.den;
}

/* ceil (r * q) */
static gint64
ceil_times (Rational r,
            gint64   q)
{
  gint64 n = r.num * q;

  return n >= 0 ? (n + r.den - 1) / r.den : -((-n) / r.den);
}

/* Swap notifications ------------------------------------------------------ */

typedef struct
{
  const char *state;   /* interned */
  double      cycle;
} SwapChange;

static void
swap_changed_cb (SjRepl     *repl,
                 const char *state,
                 double      cycle,
                 gpointer    user_data)
{
  GArray *changes = user_data;
  SwapChange change = { g_intern_string (state), cycle };

  g_array_append_val (changes, change);
}

typedef struct
{
  GArray     *changes;
  const char *state;
  double      cycle;
} ChangeWait;

static gboolean
has_change (gpointer data)
{
  ChangeWait *wait = data;

  for (guint i = 0; i < wait->changes->len; i++)
    {
      SwapChange *change = &g_array_index (wait->changes, SwapChange, i);

      if (change->state == g_intern_string (wait->state) && change->cycle == wait->cycle)
        return TRUE;
    }

  return FALSE;
}

static guint
count_changes (GArray     *changes,
               const char *state)
{
  guint n = 0;

  for (guint i = 0; i < changes->len; i++)
    n += g_array_index (changes, SwapChange, i).state == g_intern_string (state);

  return n;
}

static void
wait_for_change (GArray     *changes,
                 const char *state,
                 double      cycle)
{
  ChangeWait wait = { changes, state, cycle };
  g_autofree char *what = g_strdup_printf ("the swap at cycle %g to be %s", cycle, state);

  sj_test_spin_until (has_change, &wait, what);
}

/* The page ---------------------------------------------------------------- */

static void
wait_for_cycle (SjRepl *repl,
                double  cycle)
{
  Progress progress = { repl, cycle, sj_repl_get_state (repl)->triggered };
  g_autofree char *what = g_strdup_printf ("the scheduler to reach cycle %g", cycle);

  sj_test_spin_until (sj_test_progressed, &progress, what);
}

static void
evaluate_and_wait (SjRepl      *repl,
                   double       cps,
                   const Voice *voice)
{
  g_autofree char *code = g_strdup_printf ("setcps(%g)\n%s", cps, voice->code);
  g_autoptr(JsonObject) outcome = sj_test_evaluate (repl, code);

  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  wait_for_cycle (repl, json_object_get_double_member (json_object_get_object_member (outcome, "state"), "cycle") + 0.25);
  g_assert_cmpfloat (sj_repl_get_state (repl)->cps, ==, cps);
}

/* Plays @voice at @cps. Started from cycle 0 at a constant tempo, the
 * scheduler's spans (a tick of 50 ms each) would end exactly on whole
 * cycles at these tempos, and no boundary would ever fall inside a span:
 * another tempo first, changed mid-cycle, moves the span borders off the
 * cycle grid, as a user's setcps() does. */
static void
start_playing (SjRepl      *repl,
               double       cps,
               const Voice *voice)
{
  evaluate_and_wait (repl, cps * 0.77, voice);
  evaluate_and_wait (repl, cps, voice);
}

static void
stop_playing (SjRepl *repl)
{
  g_action_group_activate_action (G_ACTION_GROUP (sj_test_current_window ()), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static void
record_events (SjRepl   *repl,
               gboolean  on)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, on ? "return window.sjBridge.recordEvents(true);"
                                                       : "return window.sjBridge.recordEvents(false);");

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
}

static JsonObject *
take_recorded (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "return window.sjBridge.takeRecordedEvents();");

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_dup_object (node);
}

static gint64
pattern_id (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "return window.sjBridge.getPatternId();");

  return json_node_get_int (node);
}

static gboolean
js_is_true (SjRepl     *repl,
            const char *body)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, body);

  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_boolean (node);
}

/* Whether the page shows a swap pending until @cycle (any swap: -1). */
static gboolean
shows_pending_mark (SjRepl *repl,
                    double  cycle)
{
  g_autofree char *body = g_strdup_printf ("const banner = document.getElementById('sj-swap-banner');"
                                           "const marked = document.getElementById('editor').classList.contains('sj-swap-pending');"
                                           "if (!banner || banner.hidden || !marked) return false;"
                                           "return %g < 0 || (banner.dataset.cycle === '%g' && banner.textContent.includes('%g'));",
                                           cycle, cycle, cycle);

  return js_is_true (repl, body);
}

static double
schedule (SjRepl      *repl,
          const char  *code,
          const char  *quantize,
          guint        bars,
          guint        bar_cycles,
          double      *in_seconds,
          double      *cps,
          double      *cps_at_apply)
{
  g_autoptr(JsonObject) answer = sj_test_schedule_swap (repl, code, quantize, bars, bar_cycles, FALSE);
  double at;

  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "scheduled");
  at = json_object_get_double_member (answer, "applyAtCycle");
  g_assert_cmpfloat (at, ==, floor (at));
  g_assert_cmpfloat (json_object_get_double_member (answer, "inSeconds"), >=, 0);
  if (in_seconds != NULL)
    *in_seconds = json_object_get_double_member (answer, "inSeconds");
  if (cps != NULL)
    *cps = json_object_get_double_member (answer, "cps");
  if (cps_at_apply != NULL)
    *cps_at_apply = json_object_get_double_member (answer, "cpsAtApply");

  return at;
}

/* Checking a recording ------------------------------------------------------ */

/* From cycle `at` on (the first segment: from the start of the recording),
 * `voice` plays at `cps`. */
typedef struct
{
  double       at;
  const Voice *voice;
  double       cps;
} Segment;

typedef struct
{
  Rational    onset;
  const char *note;   /* owned by the recording's JSON */
  double      t;
  double      cps;
  const char *source;
} Event;

typedef struct
{
  guint  swaps;
  guint  events;
  guint  expected;
  guint  lost;
  guint  duplicated;
  guint  unexpected;
  guint  gaps;
  guint  cut;               /* swaps whose boundary fell inside a span */
  gint64 late;              /* events the page scheduled after their time */
  double max_cycle_error;   /* first new onset - boundary, in cycles */
  double max_boundary_ms;   /* audio time of the first new onset vs the tempo map */
  double max_deviation_ms;  /* any event vs the tempo map */
  double sum_lead_s;        /* time from scheduling to the boundary */
} Figures;

static int
event_cmp (gconstpointer a,
           gconstpointer b)
{
  const Event *x = a;
  const Event *y = b;
  int c = rational_cmp (x->onset, y->onset);

  return c != 0 ? c : strcmp (x->note, y->note);
}

static gboolean
in_gap (JsonArray *gaps,
        Rational   onset)
{
  for (guint i = 0; i < json_array_get_length (gaps); i++)
    {
      JsonArray *gap = json_array_get_array_element (gaps, i);

      if (rational_cmp (onset, parse_fraction (json_array_get_string_element (gap, 0))) >= 0 &&
          rational_cmp (onset, parse_fraction (json_array_get_string_element (gap, 1))) < 0)
        return TRUE;
    }

  return FALSE;
}

static guint
segment_of (GArray *segments,
            double  onset)
{
  guint s = 0;

  while (s + 1 < segments->len && onset >= g_array_index (segments, Segment, s + 1).at)
    s++;

  return s;
}

/* Seconds between cycles a <= b along the segments' tempos. */
static double
seconds_between (GArray *segments,
                 double  a,
                 double  b)
{
  double seconds = 0;

  for (guint s = segment_of (segments, a); s < segments->len && a < b; s++)
    {
      Segment *segment = &g_array_index (segments, Segment, s);
      double end = s + 1 < segments->len ? MIN (b, g_array_index (segments, Segment, s + 1).at) : b;

      seconds += (end - a) / segment->cps;
      a = end;
    }

  return seconds;
}

static void
check_recording (JsonObject *recording,
                 GArray     *segments,
                 Figures    *figures)
{
  JsonArray *recorded = json_object_get_array_member (recording, "events");
  JsonArray *gaps = json_object_get_array_member (recording, "gaps");
  JsonArray *swaps;
  Rational begin = parse_fraction (json_object_get_string_member (recording, "beginFraction"));
  Rational end = parse_fraction (json_object_get_string_member (recording, "endFraction"));
  g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (Event));
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (Event));
  Event *first;
  guint i, j;

  g_assert_false (json_object_get_boolean_member (recording, "overflow"));
  swaps = json_object_get_array_member (recording, "swaps");
  for (i = 0; i < json_array_get_length (swaps); i++)
    {
      JsonObject *swap = json_array_get_object_element (swaps, i);

      /* The span after B started exactly at B (no tick was skipped). */
      g_assert_true (json_object_get_boolean_member (swap, "exact"));
      figures->cut += json_object_get_boolean_member (swap, "cut");
    }
  /* Spans the scheduler skipped (Strudel drops a tick that comes too late,
   * after a stall of the page) lose their events whatever we do; they are
   * counted apart, and none may touch a boundary: a gap there would be the
   * swap's doing. */
  figures->gaps += json_array_get_length (gaps);
  for (i = 0; i < json_array_get_length (gaps); i++)
    {
      JsonArray *gap = json_array_get_array_element (gaps, i);
      Rational from = parse_fraction (json_array_get_string_element (gap, 0));
      Rational to = parse_fraction (json_array_get_string_element (gap, 1));

      g_test_message ("the scheduler skipped the span %s to %s", json_array_get_string_element (gap, 0),
                      json_array_get_string_element (gap, 1));
      for (guint s = 1; s < segments->len; s++)
        {
          Rational at = { (gint64)g_array_index (segments, Segment, s).at, 1 };

          g_assert_false (rational_cmp (from, at) <= 0 && rational_cmp (at, to) <= 0);
        }
    }

  /* What should have fired: each segment's pattern over its part of the
   * span the scheduler queried while recording. */
  for (guint s = 0; s < segments->len; s++)
    {
      Segment *segment = &g_array_index (segments, Segment, s);
      Rational lo = begin, hi = end;
      gint64 q = segment->voice->per_cycle;

      if (s > 0 && rational_cmp ((Rational) { (gint64)segment->at, 1 }, lo) > 0)
        lo = (Rational) { (gint64)segment->at, 1 };
      if (s + 1 < segments->len)
        {
          Rational next = { (gint64)g_array_index (segments, Segment, s + 1).at, 1 };

          if (rational_cmp (next, hi) < 0)
            hi = next;
        }

      for (gint64 k = ceil_times (lo, q); k < ceil_times (hi, q); k++)
        {
          Event event = { { k, q }, segment->voice->note, 0, segment->cps, NULL };

          if (!in_gap (gaps, event.onset))
            g_array_append_val (expected, event);
        }
    }
  g_array_sort (expected, event_cmp);

  for (i = 0; i < json_array_get_length (recorded); i++)
    {
      JsonObject *object = json_array_get_object_element (recorded, i);
      JsonObject *value = json_object_get_object_member (object, "value");
      Event event = {
        parse_fraction (json_object_get_string_member (object, "onsetFraction")),
        json_object_get_string_member_with_default (value, "note", "?"),
        json_object_get_double_member (object, "t"),
        json_object_get_double_member (object, "cps"),
        json_object_get_string_member (object, "source"),
      };

      g_assert_cmpfloat (fabs (rational_value (event.onset) - json_object_get_double_member (object, "onset")), <, 1e-9);
      g_array_append_val (events, event);
    }
  g_array_sort (events, event_cmp);

  figures->events += events->len;
  figures->expected += expected->len;

  /* Both sorted: a merge tells lost, doubled and foreign events apart. */
  for (i = 0, j = 0; i < expected->len || j < events->len;)
    {
      int c = i == expected->len ? 1 : j == events->len ? -1
              : event_cmp (&g_array_index (expected, Event, i), &g_array_index (events, Event, j));

      if (c == 0)
        {
          i++, j++;
        }
      else if (c < 0)
        {
          Event *lost = &g_array_index (expected, Event, i++);

          g_test_message ("lost: %s at %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, lost->note, lost->onset.num, lost->onset.den);
          figures->lost++;
        }
      else
        {
          Event *extra = &g_array_index (events, Event, j++);

          if (j >= 2 && event_cmp (extra, &g_array_index (events, Event, j - 2)) == 0)
            figures->duplicated++;
          else
            figures->unexpected++;
          g_test_message ("extra: %s at %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " (%s)",
                          extra->note, extra->onset.num, extra->onset.den, extra->source);
        }
    }

  if (events->len == 0)
    return;

  /* At each boundary: the first onset at or after it is the new pattern's,
   * exactly on it, and tagged as coming from the swap. */
  for (guint s = 1; s < segments->len; s++)
    {
      Segment *segment = &g_array_index (segments, Segment, s);
      Rational at = { (gint64)segment->at, 1 };

      for (i = 0; i < events->len; i++)
        {
          Event *event = &g_array_index (events, Event, i);

          if (rational_cmp (event->onset, at) >= 0)
            {
              figures->max_cycle_error = MAX (figures->max_cycle_error, rational_value (event->onset) - segment->at);
              g_assert_cmpstr (event->note, ==, segment->voice->note);
              g_assert_cmpstr (event->source, ==, "new");
              break;
            }
        }
    }

  /* Audio times: one continuous map from cycles to seconds, each segment at
   * its tempo, anchored at the first event. */
  first = &g_array_index (events, Event, 0);
  for (i = 0; i < events->len; i++)
    {
      Event *event = &g_array_index (events, Event, i);
      double onset = rational_value (event->onset);
      Segment *segment = &g_array_index (segments, Segment, segment_of (segments, onset));
      double t = first->t + seconds_between (segments, rational_value (first->onset), onset);
      double deviation_ms = fabs (event->t - t) * 1000;

      g_assert_cmpfloat (event->cps, ==, segment->cps);
      figures->max_deviation_ms = MAX (figures->max_deviation_ms, deviation_ms);
      if (onset == segment->at)
        figures->max_boundary_ms = MAX (figures->max_boundary_ms, deviation_ms);
    }
}

static void
assert_exact (const Figures *figures)
{
  g_test_message ("%u swaps (%u inside a span), %u events (%u expected): %u lost, %u duplicated, %u unexpected, "
                  "%u skipped spans, %" G_GINT64_FORMAT " late; boundary error %g cycles, %.6f ms; "
                  "max timing deviation %.6f ms",
                  figures->swaps, figures->cut, figures->events, figures->expected, figures->lost, figures->duplicated,
                  figures->unexpected, figures->gaps, figures->late, figures->max_cycle_error, figures->max_boundary_ms,
                  figures->max_deviation_ms);
  /* Boundaries inside a span are the case that needs the cut. */
  if (figures->swaps >= 3)
    g_assert_cmpuint (figures->cut, >, 0);
  g_assert_cmpuint (figures->lost, ==, 0);
  g_assert_cmpuint (figures->duplicated, ==, 0);
  g_assert_cmpuint (figures->unexpected, ==, 0);
  g_assert_cmpfloat (figures->max_cycle_error, ==, 0);
  g_assert_cmpfloat (figures->max_boundary_ms, <, 0.01);
  g_assert_cmpfloat (figures->max_deviation_ms, <, 0.01);
}

/* SJ_SWAP_DUMP=1 prints each recording, for looking into a failure. */
static void
dump_recording (JsonObject *recording)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  if (g_getenv ("SJ_SWAP_DUMP") == NULL)
    return;

  node = json_node_init_object (json_node_alloc (), recording);
  text = json_to_string (node, TRUE);
  g_printerr ("%s\n", text);
}

/* Plays voice A at @cps and swaps @n times in a row, alternating A and B,
 * each new swap scheduled as soon as the previous one landed. Most go to
 * the next cycle, some to the next bar or a bar later; every third carries a
 * setcps(): the same tempo, or, with @tempo_changes, twice or half of it. */
static void
run_swaps (SjRepl   *repl,
           double    cps,
           guint     n,
           gboolean  tempo_changes,
           Figures  *figures)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SwapChange));
  g_autoptr(GArray) segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  g_autoptr(JsonObject) recording = NULL;
  Segment segment = { -1, &voice_a, cps };
  SjReplState before, after;
  gulong handler;

  start_playing (repl, cps, &voice_a);
  sj_test_query_state (repl, &before);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (swap_changed_cb), changes);
  record_events (repl, TRUE);
  g_array_append_val (segments, segment);

  for (guint i = 0; i < n; i++)
    {
      const Voice *voice = i % 2 == 0 ? &voice_b : &voice_a;
      double next_cps = segment.cps;
      g_autofree char *code = NULL;
      const char *quantize = "next_cycle";
      guint bars = 0, bar_cycles = 4;
      double at, in_seconds, cps_now, cps_at_apply;

      if (i % 3 == 1)
        next_cps = tempo_changes ? (segment.cps == cps ? cps * 2 : cps) : cps;
      code = i % 3 == 1 ? g_strdup_printf ("setcps(%g)\n%s", next_cps, voice->code) : g_strdup (voice->code);
      if (i % 5 == 4)
        quantize = "next_bar", bar_cycles = 2;
      else if (i % 7 == 6)
        quantize = "bars", bars = 1, bar_cycles = 1;

      at = schedule (repl, code, quantize, bars, bar_cycles, &in_seconds, &cps_now, &cps_at_apply);
      g_assert_cmpfloat (at, >, segment.at);
      if (g_strcmp0 (quantize, "next_cycle") != 0)
        g_assert_cmpfloat (fmod (at, bar_cycles), ==, 0);
      /* The tempo changes at the boundary, not when the code is evaluated. */
      g_assert_cmpfloat (cps_now, ==, segment.cps);
      g_assert_cmpfloat (cps_at_apply, ==, next_cps);

      wait_for_change (changes, "applied", at);
      segment = (Segment) { at, voice, next_cps };
      g_array_append_val (segments, segment);
      figures->swaps++;
      figures->sum_lead_s += in_seconds;
    }

  wait_for_cycle (repl, segment.at + 1.5);
  recording = take_recorded (repl);
  record_events (repl, FALSE);
  g_signal_handler_disconnect (repl, handler);
  sj_test_query_state (repl, &after);
  figures->late += after.late - before.late;

  g_assert_cmpuint (count_changes (changes, "scheduled"), ==, n);
  g_assert_cmpuint (count_changes (changes, "applied"), ==, n);
  g_assert_cmpuint (count_changes (changes, "superseded") + count_changes (changes, "canceled"), ==, 0);
  g_assert_cmpfloat (sj_repl_get_state (repl)->cps, ==, segment.cps);

  dump_recording (recording);
  check_recording (recording, segments, figures);
}

/* Tests ------------------------------------------------------------------- */

static guint
iterations (guint fallback)
{
  const char *env = g_getenv ("SJ_SWAP_ITERATIONS");

  return env != NULL ? (guint)MAX (1, atoi (env)) : fallback;
}

/* At least 20 swaps in a row at each tempo (each swap takes about a cycle,
 * so the slow tempos are what make this test long). */
static void
test_consecutive_swaps (void)
{
  static const struct { double cps; guint n; } runs[] = { { 0.5, 20 }, { 1, 20 }, { 2, 20 }, { 4, 20 } };
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());

  for (guint r = 0; r < G_N_ELEMENTS (runs); r++)
    {
      Figures figures = { 0 };

      g_test_message ("cps %g", runs[r].cps);
      run_swaps (repl, runs[r].cps, iterations (runs[r].n), FALSE, &figures);
      assert_exact (&figures);
    }

  stop_playing (repl);
}

/* setcps() in swapped code changes the tempo exactly at the boundary, up
 * and down: until there the old tempo plays, from there the new one, with
 * the boundary itself where the old tempo put it. */
static void
test_tempo_lands_at_boundary (void)
{
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  Figures figures = { 0 };

  run_swaps (repl, 1, iterations (6), TRUE, &figures);
  assert_exact (&figures);
  stop_playing (repl);
}

/* Code that does not evaluate changes nothing: the same pattern object
 * plays on, the editor keeps its text. */
static void
test_rejected_code_keeps_pattern (void)
{
  static const char * const broken[] = {
    "note(\"c3 e3\").s(\"sine\").nosuchfunction()",
    "note(\"c3 e3\"",
    "throw new Error('no thanks')",
  };
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  g_autofree char *code_before = NULL;
  gint64 id_before;

  start_playing (repl, 2, &voice_a);
  code_before = sj_test_fetch_code (repl);
  id_before = pattern_id (repl);
  g_assert_cmpint (id_before, >, 0);

  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(JsonObject) answer = sj_test_schedule_swap (repl, broken[i], "next_cycle", 0, 4, FALSE);
      g_autofree char *code_after = NULL;

      g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "error");
      g_test_message ("rejected: %s", json_object_get_string_member (answer, "message"));
      g_assert_cmpstr (json_object_get_string_member (answer, "message"), !=, "");
      g_assert_cmpint (pattern_id (repl), ==, id_before);
      code_after = sj_test_fetch_code (repl);
      g_assert_cmpstr (code_after, ==, code_before);
    }

  /* And it keeps playing. */
  wait_for_cycle (repl, sj_repl_get_state (repl)->cycle + 1);
  g_assert_cmpint (pattern_id (repl), ==, id_before);
  stop_playing (repl);
}

/* A newer swap replaces a pending one, whether its boundary comes before
 * or after the older one's: the older never plays. The editor shows the
 * pending code with a visible mark until it lands. */
static void
test_superseded_never_plays (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SwapChange));
  g_autoptr(GArray) segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  Segment segment = { -1, &voice_a, 2 };
  Figures figures = { 0 };
  gulong handler;
  double never_at, at;
  g_autofree char *code = NULL;

  start_playing (repl, 2, &voice_a);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (swap_changed_cb), changes);
  record_events (repl, TRUE);
  g_array_append_val (segments, segment);

  /* Later boundary replaced by an earlier one. */
  never_at = schedule (repl, CODE_NEVER, "bars", 2, 1, NULL, NULL, NULL);
  g_assert_true (shows_pending_mark (repl, never_at));
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, CODE_NEVER);
  at = schedule (repl, voice_b.code, "next_cycle", 0, 4, NULL, NULL, NULL);
  g_assert_cmpfloat (at, <, never_at);
  wait_for_change (changes, "superseded", never_at);
  wait_for_change (changes, "applied", at);
  g_assert_false (shows_pending_mark (repl, -1));
  segment = (Segment) { at, &voice_b, 2 };
  g_array_append_val (segments, segment);

  /* Earlier boundary replaced by a later one. */
  never_at = schedule (repl, CODE_NEVER, "bars", 1, 1, NULL, NULL, NULL);
  at = schedule (repl, voice_a.code, "bars", 3, 1, NULL, NULL, NULL);
  g_assert_cmpfloat (at, >, never_at);
  wait_for_change (changes, "superseded", never_at);
  wait_for_change (changes, "applied", at);
  segment = (Segment) { at, &voice_a, 2 };
  g_array_append_val (segments, segment);

  wait_for_cycle (repl, at + 1.5);
  {
    g_autoptr(JsonObject) recording = take_recorded (repl);

    /* Any g3 would show up as unexpected. */
    check_recording (recording, segments, &figures);
  }
  figures.swaps = 2;
  assert_exact (&figures);
  g_assert_cmpuint (count_changes (changes, "applied"), ==, 2);
  g_assert_cmpuint (count_changes (changes, "superseded"), ==, 2);

  record_events (repl, FALSE);
  g_signal_handler_disconnect (repl, handler);
  stop_playing (repl);
}

/* Ctrl+@key in the editor, as CodeMirror sees it. */
static void
press_key (SjRepl     *repl,
           const char *key)
{
  g_autofree char *body = g_strdup_printf ("const content = document.querySelector('#editor .cm-content');"
                                           "content.focus();"
                                           "const event = new KeyboardEvent('keydown', {key: '%s', ctrlKey: true,"
                                           " bubbles: true, cancelable: true});"
                                           "content.dispatchEvent(event);"
                                           "return event.defaultPrevented;",
                                           key);

  /* Handled by a keybinding: CodeMirror prevents the default. */
  g_assert_true (js_is_true (repl, body));
}

/* The user's own evaluation (Ctrl+Enter, the play button) wins over a
 * pending swap, which never plays. */
static void
test_user_evaluation_cancels (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SwapChange));
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(JsonObject) recording = NULL;
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  JsonArray *events;
  gint64 id_before;
  gulong handler;
  double never_at;

  start_playing (repl, 2, &voice_a);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (swap_changed_cb), changes);
  record_events (repl, TRUE);

  never_at = schedule (repl, CODE_NEVER, "bars", 2, 1, NULL, NULL, NULL);
  outcome = sj_test_evaluate (repl, voice_b.code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  wait_for_change (changes, "canceled", never_at);
  g_assert_false (shows_pending_mark (repl, -1));

  wait_for_cycle (repl, never_at + 1.5);
  recording = take_recorded (repl);
  events = json_object_get_array_member (recording, "events");
  g_assert_cmpuint (json_array_get_length (events), >, 0);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *value = json_object_get_object_member (json_array_get_object_element (events, i), "value");

      g_assert_cmpstr (json_object_get_string_member (value, "note"), !=, NOTE_NEVER);
    }
  g_assert_cmpuint (count_changes (changes, "applied"), ==, 0);
  record_events (repl, FALSE);

  /* Ctrl+Enter in the editor, which shows the pending code: the user plays
   * it now rather than at the boundary. */
  id_before = pattern_id (repl);
  never_at = schedule (repl, voice_a.code, "bars", 2, 1, NULL, NULL, NULL);
  press_key (repl, "Enter");
  wait_for_change (changes, "canceled", never_at);
  g_assert_false (shows_pending_mark (repl, -1));
  g_assert_cmpint (pattern_id (repl), !=, id_before);
  wait_for_cycle (repl, sj_repl_get_state (repl)->cycle + 0.5);
  g_assert_cmpuint (count_changes (changes, "applied"), ==, 0);

  g_signal_handler_disconnect (repl, handler);
  stop_playing (repl);
}

/* cancelSwap: the playing pattern goes on and its code comes back into the
 * editor. */
static void
test_cancel_restores_code (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SwapChange));
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  g_autofree char *code_before = NULL;
  g_autofree char *code_pending = NULL;
  g_autofree char *code_after = NULL;
  gint64 id_before;
  gulong handler;
  double never_at;

  start_playing (repl, 2, &voice_a);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (swap_changed_cb), changes);
  code_before = sj_test_fetch_code (repl);
  id_before = pattern_id (repl);

  g_assert_false (sj_test_cancel_swap (repl));
  never_at = schedule (repl, CODE_NEVER, "bars", 2, 1, NULL, NULL, NULL);
  g_assert_cmpint (pattern_id (repl), !=, id_before);
  code_pending = sj_test_fetch_code (repl);
  g_assert_cmpstr (code_pending, ==, CODE_NEVER);

  g_assert_true (sj_test_cancel_swap (repl));
  wait_for_change (changes, "canceled", never_at);
  g_assert_cmpint (pattern_id (repl), ==, id_before);
  code_after = sj_test_fetch_code (repl);
  g_assert_cmpstr (code_after, ==, code_before);

  wait_for_cycle (repl, never_at + 1);
  g_assert_cmpuint (count_changes (changes, "applied"), ==, 0);
  g_assert_cmpint (pattern_id (repl), ==, id_before);

  g_signal_handler_disconnect (repl, handler);
  stop_playing (repl);
}

static gboolean
is_playing (gpointer data)
{
  return sj_repl_get_state (SJ_REPL (data))->playing;
}

/* Stopped, there is no boundary to wait for: the swap applies at once and
 * starts playback only when asked to. */
static void
test_stopped_applies_at_once (void)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SwapChange));
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) started = NULL;
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  g_autofree char *code = NULL;
  g_autofree char *code_before = NULL;
  SjReplState state;
  gint64 id_before;
  gulong handler;

  start_playing (repl, 1, &voice_a);
  stop_playing (repl);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (swap_changed_cb), changes);
  id_before = pattern_id (repl);
  code_before = sj_test_fetch_code (repl);

  answer = sj_test_schedule_swap (repl, "setcps(1.5)\n" "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)",
                                  "next_bar", 0, 4, FALSE);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "applied");
  g_assert_cmpfloat (json_object_get_double_member (answer, "applyAtCycle"), ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (answer, "cps"), ==, 1.5);
  wait_for_change (changes, "applied", 0);
  g_assert_cmpint (pattern_id (repl), !=, id_before);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, "setcps(1.5)\n" "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)");
  sj_test_query_state (repl, &state);
  g_assert_false (state.playing);
  g_assert_cmpfloat (state.cps, ==, 1.5);

  /* The swap is one step in the editor's history: Ctrl+Z brings the code
   * before it back, Ctrl+Y the swapped code again. */
  press_key (repl, "z");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, code_before);
  press_key (repl, "y");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, "setcps(1.5)\n" "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)");

  /* With autoStart, it plays. */
  started = sj_test_schedule_swap (repl, voice_a.code, "next_cycle", 0, 4, TRUE);
  g_assert_cmpstr (json_object_get_string_member (started, "status"), ==, "applied");
  sj_test_spin_until (is_playing, repl, "playback to start");
  wait_for_cycle (repl, 1);

  g_signal_handler_disconnect (repl, handler);
  stop_playing (repl);
}

/* Figures for the README: N swaps at each tempo (SJ_SWAP_BENCH=N). */
static void
test_bench (void)
{
  static const double tempos[] = { 0.5, 1, 2, 4 };
  SjRepl *repl = _sj_window_get_repl (sj_test_open_window ());
  guint n = MAX (1, atoi (g_getenv ("SJ_SWAP_BENCH")));

  g_print ("%-24s %6s %6s %7s %5s %10s %10s %8s %5s %13s %12s %12s %9s\n", "run", "swaps", "cut", "events", "lost",
           "duplicated", "unexpected", "skipped", "late", "B err (cyc)", "B err (ms)", "max dev (ms)", "lead (s)");
  for (guint r = 0; r < G_N_ELEMENTS (tempos) * 2; r++)
    {
      gboolean tempo_changes = r >= G_N_ELEMENTS (tempos);
      double cps = tempos[r % G_N_ELEMENTS (tempos)];
      g_autofree char *label = g_strdup_printf ("cps %g%s", cps, tempo_changes ? " + tempo changes" : "");
      Figures figures = { 0 };

      run_swaps (repl, cps, n, tempo_changes, &figures);
      g_print ("%-24s %6u %6u %7u %5u %10u %10u %8u %5" G_GINT64_FORMAT " %13g %12.1e %12.1e %9.3f\n", label,
               figures.swaps, figures.cut, figures.events,
               figures.lost, figures.duplicated, figures.unexpected, figures.gaps, figures.late, figures.max_cycle_error,
               figures.max_boundary_ms, figures.max_deviation_ms, figures.sum_lead_s / MAX (1, figures.swaps));
    }

  stop_playing (repl);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Private user directories: the test never sees the user's own code. */
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  if (g_getenv ("SJ_SWAP_BENCH") != NULL)
    {
      g_test_add_func ("/swap/bench", test_bench);
    }
  else
    {
      g_test_add_func ("/swap/consecutive", test_consecutive_swaps);
      g_test_add_func ("/swap/tempo-lands-at-boundary", test_tempo_lands_at_boundary);
      g_test_add_func ("/swap/rejected-code-keeps-pattern", test_rejected_code_keeps_pattern);
      g_test_add_func ("/swap/superseded-never-plays", test_superseded_never_plays);
      g_test_add_func ("/swap/user-evaluation-cancels", test_user_evaluation_cancels);
      g_test_add_func ("/swap/cancel-restores-code", test_cancel_restores_code);
      g_test_add_func ("/swap/stopped-applies-at-once", test_stopped_applies_at_once);
    }

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
