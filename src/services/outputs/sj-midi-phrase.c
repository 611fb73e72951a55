/* sj-midi-phrase.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Turns what was played on a MIDI input (note-ons and note-offs with their
 * times) during N cycles into Strudel mini-notation, note("…"), quantized
 * to the cycle grid: what "Record a Phrase" inserts.
 *
 * The grid is sixteen steps a cycle (sixteenths of a cycle, sixteenth
 * notes when a cycle is a bar). The rules, in order:
 *
 *  - A note-on's time is mapped to cycles with the page's cycle clock
 *    (the cycle that sounds then) and rounded to the nearest step; so a
 *    note played up to half a step early for the first step of the phrase
 *    counts, and one that rounds to the end of the last cycle belongs to
 *    the cycle after and is left out.
 *  - Notes that start on the same step are a chord, [c3,e3,g3], lowest
 *    first; the chord lasts as long as its longest note, to its note-off
 *    (a note-on with velocity 0 too); a note still held when the phrase
 *    ends is held to the end.
 *  - Where a chord ends is rounded on the grid its cycle's onsets need
 *    (the coarsest of 1, 2, 4, 8 or 16 slots they all start on), or on
 *    quarters of the cycle when that is finer: a release is less precise
 *    than a strike, and should not force a finer grid. It is at least one
 *    such slot after the chord's start.
 *  - A chord ends where the next one starts, and at the end of its cycle:
 *    notes do not tie over into the next cycle.
 *  - Silence of less than two steps after a chord is left to the chord
 *    (played legato, a note released a little early is not a rest);
 *    longer silence is a rest, ~.
 *  - Each cycle is written with the fewest equal slots its notes and rests
 *    start on (1, 2, 4, 8 or 16), a note held over several slots with @
 *    (c3@3), each empty slot as ~. With 8 or 16 slots, the slots of each
 *    quarter of the cycle are grouped ("c3 [e3 g3] ~ c4") unless a note
 *    crosses a quarter's line mid-way, when the cycle stays flat.
 *  - One cycle is note("…"); several are one per cycle, note("<[…] […]>"),
 *    a cycle of one element unbracketed. A cycle where nothing was played
 *    is ~. Velocities and channels are not written.
 *
 * Nothing here knows JACK or the page: tests give it events and a clock.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-midi-phrase.h"

/* Silence shorter than this (in steps) is not a rest. */
#define MIN_REST_STEPS 2

typedef struct
{
  double on;   /* in cycles from the phrase's start */
  double off;  /* INFINITY while held */
  guint8 key;
} Note;

typedef struct
{
  int    on;   /* in steps from the phrase's start */
  double off;  /* not rounded yet: INFINITY while held */
  guint8 key;
} StepNote;

/* A stretch of one cycle: a chord, or a rest when @token is NULL. In
 * steps until the grid is chosen, then in slots. */
typedef struct
{
  int         start;
  int         len;
  const char *token;
} Segment;

/**
 * sj_cycle_clock_cycle_at:
 *
 * Returns: the cycle that sounds at @time_us
 */
double
sj_cycle_clock_cycle_at (const SjCycleClock *clock,
                         gint64              time_us)
{
  g_return_val_if_fail (clock != NULL, 0);

  return clock->cycle + (double)(time_us - clock->time_us) / G_USEC_PER_SEC * clock->cps;
}

/**
 * sj_cycle_clock_time_of:
 *
 * Returns: when @cycle sounds, in microseconds since the epoch
 */
gint64
sj_cycle_clock_time_of (const SjCycleClock *clock,
                        double              cycle)
{
  g_return_val_if_fail (clock != NULL && clock->cps > 0, 0);

  return clock->time_us + (gint64)llround ((cycle - clock->cycle) / clock->cps * G_USEC_PER_SEC);
}

/**
 * sj_midi_phrase_note_name:
 *
 * Returns: (transfer full): the note's name as Strudel reads it, MIDI 60
 *   being "c4" and 61 "c#4"
 */
char *
sj_midi_phrase_note_name (guint8 key)
{
  static const char * const names[] = { "c", "c#", "d", "d#", "e", "f", "f#", "g", "g#", "a", "a#", "b" };

  return g_strdup_printf ("%s%d", names[key % 12], key / 12 - 1);
}

static int
compare_events (gconstpointer a,
                gconstpointer b)
{
  const SjMidiEvent *x = a, *y = b;

  return (x->time_us > y->time_us) - (x->time_us < y->time_us);
}

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  return (int)*(const guint8 *)a - (int)*(const guint8 *)b;
}

