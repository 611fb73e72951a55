/* sj-jack-midi.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "sj-midi-events.h"

G_BEGIN_DECLS

#define SJ_TYPE_JACK_MIDI (sj_jack_midi_get_type ())

G_DECLARE_FINAL_TYPE (SjJackMidi, sj_jack_midi, SJ, JACK_MIDI, GObject)

#define SJ_JACK_MIDI_ERROR (sj_jack_midi_error_quark ())

typedef enum
{
  SJ_JACK_MIDI_ERROR_NO_SERVER,
  SJ_JACK_MIDI_ERROR_FAILED,
  SJ_JACK_MIDI_ERROR_FULL,
  SJ_JACK_MIDI_ERROR_GONE,
} SjJackMidiError;

GQuark      sj_jack_midi_error_quark (void);
SjJackMidi *sj_jack_midi_new         (const char        *client_name,
                                      GError           **error);
const char *sj_jack_midi_get_port_name (SjJackMidi      *self);
gboolean    sj_jack_midi_connect     (SjJackMidi        *self,
                                      const char        *destination,
                                      GError           **error);
gboolean    sj_jack_midi_open_input  (SjJackMidi        *self,
                                      const char        *source,
                                      GError           **error);
guint       sj_jack_midi_read_controls (SjJackMidi      *self,
                                      GString           *json);
gboolean    sj_jack_midi_queue       (SjJackMidi        *self,
                                      const SjMidiEvent *events,
                                      guint              n_events,
                                      GError           **error);
void        sj_jack_midi_set_recording (SjJackMidi      *self,
                                      gboolean           recording);
guint       sj_jack_midi_read_notes  (SjJackMidi        *self,
                                      GArray            *events);
guint       sj_jack_midi_connect_hardware_sources (SjJackMidi *self);

G_END_DECLS
