/* test-play-in.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Record a Phrase and Learn (issue 32) in the real window, through a
 * private jackd with the dummy driver (tests/sj-test-jack.c): the page
 * plays note("c1*4").midi() to the test's receiver, so the test hears the
 * beat as it sounds; win.record-phrase starts; the test checks that the
 * phrase's first cycle starts on a beat it heard, and plays a known phrase
 * into the app's input port "Strudel Jam:midi_in", each note at its frame
 * against that beat (a few early or late, released early, a chord struck
 * unevenly); the editor ends up with the expected note("…") at the cursor,
 * and one undo takes it away. Learn: a control change on channel 3 gives
 * the cc() reading with midin()'s line, in one undoable edit. Without
 * JACK (the ALSA backend chosen), both say they need it; stopped, Record
 * asks for the music first; asked again while recording, it cancels.
 * Given to the agent ("phrase-to-agent", the menu's toggle): a phrase of
 * one cycle reaches the model over a loopback server as the musician's
 * message, after what was typed in the message box, and the editor is left
 * alone.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-phrase-recorder.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-test-jack.h"
#include "sj-test-model-server.h"
#include "sj-composer-private.h"
#include "sj-chat-panel-private.h"
#include "sj-window-private.h"

static SjTestJack *jack;
static SjTestModelServer *server;

#define INPUT "sj-test-receiver:out"
#define QUARTER_US 250000  /* at cps 1 */

typedef struct
{
  gboolean started;
  gint64   first_cycle;
  guint    n_cycles;
  gint64   start_us;
  gint64   end_us;
} Started;

static void
started_cb (SjPhraseRecorder *recorder,
            gint64            first_cycle,
            guint             n_cycles,
            gint64            start_us,
            gint64            end_us,
            Started          *started)
{
  *started = (Started) { TRUE, first_cycle, n_cycles, start_us, end_us };
}

static gboolean
is_started (gpointer data)
{
  return ((Started *)data)->started;
}

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  SjRepl     *repl;
  const char *code;
} CodeCheck;

static gboolean
code_is (gpointer data)
{
  CodeCheck *check = data;

  return g_strcmp0 (_sj_repl_get_code (check->repl), check->code) == 0;
}

static gboolean
playing_from (gpointer data)
{
  CodeCheck *check = data;
  const SjReplState *state = sj_repl_get_state (check->repl);

  return state->playing && state->cycle >= 1;
}

typedef struct
{
  SjWindow   *window;
  const char *status;
} StatusCheck;

static gboolean
status_is (gpointer data)
{
  StatusCheck *check = data;

  return g_strcmp0 (_sj_window_get_play_in_status (check->window), check->status) == 0;
}

/* Record a Phrase said something other than that it records. */
static gboolean
recording_over (gpointer data)
{
  const char *status = _sj_window_get_play_in_status (data);

  return status != NULL && !g_str_has_prefix (status, "Recording ");
}

static void
press_key_in_editor (SjRepl     *repl,
                     const char *key_init)
{
  g_autofree char *script = g_strdup_printf ("document.querySelector('.cm-content').dispatchEvent("
                                             "new KeyboardEvent('keydown', {%s, bubbles: true, cancelable: true}));"
                                             " return 0;",
                                             key_init);
  g_autoptr(JsonNode) node = sj_test_call_js (repl, script);
}

static void
set_code_with_cursor_at_end (SjRepl     *repl,
                             const char *code)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  CodeCheck check = { repl, code };

  sj_repl_set_code_async (repl, code, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_set_code_finish (repl, sj_test_wait_result (&result), &error));
  g_assert_no_error (error);
  press_key_in_editor (repl, "key: 'End', code: 'End', keyCode: 35, ctrlKey: true");
  sj_test_spin_until (code_is, &check, "the editor to report the code");
}

static void
undo_in_editor (SjRepl     *repl,
                const char *code)
{
  CodeCheck check = { repl, code };
  g_autofree char *now = NULL;

  press_key_in_editor (repl, "key: 'z', code: 'KeyZ', keyCode: 90, ctrlKey: true");
  sj_test_spin_until (code_is, &check, "one undo to take the edit back");
  now = sj_test_fetch_code (repl);
  g_assert_cmpstr (now, ==, code);
}

