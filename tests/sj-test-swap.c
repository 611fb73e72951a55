/* sj-test-swap.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Quantized swaps in the real page, recorded and checked: shared by
 * test-swap (the exactness of the swaps themselves) and test-voice-window
 * (the same swaps while the music is lowered for the microphone). Every
 * event the scheduler triggers is recorded by the page
 * (sjBridge.recordEvents) and compared with what the old pattern before
 * the boundary and the new one from there on must produce.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-test-swap.h"
#include "sj-window-private.h"

const SjTestSwapVoice sj_test_swap_voice_a = { "c3", 4, "note(\"c3*4\").s(\"sine\").decay(.05).sustain(0).gain(.05)" };
const SjTestSwapVoice sj_test_swap_voice_b = { "e3", 8, "note(\"e3*8\").s(\"triangle\").decay(.05).sustain(0).gain(.05)" };

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

void
sj_test_swap_change_cb (SjRepl     *repl,
                        const char *state,
                        double      cycle,
                        gpointer    user_data)
{
  GArray *changes = user_data;
  SjTestSwapChange change = { g_intern_string (state), cycle };

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
      SjTestSwapChange *change = &g_array_index (wait->changes, SjTestSwapChange, i);

      if (change->state == g_intern_string (wait->state) && change->cycle == wait->cycle)
        return TRUE;
    }

  return FALSE;
}

guint
sj_test_swap_count_changes (GArray     *changes,
                            const char *state)
{
  guint n = 0;

  for (guint i = 0; i < changes->len; i++)
    n += g_array_index (changes, SjTestSwapChange, i).state == g_intern_string (state);

  return n;
}

void
sj_test_swap_wait_for_change (GArray     *changes,
                              const char *state,
                              double      cycle)
{
  ChangeWait wait = { changes, state, cycle };
  g_autofree char *what = g_strdup_printf ("the swap at cycle %g to be %s", cycle, state);

  sj_test_spin_until (has_change, &wait, what);
}

/* The page ---------------------------------------------------------------- */

void
sj_test_swap_wait_for_cycle (SjRepl *repl,
                             double  cycle)
{
  Progress progress = { repl, cycle, sj_repl_get_state (repl)->triggered };
  g_autofree char *what = g_strdup_printf ("the scheduler to reach cycle %g", cycle);

  sj_test_spin_until (sj_test_progressed, &progress, what);
}

static void
evaluate_and_wait (SjRepl      *repl,
                   double       cps,
                   const SjTestSwapVoice *voice)
{
  g_autofree char *code = g_strdup_printf ("setcps(%g)\n%s", cps, voice->code);
  g_autoptr(JsonObject) outcome = sj_test_evaluate (repl, code);

  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_swap_wait_for_cycle (repl, json_object_get_double_member (json_object_get_object_member (outcome, "state"), "cycle") + 0.25);
  g_assert_cmpfloat (sj_repl_get_state (repl)->cps, ==, cps);
}

/* Plays @voice at @cps. Started from cycle 0 at a constant tempo, the
 * scheduler's spans (a tick of 50 ms each) would end exactly on whole
 * cycles at these tempos, and no boundary would ever fall inside a span:
 * another tempo first, changed mid-cycle, moves the span borders off the
 * cycle grid, as a user's setcps() does. */
void
sj_test_swap_start_playing (SjRepl      *repl,
                            double       cps,
                            const SjTestSwapVoice *voice)
{
  evaluate_and_wait (repl, cps * 0.77, voice);
  evaluate_and_wait (repl, cps, voice);
}

void
sj_test_swap_stop_playing (SjRepl *repl)
{
  g_action_group_activate_action (G_ACTION_GROUP (sj_test_current_window ()), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

void
sj_test_swap_record_events (SjRepl   *repl,
                            gboolean  on)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, on ? "return window.sjBridge.recordEvents(true);"
                                                       : "return window.sjBridge.recordEvents(false);");

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
}

JsonObject *
sj_test_swap_take_recorded (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "return window.sjBridge.takeRecordedEvents();");

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_dup_object (node);
}

