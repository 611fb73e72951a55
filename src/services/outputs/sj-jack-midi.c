/* sj-jack-midi.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A JACK client (named after the app) with one MIDI output port. JACK is
 * what PipeWire desktops provide for MIDI, with the hardware ports bridged,
 * so any synthesizer or patchbay sees the port.
 *
 * Events come from the main thread with their time on the system clock;
 * they are converted to JACK's own clock (jack_get_time(), sampled against
 * the system clock on each call) and passed through a lock-free ringbuffer
 * to the process callback, which keeps the ones not yet due in a small
 * sorted array it alone owns and writes each one in the period where it
 * falls (jack_get_cycle_times()), at its exact frame offset: timing is then as good as the period
 * boundary and the conversion, with no thread of ours in between. Nothing
 * in the process callback allocates, locks or logs.
 *
 * The input port "midi_in" (added when asked for) passes control changes
 * on to midin() and, while a phrase is recorded (Record a Phrase), note-ons
 * and note-offs with their times, through ringbuffers of their own.
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/ringbuffer.h>

#include "sj-jack-midi.h"

/* Events waiting in the process thread; more than this pending is a
 * pattern far denser than MIDI can carry anyway. */
#define MAX_PENDING 4096
#define RINGBUFFER_EVENTS 4096

typedef struct
{
  jack_time_t time;
  guint8      data[3];
  guint8      size;
} Event;

struct _SjJackMidi
{
  GObject            parent_instance;

  jack_client_t     *client;
  jack_port_t       *port;
  jack_port_t       *in_port;   /* atomic pointer: set once, when midin() asks */
  jack_ringbuffer_t *ring;
  jack_ringbuffer_t *in_ring;   /* control changes read, 3 bytes each */
  jack_ringbuffer_t *note_ring; /* notes read while recording, as Events */
  gint               recording; /* atomic: notes go to note_ring */
  char              *port_name;
  gint               gone;   /* atomic: the server shut the client down */

  /* The process thread's own. */
  Event             *pending;  /* MAX_PENDING, allocated up front */
  guint              n_pending;
};

G_DEFINE_FINAL_TYPE (SjJackMidi, sj_jack_midi, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-jack-midi-error-quark, sj_jack_midi_error)

/* Keeps the pending array sorted by time, later events last. */
static void
insert_pending (SjJackMidi  *self,
                const Event *event)
{
  guint i;

  if (self->n_pending == MAX_PENDING)
    return;

  for (i = self->n_pending; i > 0 && self->pending[i - 1].time > event->time; i--)
    self->pending[i] = self->pending[i - 1];
  self->pending[i] = *event;
  self->n_pending++;
}

/* Control changes from the input port go to the main thread as they come,
 * and notes with their times (from their frames) while a phrase is
 * recorded; the rest of what arrives is for neither. */
static void
read_input (SjJackMidi     *self,
            jack_nframes_t  nframes)
{
  jack_port_t *in_port = g_atomic_pointer_get (&self->in_port);
  gboolean recording = g_atomic_int_get (&self->recording);
  jack_nframes_t frames;
  jack_time_t current_usecs = 0, next_usecs = 0;
  float period_usecs;
  void *buffer;
  guint32 n;

  if (in_port == NULL)
    return;

  if (recording &&
      (jack_get_cycle_times (self->client, &frames, &current_usecs, &next_usecs, &period_usecs) != 0 ||
       next_usecs <= current_usecs))
    next_usecs = current_usecs = jack_get_time ();

  buffer = jack_port_get_buffer (in_port, nframes);
  n = jack_midi_get_event_count (buffer);
  for (guint32 i = 0; i < n; i++)
    {
      jack_midi_event_t event;
      guint8 status;

      if (jack_midi_event_get (&event, buffer, i) != 0 || event.size != 3)
        continue;
      status = event.buffer[0] & 0xF0;
      if (status == 0xB0)
        {
          if (jack_ringbuffer_write_space (self->in_ring) >= 3)
            jack_ringbuffer_write (self->in_ring, (const char *)event.buffer, 3);
        }
      else if (recording && (status == 0x80 || status == 0x90) &&
               jack_ringbuffer_write_space (self->note_ring) >= sizeof (Event))
        {
          Event note = { current_usecs + (jack_time_t)((double)event.time * (next_usecs - current_usecs) / nframes),
                         { event.buffer[0], event.buffer[1], event.buffer[2] }, 3 };

          jack_ringbuffer_write (self->note_ring, (const char *)&note, sizeof (Event));
        }
    }
}