static void
set_up_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  g_settings_set_string (settings, "midi-backend", "jack");
  g_settings_set_string (settings, "midi-destination", "sj-test-receiver:in");
  g_settings_set_string (settings, "midi-input", INPUT);
  g_settings_set_int (settings, "phrase-cycles", 2);
  g_settings_set_boolean (settings, "phrase-to-agent", FALSE);
}

/* The beat the test heard (note-ons of the page's .midi()) nearest to
 * @jack_time. */
static gint64
heard_beat_near (GArray *events,
                 gint64  jack_time)
{
  gint64 last = -1;

  for (guint i = 0; i < events->len; i++)
    {
      SjTestMidiEvent *e = &g_array_index (events, SjTestMidiEvent, i);

      if ((e->data[0] & 0xF0) == 0x90 && e->data[1] == 24)
        last = MAX (last, (gint64)e->time);
    }
  g_assert_cmpint (last, >, 0);

  return last + (gint64)llround ((double)(jack_time - last) / QUARTER_US) * QUARTER_US;
}

/* The note names of a phrase in the order written ("c3 e3 g3 …"), without
 * its steps, rests and chords' brackets. */
static char *
note_names (const char *phrase)
{
  g_autoptr(GRegex) regex = g_regex_new ("[a-g][#b]?[0-9]", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  g_autoptr(GString) names = g_string_new (NULL);

  g_regex_match (regex, phrase + strlen ("note("), 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      g_autofree char *name = g_match_info_fetch (match, 0);

      g_string_append_printf (names, "%s%s", names->len > 0 ? " " : "", name);
    }
  return g_string_free (g_steal_pointer (&names), FALSE);
}

typedef struct
{
  guint8 key;
  double on;   /* in cycles from the phrase's start */
  double off;
} Played;

static void
test_record_phrase (void)
{
  /* Two cycles: the "c3 [e3 g3] ~ c4", played up to 10 ms early
   * or late and released early; then a chord struck unevenly and held a
   * bit less than half the cycle. A step is 62.5 ms at cps 1: the page's
   * clock may be 20 ms off the beat heard (asserted below). */
  static const Played phrase[] = {
    { 48, 0.0, 0.22 }, { 52, 0.25 + 0.008, 0.35 }, { 55, 0.375 - 0.008, 0.47 }, { 60, 0.75 + 0.01, 0.97 },
    { 48, 1.0, 1.44 }, { 52, 1.0 + 0.005, 1.43 }, { 55, 1.0 + 0.01, 1.45 },
  };
  const char *code = "setcps(1)\nnote(\"c1*4\").midi()\n";
  const char *expected_phrase = "note(\"<[c3 [e3 g3] ~ c4] [[c3,e3,g3] ~]>\")";
  g_autoptr(GArray) heard = g_array_new (FALSE, FALSE, sizeof (SjTestMidiEvent));
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *now = NULL;
  SjWindow *window;
  SjRepl *repl;
  CodeCheck check;
  Started started = { 0 };
  gint64 start_jack, downbeat, late_us;
  guint tick;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  set_up_settings ();
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  tick = g_timeout_add (20, tick_cb, NULL);

  outcome = sj_test_evaluate (repl, code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  check = (CodeCheck) { repl, code };
  sj_test_spin_until (playing_from, &check, "the music to play");
  set_code_with_cursor_at_end (repl, code);

  g_signal_connect (_sj_window_get_phrase_recorder (window), "started", G_CALLBACK (started_cb), &started);
  g_action_group_activate_action (G_ACTION_GROUP (window), "record-phrase", NULL);
  sj_test_spin_until (is_started, &started, "the recording to start");
  g_assert_cmpuint (started.n_cycles, ==, 2);
  g_assert_cmpint (started.end_us - started.start_us, ==, 2 * G_USEC_PER_SEC);

  /* The phrase starts on a beat the test heard: the page's cycle clock
   * and what its .midi() sends agree. */
  sj_test_jack_take_events (jack, heard);
  start_jack = sj_test_jack_epoch_to_jack (started.start_us);
  downbeat = heard_beat_near (heard, start_jack);
  g_test_message ("The phrase starts %.1f ms from the beat heard (cycle %" G_GINT64_FORMAT ")",
                  (start_jack - downbeat) / 1000.0, started.first_cycle);
  g_assert_cmpfloat (fabs ((double)(start_jack - downbeat)), <, 20000);
  g_assert_cmpint (downbeat - sj_test_jack_epoch_to_jack (g_get_real_time ()), >, 0);

  /* Played against the beat heard, as a musician would. */
  sj_test_jack_take_max_late_us (jack);
  for (guint i = 0; i < G_N_ELEMENTS (phrase); i++)
    {
      guint8 on[3] = { 0x90, phrase[i].key, 100 };
      guint8 off[3] = { 0x80, phrase[i].key, 0 };

      sj_test_jack_send_at (jack, on, downbeat + (gint64)llround (phrase[i].on * G_USEC_PER_SEC));
      sj_test_jack_send_at (jack, off, downbeat + (gint64)llround (phrase[i].off * G_USEC_PER_SEC));
    }

  sj_test_spin_until (recording_over, window, "the recording to end");
  g_assert_cmpstr (_sj_window_get_play_in_status (window), ==,
                   "Phrase inserted at the cursor: play it with Ctrl+Enter, undo it with Ctrl+Z");
  expected = g_strconcat (code, expected_phrase, NULL);
  now = sj_test_fetch_code (repl);
  late_us = sj_test_jack_take_max_late_us (jack);
  g_test_message ("The test's JACK server played the phrase up to %.1f ms late: %s", late_us / 1000.0, now);
  /* The phrase's notes are within 10 ms of their steps and the page's clock
   * within 20 ms of the beat: a step is 62.5 ms, so a server (the dummy
   * driver has no real-time rights) that sent a note a few ms late on a
   * busy machine moves it to the next step. The grid is then the server's
   * to answer for; the notes, in their order, are still the recorder's. */
  if (late_us > 2000)
    {
      g_autofree char *got_notes = NULL;
      g_autofree char *expected_notes = note_names (expected_phrase);

      g_assert_true (g_str_has_prefix (now, code));
      got_notes = note_names (now + strlen (code));
      g_assert_cmpstr (got_notes, ==, expected_notes);
    }
  else
    g_assert_cmpstr (now, ==, expected);
  g_assert_false (sj_phrase_recorder_get_busy (_sj_window_get_phrase_recorder (window)));

  /* One undo takes it all away. */
  undo_in_editor (repl, code);

  /* Asked again while recording: canceled, nothing inserted. */
  started.started = FALSE;
  g_action_group_activate_action (G_ACTION_GROUP (window), "record-phrase", NULL);
  sj_test_spin_until (is_started, &started, "the second recording to start");
  g_action_group_activate_action (G_ACTION_GROUP (window), "record-phrase", NULL);
  {
    StatusCheck status = { window, "Recording canceled" };

    sj_test_spin_until (status_is, &status, "the recording to be canceled");
  }
  g_assert_false (sj_phrase_recorder_get_busy (_sj_window_get_phrase_recorder (window)));
  g_clear_pointer (&now, g_free);
  now = sj_test_fetch_code (repl);
  g_assert_cmpstr (now, ==, code);

  /* Stopped: the music first. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
  g_action_group_activate_action (G_ACTION_GROUP (window), "record-phrase", NULL);
  {
    StatusCheck status = { window, "Play the music first: a phrase is recorded on its cycles" };

    sj_test_spin_until (status_is, &status, "Record a Phrase to ask for the music");
  }

  g_signal_handlers_disconnect_by_data (_sj_window_get_phrase_recorder (window), &started);
  g_source_remove (tick);
}

static gboolean
agent_idle (gpointer data)
{
  SjAgent *agent = sj_window_get_agent (data);

  return agent != NULL && !sj_agent_is_busy (agent);
}

/* The other destination: with "phrase-to-agent" on, the phrase goes to the
 * agent as the musician's message, after what they had written in the
 * message box, and the model gets it; the editor is left alone. */
static void
test_phrase_to_agent (void)
{
  /* One cycle: the "c3 [e3 g3] ~ c4", played a little off. */
  static const Played phrase[] = {
    { 48, 0.0, 0.22 }, { 52, 0.25 + 0.008, 0.35 }, { 55, 0.375 - 0.008, 0.47 }, { 60, 0.75 + 0.01, 0.97 },
  };
  const char *code = "setcps(1)\nnote(\"c1*4\").midi()\n";
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GArray) heard = g_array_new (FALSE, FALSE, sizeof (SjTestMidiEvent));
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *now = NULL;
  g_autofree char *request_text = NULL;
  SjComposer *composer;
  JsonObject *request;
  JsonArray *messages;
  const char *sent = NULL;
  SjWindow *window;
  SjRepl *repl;
  CodeCheck check;
  StatusCheck status;
  Started started = { 0 };
  gint64 downbeat;
  guint tick, base_requests;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  set_up_settings ();
  g_settings_set_int (settings, "phrase-cycles", 1);
  /* Only here, so that the other cases run with no agent setting up. */
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  tick = g_timeout_add (20, tick_cb, NULL);

  outcome = sj_test_evaluate (repl, code);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  check = (CodeCheck) { repl, code };
  sj_test_spin_until (playing_from, &check, "the music to play");
  set_code_with_cursor_at_end (repl, code);

  /* The menu's toggle is the setting. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "phrase-to-agent", NULL);
  g_assert_true (g_settings_get_boolean (settings, "phrase-to-agent"));

  composer = _sj_chat_panel_get_composer (window->chat_panel);
  sj_composer_set_text (composer, "Make a bass line that answers this");
  base_requests = sj_test_model_server_get_n_requests (server);
  sj_test_model_server_reply_text (server, "Here is an answer in the low register.", 8);

  g_signal_connect (_sj_window_get_phrase_recorder (window), "started", G_CALLBACK (started_cb), &started);
  g_action_group_activate_action (G_ACTION_GROUP (window), "record-phrase", NULL);
  sj_test_spin_until (is_started, &started, "the recording to start");
  g_assert_cmpuint (started.n_cycles, ==, 1);
  sj_test_jack_take_events (jack, heard);
  downbeat = heard_beat_near (heard, sj_test_jack_epoch_to_jack (started.start_us));
  for (guint i = 0; i < G_N_ELEMENTS (phrase); i++)
    {
      guint8 on[3] = { 0x90, phrase[i].key, 100 };
      guint8 off[3] = { 0x80, phrase[i].key, 0 };

      sj_test_jack_send_at (jack, on, downbeat + (gint64)llround (phrase[i].on * G_USEC_PER_SEC));
      sj_test_jack_send_at (jack, off, downbeat + (gint64)llround (phrase[i].off * G_USEC_PER_SEC));
    }

  status = (StatusCheck) { window, "Phrase sent to the agent" };
  sj_test_spin_until (recording_over, window, "the recording to end");
  g_assert_cmpstr (_sj_window_get_play_in_status (window), ==, status.status);
  sj_test_spin_until (agent_idle, window, "the agent to answer");

  /* The model got the musician's words, then the phrase. */
  g_assert_cmpuint (sj_test_model_server_get_n_requests (server), ==, base_requests + 1);
  request = sj_test_model_server_get_request (server, base_requests);
  messages = json_object_get_array_member (request, "messages");
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "role", ""), "user") == 0 &&
          json_object_has_member (message, "content") &&
          JSON_NODE_HOLDS_VALUE (json_object_get_member (message, "content")))
        sent = json_object_get_string_member (message, "content");
    }
  g_assert_nonnull (sent);
  g_test_message ("the agent got: %s", sent);
  g_assert_nonnull (strstr (sent, "Make a bass line that answers this\n\n"
                                  "I played this phrase on my MIDI keyboard (1 cycle, quantized to "
                                  "sixteenths of a cycle):\n\nnote(\"c3 [e3 g3] ~ c4\")"));
  {
    g_autofree char *left = sj_composer_get_text (composer);

    g_assert_cmpstr (left, ==, "");
  }

  /* The editor is as it was. */
  now = sj_test_fetch_code (repl);
  g_assert_cmpstr (now, ==, code);

  g_settings_set_boolean (settings, "phrase-to-agent", FALSE);
  g_signal_handlers_disconnect_by_data (_sj_window_get_phrase_recorder (window), &started);
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
  g_source_remove (tick);
}

