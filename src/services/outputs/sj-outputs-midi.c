/* sj-outputs-midi.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The MIDI side of SjOutputs: opening the MIDI client (JACK, else the ALSA
 * sequencer, as Settings' backend allows) on the first .midi() hap,
 * queueing each hap's events, the Stop sent when the music stops
 * (sj_outputs_stopped()), and the JACK MIDI input that midin() listens to
 * (sj_outputs_open_midi_input()), polled for control changes; the same
 * input for Record a Phrase and Learn (sj_outputs_listen_midi()), which
 * need it to say why when it cannot open. Kept apart from sj-outputs.c,
 * which maps the clock, sends OSC and asks for consent.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-midi-events.h"
#include "sj-outputs-private.h"

/* MIDI --------------------------------------------------------------------- */

static void
open_midi (SjOutputs *self)
{
  g_autoptr(GError) jack_error = NULL;
  g_autoptr(GError) alsa_error = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean want_jack = g_strcmp0 (self->midi_backend, "alsa") != 0;
  gboolean want_alsa = g_strcmp0 (self->midi_backend, "jack") != 0;
  gboolean connected = TRUE;

  self->midi_tried = TRUE;

  if (want_jack)
    self->jack = sj_jack_midi_new (SJ_OUTPUTS_CLIENT_NAME, &jack_error);
  if (self->jack == NULL && want_alsa)
    self->alsa = sj_alsa_midi_new (SJ_OUTPUTS_CLIENT_NAME, &alsa_error);

  if (self->jack == NULL && self->alsa == NULL)
    {
      text = g_strdup_printf (_("MIDI is not sent: %s%s%s"),
                              jack_error ? jack_error->message : "",
                              jack_error && alsa_error ? "; " : "",
                              alsa_error ? alsa_error->message : "");
      _sj_outputs_report (self, "midi-backend", SJ_LOG_LEVEL_ERROR, text);
      return;
    }

  if (self->midi_destination != NULL && *self->midi_destination != '\0')
    connected = self->jack != NULL ? sj_jack_midi_connect (self->jack, self->midi_destination, &error)
                                   : sj_alsa_midi_connect (self->alsa, self->midi_destination, &error);
  if (!connected)
    _sj_outputs_report (self, "midi-destination", SJ_LOG_LEVEL_WARNING, error->message);

  if (self->jack != NULL)
    text = g_strdup_printf (_("Sending MIDI from the JACK port “%s”"), sj_jack_midi_get_port_name (self->jack));
  else
    text = g_strdup_printf (_("Sending MIDI from the ALSA sequencer port %d:%d"),
                            sj_alsa_midi_get_client (self->alsa), sj_alsa_midi_get_port (self->alsa));
  _sj_outputs_report (self, "midi-port", SJ_LOG_LEVEL_INFO, text);
}

void
_sj_outputs_send_midi (SjOutputs  *self,
                       JsonObject *controls,
                       gint64      epoch_us)
{
  g_autoptr(GArray) events = NULL;
  g_autoptr(GError) error = NULL;
  gboolean queued;

  events = sj_midi_events_from_controls (controls, epoch_us, &error);
  if (events == NULL)
    {
      g_autofree char *key = g_strconcat ("midi-value:", error->message, NULL);
      g_autofree char *text = g_strdup_printf (_("Dropped a .midi() event: %s"), error->message);

      _sj_outputs_report (self, key, SJ_LOG_LEVEL_WARNING, text);
      return;
    }

  if (!self->midi_tried)
    open_midi (self);
  if (events->len == 0)
    return;

  if (self->jack != NULL)
    queued = sj_jack_midi_queue (self->jack, (SjMidiEvent *)(gpointer)events->data, events->len, &error);
  else if (self->alsa != NULL)
    queued = sj_alsa_midi_queue (self->alsa, (SjMidiEvent *)(gpointer)events->data, events->len, &error);
  else
    return;

  if (!queued)
    _sj_outputs_report (self, "midi-error", SJ_LOG_LEVEL_ERROR, error->message);
}

/**
 * sj_outputs_stopped:
 *
 * The music stopped: a MIDI Stop goes to the MIDI port at once, as
 * @strudel/midi sends one to its outputs, so that sequencers and drum
 * machines following the clock stop too. Nothing is sent when .midi() was
 * never used.
 */
void
sj_outputs_stopped (SjOutputs *self)
{
  static const SjMidiEvent stop = { 0, { 0xFC, 0, 0 }, 1 };
  SjMidiEvent event = stop;
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_OUTPUTS (self));

  event.time_us = g_get_real_time ();
  if (self->jack != NULL && !sj_jack_midi_queue (self->jack, &event, 1, &error))
    _sj_outputs_report (self, "midi-error", SJ_LOG_LEVEL_ERROR, error->message);
  else if (self->alsa != NULL && !sj_alsa_midi_queue (self->alsa, &event, 1, &error))
    _sj_outputs_report (self, "midi-error", SJ_LOG_LEVEL_ERROR, error->message);
}

