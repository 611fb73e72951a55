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

#include <math.h>

#include "sj-outputs.h"
#include "sj-page-message.h"
#include "sj-test-jack.h"

static SjTestJack *jack;

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
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (SjTestMidiEvent));
  g_autoptr(GArray) errors = g_array_new (FALSE, FALSE, sizeof (double));
  gint64 epoch_us = g_get_real_time ();
  /* The page's audio clock started 5 s ago. */
  double audio = 5.0;
  const double step = 0.125;
  gboolean timed_out = FALSE;
  guint deadline, tick;
  double worst = 0;
  guint xruns;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  xruns = sj_test_jack_get_xruns (jack);

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
      sj_test_jack_take_events (jack, got);
      if (got->len < expected->len)
        g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (tick);
  g_assert_false (timed_out);
  g_source_remove (deadline);
  g_assert_cmpuint (got->len, ==, expected->len);

  /* Match each expected event with the one received with the same bytes. */
  for (guint i = 0; i < expected->len; i++)
    {
      Expected *e = &g_array_index (expected, Expected, i);
      gint64 time = sj_test_jack_epoch_to_jack (e->time_us);
      gboolean found = FALSE;

      for (guint j = 0; j < got->len && !found; j++)
        {
          SjTestMidiEvent *r = &g_array_index (got, SjTestMidiEvent, j);
          double error_ms;

          if (memcmp (r->data, e->data, 3) != 0)
            continue;
          found = TRUE;
          error_ms = fabs ((double)((gint64)r->time - time)) / 1000.0;
          g_array_append_val (errors, error_ms);
          worst = MAX (worst, error_ms);
        }
      if (!found)
        g_error ("MIDI event %02x %02x %02x never arrived", e->data[0], e->data[1], e->data[2]);
    }

  g_array_sort (errors, compare_doubles);
  /* Stopping sends a MIDI Stop at once. */
  sj_outputs_stopped (outputs);
  g_array_set_size (got, 0);
  deadline = g_timeout_add_seconds (10, deadline_cb, &timed_out);
  tick = g_timeout_add (20, tick_cb, NULL);
  while (got->len == 0 && !timed_out)
    {
      sj_test_jack_take_events (jack, got);
      if (got->len == 0)
        g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (tick);
  g_assert_false (timed_out);
  g_source_remove (deadline);
  g_assert_cmpuint (got->len, ==, 1);
  g_assert_cmpint (g_array_index (got, SjTestMidiEvent, 0).data[0], ==, 0xFC);

  xruns = sj_test_jack_get_xruns (jack) - xruns;
  g_test_message ("JACK MIDI timing against the haps: p50 %.3f ms, max %.3f ms over %u events (%u xruns)",
                  g_array_index (errors, double, errors->len / 2), worst, errors->len, xruns);
  g_assert_cmpfloat (worst, <, SJ_TEST_JACK_TOLERANCE_MS (xruns));
}

/* midin(): control changes sent to the input port come back as JSON. */
static void
control_cb (SjOutputs  *outputs,
            const char *controls,
            GString    *all)
{
  g_string_append (all, controls);
}

static void
test_jack_midi_input (void)
{
  static const guint8 messages[][3] = { { 0xB0, 1, 64 }, { 0x92, 60, 100 }, { 0xBF, 74, 127 } };
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autoptr(GString) all = g_string_new (NULL);
  gboolean timed_out = FALSE;
  guint deadline;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  g_object_set (outputs, "midi-backend", "jack", NULL);
  g_signal_connect (outputs, "midi-controls", G_CALLBACK (control_cb), all);
  sj_outputs_open_midi_input (outputs, "sj-test-receiver:out");
  for (guint i = 0; i < G_N_ELEMENTS (messages); i++)
    sj_test_jack_send (jack, messages[i]);

  /* The note is not a control change: only the two controls arrive. */
  deadline = g_timeout_add_seconds (10, deadline_cb, &timed_out);
  while (strstr (all->str, "[16,74,127]") == NULL && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (deadline);
  g_assert_cmpstr (all->str, ==, "[[1,1,64],[16,74,127]]");
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  jack = sj_test_jack_start ();
  g_test_add_func ("/midi/jack", test_jack_midi);
  g_test_add_func ("/midi/jack-input", test_jack_midi_input);

  ret = g_test_run ();
  sj_test_jack_stop (jack);

  return ret;
}
