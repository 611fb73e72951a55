/* test-osc.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * .osc() end to end: the real window and page under Xvfb play
 * s("bd sd").osc(), and a stand-in SuperDirt (tests/sj-test-osc.c, a
 * loopback UDP port set in Settings) decodes the bundles: /dirt/play with
 * the fields @strudel/osc sends, and timetags that follow the haps' times
 * (cycle / cps) within 2 ms once the first four have settled the clock
 * mapping, sent ahead of them. Code without .osc() sends
 * nothing, and where OSC goes is said once in the Console. Code whose
 * oscport names another destination is asked about in the window, and
 * nothing reaches it before Allow. And .midi():
 * note("c3 e3 g3 c4").velocity(0.5).midichan(2).midi() in the page,
 * through a private jackd (tests/sj-test-jack.c) to the test's receiver:
 * the notes, channel and velocity, a quarter of a second apart within 2 ms.
 *
 * SJ_OUTPUTS_BENCH=N turns it into bench/outputs: N haps at each of a few
 * tempos, the timetags' jitter against the haps next to the peer's (each
 * hap mapped by its own clock pair alone, as @strudel/osc's bridge did),
 * and how far ahead the bundles arrive.
 */

#include "config.h"

#include <math.h>

#include "sj-console-page.h"
#include "sj-outputs-private.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-test-jack.h"
#include "sj-test-osc.h"
#include "sj-window-private.h"

typedef struct
{
  SjTestOscReceiver *receiver;
  GPtrArray         *messages;
  guint              wanted;
} Collect;

static gboolean
collected (gpointer data)
{
  Collect *collect = data;
  SjTestOscMessage *message;

  while ((message = sj_test_osc_receiver_pop (collect->receiver, 0)) != NULL)
    g_ptr_array_add (collect->messages, message);

  return collect->messages->len >= collect->wanted;
}

/* The receiver's thread does not wake the main loop: look every 20 ms. */
static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
stop_playing (SjRepl *repl)
{
  g_action_group_activate_action (G_ACTION_GROUP (sj_test_current_window ()), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

static void
test_osc_plays (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_test_osc_message_free);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GArray) residuals = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *console = NULL;
  g_autofree char *line = NULL;
  SjWindow *window;
  SjRepl *repl;
  Collect collect = { receiver, messages, 16 };
  SjTestOscMessage *first;
  double sum = 0, min_lead_ms = G_MAXDOUBLE;
  guint tick;

  g_settings_set_uint (settings, "osc-port", sj_test_osc_receiver_get_port (receiver));
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  tick = g_timeout_add (20, tick_cb, NULL);

  /* Without .osc(), nothing goes out. */
  outcome = sj_test_evaluate (repl, "setcps(1)\ns(\"bd sd\")");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  {
    Progress progress = { repl, 2, 0 };

    sj_test_spin_until (sj_test_progressed, &progress, "two cycles without .osc()");
  }
  g_assert_false (collected (&collect));
  g_assert_cmpuint (messages->len, ==, 0);
  g_clear_pointer (&outcome, json_object_unref);

  outcome = sj_test_evaluate (repl, "setcps(1)\ns(\"bd sd\").n(\"<0 3>\").osc()");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (collected, &collect, "sixteen OSC messages");
  stop_playing (repl);
  g_source_remove (tick);

  first = messages->pdata[0];
  for (guint i = 0; i < messages->len; i++)
    {
      SjTestOscMessage *m = messages->pdata[i];
      double cycle = json_object_get_double_member (m->fields, "cycle");
      const char *s = json_object_get_string_member (m->fields, "s");
      double expected_us, residual_us;

      g_assert_cmpstr (m->path, ==, "/dirt/play");
      g_assert_true (m->bundled);
      g_assert_cmpfloat (json_object_get_double_member (m->fields, "cps"), ==, 1);
      g_assert_cmpfloat (json_object_get_double_member (m->fields, "delta"), ==, 0.5);
      g_assert_cmpfloat (fmod (cycle * 2, 1), ==, 0);
      g_assert_cmpstr (s, ==, fmod (cycle, 1) == 0 ? "bd" : "sd");
      g_assert_cmpfloat (json_object_get_double_member (m->fields, "n"), ==, ((long)floor (cycle) % 2) ? 3 : 0);

      /* Against the haps: one cycle is one second at cps 1. */
      expected_us = first->timetag_us + (cycle - json_object_get_double_member (first->fields, "cycle")) * 1e6;
      residual_us = m->timetag_us - expected_us;
      /* The first four settle the clock mapping (SjOutputClock). */
      if (i >= 4)
        {
          g_array_append_val (residuals, residual_us);
          sum += residual_us;
        }
      min_lead_ms = MIN (min_lead_ms, (m->timetag_us - m->received_us) / 1000.0);
    }

  /* The residuals around their mean are the jitter of the timetags. */
  for (guint i = 0; i < residuals->len; i++)
    g_array_index (residuals, double, i) = fabs (g_array_index (residuals, double, i) - sum / residuals->len);
  g_array_sort (residuals, compare_doubles);
  g_test_message ("OSC timetag jitter against the haps: p50 %.3f ms, max %.3f ms over %u; sent at least %.1f ms ahead",
                  g_array_index (residuals, double, residuals->len / 2) / 1000,
                  g_array_index (residuals, double, residuals->len - 1) / 1000, residuals->len, min_lead_ms);
  g_assert_cmpfloat (g_array_index (residuals, double, residuals->len - 1), <, 2000);
  g_assert_cmpfloat (min_lead_ms, >, 0);

  /* Where it goes, said once. */
  console = sj_console_page_dup_text (_sj_window_get_console_page (window));
  line = g_strdup_printf ("Sending OSC to 127.0.0.1:%u", sj_test_osc_receiver_get_port (receiver));
  g_assert_nonnull (strstr (console, line));
  g_assert_null (strstr (strstr (console, line) + 1, line));
}

