/* sj-test-jack.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A private JACK server for the MIDI tests, in user space: jackd with the
 * dummy driver (48 kHz, 256-frame periods, no real-time rights needed)
 * under a server name of its own (JACK_DEFAULT_SERVER, so the app under
 * test finds it and nothing else is disturbed), and a receiver client
 * "sj-test-receiver" with a MIDI input "in" that records every event with
 * its time on JACK's clock, and a MIDI output "out" the test sends from,
 * at once or each message at its own time (to the frame).
 */

#include <jack/midiport.h>
#include <jack/ringbuffer.h>
#include <string.h>
#include <unistd.h>

#include "sj-test-jack.h"

#define MAX_SCHEDULED 1024

struct _SjTestJack
{
  GSubprocess       *process;
  jack_client_t     *receiver;
  jack_port_t       *port;
  jack_port_t       *out_port;
  jack_ringbuffer_t *received;
  jack_ringbuffer_t *to_send;  /* 3-byte messages for "out" */
  jack_ringbuffer_t *to_schedule; /* SjTestMidiEvents for "out", at their times */
  SjTestMidiEvent    scheduled[MAX_SCHEDULED]; /* the process thread's: sorted */
  guint              n_scheduled;
  guint              connected_periods; /* the process thread's */
  gint               xruns;    /* atomic */
  gint               max_late_us; /* atomic: the latest scheduled message */
};

/* The dummy driver without real-time rights misses periods when the
 * machine is busy: events due then come a period late, which is the
 * server's doing. The tests count these. */
static int
xrun_cb (void *user_data)
{
  SjTestJack *jack = user_data;

  g_atomic_int_inc (&jack->xruns);
  return 0;
}

/* Messages sent at their times: each in the period where it falls, at its
 * frame (late ones at once). */
static void
send_scheduled (SjTestJack     *jack,
                void           *out,
                jack_nframes_t  nframes,
                jack_time_t     current_usecs,
                jack_time_t     next_usecs)
{
  SjTestMidiEvent event;
  jack_nframes_t last = 0;
  guint done = 0;

  while (jack_ringbuffer_read_space (jack->to_schedule) >= sizeof event)
    {
      guint i;

      jack_ringbuffer_read (jack->to_schedule, (char *)&event, sizeof event);
      if (jack->n_scheduled == MAX_SCHEDULED)
        continue;
      for (i = jack->n_scheduled; i > 0 && jack->scheduled[i - 1].time > event.time; i--)
        jack->scheduled[i] = jack->scheduled[i - 1];
      jack->scheduled[i] = event;
      jack->n_scheduled++;
    }

  for (; done < jack->n_scheduled && jack->scheduled[done].time < next_usecs; done++)
    {
      const SjTestMidiEvent *e = &jack->scheduled[done];
      jack_nframes_t offset = 0;

      /* A period that came after the message's time (the dummy driver,
       * without real-time rights, wakes late on a busy machine): it goes
       * out at once, and the tests learn by how much it was late. */
      if (e->time < current_usecs && (gint64)(current_usecs - e->time) > g_atomic_int_get (&jack->max_late_us))
        g_atomic_int_set (&jack->max_late_us, (gint)MIN (current_usecs - e->time, G_MAXINT));
      if (e->time > current_usecs && next_usecs > current_usecs)
        offset = MIN ((jack_nframes_t)((double)(e->time - current_usecs) * nframes / (next_usecs - current_usecs)),
                      nframes - 1);
      offset = MAX (offset, last);
      jack_midi_event_write (out, offset, e->data, e->size);
      last = offset;
    }
  if (done > 0)
    {
      memmove (jack->scheduled, jack->scheduled + done, (jack->n_scheduled - done) * sizeof (SjTestMidiEvent));
      jack->n_scheduled -= done;
    }
}

static int
receive_cb (jack_nframes_t  nframes,
            void           *user_data)
{
  SjTestJack *jack = user_data;
  void *buffer = jack_port_get_buffer (jack->port, nframes);
  guint32 n = jack_midi_get_event_count (buffer);
  jack_nframes_t frames;
  jack_time_t current_usecs, next_usecs;
  float period_usecs;

  void *out = jack_port_get_buffer (jack->out_port, nframes);
  guint8 message[3];

  jack_midi_clear_buffer (out);
  /* A connection made from another client (the app's input connecting to
   * "out") is in the graph a period or two after jack_connect() returns;
   * messages sent before that would go nowhere. They wait here until "out"
   * has been connected for a few periods. */
  if (jack_port_connected (jack->out_port) > 0)
    jack->connected_periods = MIN (jack->connected_periods + 1, 1000);
  else
    jack->connected_periods = 0;
  while (jack->connected_periods > 2 && jack_ringbuffer_read_space (jack->to_send) >= 3)
    {
      jack_ringbuffer_read (jack->to_send, (char *)message, 3);
      jack_midi_event_write (out, 0, message, 3);
    }

  if (jack_get_cycle_times (jack->receiver, &frames, &current_usecs, &next_usecs, &period_usecs) != 0)
    return 0;

  send_scheduled (jack, out, nframes, current_usecs, next_usecs);

  for (guint32 i = 0; i < n; i++)
    {
      jack_midi_event_t event;
      SjTestMidiEvent r = { 0 };

      if (jack_midi_event_get (&event, buffer, i) != 0 || event.size > 3)
        continue;
      r.time = current_usecs + (jack_time_t)((double)event.time * (next_usecs - current_usecs) / nframes);
      r.size = (guint8)event.size;
      memcpy (r.data, event.buffer, event.size);
      if (jack_ringbuffer_write_space (jack->received) >= sizeof r)
        jack_ringbuffer_write (jack->received, (const char *)&r, sizeof r);
    }

  return 0;
}

