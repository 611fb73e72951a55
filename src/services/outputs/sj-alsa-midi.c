/* sj-alsa-midi.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The ALSA sequencer, where the machine has one (/dev/snd/seq): a client
 * named after the app with one readable port, and a queue running on the
 * sequencer's real-time clock. Each event is scheduled on the queue at its
 * time (the system time it is due, minus the system time the queue was
 * started at), so the kernel delivers it on time to every subscriber: a
 * destination chosen in Settings, or any connection made with aconnect or
 * a patchbay.
 */

#include "config.h"

#include <alsa/asoundlib.h>
#include <glib/gi18n.h>

#include "sj-alsa-midi.h"

struct _SjAlsaMidi
{
  GObject    parent_instance;

  snd_seq_t *seq;
  int        port;
  int        queue;
  gint64     started_us;  /* the system time of the queue's zero */
};

G_DEFINE_FINAL_TYPE (SjAlsaMidi, sj_alsa_midi, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-alsa-midi-error-quark, sj_alsa_midi_error)

static void
sj_alsa_midi_finalize (GObject *object)
{
  SjAlsaMidi *self = SJ_ALSA_MIDI (object);

  if (self->seq != NULL)
    {
      snd_seq_drain_output (self->seq);
      snd_seq_close (self->seq);
    }

  G_OBJECT_CLASS (sj_alsa_midi_parent_class)->finalize (object);
}

static void
sj_alsa_midi_class_init (SjAlsaMidiClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_alsa_midi_finalize;
}

static void
sj_alsa_midi_init (SjAlsaMidi *self)
{
  self->port = -1;
  self->queue = -1;
}

/**
 * sj_alsa_midi_new:
 * @client_name: the client's and the port's name, the app's
 *
 * Returns: (transfer full) (nullable): the client, or %NULL with @error
 *   set (%SJ_ALSA_MIDI_ERROR_NO_SEQUENCER without /dev/snd/seq)
 */