static void
test_learn (void)
{
  static const guint8 knob[3] = { 0xB2, 74, 100 };
  const char *code = "note(\"c3 e3\")";
  g_autofree char *expected = NULL;
  g_autofree char *now = NULL;
  SjWindow *window;
  SjRepl *repl;
  CodeCheck check;
  StatusCheck status;
  guint tick;

  if (jack == NULL)
    {
      g_test_skip ("jackd is not installed");
      return;
    }

  set_up_settings ();
  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  tick = g_timeout_add (20, tick_cb, NULL);
  set_code_with_cursor_at_end (repl, code);

  g_action_group_activate_action (G_ACTION_GROUP (window), "learn-controller", NULL);
  status = (StatusCheck) { window, "Move a knob or fader on the MIDI controller to map it at the cursor" };
  g_assert_true (status_is (&status));

  /* Control 74 (brightness) on channel 3: the filter, on that channel. */
  sj_test_jack_send (jack, knob);
  expected = g_strconcat ("const cc = await midin('" INPUT "')\n", code, ".lpf(cc(74, 3).range(200, 4000))", NULL);
  check = (CodeCheck) { repl, expected };
  sj_test_spin_until (code_is, &check, "the learned controller in the code");
  now = sj_test_fetch_code (repl);
  g_assert_cmpstr (now, ==, expected);
  status.status = "Controller 74 mapped: .lpf(cc(74, 3).range(200, 4000))";
  sj_test_spin_until (status_is, &status, "Learn to say what it mapped");

  /* The code plays: the knob's value reached midin() too (100 of 127). */
  {
    g_autoptr(JsonObject) outcome = sj_test_evaluate (repl, expected);
    g_autoptr(JsonNode) node = NULL;

    g_assert_true (json_object_get_boolean_member (outcome, "ok"));
    node = sj_test_call_js (repl, "return window.sjBridge.queryHaps(0, 0.5, 1)[0].value.cutoff;");
    g_assert_cmpfloat_with_epsilon (json_node_get_double (node), 200 + 3800 * 100 / 127.0, 1e-6);
    g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
    sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
  }
  set_code_with_cursor_at_end (repl, expected);

  /* Again, cancelled before any controller moves. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "learn-controller", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "learn-controller", NULL);
  status.status = "Learn canceled";
  g_assert_true (status_is (&status));

  /* One undo takes the first mapping away, midin()'s line with it. */
  set_code_with_cursor_at_end (repl, code);
  g_action_group_activate_action (G_ACTION_GROUP (window), "learn-controller", NULL);
  sj_test_jack_send (jack, knob);
  check.code = expected;
  sj_test_spin_until (code_is, &check, "the controller learned again");
  undo_in_editor (repl, code);

  g_source_remove (tick);
}