/* MIDI input ---------------------------------------------------------------- */

/* Control changes arrive in the process thread; a few milliseconds here is
 * well inside the time a knob takes to matter to a pattern. */
#define INPUT_POLL_MS 10

static gboolean
poll_input_cb (gpointer user_data)
{
  SjOutputs *self = user_data;
  g_autoptr(GString) json = g_string_new ("[");

  g_assert (SJ_IS_OUTPUTS (self));

  if (self->jack != NULL && sj_jack_midi_read_controls (self->jack, json) > 0)
    {
      g_string_append_c (json, ']');
      _sj_outputs_emit_midi_controls (self, json->str);
    }

  return G_SOURCE_CONTINUE;
}

/**
 * sj_outputs_open_midi_input:
 * @source: (nullable): part of the name of the MIDI output to listen to
 *   (midin()'s argument), or empty
 *
 * Opens the JACK MIDI input "midi_in" and connects @source to it; control
 * changes then come as ::midi-controls.
 */
void
sj_outputs_open_midi_input (SjOutputs  *self,
                            const char *source)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert (SJ_IS_OUTPUTS (self));

  if (!self->midi_tried)
    open_midi (self);
  if (self->jack == NULL)
    {
      _sj_outputs_report (self, "midi-input", SJ_LOG_LEVEL_ERROR,
              _("MIDI input (midin) needs a JACK server (PipeWire’s JACK support or jackd)"));
      return;
    }

  if (!sj_jack_midi_open_input (self->jack, source, &error))
    {
      g_autofree char *key = g_strconcat ("midi-input:", error->message, NULL);

      _sj_outputs_report (self, key, SJ_LOG_LEVEL_WARNING, error->message);
    }

  text = g_strdup_printf (_("Listening to MIDI control changes on “%s:midi_in”"), SJ_OUTPUTS_CLIENT_NAME);
  _sj_outputs_report (self, "midi-input-port", SJ_LOG_LEVEL_INFO, text);
  if (self->input_source == 0)
    self->input_source = g_timeout_add (INPUT_POLL_MS, poll_input_cb, self);
}

/**
 * sj_outputs_listen_midi:
 * @source: (nullable): part of the name of the MIDI output to listen to,
 *   or empty for every hardware MIDI output
 *
 * Opens the JACK MIDI input "midi_in" for Record a Phrase and Learn and
 * connects @source to it; control changes then come as ::midi-controls,
 * notes (while recording) from sj_outputs_take_notes(). A JACK server
 * started since MIDI was first opened (through ALSA) is used now.
 *
 * Returns: whether the input listens, else %FALSE with @error set
 *   (%SJ_JACK_MIDI_ERROR_NO_SERVER when no JACK server runs)
 */
gboolean
sj_outputs_listen_midi (SjOutputs   *self,
                        const char  *source,
                        GError     **error)
{
  g_assert (SJ_IS_OUTPUTS (self));

  if (g_strcmp0 (self->midi_backend, "alsa") == 0)
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_NO_SERVER,
                   _("MIDI goes through the ALSA sequencer (Settings, MIDI backend); MIDI input needs JACK"));
      return FALSE;
    }

  if (self->jack == NULL)
    {
      g_clear_object (&self->alsa);
      open_midi (self);
    }
  if (self->jack == NULL)
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_NO_SERVER,
                   _("No JACK server is running (PipeWire’s JACK support or jackd)"));
      return FALSE;
    }

  if (!sj_jack_midi_open_input (self->jack, source, error))
    return FALSE;
  if (source == NULL || *source == '\0')
    sj_jack_midi_connect_hardware_sources (self->jack);

  if (self->input_source == 0)
    self->input_source = g_timeout_add (INPUT_POLL_MS, poll_input_cb, self);
  return TRUE;
}

/**
 * sj_outputs_set_recording:
 * @recording: whether notes that reach the MIDI input are kept
 *
 * Starts (dropping what came before) or stops keeping the notes for
 * sj_outputs_take_notes(), once sj_outputs_listen_midi() succeeded.
 */
void
sj_outputs_set_recording (SjOutputs *self,
                          gboolean   recording)
{
  g_assert (SJ_IS_OUTPUTS (self));

  if (self->jack != NULL)
    sj_jack_midi_set_recording (self->jack, recording);
}

/**
 * sj_outputs_take_notes:
 * @events: (element-type SjMidiEvent): where to append the note-ons and
 *   note-offs received since the last call, with their system times
 *
 * Returns: how many were appended
 */
guint
sj_outputs_take_notes (SjOutputs *self,
                       GArray    *events)
{
  g_assert (SJ_IS_OUTPUTS (self));

  return self->jack != NULL ? sj_jack_midi_read_notes (self->jack, events) : 0;
}