/* OSC elsewhere: the question -------------------------------------------- */

typedef struct
{
  SjWindow   *window;
  const char *destination;
} DialogWait;

static void
count_hap_cb (const char *kind,
              JsonObject *controls,
              gint64      sent_us,
              gint64      unfiltered_us,
              gpointer    user_data)
{
  (*(guint *)user_data)++;
}

static gboolean
enough_haps (gpointer data)
{
  return *(guint *)data >= 6;
}

static gboolean
dialog_shown (gpointer data)
{
  DialogWait *wait = data;

  return _sj_window_get_osc_dialog (wait->window, wait->destination) != NULL;
}

static void
test_osc_consent (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_test_osc_message_free);
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *code = NULL;
  g_autofree char *destination = NULL;
  g_autofree char *body = NULL;
  guint port = sj_test_osc_receiver_get_port (receiver);
  Collect collect = { receiver, messages, 4 };
  AdwMessageDialog *dialog;
  SjWindow *window;
  SjRepl *repl;
  gboolean allowed = FALSE;
  guint haps = 0;

  /* Settings point at the discard port; the code at the receiver. */
  g_settings_reset (settings, "osc-destinations");
  g_settings_set_uint (settings, "osc-port", 9);
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  destination = g_strdup_printf ("127.0.0.1:%u", port);

  code = g_strdup_printf ("setcps(2)\ns(\"bd sd\").oscport(%u).osc()", port);
  outcome = sj_test_evaluate (repl, code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  {
    DialogWait wait = { window, destination };

    sj_test_spin_until (dialog_shown, &wait, "the question about the OSC destination");
    /* The music goes on, and nothing reaches the destination meanwhile. */
    _sj_outputs_set_trace_func (window->outputs, count_hap_cb, &haps);
    sj_test_spin_until (enough_haps, &haps, "six haps while asking");
    _sj_outputs_set_trace_func (window->outputs, NULL, NULL);
  }
  g_assert_false (collected (&collect));
  g_assert_cmpuint (messages->len, ==, 0);

  dialog = _sj_window_get_osc_dialog (window, destination);
  g_object_get (dialog, "body", &body, NULL);
  g_assert_nonnull (strstr (body, destination));
  g_assert_true (adw_message_dialog_has_response (dialog, "allow"));
  g_assert_true (adw_message_dialog_has_response (dialog, "block"));
  adw_message_dialog_response (dialog, "allow");
  g_assert_null (_sj_window_get_osc_dialog (window, destination));

  sj_test_spin_until (collected, &collect, "four OSC messages once allowed");
  stop_playing (repl);
  {
    g_autoptr(GVariant) answers = g_settings_get_value (settings, "osc-destinations");

    g_assert_true (g_variant_lookup (answers, destination, "b", &allowed));
  }
  g_assert_true (allowed);
}

/* MIDI from the page --------------------------------------------------------- */

static SjTestJack *jack;

typedef struct
{
  GArray *events;
  guint   wanted_notes;
} MidiCollect;

