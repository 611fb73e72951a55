/* test-midi-phrase.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Record a Phrase"'s notation (sj-midi-phrase.c) without JACK or a page:
 * note-ons and note-offs at given times against a cycle clock, and the
 * exact note("…") they give. Straight notes, the "c3 [e3 g3] ~ c4",
 * chords, rests, early and late notes snapped, held notes, phrases over
 * several cycles, a cycle or a phrase with nothing played.
 *
 * The clock: cps 0.5 (a cycle is 2 s, a step 125 ms) and cycle 10 at
 * T0; the phrase starts at cycle 11, 2 s later.
 */

#include "config.h"

#include <math.h>

#include "sj-midi-phrase.h"

#define T0 ((gint64)1700000000 * G_USEC_PER_SEC)

static const SjCycleClock test_clock = { 10.0, T0, 0.5 };

/* A note: its key, on and off in cycles from the phrase's start (cycle
 * 11); off < 0 is a note never released. */
typedef struct
{
  guint8 key;
  double on;
  double off;
} Played;

static gint64
at (double cycles)
{
  return sj_cycle_clock_time_of (&test_clock, 11 + cycles);
}

static GArray *
events_of (const Played *played,
           guint         n)
{
  GArray *events = g_array_new (FALSE, FALSE, sizeof (SjMidiEvent));

  for (guint i = 0; i < n; i++)
    {
      SjMidiEvent on = { at (played[i].on), { 0x90, played[i].key, 100 }, 3 };
      SjMidiEvent off = { at (played[i].off), { 0x80, played[i].key, 0 }, 3 };

      g_array_append_val (events, on);
      if (played[i].off >= 0)
        g_array_append_val (events, off);
    }

  return events;
}

static char *
notate (const Played *played,
        guint         n,
        guint         n_cycles)
{
  g_autoptr(GArray) events = events_of (played, n);

  return sj_midi_phrase_notate ((SjMidiEvent *)(gpointer)events->data, events->len, &test_clock, 11, n_cycles);
}

#define assert_notation(played, n_cycles, expected) \
  G_STMT_START { \
    g_autofree char *text_ = notate (played, G_N_ELEMENTS (played), n_cycles); \
    g_assert_cmpstr (text_, ==, expected); \
  } G_STMT_END

static void
test_clock_mapping (void)
{
  g_assert_cmpfloat (sj_cycle_clock_cycle_at (&test_clock, T0), ==, 10.0);
  g_assert_cmpfloat (sj_cycle_clock_cycle_at (&test_clock, T0 + G_USEC_PER_SEC), ==, 10.5);
  g_assert_cmpint (sj_cycle_clock_time_of (&test_clock, 12.0), ==, T0 + 4 * G_USEC_PER_SEC);
  g_assert_cmpint (at (0.25), ==, T0 + 2500000);
}