/* Pairs note-ons with their note-offs, per channel and key. */
static GArray *
pair_notes (const SjMidiEvent  *events,
            guint               n_events,
            const SjCycleClock *clock,
            gint64              first_cycle)
{
  g_autoptr(GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (SjMidiEvent), n_events);
  GArray *notes = g_array_new (FALSE, FALSE, sizeof (Note));
  int open[16][128];

  memset (open, -1, sizeof open);
  /* g_array_sort is stable: events of the same time keep their order. */
  g_array_append_vals (sorted, events, n_events);
  g_array_sort (sorted, compare_events);

  for (guint i = 0; i < sorted->len; i++)
    {
      const SjMidiEvent *e = &g_array_index (sorted, SjMidiEvent, i);
      guint8 status = e->data[0] & 0xF0;
      guint8 channel = e->data[0] & 0x0F;
      guint8 key = e->data[1] & 0x7F;
      double at = sj_cycle_clock_cycle_at (clock, e->time_us) - first_cycle;
      gboolean on = status == 0x90 && e->size >= 3 && e->data[2] > 0;
      gboolean off = status == 0x80 || (status == 0x90 && !on);

      if ((on || off) && open[channel][key] >= 0)
        {
          g_array_index (notes, Note, open[channel][key]).off = at;
          open[channel][key] = -1;
        }
      if (on)
        {
          Note note = { at, INFINITY, key };

          open[channel][key] = notes->len;
          g_array_append_val (notes, note);
        }
    }

  return notes;
}

static int
round_step (double cycles)
{
  return (int)floor (cycles * SJ_MIDI_PHRASE_STEPS + 0.5);
}

/* @steps rounded to a multiple of @unit, half up. */
static int
round_to (double steps,
          int    unit)
{
  return (int)floor (steps / unit + 0.5) * unit;
}

/* Notes on the grid, those that start inside the phrase only. */
static GArray *
quantize (GArray *notes,
          int     total_steps)
{
  GArray *steps = g_array_new (FALSE, FALSE, sizeof (StepNote));

  for (guint i = 0; i < notes->len; i++)
    {
      const Note *n = &g_array_index (notes, Note, i);
      StepNote s = { round_step (n->on), n->off * SJ_MIDI_PHRASE_STEPS, n->key };

      if (s.on < 0 || s.on >= total_steps)
        continue;
      g_array_append_val (steps, s);
    }

  return steps;
}

static char *
chord_token (GArray *steps,
             int     on,
             double *off)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint8));
  g_autoptr(GString) token = g_string_new (NULL);

  *off = on;
  for (guint i = 0; i < steps->len; i++)
    {
      const StepNote *s = &g_array_index (steps, StepNote, i);

      if (s->on != on)
        continue;
      *off = MAX (*off, s->off);
      g_array_append_val (keys, s->key);
    }
  g_array_sort (keys, compare_keys);

  for (guint i = 0; i < keys->len; i++)
    {
      g_autofree char *name = NULL;
      guint8 key = g_array_index (keys, guint8, i);

      if (i > 0 && key == g_array_index (keys, guint8, i - 1))
        continue;
      name = sj_midi_phrase_note_name (key);
      if (token->len > 0)
        g_string_append_c (token, ',');
      g_string_append (token, name);
    }

  if (strchr (token->str, ',') != NULL)
    {
      g_string_prepend_c (token, '[');
      g_string_append_c (token, ']');
    }

  return g_string_free (g_steal_pointer (&token), FALSE);
}

static void
add_segment (GArray     *segments,
             int         start,
             int         end,
             const char *token)
{
  Segment segment = { start, end - start, token };

  if (end > start)
    g_array_append_val (segments, segment);
}

/* Writes @segments (in slots of @unit each) one after the other. */
static void
append_flat (GString *out,
             Segment *segments,
             guint    n_segments,
             int      unit,
             guint   *n_items)
{
  for (guint i = 0; i < n_segments; i++)
    {
      int slots = segments[i].len / unit;

      if (segments[i].token == NULL)
        {
          for (int j = 0; j < slots; j++)
            {
              g_string_append_printf (out, "%s~", out->len > 0 ? " " : "");
              (*n_items)++;
            }
          continue;
        }
      g_string_append_printf (out, "%s%s", out->len > 0 ? " " : "", segments[i].token);
      if (slots > 1)
        g_string_append_printf (out, "@%d", slots);
      (*n_items)++;
    }
}

/* The largest of @max, @max / 2, … 1 that every boundary is a multiple of. */
static int
coarsest_unit (Segment *segments,
               guint    n_segments,
               int      origin,
               int      max)
{
  int unit = max;

  for (; unit > 1; unit /= 2)
    {
      gboolean fits = TRUE;

      for (guint i = 0; i < n_segments && fits; i++)
        fits = (segments[i].start - origin) % unit == 0 && segments[i].len % unit == 0;
      if (fits)
        break;
    }

  return unit;
}