static gboolean
midi_collected (gpointer data)
{
  MidiCollect *collect = data;
  guint notes = 0;

  sj_test_jack_take_events (jack, collect->events);
  for (guint i = 0; i < collect->events->len; i++)
    notes += (g_array_index (collect->events, SjTestMidiEvent, i).data[0] & 0xF0) == 0x90;
  return notes >= collect->wanted_notes;
}

/* .midi() in the page, through a private JACK server to the test's
 * receiver, connected by the midi-destination setting. */
static void
test_midi_from_page (void)
{
  static const guint8 notes[] = { 48, 52, 55, 60 };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (SjTestMidiEvent));
  g_autoptr(GArray) ons = g_array_new (FALSE, FALSE, sizeof (SjTestMidiEvent));
  g_autoptr(GArray) residuals = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *console = NULL;
  MidiCollect collect = { events, 16 };
  SjWindow *window;
  SjRepl *repl;
  guint tick, first = G_MAXUINT, xruns;
  double phase;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  xruns = sj_test_jack_get_xruns (jack);

  g_settings_set_string (settings, "midi-backend", "jack");
  g_settings_set_string (settings, "midi-destination", "sj-test-receiver:in");
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  tick = g_timeout_add (20, tick_cb, NULL);

  outcome = sj_test_evaluate (repl, "setcps(1)\nnote(\"c3 e3 g3 c4\").velocity(0.5).midichan(2).midi()");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (midi_collected, &collect, "sixteen MIDI notes");
  stop_playing (repl);
  g_source_remove (tick);

  for (guint i = 0; i < events->len; i++)
    {
      SjTestMidiEvent *e = &g_array_index (events, SjTestMidiEvent, i);

      if ((e->data[0] & 0xF0) == 0x90)
        g_array_append_val (ons, *e);
      else
        g_assert_true (e->data[0] == 0x81 || e->data[0] == 0xFA);
    }

  /* Channel 2, velocity 0.5 × 127, the notes in the pattern's order, a
   * quarter of a second apart. The grid's phase is the median of the
   * notes' (a note or two may be late: see below), and each note's place
   * on it is the last one of its pitch not after it (a hap the page's
   * scheduler skipped when the machine was too busy leaves a hole, never a
   * wrong note: a wrong note would show as 250 ms or more late). */
  for (guint i = 0; i < ons->len; i++)
    {
      SjTestMidiEvent *e = &g_array_index (ons, SjTestMidiEvent, i);
      double since = (double)(e->time - g_array_index (ons, SjTestMidiEvent, 0).time);
      double r = since - lround (since / 250000.0) * 250000.0;

      g_assert_cmpint (e->data[0], ==, 0x91);
      g_assert_cmpint (e->data[2], ==, 64);
      g_array_append_val (residuals, r);
    }
  g_array_sort (residuals, compare_doubles);
  phase = g_array_index (residuals, double, residuals->len / 2);
  g_array_set_size (residuals, 0);
  for (guint i = 0; i < ons->len; i++)
    {
      SjTestMidiEvent *e = &g_array_index (ons, SjTestMidiEvent, i);
      double since = (double)(e->time - g_array_index (ons, SjTestMidiEvent, 0).time) - phase;
      long k = lround (floor ((since + 1000.0 * SJ_TEST_JACK_TOLERANCE_MS (1)) / 250000.0));
      guint index = G_N_ELEMENTS (notes);
      double late;

      for (guint n = 0; n < G_N_ELEMENTS (notes); n++)
        if (notes[n] == e->data[1])
          index = n;
      g_assert_cmpuint (index, <, G_N_ELEMENTS (notes));
      if (first == G_MAXUINT)
        first = (index + G_N_ELEMENTS (notes) - (guint)(((k % 4) + 4) % 4)) % G_N_ELEMENTS (notes);
      /* Back to the last place of this pitch. */
      while (notes[(first + (((k % 4) + 4) % 4)) % G_N_ELEMENTS (notes)] != e->data[1])
        k--;
      late = since - k * 250000.0;
      if (i >= 4)
        g_array_append_val (residuals, late);
    }
  g_array_sort (residuals, compare_doubles);
  xruns = sj_test_jack_get_xruns (jack) - xruns;
  g_test_message ("JACK MIDI from the page against the haps: p50 %.3f ms, p90 %.3f ms, latest %.3f ms over %u notes "
                  "(%u xruns)",
                  g_array_index (residuals, double, residuals->len / 2) / 1000,
                  g_array_index (residuals, double, residuals->len * 9 / 10 - 1) / 1000,
                  g_array_index (residuals, double, residuals->len - 1) / 1000, residuals->len, xruns);
  /* The first four settle the clock mapping; from there nine in ten on
   * their place, none early. The others may be late when the page's main
   * thread, starved on a busy machine, posts a hap after its time (it goes
   * out at once): late by a starved page, never by a wrong clock, and
   * never by a wrong note. */
  g_assert_cmpfloat (fabs (g_array_index (residuals, double, residuals->len / 2)), <,
                     1000 * SJ_TEST_JACK_TOLERANCE_MS (xruns));
  g_assert_cmpfloat (g_array_index (residuals, double, residuals->len * 9 / 10 - 1), <,
                     1000 * SJ_TEST_JACK_TOLERANCE_MS (xruns));
  g_assert_cmpfloat (g_array_index (residuals, double, 0), >, -1000 * SJ_TEST_JACK_TOLERANCE_MS (xruns));
  g_assert_cmpfloat (g_array_index (residuals, double, residuals->len - 1), <, 200 * 1000);

  console = sj_console_page_dup_text (_sj_window_get_console_page (window));
  g_assert_nonnull (strstr (console, "Sending MIDI from the JACK port “Strudel Jam:midi_out”"));
}

