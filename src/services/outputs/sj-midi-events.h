/* sj-midi-events.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* One MIDI message and when it is due, in microseconds since the epoch. */
typedef struct
{
  gint64 time_us;
  guint8 data[3];
  guint8 size;
} SjMidiEvent;

#define SJ_MIDI_EVENTS_ERROR (sj_midi_events_error_quark ())

typedef enum
{
  SJ_MIDI_EVENTS_ERROR_INVALID,
} SjMidiEventsError;

GQuark  sj_midi_events_error_quark (void);
GArray *sj_midi_events_from_controls (JsonObject  *controls,
                                      gint64       time_us,
                                      GError     **error);

G_END_DECLS
