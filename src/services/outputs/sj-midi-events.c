/* sj-midi-events.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Turns the controls of one .midi() hap (data/web/src/outputs.mjs) into raw
 * MIDI messages with their times, as @strudel/midi does through WebMidi:
 * channels 1–16, velocity and control values from 0–1 scaled to 0–127,
 * pitch bend from −1–1 to 14 bits, a note-off after the note's duration,
 * the transport commands of midicmd. The backends (JACK, the ALSA
 * sequencer) only deliver the bytes, so both send exactly the same thing.
 *
 * The values come from the user's code: a value out of range drops the
 * whole hap with an error that says which control and why, rather than
 * sending something the user did not mean.
 */

#include "config.h"

#include <math.h>

#include "sj-midi-events.h"

G_DEFINE_QUARK (sj-midi-events-error-quark, sj_midi_events_error)

static gboolean
invalid (GError     **error,
         const char  *name,
         const char  *expected)
{
  g_set_error (error, SJ_MIDI_EVENTS_ERROR, SJ_MIDI_EVENTS_ERROR_INVALID,
               "%s must be %s", name, expected);
  return FALSE;
}

/* Reads an optional number control in [min, max]; FALSE (with @error) when
 * it is present but not such a number. */
static gboolean
number (JsonObject  *controls,
        const char  *name,
        double       min,
        double       max,
        gboolean    *present,
        double      *out,
        GError     **error)
{
  JsonNode *node = json_object_get_member (controls, name);
  GType type;

  *present = FALSE;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
    {
      g_autofree char *expected = g_strdup_printf ("a number from %g to %g", min, max);
      return invalid (error, name, expected);
    }

  *out = json_node_get_double (node);
  if (!isfinite (*out) || *out < min || *out > max)
    {
      g_autofree char *expected = g_strdup_printf ("a number from %g to %g, not %g", min, max, *out);
      return invalid (error, name, expected);
    }

  *present = TRUE;
  return TRUE;
}

static void
add (GArray *events,
     gint64  time_us,
     guint8  status,
     int     data1,
     int     data2,
     guint8  size)
{
  SjMidiEvent event = { time_us, { status, (guint8)data1, (guint8)data2 }, size };

  g_array_append_val (events, event);
}

static guint8
scale_127 (double value)
{
  return (guint8)CLAMP (lround (value * 127), 0, 127);
}

/**
 * sj_midi_events_from_controls:
 * @controls: a .midi() hap's controls: midichan, note, velocity, duration
 *   (seconds), ccn/ccv, progNum, midibend, miditouch, midicmd, start
 * @time_us: when the hap is due, in microseconds since the epoch
 *
 * Returns: (transfer full): the hap's MIDI messages in the order they are
 *   sent, or %NULL with @error set when a control is out of range
 */
GArray *
sj_midi_events_from_controls (JsonObject  *controls,
                              gint64       time_us,
                              GError     **error)
{
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (SjMidiEvent));
  gboolean has_chan, has_note, has_velocity, has_duration, has_ccn, has_ccv;
  gboolean has_program, has_bend, has_touch;
  double chan = 1, note = 0, velocity = 0.9, duration = 0, ccn = 0, ccv = 0;
  double program = 0, bend = 0, touch = 0;
  const char *command;
  guint8 channel;

  g_return_val_if_fail (controls != NULL, NULL);

  if (!number (controls, "midichan", 1, 16, &has_chan, &chan, error) ||
      !number (controls, "note", 0, 127, &has_note, &note, error) ||
      !number (controls, "velocity", 0, 1, &has_velocity, &velocity, error) ||
      !number (controls, "duration", 0, 3600, &has_duration, &duration, error) ||
      !number (controls, "ccn", 0, 127, &has_ccn, &ccn, error) ||
      !number (controls, "ccv", 0, 1, &has_ccv, &ccv, error) ||
      !number (controls, "progNum", 0, 127, &has_program, &program, error) ||
      !number (controls, "midibend", -1, 1, &has_bend, &bend, error) ||
      !number (controls, "miditouch", 0, 1, &has_touch, &touch, error))
    return NULL;

  if (has_chan && chan != floor (chan))
    return invalid (error, "midichan", "a whole number from 1 to 16"), NULL;
  if (has_ccn && ccn != floor (ccn))
    return invalid (error, "ccn", "a whole number from 0 to 127"), NULL;
  if (has_program && program != floor (program))
    return invalid (error, "progNum", "a whole number from 0 to 127"), NULL;

  channel = (guint8)(chan - 1);

  command = json_object_get_string_member_with_default (controls, "midicmd", NULL);
  if (command != NULL && g_strcmp0 (command, "clock") != 0 && g_strcmp0 (command, "midiClock") != 0 &&
      g_strcmp0 (command, "start") != 0 && g_strcmp0 (command, "stop") != 0 &&
      g_strcmp0 (command, "continue") != 0)
    return invalid (error, "midicmd", "clock, start, stop or continue"), NULL;

  /* Upstream sends a start with the very first hap of cycle 0. */
  if (json_object_get_boolean_member_with_default (controls, "start", FALSE) || g_strcmp0 (command, "start") == 0)
    add (events, time_us, 0xFA, 0, 0, 1);
  if (g_strcmp0 (command, "continue") == 0)
    add (events, time_us, 0xFB, 0, 0, 1);
  if (g_strcmp0 (command, "clock") == 0 || g_strcmp0 (command, "midiClock") == 0)
    add (events, time_us, 0xF8, 0, 0, 1);

  if (has_program)
    add (events, time_us, 0xC0 | channel, (int)program, 0, 2);
  if (has_ccn && has_ccv)
    add (events, time_us, 0xB0 | channel, (int)ccn, scale_127 (ccv), 3);
  if (has_bend)
    {
      int level = (int)CLAMP (lround ((bend + 1) / 2 * 16383), 0, 16383);

      add (events, time_us, 0xE0 | channel, level & 0x7F, (level >> 7) & 0x7F, 3);
    }
  if (has_touch)
    add (events, time_us, 0xD0 | channel, scale_127 (touch), 0, 2);

  if (has_note)
    {
      int key = (int)CLAMP (lround (note), 0, 127);
      gint64 off_us = time_us + (gint64)llround (duration * 1e6);

      add (events, time_us, 0x90 | channel, key, scale_127 (velocity), 3);
      add (events, off_us, 0x80 | channel, key, 0, 3);
    }

  if (g_strcmp0 (command, "stop") == 0)
    add (events, time_us, 0xFC, 0, 0, 1);

  return g_steal_pointer (&events);
}