/* libjack says on stderr that no server runs yet while jackd starts. */
static void
quiet_cb (const char *message)
{
}

static gboolean
deadline_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Starts the server and the receiver; NULL (the test should skip) without
 * jackd. */
SjTestJack *
sj_test_jack_start (void)
{
  g_autofree char *jackd = g_find_program_in_path ("jackd");
  g_autofree char *server = g_strdup_printf ("sj-test-%d", (int)getpid ());
  g_autoptr(GError) error = NULL;
  SjTestJack *jack;
  gboolean timed_out = FALSE;
  guint deadline, tick;

  if (jackd == NULL)
    return NULL;

  jack = g_new0 (SjTestJack, 1);
  g_setenv ("JACK_DEFAULT_SERVER", server, TRUE);
  g_setenv ("JACK_NO_AUDIO_RESERVATION", "1", TRUE);
  jack_set_error_function (quiet_cb);
  jack_set_info_function (quiet_cb);
  jack->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                    jackd, "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "256", NULL);
  g_assert_no_error (error);

  /* The server takes a moment to start: try again on each tick. */
  deadline = g_timeout_add_seconds (15, deadline_cb, &timed_out);
  tick = g_timeout_add (50, tick_cb, NULL);
  while (jack->receiver == NULL && !timed_out)
    {
      jack->receiver = jack_client_open ("sj-test-receiver", JackNoStartServer, NULL);
      if (jack->receiver == NULL)
        g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (tick);
  g_assert_false (timed_out);
  g_source_remove (deadline);

  jack->received = jack_ringbuffer_create (8192 * sizeof (SjTestMidiEvent));
  jack->port = jack_port_register (jack->receiver, "in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
  g_assert_nonnull (jack->port);
  jack->to_send = jack_ringbuffer_create (4096);
  jack->to_schedule = jack_ringbuffer_create (MAX_SCHEDULED * sizeof (SjTestMidiEvent));
  jack->out_port = jack_port_register (jack->receiver, "out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput, 0);
  g_assert_nonnull (jack->out_port);
  g_assert_cmpint (jack_set_process_callback (jack->receiver, receive_cb, jack), ==, 0);
  g_assert_cmpint (jack_set_xrun_callback (jack->receiver, xrun_cb, jack), ==, 0);
  g_assert_cmpint (jack_activate (jack->receiver), ==, 0);
  return jack;
}

void
sj_test_jack_stop (SjTestJack *jack)
{
  if (jack == NULL)
    return;
  jack_deactivate (jack->receiver);
  jack_client_close (jack->receiver);
  jack_ringbuffer_free (jack->received);
  jack_ringbuffer_free (jack->to_send);
  jack_ringbuffer_free (jack->to_schedule);
  g_subprocess_send_signal (jack->process, SIGTERM);
  g_subprocess_wait (jack->process, NULL, NULL);
  g_object_unref (jack->process);
  g_free (jack);
}

jack_client_t *
sj_test_jack_get_receiver (SjTestJack *jack)
{
  return jack->receiver;
}

/* Appends the events received so far to @events; returns how many. */
guint
sj_test_jack_take_events (SjTestJack *jack,
                          GArray     *events)
{
  SjTestMidiEvent r;
  guint n = 0;

  while (jack_ringbuffer_read_space (jack->received) >= sizeof r)
    {
      jack_ringbuffer_read (jack->received, (char *)&r, sizeof r);
      g_array_append_val (events, r);
      n++;
    }

  return n;
}

/* The same moment on JACK's clock. */
gint64
sj_test_jack_epoch_to_jack (gint64 epoch_us)
{
  return epoch_us + ((gint64)jack_get_time () - g_get_real_time ());
}

/* Sends a MIDI message from the port "sj-test-receiver:out". */
void
sj_test_jack_send (SjTestJack   *jack,
                   const guint8  message[3])
{
  g_assert_cmpuint (jack_ringbuffer_write_space (jack->to_send), >=, 3);
  jack_ringbuffer_write (jack->to_send, (const char *)message, 3);
}

/* How many periods the server has missed so far. */
guint
sj_test_jack_get_xruns (SjTestJack *jack)
{
  return (guint)g_atomic_int_get (&jack->xruns);
}

/* How late the latest of the messages scheduled since the last call went
 * out (0: each in its period), in µs; resets. */
gint64
sj_test_jack_take_max_late_us (SjTestJack *jack)
{
  return g_atomic_int_and (&jack->max_late_us, 0);
}

/* Sends a MIDI message from "sj-test-receiver:out" at @jack_time (JACK's
 * clock, µs), at its frame. */
void
sj_test_jack_send_at (SjTestJack   *jack,
                      const guint8  message[3],
                      gint64        jack_time)
{
  SjTestMidiEvent event = { (jack_time_t)MAX (jack_time, 0), { message[0], message[1], message[2] }, 3 };

  g_assert_cmpuint (jack_ringbuffer_write_space (jack->to_schedule), >=, sizeof event);
  jack_ringbuffer_write (jack->to_schedule, (const char *)&event, sizeof event);
}