SjAlsaMidi *
sj_alsa_midi_new (const char  *client_name,
                  GError     **error)
{
  g_autoptr(SjAlsaMidi) self = g_object_new (SJ_TYPE_ALSA_MIDI, NULL);
  int result;

  g_return_val_if_fail (client_name != NULL, NULL);

  if (!g_file_test (SJ_ALSA_SEQ_DEVICE, G_FILE_TEST_EXISTS) ||
      snd_seq_open (&self->seq, "default", SND_SEQ_OPEN_OUTPUT, SND_SEQ_NONBLOCK) < 0)
    {
      self->seq = NULL;
      g_set_error (error, SJ_ALSA_MIDI_ERROR, SJ_ALSA_MIDI_ERROR_NO_SEQUENCER,
                   _("This machine has no ALSA sequencer (%s)"), SJ_ALSA_SEQ_DEVICE);
      return NULL;
    }

  snd_seq_set_client_name (self->seq, client_name);
  self->port = snd_seq_create_simple_port (self->seq, client_name,
                                           SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ,
                                           SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
  self->queue = snd_seq_alloc_named_queue (self->seq, client_name);
  if (self->port < 0 || self->queue < 0)
    {
      g_set_error (error, SJ_ALSA_MIDI_ERROR, SJ_ALSA_MIDI_ERROR_FAILED,
                   _("Could not create the ALSA sequencer port"));
      return NULL;
    }

  result = snd_seq_start_queue (self->seq, self->queue, NULL);
  if (result >= 0)
    result = snd_seq_drain_output (self->seq);
  self->started_us = g_get_real_time ();
  if (result < 0)
    {
      g_set_error (error, SJ_ALSA_MIDI_ERROR, SJ_ALSA_MIDI_ERROR_FAILED,
                   _("Could not start the ALSA sequencer queue: %s"), snd_strerror (result));
      return NULL;
    }

  return g_steal_pointer (&self);
}

int
sj_alsa_midi_get_client (SjAlsaMidi *self)
{
  g_assert (SJ_IS_ALSA_MIDI (self));

  return snd_seq_client_id (self->seq);
}

int
sj_alsa_midi_get_port (SjAlsaMidi *self)
{
  g_assert (SJ_IS_ALSA_MIDI (self));

  return self->port;
}

/**
 * sj_alsa_midi_connect:
 * @destination: "client:port", by number or name ("FLUID Synth:0")
 */
gboolean
sj_alsa_midi_connect (SjAlsaMidi  *self,
                      const char  *destination,
                      GError     **error)
{
  snd_seq_addr_t address;

  g_assert (SJ_IS_ALSA_MIDI (self));

  if (snd_seq_parse_address (self->seq, &address, destination) < 0 ||
      snd_seq_connect_to (self->seq, self->port, address.client, address.port) < 0)
    {
      g_set_error (error, SJ_ALSA_MIDI_ERROR, SJ_ALSA_MIDI_ERROR_FAILED,
                   _("No ALSA sequencer port named “%s”"), destination);
      return FALSE;
    }

  return TRUE;
}

static void
fill_event (snd_seq_event_t   *ev,
            const SjMidiEvent *event)
{
  guint8 status = event->data[0];
  guint8 channel = status & 0x0F;

  switch (status & 0xF0)
    {
    case 0x90:
      snd_seq_ev_set_noteon (ev, channel, event->data[1], event->data[2]);
      break;
    case 0x80:
      snd_seq_ev_set_noteoff (ev, channel, event->data[1], event->data[2]);
      break;
    case 0xB0:
      snd_seq_ev_set_controller (ev, channel, event->data[1], event->data[2]);
      break;
    case 0xC0:
      snd_seq_ev_set_pgmchange (ev, channel, event->data[1]);
      break;
    case 0xD0:
      snd_seq_ev_set_chanpress (ev, channel, event->data[1]);
      break;
    case 0xE0:
      snd_seq_ev_set_pitchbend (ev, channel, (event->data[1] | (event->data[2] << 7)) - 8192);
      break;
    default:
      ev->type = status == 0xFA ? SND_SEQ_EVENT_START :
                 status == 0xFB ? SND_SEQ_EVENT_CONTINUE :
                 status == 0xFC ? SND_SEQ_EVENT_STOP : SND_SEQ_EVENT_CLOCK;
      snd_seq_ev_set_fixed (ev);
      break;
    }
}

/**
 * sj_alsa_midi_queue:
 * @events: (array length=n_events): MIDI messages with their system times
 *
 * Schedules the events on the queue, at their times.
 */
gboolean
sj_alsa_midi_queue (SjAlsaMidi         *self,
                    const SjMidiEvent  *events,
                    guint               n_events,
                    GError            **error)
{
  int result = 0;

  g_assert (SJ_IS_ALSA_MIDI (self));

  for (guint i = 0; i < n_events && result >= 0; i++)
    {
      gint64 at_us = MAX (0, events[i].time_us - self->started_us);
      snd_seq_real_time_t when = { (unsigned int)(at_us / G_USEC_PER_SEC),
                                   (unsigned int)(at_us % G_USEC_PER_SEC) * 1000 };
      snd_seq_event_t ev;

      snd_seq_ev_clear (&ev);
      snd_seq_ev_set_source (&ev, self->port);
      snd_seq_ev_set_subs (&ev);
      snd_seq_ev_schedule_real (&ev, self->queue, 0, &when);
      fill_event (&ev, &events[i]);
      result = snd_seq_event_output (self->seq, &ev);
    }

  if (result >= 0)
    result = snd_seq_drain_output (self->seq);

  if (result < 0 && result != -EAGAIN)
    {
      g_set_error (error, SJ_ALSA_MIDI_ERROR, SJ_ALSA_MIDI_ERROR_FAILED,
                   _("Could not send to the ALSA sequencer: %s"), snd_strerror (result));
      return FALSE;
    }

  return TRUE;
}
