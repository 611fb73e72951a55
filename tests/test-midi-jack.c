/* test-midi-jack.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * .midi() through JACK end to end, in user space: the test starts its own
 * jackd with the dummy driver (48 kHz, 256-frame periods) under a private
 * server name, connects a MIDI receiver client of its own, and hands
 * SjOutputs the output messages the page would post. The receiver records
 * each event with its frame; notes, channels, velocities, control changes
 * and note-offs must arrive, each at the frame of its hap's time. Skips
 * when jackd is not installed.
 */

#include "config.h"

#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/ringbuffer.h>
#include <math.h>

#include "sj-outputs.h"
#include "sj-page-message.h"

typedef struct
{
  jack_time_t time;  /* on JACK's clock, from the event's frame */
  guint8      data[3];
  guint8      size;
} Received;

static jack_client_t *receiver;
static jack_port_t *receiver_port;
static jack_ringbuffer_t *received;

static int
receive_cb (jack_nframes_t  nframes,
            void           *user_data)
{
  void *buffer = jack_port_get_buffer (receiver_port, nframes);
  guint32 n = jack_midi_get_event_count (buffer);
  jack_nframes_t frames;
  jack_time_t current_usecs, next_usecs;
  float period_usecs;

  if (jack_get_cycle_times (receiver, &frames, &current_usecs, &next_usecs, &period_usecs) != 0)
    return 0;

  for (guint32 i = 0; i < n; i++)
    {
      jack_midi_event_t event;
      Received r = { 0 };

      if (jack_midi_event_get (&event, buffer, i) != 0 || event.size > 3)
        continue;
      r.time = current_usecs + (jack_time_t)((double)event.time * (next_usecs - current_usecs) / nframes);
      r.size = (guint8)event.size;
      memcpy (r.data, event.buffer, event.size);
      if (jack_ringbuffer_write_space (received) >= sizeof r)
        jack_ringbuffer_write (received, (const char *)&r, sizeof r);
    }

  return 0;
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

/* libjack says on stderr that no server runs yet while jackd starts. */
static void
quiet_cb (const char *message)
{
}

static jack_client_t *
open_receiver (void)
{
  gboolean timed_out = FALSE;
  guint deadline = g_timeout_add_seconds (15, deadline_cb, &timed_out);
  guint tick = g_timeout_add (50, tick_cb, NULL);
  jack_client_t *client = NULL;

  /* The server takes a moment to start: try again on each tick. */
  while (client == NULL && !timed_out)
    {
      client = jack_client_open ("sj-test-receiver", JackNoStartServer, NULL);
      if (client == NULL)
        g_main_context_iteration (NULL, TRUE);
    }

  g_source_remove (tick);
  if (!timed_out)
    g_source_remove (deadline);
  return client;
}

static SjPageMessage *
output_message (double      time_s,
                double      audio_s,
                double      epoch_ms,
                const char *controls)
{
  g_autofree char *json = g_strdup_printf ("{\"type\":\"output\",\"kind\":\"midi\",\"time\":%.9f,"
                                           "\"clock\":{\"audio\":%.9f,\"epochMs\":%.3f},\"controls\":%s}",
                                           time_s, audio_s, epoch_ms, controls);
  g_autoptr(GError) error = NULL;
  SjPageMessage *message = sj_page_message_parse (json, -1, &error);

  g_assert_no_error (error);
  return message;
}

static void
log_cb (SjOutputs  *outputs,
        SjLogEntry *entry,
        GPtrArray  *lines)
{
  g_test_message ("Console: %s", sj_log_entry_get_message (entry));
  g_ptr_array_add (lines, g_strdup (sj_log_entry_get_message (entry)));
}

typedef struct
{
  gint64 time_us;  /* epoch */
  guint8 data[3];
} Expected;

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

static void
test_jack_midi (void)
{
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (Expected));
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (Received));
  g_autoptr(GArray) errors = g_array_new (FALSE, FALSE, sizeof (double));
  gint64 epoch_us = g_get_real_time ();
  /* The page's audio clock started 5 s ago. */
  double audio = 5.0;
  const double step = 0.125;
  gboolean timed_out = FALSE;
  guint deadline, tick;
  gint64 jack_minus_epoch;
  double worst = 0;

  g_object_set (outputs, "midi-backend", "jack", "midi-destination", "sj-test-receiver:in", NULL);
  g_signal_connect (outputs, "log", G_CALLBACK (log_cb), lines);

  for (int i = 0; i < 8; i++)
    {
      int note = 60 + i;
      int chan = 1 + i % 3;
      double velocity = 0.25 + i * 0.05;
      double hap_s = 0.3 + i * step;
      g_autofree char *controls = g_strdup_printf ("{\"note\":%d,\"midichan\":%d,\"velocity\":%g,\"duration\":0.1%s}",
                                                   note, chan, velocity,
                                                   i == 3 ? ",\"ccn\":74,\"ccv\":0.5" : "");
      g_autoptr(SjPageMessage) message = output_message (audio + hap_s, audio, epoch_us / 1000.0, controls);
      gint64 at = epoch_us + (gint64)llround (hap_s * 1e6);

      if (i == 3)
        {
          Expected cc = { at, { 0xB0 | (chan - 1), 74, 64 } };
          g_array_append_val (expected, cc);
        }
      {
        Expected on = { at, { 0x90 | (chan - 1), note, (guint8)lround (velocity * 127) } };
        Expected off = { at + 100000, { 0x80 | (chan - 1), note, 0 } };

        g_array_append_val (expected, on);
        g_array_append_val (expected, off);
      }
      sj_outputs_handle (outputs, message->text, message->object);
    }

  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpstr (lines->pdata[0], ==, "Sending MIDI from the JACK port “Strudel Jam:midi_out”");

  deadline = g_timeout_add_seconds (10, deadline_cb, &timed_out);
  tick = g_timeout_add (20, tick_cb, NULL);
  while (got->len < expected->len && !timed_out)
    {
      Received r;

      while (jack_ringbuffer_read_space (received) >= sizeof r)
        {
          jack_ringbuffer_read (received, (char *)&r, sizeof r);
          g_array_append_val (got, r);
        }
      if (got->len < expected->len)
        g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (tick);
  g_assert_false (timed_out);
  g_source_remove (deadline);
  g_assert_cmpuint (got->len, ==, expected->len);

  /* Match each expected event with the one received with the same bytes. */
  jack_minus_epoch = (gint64)jack_get_time () - g_get_real_time ();
  for (guint i = 0; i < expected->len; i++)
    {
      Expected *e = &g_array_index (expected, Expected, i);
      jack_time_t time = (jack_time_t)(e->time_us + jack_minus_epoch);
      gboolean found = FALSE;

      for (guint j = 0; j < got->len && !found; j++)
        {
          Received *r = &g_array_index (got, Received, j);
          double error_ms;

          if (memcmp (r->data, e->data, 3) != 0)
            continue;
          found = TRUE;
          error_ms = fabs ((double)((gint64)r->time - (gint64)time)) / 1000.0;
          g_array_append_val (errors, error_ms);
          worst = MAX (worst, error_ms);
        }
      if (!found)
        g_error ("MIDI event %02x %02x %02x never arrived", e->data[0], e->data[1], e->data[2]);
    }

  g_array_sort (errors, compare_doubles);
  g_test_message ("JACK MIDI timing against the haps: p50 %.3f ms, max %.3f ms over %u events",
                  g_array_index (errors, double, errors->len / 2), worst, errors->len);
  g_assert_cmpfloat (worst, <, 2.0);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *jackd = g_find_program_in_path ("jackd");
  g_autofree char *server = g_strdup_printf ("sj-test-%d", (int)getpid ());
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  if (jackd == NULL)
    {
      g_test_skip ("jackd is not installed");
      g_test_add_func ("/midi/jack", test_jack_midi);
      return g_test_run ();
    }

  /* A private server in user space: the dummy driver needs no sound card
   * and no real-time rights. */
  g_setenv ("JACK_DEFAULT_SERVER", server, TRUE);
  g_setenv ("JACK_NO_AUDIO_RESERVATION", "1", TRUE);
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                              jackd, "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "256", NULL);
  g_assert_no_error (error);

  jack_set_error_function (quiet_cb);
  jack_set_info_function (quiet_cb);
  receiver = open_receiver ();
  g_assert_nonnull (receiver);
  received = jack_ringbuffer_create (4096 * sizeof (Received));
  receiver_port = jack_port_register (receiver, "in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
  g_assert_nonnull (receiver_port);
  g_assert_cmpint (jack_set_process_callback (receiver, receive_cb, NULL), ==, 0);
  g_assert_cmpint (jack_activate (receiver), ==, 0);

  g_test_add_func ("/midi/jack", test_jack_midi);
  ret = g_test_run ();

  jack_deactivate (receiver);
  jack_client_close (receiver);
  jack_ringbuffer_free (received);
  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait (process, NULL, NULL);

  return ret;
}
