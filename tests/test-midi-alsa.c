/* test-midi-alsa.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * .midi() through the ALSA sequencer, where the machine has one
 * (/dev/snd/seq; skips cleanly otherwise, as in containers): SjOutputs
 * connects its port to a receiver client of the test through the
 * midi-destination setting ("client:port"), and the notes, channels,
 * velocities and control changes arrive, each within 2 ms of its hap by
 * the system clock.
 */

#include "config.h"

#include <alsa/asoundlib.h>
#include <math.h>

#include "sj-alsa-midi.h"
#include "sj-outputs.h"
#include "sj-page-message.h"

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

static void
test_alsa_midi (void)
{
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autofree char *destination = NULL;
  snd_seq_t *seq = NULL;
  int port;
  gint64 epoch_us = g_get_real_time ();
  double audio = 2.0;
  gboolean timed_out = FALSE;
  guint deadline, tick, notes = 0, ccs = 0;
  double worst_ms = 0;

  if (!g_file_test (SJ_ALSA_SEQ_DEVICE, G_FILE_TEST_EXISTS) ||
      snd_seq_open (&seq, "default", SND_SEQ_OPEN_INPUT, SND_SEQ_NONBLOCK) < 0)
    {
      g_test_skip ("no ALSA sequencer (" SJ_ALSA_SEQ_DEVICE ")");
      return;
    }

  snd_seq_set_client_name (seq, "sj-test-receiver");
  port = snd_seq_create_simple_port (seq, "in", SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE,
                                     SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION);
  g_assert_cmpint (port, >=, 0);
  destination = g_strdup_printf ("%d:%d", snd_seq_client_id (seq), port);
  g_object_set (outputs, "midi-backend", "alsa", "midi-destination", destination, NULL);

  for (int i = 0; i < 4; i++)
    {
      double hap_s = 0.2 + i * 0.125;
      g_autofree char *json = g_strdup_printf ("{\"type\":\"output\",\"kind\":\"midi\",\"time\":%.9f,"
                                               "\"clock\":{\"audio\":%.9f,\"epochMs\":%.3f},"
                                               "\"controls\":{\"note\":%d,\"midichan\":%d,\"velocity\":0.5,"
                                               "\"duration\":0.05,\"ccn\":7,\"ccv\":1}}",
                                               audio + hap_s, audio, epoch_us / 1000.0, 60 + i, 1 + i);
      g_autoptr(GError) error = NULL;
      g_autoptr(SjPageMessage) message = sj_page_message_parse (json, -1, &error);

      g_assert_no_error (error);
      sj_outputs_handle (outputs, message->text, message->object);
    }

  deadline = g_timeout_add_seconds (10, deadline_cb, &timed_out);
  tick = g_timeout_add (1, tick_cb, NULL);
  while ((notes < 4 || ccs < 4) && !timed_out)
    {
      snd_seq_event_t *ev = NULL;

      while (snd_seq_event_input (seq, &ev) >= 0 && ev != NULL)
        {
          gint64 now = g_get_real_time ();

          if (ev->type == SND_SEQ_EVENT_NOTEON)
            {
              int i = ev->data.note.note - 60;
              double error_ms = fabs ((double)(now - (epoch_us + (gint64)((0.2 + i * 0.125) * 1e6)))) / 1000.0;

              g_assert_cmpint (ev->data.note.channel, ==, i);
              g_assert_cmpint (ev->data.note.velocity, ==, 64);
              worst_ms = MAX (worst_ms, error_ms);
              notes++;
            }
          else if (ev->type == SND_SEQ_EVENT_CONTROLLER)
            {
              g_assert_cmpint (ev->data.control.param, ==, 7);
              g_assert_cmpint (ev->data.control.value, ==, 127);
              ccs++;
            }
        }
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (tick);
  g_assert_false (timed_out);
  g_source_remove (deadline);

  /* Arrival is measured with a 1 ms main-loop tick on top. */
  g_test_message ("ALSA sequencer timing against the haps: max %.3f ms over 4 notes", worst_ms);
  g_assert_cmpfloat (worst_ms, <, 3.0);
  snd_seq_close (seq);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/midi/alsa", test_alsa_midi);

  return g_test_run ();
}