/* midin(): control changes sent to the app's JACK input reach the code. */
typedef struct
{
  SjRepl     *repl;
  const char *wanted;
} HapWait;

static gboolean
hap_value_is (gpointer data)
{
  HapWait *wait = data;
  g_autoptr(JsonNode) node = sj_test_call_js (wait->repl,
                                              "return JSON.stringify(window.sjBridge.queryHaps(0, 1)[0]?.value);");

  return g_strcmp0 (json_node_get_string (node), wait->wanted) == 0;
}

static void
test_midi_input (void)
{
  static const guint8 knob_up[3] = { 0xB2, 74, 127 };
  static const guint8 knob_half[3] = { 0xB0, 74, 0 };
  SjWindow *window;
  SjRepl *repl;
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *console = NULL;
  HapWait wait;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  outcome = sj_test_evaluate (repl, "const cc = await midin('sj-test-receiver:out')\n"
                                    "note(\"c3\").lpf(cc(74).range(100, 1100)).lpq(cc(74, 3).range(0, 10))");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));

  /* Nothing received yet: the controls read 0. */
  wait = (HapWait) { repl, "{\"note\":\"c3\",\"cutoff\":100,\"resonance\":0}" };
  g_assert_true (hap_value_is (&wait));

  /* Control 74 on channel 3 all the way up: both references follow. */
  sj_test_jack_send (jack, knob_up);
  wait.wanted = "{\"note\":\"c3\",\"cutoff\":1100,\"resonance\":10}";
  sj_test_spin_until (hap_value_is, &wait, "the knob to reach the code");

  /* On channel 1: cc(74) follows, cc(74, 3) keeps channel 3's value. */
  sj_test_jack_send (jack, knob_half);
  wait.wanted = "{\"note\":\"c3\",\"cutoff\":100,\"resonance\":10}";
  sj_test_spin_until (hap_value_is, &wait, "the second knob movement");

  console = sj_console_page_dup_text (_sj_window_get_console_page (window));
  g_assert_nonnull (strstr (console, "Listening to MIDI control changes on “Strudel Jam:midi_in”"));
}

/* Bench -------------------------------------------------------------------- */

typedef struct
{
  GArray *sent;        /* double µs, minus the grid */
  GArray *unfiltered;
} Trace;

static void
trace_cb (const char *kind,
          JsonObject *controls,
          gint64      sent_us,
          gint64      unfiltered_us,
          gpointer    user_data)
{
  Trace *trace = user_data;
  double grid_us = json_object_get_double_member_with_default (controls, "cycle", 0) /
                   json_object_get_double_member_with_default (controls, "cps", 1) * 1e6;
  double a = sent_us - grid_us, b = unfiltered_us - grid_us;

  g_array_append_val (trace->sent, a);
  g_array_append_val (trace->unfiltered, b);
}

/* |x − median| at p50, p99 and max, in ms. */
static void
deviations (GArray *values,
            double *p50,
            double *p99,
            double *max)
{
  g_autoptr(GArray) sorted = g_array_copy (values);
  double median;

  g_array_sort (sorted, compare_doubles);
  median = g_array_index (sorted, double, sorted->len / 2);
  for (guint i = 0; i < sorted->len; i++)
    g_array_index (sorted, double, i) = fabs (g_array_index (values, double, i) - median) / 1000;
  g_array_sort (sorted, compare_doubles);
  *p50 = g_array_index (sorted, double, sorted->len / 2);
  *p99 = g_array_index (sorted, double, MIN (sorted->len - 1, (guint)ceil (sorted->len * 0.99) - 1));
  *max = g_array_index (sorted, double, sorted->len - 1);
}