double
sj_test_swap_schedule (SjRepl      *repl,
                       const char  *code,
                       const char  *quantize,
                       guint        bars,
                       guint        bar_cycles,
                       double      *in_seconds,
                       double      *cps,
                       double      *cps_at_apply)
{
  g_autoptr(SjSwapResult) answer = sj_test_schedule_swap (repl, code, quantize, bars, bar_cycles, FALSE);
  double at;

  g_assert_cmpint (answer->status, ==, SJ_SWAP_SCHEDULED);
  at = answer->apply_at_cycle;
  g_assert_cmpfloat (at, ==, floor (at));
  g_assert_cmpfloat (answer->in_seconds, >=, 0);
  if (in_seconds != NULL)
    *in_seconds = answer->in_seconds;
  if (cps != NULL)
    *cps = answer->cps;
  if (cps_at_apply != NULL)
    *cps_at_apply = answer->cps_at_apply;

  return at;
}

/* Checking a recording ------------------------------------------------------ */

typedef struct
{
  Rational    onset;
  const char *note;   /* owned by the recording's JSON */
  double      t;
  double      cps;
  const char *source;
} Event;

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

  while (s + 1 < segments->len && onset >= g_array_index (segments, SjTestSwapSegment, s + 1).at)
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
      SjTestSwapSegment *segment = &g_array_index (segments, SjTestSwapSegment, s);
      double end = s + 1 < segments->len ? MIN (b, g_array_index (segments, SjTestSwapSegment, s + 1).at) : b;

      seconds += (end - a) / segment->cps;
      a = end;
    }

  return seconds;
}

/* Whether a span the scheduler skipped reaches cycle @at. */
static gboolean
gap_touches (JsonArray *gaps,
             double     at)
{
  for (guint i = 0; i < json_array_get_length (gaps); i++)
    {
      JsonArray *gap = json_array_get_array_element (gaps, i);
      Rational from = parse_fraction (json_array_get_string_element (gap, 0));
      Rational to = parse_fraction (json_array_get_string_element (gap, 1));

      /* B may be a beat (a fraction); to the double it is sent as. */
      if ((double)from.num / from.den <= at + 1e-9 && at - 1e-9 <= (double)to.num / to.den)
        return TRUE;
    }
  return FALSE;
}

/**
 * sj_test_swap_stalled:
 *
 * Whether the page stalled while recording (the scheduler skipped spans,
 * as Strudel does with a tick that comes too late, or scheduled events
 * after their time): on a busy machine,
 * tests that are not the swap's fidelity runs say so instead of asserting
 * what a stall takes away.
 */
gboolean
sj_test_swap_stalled (const SjTestSwapFigures *figures)
{
  if (figures->gaps == 0 && figures->late == 0 && figures->stalled_boundaries == 0)
    return FALSE;
  g_test_message ("the page stalled: %u spans skipped by the scheduler (%u at a boundary), %" G_GINT64_FORMAT
                  " events scheduled late", figures->gaps, figures->stalled_boundaries, figures->late);
  return TRUE;
}

void
sj_test_swap_check_recording (JsonObject *recording,
                              GArray     *segments,
                              SjTestSwapFigures    *figures)
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

      /* The span after B started exactly at B, unless the scheduler skipped
       * the tick there: Cyclist's spans start where the last one ended, so
       * only a dropped tick (a stall of the page; the recording's gap, if
       * it started before) moves the first new span past B. */
      if (!json_object_get_boolean_member (swap, "exact"))
        {
          g_test_message ("the swap at cycle %g did not start its span at B%s", json_object_get_double_member (swap, "at"),
                          gap_touches (gaps, json_object_get_double_member (swap, "at")) ? " (a skipped span)" : "");
          figures->stalled_boundaries++;
        }
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
          Rational at = { (gint64)g_array_index (segments, SjTestSwapSegment, s).at, 1 };

          figures->stalled_boundaries += rational_cmp (from, at) <= 0 && rational_cmp (at, to) <= 0;
        }
    }

  /* What should have fired: each segment's pattern over its part of the
   * span the scheduler queried while recording. */
  for (guint s = 0; s < segments->len; s++)
    {
      SjTestSwapSegment *segment = &g_array_index (segments, SjTestSwapSegment, s);
      Rational lo = begin, hi = end;
      gint64 q = segment->voice->per_cycle;

      if (s > 0 && rational_cmp ((Rational) { (gint64)segment->at, 1 }, lo) > 0)
        lo = (Rational) { (gint64)segment->at, 1 };
      if (s + 1 < segments->len)
        {
          Rational next = { (gint64)g_array_index (segments, SjTestSwapSegment, s + 1).at, 1 };

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
      SjTestSwapSegment *segment = &g_array_index (segments, SjTestSwapSegment, s);
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
      SjTestSwapSegment *segment = &g_array_index (segments, SjTestSwapSegment, segment_of (segments, onset));
      double t = first->t + seconds_between (segments, rational_value (first->onset), onset);
      double deviation_ms = fabs (event->t - t) * 1000;

      g_assert_cmpfloat (event->cps, ==, segment->cps);
      figures->max_deviation_ms = MAX (figures->max_deviation_ms, deviation_ms);
      if (onset == segment->at)
        figures->max_boundary_ms = MAX (figures->max_boundary_ms, deviation_ms);
    }
}

