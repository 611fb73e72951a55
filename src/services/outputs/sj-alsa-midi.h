/* sj-alsa-midi.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "sj-midi-events.h"

G_BEGIN_DECLS

#define SJ_TYPE_ALSA_MIDI (sj_alsa_midi_get_type ())

G_DECLARE_FINAL_TYPE (SjAlsaMidi, sj_alsa_midi, SJ, ALSA_MIDI, GObject)

#define SJ_ALSA_MIDI_ERROR (sj_alsa_midi_error_quark ())

typedef enum
{
  SJ_ALSA_MIDI_ERROR_NO_SEQUENCER,
  SJ_ALSA_MIDI_ERROR_FAILED,
} SjAlsaMidiError;

#define SJ_ALSA_SEQ_DEVICE "/dev/snd/seq"

GQuark      sj_alsa_midi_error_quark (void);
SjAlsaMidi *sj_alsa_midi_new         (const char        *client_name,
                                      GError           **error);
int         sj_alsa_midi_get_client  (SjAlsaMidi        *self);
int         sj_alsa_midi_get_port    (SjAlsaMidi        *self);
gboolean    sj_alsa_midi_connect     (SjAlsaMidi        *self,
                                      const char        *destination,
                                      GError           **error);
gboolean    sj_alsa_midi_queue       (SjAlsaMidi        *self,
                                      const SjMidiEvent *events,
                                      guint              n_events,
                                      GError           **error);

G_END_DECLS