static double
median_of (GArray *values)
{
  g_autoptr(GArray) sorted = g_array_copy (values);

  g_array_sort (sorted, compare_doubles);
  return g_array_index (sorted, double, sorted->len / 2);
}

static void
test_bench (void)
{
  static const double tempos[] = { 0.5, 1, 2 };
  guint n = (guint)g_ascii_strtoull (g_getenv ("SJ_OUTPUTS_BENCH"), NULL, 10);
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  SjWindow *window;
  SjRepl *repl;
  guint tick;

  n = MAX (n, 16);
  g_settings_set_uint (settings, "osc-port", sj_test_osc_receiver_get_port (receiver));
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  tick = g_timeout_add (20, tick_cb, NULL);

  for (guint t = 0; t < G_N_ELEMENTS (tempos); t++)
    {
      g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify)sj_test_osc_message_free);
      g_autoptr(GArray) timetags = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr(GArray) leads = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr(JsonObject) outcome = NULL;
      g_autofree char *code = g_strdup_printf ("setcps(%g)\ns(\"hh*8\").osc()", tempos[t]);
      Trace trace = { g_array_new (FALSE, FALSE, sizeof (double)), g_array_new (FALSE, FALSE, sizeof (double)) };
      Collect collect = { receiver, messages, n };
      double p50, p99, max, peer_p50, peer_p99, peer_max;

      _sj_outputs_set_trace_func (window->outputs, trace_cb, &trace);
      outcome = sj_test_evaluate (repl, code);
      g_assert_true (json_object_get_boolean_member (outcome, "ok"));
      sj_test_spin_until (collected, &collect, "the benchmark's OSC messages");
      stop_playing (repl);
      _sj_outputs_set_trace_func (window->outputs, NULL, NULL);
      /* Drop the ones still on their way: quiet for half a second. */
      for (guint quiet = 0; quiet < 5;)
        {
          g_autoptr(SjTestOscMessage) late = NULL;

          while (g_main_context_iteration (NULL, FALSE))
            ;
          late = sj_test_osc_receiver_pop (receiver, 100);
          quiet = late == NULL ? quiet + 1 : 0;
        }

      for (guint i = 0; i < n; i++)
        {
          SjTestOscMessage *m = messages->pdata[i];
          double grid_us = json_object_get_double_member (m->fields, "cycle") / tempos[t] * 1e6;
          double tag = m->timetag_us - grid_us, lead = (m->timetag_us - m->received_us) / 1000.0;

          g_array_append_val (timetags, tag);
          g_array_append_val (leads, lead);
        }
      g_array_set_size (trace.sent, MIN (trace.sent->len, n));
      g_array_set_size (trace.unfiltered, MIN (trace.unfiltered->len, n));

      deviations (timetags, &p50, &p99, &max);
      deviations (trace.unfiltered, &peer_p50, &peer_p99, &peer_max);
      g_array_sort (leads, compare_doubles);
      g_print ("{\"cps\": %g, \"haps\": %u, \"jitter_ms\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, "
               "\"peer_jitter_ms\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, "
               "\"peer_late_ms\": %.3f, \"lead_ms\": {\"min\": %.1f, \"p50\": %.1f}}\n",
               tempos[t], n, p50, p99, max, peer_p50, peer_p99, peer_max,
               (median_of (trace.unfiltered) - median_of (trace.sent)) / 1000,
               g_array_index (leads, double, 0), g_array_index (leads, double, leads->len / 2));
      g_array_unref (trace.sent);
      g_array_unref (trace.unfiltered);
    }

  g_source_remove (tick);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  if (g_getenv ("SJ_OUTPUTS_BENCH") != NULL)
    g_test_add_func ("/osc/bench", test_bench);
  else
    {
      jack = sj_test_jack_start ();
      g_test_add_func ("/osc/plays", test_osc_plays);
      g_test_add_func ("/midi/from-page", test_midi_from_page);
      g_test_add_func ("/midi/input", test_midi_input);
      g_test_add_func ("/osc/consent", test_osc_consent);
    }

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_jack_stop (jack);
  sj_test_remove_tree (home);

  return ret;
}