void
sj_test_swap_assert_exact (const SjTestSwapFigures *figures)
{
  g_test_message ("%u swaps (%u inside a span), %u events (%u expected): %u lost, %u duplicated, %u unexpected, "
                  "%u skipped spans, %" G_GINT64_FORMAT " late; boundary error %g cycles, %.6f ms; "
                  "max timing deviation %.6f ms",
                  figures->swaps, figures->cut, figures->events, figures->expected, figures->lost, figures->duplicated,
                  figures->unexpected, figures->gaps, figures->late, figures->max_cycle_error, figures->max_boundary_ms,
                  figures->max_deviation_ms);
  /* A gap at a boundary could be the swap's doing: the fidelity runs
   * allow none (sj_test_swap_stalled() tells the other tests). */
  g_assert_cmpuint (figures->stalled_boundaries, ==, 0);
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
void
sj_test_swap_run (SjRepl   *repl,
                  double    cps,
                  guint     n,
                  gboolean  tempo_changes,
                  SjTestSwapFigures  *figures)
{
  g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (SjTestSwapChange));
  g_autoptr(GArray) segments = g_array_new (FALSE, FALSE, sizeof (SjTestSwapSegment));
  g_autoptr(JsonObject) recording = NULL;
  SjTestSwapSegment segment = { -1, &sj_test_swap_voice_a, cps };
  SjReplState before, after;
  gulong handler;

  sj_test_swap_start_playing (repl, cps, &sj_test_swap_voice_a);
  sj_test_query_state (repl, &before);
  handler = g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_change_cb), changes);
  sj_test_swap_record_events (repl, TRUE);
  g_array_append_val (segments, segment);

  for (guint i = 0; i < n; i++)
    {
      const SjTestSwapVoice *voice = i % 2 == 0 ? &sj_test_swap_voice_b : &sj_test_swap_voice_a;
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

      at = sj_test_swap_schedule (repl, code, quantize, bars, bar_cycles, &in_seconds, &cps_now, &cps_at_apply);
      g_assert_cmpfloat (at, >, segment.at);
      if (g_strcmp0 (quantize, "next_cycle") != 0)
        g_assert_cmpfloat (fmod (at, bar_cycles), ==, 0);
      /* The tempo changes at the boundary, not when the code is evaluated. */
      g_assert_cmpfloat (cps_now, ==, segment.cps);
      g_assert_cmpfloat (cps_at_apply, ==, next_cps);

      sj_test_swap_wait_for_change (changes, "applied", at);
      segment = (SjTestSwapSegment) { at, voice, next_cps };
      g_array_append_val (segments, segment);
      figures->swaps++;
      figures->sum_lead_s += in_seconds;
    }

  sj_test_swap_wait_for_cycle (repl, segment.at + 1.5);
  recording = sj_test_swap_take_recorded (repl);
  sj_test_swap_record_events (repl, FALSE);
  g_signal_handler_disconnect (repl, handler);
  sj_test_query_state (repl, &after);
  figures->late += after.late - before.late;

  g_assert_cmpuint (sj_test_swap_count_changes (changes, "scheduled"), ==, n);
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "applied"), ==, n);
  g_assert_cmpuint (sj_test_swap_count_changes (changes, "superseded") + sj_test_swap_count_changes (changes, "canceled"), ==, 0);
  g_assert_cmpfloat (sj_repl_get_state (repl)->cps, ==, segment.cps);

  dump_recording (recording);
  sj_test_swap_check_recording (recording, segments, figures);
}