/* With the ALSA backend there is no JACK input: both say so. */
static void
test_needs_jack (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(JsonObject) outcome = NULL;
  StatusCheck status;
  CodeCheck check;
  SjWindow *window;
  SjRepl *repl;

  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  g_settings_set_string (settings, "midi-backend", "alsa");

  g_action_group_activate_action (G_ACTION_GROUP (window), "learn-controller", NULL);
  status = (StatusCheck) { window, "Learn needs JACK: start PipeWire’s JACK support (pipewire-jack) or jackd, "
                                   "then try again" };
  g_assert_true (status_is (&status));

  outcome = sj_test_evaluate (repl, "setcps(1)\nnote(\"c1*4\").s(\"triangle\").gain(0.1)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  check = (CodeCheck) { repl, NULL };
  sj_test_spin_until (playing_from, &check, "the music to play");
  g_action_group_activate_action (G_ACTION_GROUP (window), "record-phrase", NULL);
  status.status = "Record a Phrase needs JACK: start PipeWire’s JACK support (pipewire-jack) or jackd, then try again";
  sj_test_spin_until (status_is, &status, "Record a Phrase to say it needs JACK");
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");

  g_settings_set_string (settings, "midi-backend", "jack");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  /* Before the app, so that it finds the private server. */
  jack = sj_test_jack_start ();
  sj_test_app_start ();

  /* The agent, for the phrase given to it: a loopback model server. */
  server = sj_test_model_server_new ();
  sj_test_model_server_set_models (server, "{\"data\":[{\"id\":\"test/model\"}]}");

  g_test_add_func ("/play-in/record-phrase", test_record_phrase);
  g_test_add_func ("/play-in/phrase-to-agent", test_phrase_to_agent);
  g_test_add_func ("/play-in/learn", test_learn);
  g_test_add_func ("/play-in/needs-jack", test_needs_jack);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_model_server_free (server);
  sj_test_jack_stop (jack);
  sj_test_remove_tree (home);

  return ret;
}