static int
process_cb (jack_nframes_t  nframes,
            void           *user_data)
{
  SjJackMidi *self = user_data;
  void *buffer = jack_port_get_buffer (self->port, nframes);
  jack_nframes_t frames, last_offset = 0;
  jack_time_t current_usecs, next_usecs;
  float period_usecs;
  double usecs_per_frame;
  Event event;
  guint done = 0;

  jack_midi_clear_buffer (buffer);
  read_input (self, nframes);

  while (jack_ringbuffer_read_space (self->ring) >= sizeof (Event))
    {
      jack_ringbuffer_read (self->ring, (char *)&event, sizeof (Event));
      insert_pending (self, &event);
    }

  /* This period covers [current_usecs, next_usecs) on JACK's clock: an
   * event is written here when it falls before its end, at the frame its
   * time gives within the period (the server's own estimate, so no
   * extrapolation over a long time, which an xrun would skew). */
  if (jack_get_cycle_times (self->client, &frames, &current_usecs, &next_usecs, &period_usecs) != 0 ||
      next_usecs <= current_usecs)
    return 0;
  usecs_per_frame = (double)(next_usecs - current_usecs) / nframes;

  for (; done < self->n_pending; done++)
    {
      const Event *e = &self->pending[done];
      jack_nframes_t offset = 0;

      if (e->time >= next_usecs)
        break;
      /* Late events go out at once, and offsets never go backwards. */
      if (e->time > current_usecs)
        offset = MIN ((jack_nframes_t)((e->time - current_usecs) / usecs_per_frame), nframes - 1);
      offset = MAX (offset, last_offset);
      if (jack_midi_event_write (buffer, offset, e->data, e->size) != 0)
        break;
      last_offset = offset;
    }

  if (done > 0)
    {
      memmove (self->pending, self->pending + done, (self->n_pending - done) * sizeof (Event));
      self->n_pending -= done;
    }

  return 0;
}

static void
shutdown_cb (void *user_data)
{
  SjJackMidi *self = user_data;

  g_atomic_int_set (&self->gone, 1);
}

static void
sj_jack_midi_finalize (GObject *object)
{
  SjJackMidi *self = SJ_JACK_MIDI (object);

  if (self->client != NULL)
    {
      if (!g_atomic_int_get (&self->gone))
        jack_deactivate (self->client);
      jack_client_close (self->client);
    }
  g_clear_pointer (&self->ring, jack_ringbuffer_free);
  g_clear_pointer (&self->in_ring, jack_ringbuffer_free);
  g_clear_pointer (&self->note_ring, jack_ringbuffer_free);
  g_clear_pointer (&self->port_name, g_free);
  g_clear_pointer (&self->pending, g_free);

  G_OBJECT_CLASS (sj_jack_midi_parent_class)->finalize (object);
}

static void
sj_jack_midi_class_init (SjJackMidiClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_jack_midi_finalize;
}

static void
sj_jack_midi_init (SjJackMidi *self)
{
  self->pending = g_new (Event, MAX_PENDING);
}

static void
silent_error_cb (const char *message)
{
  g_debug ("JACK: %s", message);
}

/**
 * sj_jack_midi_new:
 * @client_name: the client's name, the app's
 *
 * Opens a client on the running JACK server (never starting one) with an
 * output port "midi_out".
 *
 * Returns: (transfer full) (nullable): the client, or %NULL with @error
 *   set (%SJ_JACK_MIDI_ERROR_NO_SERVER when no server runs)
 */