/* One cycle's segments (in steps from the cycle's start) as mini-notation. */
static char *
render_cycle (GArray *segments,
              guint  *n_items)
{
  Segment *segs = (Segment *)(gpointer)segments->data;
  int unit = coarsest_unit (segs, segments->len, 0, SJ_MIDI_PHRASE_STEPS);
  int beat = SJ_MIDI_PHRASE_STEPS / 4;
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean grouped = unit < beat;

  *n_items = 0;

  /* Quarters can be grouped when each segment either fills whole quarters
   * or stays inside one. */
  for (guint i = 0; i < segments->len && grouped; i++)
    {
      const Segment *s = &segs[i];
      gboolean whole = s->start % beat == 0 && s->len % beat == 0;
      gboolean inside = s->start / beat == (s->start + s->len - 1) / beat;

      grouped = whole || inside;
    }

  if (!grouped)
    {
      append_flat (out, segs, segments->len, unit, n_items);
      return g_string_free (g_steal_pointer (&out), FALSE);
    }

  for (guint i = 0; i < segments->len;)
    {
      const Segment *s = &segs[i];
      g_autoptr(GString) inner = NULL;
      guint first = i, inner_items = 0;
      int quarter = s->start / beat;

      if (s->start % beat == 0 && s->len % beat == 0)
        {
          append_flat (out, &segs[i], 1, beat, n_items);
          i++;
          continue;
        }

      while (i < segments->len && segs[i].start / beat == quarter)
        i++;
      inner = g_string_new (NULL);
      append_flat (inner, &segs[first], i - first, coarsest_unit (&segs[first], i - first, quarter * beat, beat),
                   &inner_items);
      g_string_append_printf (out, "%s[%s]", out->len > 0 ? " " : "", inner->str);
      (*n_items)++;
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/**
 * sj_midi_phrase_notate:
 * @events: (array length=n_events): what the MIDI input received, note-ons
 *   and note-offs with their times on the system clock (other messages
 *   are ignored)
 * @clock: the cycle each time sounds in
 * @first_cycle: the phrase's first cycle
 * @n_cycles: how many cycles it lasts
 *
 * Writes the notes played from @first_cycle for @n_cycles as Strudel
 * mini-notation quantized to sixteenths of a cycle (see the rules above).
 *
 * Returns: (transfer full) (nullable): note("…"), or %NULL when no note
 *   started in the phrase
 */
char *
sj_midi_phrase_notate (const SjMidiEvent  *events,
                       guint               n_events,
                       const SjCycleClock *clock,
                       gint64              first_cycle,
                       guint               n_cycles)
{
  int total = (int)n_cycles * SJ_MIDI_PHRASE_STEPS;
  g_autoptr(GArray) notes = NULL;
  g_autoptr(GArray) steps = NULL;
  g_autoptr(GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) out = g_string_new ("note(\"");

  g_return_val_if_fail (events != NULL || n_events == 0, NULL);
  g_return_val_if_fail (clock != NULL && clock->cps > 0, NULL);
  g_return_val_if_fail (n_cycles > 0 && n_cycles <= 1024, NULL);

  notes = pair_notes (events, n_events, clock, first_cycle);
  steps = quantize (notes, total);
  if (steps->len == 0)
    return NULL;

  if (n_cycles > 1)
    g_string_append_c (out, '<');

  for (guint c = 0; c < n_cycles; c++)
    {
      g_autoptr(GArray) segments = g_array_new (FALSE, FALSE, sizeof (Segment));
      g_autofree char *text = NULL;
      int begin = (int)c * SJ_MIDI_PHRASE_STEPS, end = begin + SJ_MIDI_PHRASE_STEPS;
      int at = begin, unit = SJ_MIDI_PHRASE_STEPS;
      guint n_items = 0;

      /* The grid this cycle's onsets need; releases are rounded on it, or
       * on quarters. */
      for (guint i = 0; i < steps->len; i++)
        {
          int on = g_array_index (steps, StepNote, i).on;

          while (on >= begin && on < end && (on - begin) % unit != 0)
            unit /= 2;
        }
      unit = MIN (unit, SJ_MIDI_PHRASE_STEPS / 4);

      /* Each onset of this cycle, in order. */
      while (at < end)
        {
          int onset = end, next = end, off;
          double released;
          char *token;

          for (guint i = 0; i < steps->len; i++)
            {
              int on = g_array_index (steps, StepNote, i).on;

              if (on >= at && on < onset)
                onset = on;
            }
          if (onset == end)
            break;
          for (guint i = 0; i < steps->len; i++)
            {
              int on = g_array_index (steps, StepNote, i).on;

              if (on > onset && on < next)
                next = on;
            }

          add_segment (segments, at - begin, onset - begin, NULL);
          token = chord_token (steps, onset, &released);
          g_ptr_array_add (tokens, token);
          off = isfinite (released) ? begin + round_to (released - begin, unit) : next;
          off = CLAMP (off, onset + unit, next);
          if (next - off < MIN_REST_STEPS)
            off = next;
          add_segment (segments, onset - begin, off - begin, token);
          add_segment (segments, off - begin, next - begin, NULL);
          at = next;
        }
      add_segment (segments, at - begin, end - begin, NULL);

      text = render_cycle (segments, &n_items);
      if (c > 0)
        g_string_append_c (out, ' ');
      if (n_cycles > 1 && n_items > 1)
        g_string_append_printf (out, "[%s]", text);
      else
        g_string_append (out, text);
    }

  if (n_cycles > 1)
    g_string_append_c (out, '>');
  g_string_append (out, "\")");

  return g_string_free (g_steal_pointer (&out), FALSE);
}