static void
test_note_names (void)
{
  static const struct { guint8 key; const char *name; } names[] = {
    { 60, "c4" }, { 61, "c#4" }, { 48, "c3" }, { 57, "a3" }, { 70, "a#4" }, { 71, "b4" }, { 0, "c-1" }, { 127, "g9" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *name = sj_midi_phrase_note_name (names[i].key);

      g_assert_cmpstr (name, ==, names[i].name);
    }
}

/* Four quarter notes, each released a little early: legato, no rests. */
static void
test_straight (void)
{
  static const Played played[] = {
    { 48, 0.00, 0.20 }, { 52, 0.25, 0.45 }, { 55, 0.50, 0.70 }, { 60, 0.75, 0.95 },
  };

  assert_notation (played, 1, "note(\"c3 e3 g3 c4\")");
}

/* The example: a quarter, two eighths, a quarter's rest, a quarter. */
static void
test_subdivided_with_rest (void)
{
  static const Played played[] = {
    { 48, 0.00, 0.25 }, { 52, 0.25, 0.375 }, { 55, 0.375, 0.5 }, { 60, 0.75, 1.0 },
  };

  assert_notation (played, 1, "note(\"c3 [e3 g3] ~ c4\")");
}

/* A chord played a little unevenly (30 ms spread), then silence. */
static void
test_chord (void)
{
  static const Played played[] = {
    { 55, 0.0075, 0.5 }, { 48, 0.0, 0.45 }, { 52, 0.015, 0.48 }, { 48 + 12, 0.5, 0.74 },
  };

  assert_notation (played, 1, "note(\"[c3,e3,g3]@2 c4 ~\")");
}

/* Staccato halves leave rests; a sixteenth-note run groups in its quarter. */
static void
test_rests_and_sixteenths (void)
{
  static const Played staccato[] = {
    { 48, 0.0, 0.25 }, { 55, 0.5, 0.75 },
  };
  static const Played run[] = {
    { 60, 0.0, 0.0625 }, { 62, 0.0625, 0.125 }, { 64, 0.125, 0.1875 }, { 65, 0.1875, 0.25 },
    { 67, 0.25, 0.5 }, { 72, 0.75, 0.875 },
  };

  assert_notation (staccato, 1, "note(\"c3 ~ g3 ~\")");
  assert_notation (run, 1, "note(\"[c4 d4 e4 f4] g4 ~ [c5 ~]\")");
}

/* Releases are less precise than strikes: rounded on the grid the onsets
 * need (quarters at the finest), they never force a finer one. */
static void
test_releases (void)
{
  static const Played chord[] = {
    { 48, 0.0, 0.45 }, { 52, 0.005, 0.43 }, { 55, 0.01, 0.47 },
  };
  static const Played half[] = {
    { 48, 0.0, 0.53 },
  };
  static const Played example[] = {
    { 48, 0.0, 0.22 }, { 52, 0.25, 0.35 }, { 55, 0.375, 0.47 }, { 60, 0.75, 0.96 },
  };
  static const Played short_one[] = {
    { 48, 0.0, 0.05 }, { 52, 0.5, 0.6 },
  };

  assert_notation (chord, 1, "note(\"[c3,e3,g3] ~\")");
  assert_notation (half, 1, "note(\"c3 ~\")");
  assert_notation (example, 1, "note(\"c3 [e3 g3] ~ c4\")");
  /* At least one slot of that grid. */
  assert_notation (short_one, 1, "note(\"c3 ~ e3 ~\")");
}

/* Notes played early and late by less than half a step (62.5 ms) land on
 * their step; the first one early enough to start before the phrase. */
static void
test_early_and_late (void)
{
  static const Played played[] = {
    { 48, -0.02, 0.2 }, { 52, 0.25 + 0.025, 0.45 }, { 55, 0.5 - 0.028, 0.7 }, { 60, 0.75 + 0.03, 0.97 },
  };
  /* Played more than half a step early for the phrase: before it. */
  static const Played too_early[] = {
    { 48, -0.04, 0.2 }, { 52, 0.5, 0.95 },
  };

  assert_notation (played, 1, "note(\"c3 e3 g3 c4\")");
  assert_notation (too_early, 1, "note(\"~ e3\")");
}

/* Held notes: over three quarters, and never released (held to the end). */
static void
test_held (void)
{
  static const Played held[] = {
    { 48, 0.0, 0.74 }, { 55, 0.75, 0.99 },
  };
  static const Played never_released[] = {
    { 48, 0.0, 0.25 }, { 52, 0.25, -1 },
  };

  assert_notation (held, 1, "note(\"c3@3 g3\")");
  assert_notation (never_released, 1, "note(\"c3 e3@3\")");
}

/* A note that crosses a quarter's line mid-way keeps the cycle flat. */
static void
test_syncopation (void)
{
  static const Played played[] = {
    { 48, 0.0, 0.125 }, { 52, 0.125, 0.375 }, { 55, 0.375, 0.5 },
  };

  assert_notation (played, 1, "note(\"c3 e3@2 g3 ~ ~ ~ ~\")");
}

/* Several cycles, one per cycle; a note does not tie into the next cycle;
 * one played right at the end belongs to the cycle after. */
static void
test_cycles (void)
{
  static const Played two[] = {
    { 48, 0.0, 0.5 }, { 52, 0.5, 1.5 }, { 55, 1.5, 2.0 }, { 60, 1.98, 2.2 },
  };
  static const Played with_silence[] = {
    { 48, 0.0, 0.95 }, { 60, 2.0, 2.5 }, { 62, 2.5, 3.0 },
  };

  assert_notation (two, 2, "note(\"<[c3 e3] [~ g3]>\")");
  assert_notation (with_silence, 4, "note(\"<c3 ~ [c4 d4] ~>\")");
}

/* A key struck again before its note-off ends the first note there; a
 * note-on with velocity 0 is a note-off; other messages are ignored. */
static void
test_messages (void)
{
  SjMidiEvent events[] = {
    { at (0.0), { 0x90, 48, 90 }, 3 },
    { at (0.1), { 0xB0, 74, 64 }, 3 },
    { at (0.25), { 0x90, 48, 90 }, 3 },
    { at (0.45), { 0x90, 48, 0 }, 3 },
    { at (0.5), { 0x91, 50, 90 }, 3 },
    { at (0.5), { 0xE0, 0, 64 }, 3 },
    { at (1.0), { 0x81, 50, 0 }, 3 },
  };
  g_autofree char *text = sj_midi_phrase_notate (events, G_N_ELEMENTS (events), &test_clock, 11, 1);

  g_assert_cmpstr (text, ==, "note(\"c3 c3 d3@2\")");
}

static void
test_empty (void)
{
  static const Played outside[] = {
    { 48, -0.5, -0.3 }, { 52, 1.0, 1.2 },
  };
  SjMidiEvent controls[] = { { at (0.1), { 0xB0, 74, 64 }, 3 } };
  g_autofree char *none = sj_midi_phrase_notate (NULL, 0, &test_clock, 11, 2);
  g_autofree char *only_controls = sj_midi_phrase_notate (controls, 1, &test_clock, 11, 2);
  g_autofree char *outside_text = notate (outside, G_N_ELEMENTS (outside), 1);

  g_assert_null (none);
  g_assert_null (only_controls);
  g_assert_null (outside_text);
}

/* Another tempo and a clock read mid-cycle give the same notation. */
static void
test_other_clock (void)
{
  SjCycleClock clock = { 3.3, T0, 1.5 };
  SjMidiEvent events[] = {
    { sj_cycle_clock_time_of (&clock, 5.0), { 0x90, 60, 90 }, 3 },
    { sj_cycle_clock_time_of (&clock, 5.5), { 0x80, 60, 0 }, 3 },
    { sj_cycle_clock_time_of (&clock, 5.5), { 0x90, 64, 90 }, 3 },
    { sj_cycle_clock_time_of (&clock, 5.5), { 0x90, 67, 90 }, 3 },
  };
  g_autofree char *text = sj_midi_phrase_notate (events, G_N_ELEMENTS (events), &clock, 5, 1);

  g_assert_cmpstr (text, ==, "note(\"c4 [e4,g4]\")");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/midi-phrase/clock", test_clock_mapping);
  g_test_add_func ("/midi-phrase/note-names", test_note_names);
  g_test_add_func ("/midi-phrase/straight", test_straight);
  g_test_add_func ("/midi-phrase/subdivided", test_subdivided_with_rest);
  g_test_add_func ("/midi-phrase/chord", test_chord);
  g_test_add_func ("/midi-phrase/rests", test_rests_and_sixteenths);
  g_test_add_func ("/midi-phrase/releases", test_releases);
  g_test_add_func ("/midi-phrase/early-and-late", test_early_and_late);
  g_test_add_func ("/midi-phrase/held", test_held);
  g_test_add_func ("/midi-phrase/syncopation", test_syncopation);
  g_test_add_func ("/midi-phrase/cycles", test_cycles);
  g_test_add_func ("/midi-phrase/messages", test_messages);
  g_test_add_func ("/midi-phrase/empty", test_empty);
  g_test_add_func ("/midi-phrase/other-clock", test_other_clock);

  return g_test_run ();
}