SjJackMidi *
sj_jack_midi_new (const char  *client_name,
                  GError     **error)
{
  g_autoptr(SjJackMidi) self = g_object_new (SJ_TYPE_JACK_MIDI, NULL);
  jack_status_t status = 0;

  g_return_val_if_fail (client_name != NULL, NULL);

  /* libjack prints to stderr when no server runs; that is an answer, not
   * an error to show in a terminal. */
  jack_set_error_function (silent_error_cb);
  jack_set_info_function (silent_error_cb);

  self->client = jack_client_open (client_name, JackNoStartServer, &status);
  if (self->client == NULL)
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_NO_SERVER,
                   _("No JACK server is running (PipeWire’s JACK support or jackd)"));
      return NULL;
    }

  self->ring = jack_ringbuffer_create (RINGBUFFER_EVENTS * sizeof (Event));
  self->in_ring = jack_ringbuffer_create (RINGBUFFER_EVENTS * 3);
  self->note_ring = jack_ringbuffer_create (RINGBUFFER_EVENTS * sizeof (Event));
  jack_ringbuffer_mlock (self->ring);
  self->port = jack_port_register (self->client, "midi_out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
  if (self->port == NULL ||
      jack_set_process_callback (self->client, process_cb, self) != 0)
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_FAILED,
                   _("Could not create the JACK MIDI port"));
      return NULL;
    }
  jack_on_shutdown (self->client, shutdown_cb, self);

  if (jack_activate (self->client) != 0)
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_FAILED,
                   _("Could not start the JACK client"));
      return NULL;
    }

  self->port_name = g_strdup (jack_port_name (self->port));
  return g_steal_pointer (&self);
}

/**
 * sj_jack_midi_get_port_name:
 *
 * Returns: the port's full name ("Strudel Jam:midi_out")
 */
const char *
sj_jack_midi_get_port_name (SjJackMidi *self)
{
  g_assert (SJ_IS_JACK_MIDI (self));

  return self->port_name;
}

/**
 * sj_jack_midi_connect:
 * @destination: a MIDI input port, by its full name or a part of it
 *
 * Connects the output port to the first MIDI input port whose name
 * contains @destination.
 */
gboolean
sj_jack_midi_connect (SjJackMidi  *self,
                      const char  *destination,
                      GError     **error)
{
  g_autofree const char **ports = NULL;
  int result;

  g_assert (SJ_IS_JACK_MIDI (self));
  g_return_val_if_fail (destination != NULL, FALSE);

  ports = jack_get_ports (self->client, NULL, JACK_DEFAULT_MIDI_TYPE, JackPortIsInput);
  for (guint i = 0; ports != NULL && ports[i] != NULL; i++)
    {
      if (strstr (ports[i], destination) == NULL)
        continue;
      result = jack_connect (self->client, self->port_name, ports[i]);
      if (result == 0 || result == EEXIST)
        return TRUE;
    }

  g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_FAILED,
               _("No JACK MIDI input named “%s”"), destination);
  return FALSE;
}

/**
 * sj_jack_midi_open_input:
 * @source: (nullable): part of the name of a MIDI output port to connect
 *   from, or empty to leave it to a patchbay
 *
 * Adds the input port "midi_in" (once) and connects @source to it.
 */
gboolean
sj_jack_midi_open_input (SjJackMidi  *self,
                         const char  *source,
                         GError     **error)
{
  g_autofree const char **ports = NULL;
  jack_port_t *in_port = g_atomic_pointer_get (&self->in_port);
  int result;

  g_assert (SJ_IS_JACK_MIDI (self));

  if (in_port == NULL)
    {
      in_port = jack_port_register (self->client, "midi_in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
      if (in_port == NULL)
        {
          g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_FAILED,
                       _("Could not create the JACK MIDI input port"));
          return FALSE;
        }
      g_atomic_pointer_set (&self->in_port, in_port);
    }

  if (source == NULL || *source == '\0')
    return TRUE;

  ports = jack_get_ports (self->client, NULL, JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput);
  for (guint i = 0; ports != NULL && ports[i] != NULL; i++)
    {
      if (strstr (ports[i], source) == NULL || g_strcmp0 (ports[i], self->port_name) == 0)
        continue;
      result = jack_connect (self->client, ports[i], jack_port_name (in_port));
      if (result == 0 || result == EEXIST)
        return TRUE;
    }

  g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_FAILED,
               _("No JACK MIDI output named “%s” to listen to"), source);
  return FALSE;
}

/**
 * sj_jack_midi_read_controls:
 * @json: where to append the control changes read, as JSON
 *   [channel, control, value] triples separated by commas
 *
 * Returns: how many were read
 */
guint
sj_jack_midi_read_controls (SjJackMidi *self,
                            GString    *json)
{
  guint8 data[3];
  guint n = 0;

  g_assert (SJ_IS_JACK_MIDI (self));

  while (jack_ringbuffer_read_space (self->in_ring) >= 3)
    {
      jack_ringbuffer_read (self->in_ring, (char *)data, 3);
      g_string_append_printf (json, "%s[%d,%d,%d]", json->len > 1 ? "," : "",
                              (data[0] & 0x0F) + 1, data[1] & 0x7F, data[2] & 0x7F);
      n++;
    }

  return n;
}

/**
 * sj_jack_midi_queue:
 * @events: (array length=n_events): MIDI messages with their system times
 *
 * Hands events to the process thread, which sends each one at its frame.
 */
gboolean
sj_jack_midi_queue (SjJackMidi         *self,
                    const SjMidiEvent  *events,
                    guint               n_events,
                    GError            **error)
{
  /* The offset of JACK's clock from the system clock, read now: both run
   * at the same rate, so one reading serves the whole call. */
  gint64 jack_minus_epoch;

  g_assert (SJ_IS_JACK_MIDI (self));

  if (g_atomic_int_get (&self->gone))
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_GONE,
                   _("The JACK server stopped; MIDI is no longer sent"));
      return FALSE;
    }

  jack_minus_epoch = (gint64)jack_get_time () - g_get_real_time ();

  if (jack_ringbuffer_write_space (self->ring) < n_events * sizeof (Event))
    {
      g_set_error (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_FULL,
                   _("Too many MIDI events at once; some were dropped"));
      return FALSE;
    }

  for (guint i = 0; i < n_events; i++)
    {
      Event event = { (jack_time_t)MAX (0, events[i].time_us + jack_minus_epoch), { 0 }, events[i].size };

      memcpy (event.data, events[i].data, sizeof event.data);
      jack_ringbuffer_write (self->ring, (const char *)&event, sizeof (Event));
    }

  return TRUE;
}

/**
 * sj_jack_midi_set_recording:
 * @recording: whether notes that reach the input port are kept
 *
 * Starts or stops keeping note-ons and note-offs for
 * sj_jack_midi_read_notes(); starting drops what was left from before.
 */
void
sj_jack_midi_set_recording (SjJackMidi *self,
                            gboolean    recording)
{
  g_assert (SJ_IS_JACK_MIDI (self));

  if (recording)
    {
      g_atomic_int_set (&self->recording, FALSE);
      jack_ringbuffer_read_advance (self->note_ring, jack_ringbuffer_read_space (self->note_ring));
    }
  g_atomic_int_set (&self->recording, !!recording);
}

/**
 * sj_jack_midi_read_notes:
 * @events: (element-type SjMidiEvent): where to append the notes read,
 *   with their times on the system clock
 *
 * Returns: how many were read
 */
guint
sj_jack_midi_read_notes (SjJackMidi *self,
                         GArray     *events)
{
  /* As in sj_jack_midi_queue(): both clocks run at the same rate. */
  gint64 jack_minus_epoch = (gint64)jack_get_time () - g_get_real_time ();
  Event note;
  guint n = 0;

  g_assert (SJ_IS_JACK_MIDI (self));

  while (jack_ringbuffer_read_space (self->note_ring) >= sizeof (Event))
    {
      SjMidiEvent event = { 0 };

      jack_ringbuffer_read (self->note_ring, (char *)&note, sizeof (Event));
      event.time_us = (gint64)note.time - jack_minus_epoch;
      memcpy (event.data, note.data, sizeof event.data);
      event.size = note.size;
      g_array_append_val (events, event);
      n++;
    }

  return n;
}

/**
 * sj_jack_midi_connect_hardware_sources:
 *
 * Connects every hardware MIDI output (JACK's physical ports: keyboards
 * and controllers) to the input port, once sj_jack_midi_open_input() made
 * it.
 *
 * Returns: how many are connected
 */
guint
sj_jack_midi_connect_hardware_sources (SjJackMidi *self)
{
  g_autofree const char **ports = NULL;
  jack_port_t *in_port = g_atomic_pointer_get (&self->in_port);
  guint n = 0;

  g_assert (SJ_IS_JACK_MIDI (self));

  if (in_port == NULL)
    return 0;

  ports = jack_get_ports (self->client, NULL, JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput | JackPortIsPhysical);
  for (guint i = 0; ports != NULL && ports[i] != NULL; i++)
    {
      int result = jack_connect (self->client, ports[i], jack_port_name (in_port));

      if (result == 0 || result == EEXIST)
        n++;
    }

  return n;
}
