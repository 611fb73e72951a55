/* test-hear.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The app hears what it plays (issue 29), through the real window: the
 * page's level analysis (data/web/src/levels.mjs and its AudioWorklet)
 * measures what really goes out to a private PulseAudio null sink
 * (tests/with-pulse.sh), and parecord records the same sink to check it.
 *
 *  - listen's figures for a known sine, note("a4").s("sine"): its peak and
 *    RMS within a few dB of the recording, its energy in the mid band;
 *  - listen's onsets for a known beat, s("bd*4"): four a cycle;
 *  - the header bar's meter: its accessible name says the level, and
 *    changes with it;
 *  - a change the agent makes that goes silent is reverted at the next
 *    boundary: the code back, the tool result and the chat saying so;
 *  - errors the page reports from a new change revert it;
 *  - with "verify-landed-changes" at "warn", the silent change stays.
 *
 * Offline (the drums are the built-in kit's), with the limiter on as by
 * default.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-window-private.h"

#define SINE  "$: note(\"a4\").s(\"sine\")\n"
#define QUIET "$: note(\"a4\").s(\"sine\").gain(.0001)\n"

typedef struct
{
  SjLevels *levels;
  double    after;     /* the cycle that must be measured */
} Measured;

static gboolean
have_sink (void)
{
  if (g_getenv ("SJ_TEST_PULSE_SINK") != NULL)
    return TRUE;
  g_test_skip ("no PulseAudio null sink (run under tests/with-pulse.sh)");
  return FALSE;
}

static gboolean
cycle_measured (gpointer data)
{
  Measured *measured = data;
  const SjCycleLevels *latest = sj_levels_get_latest (measured->levels);

  return latest != NULL && latest->cycle >= measured->after;
}

/* Plays @code in the page and waits until @cycles whole cycles of it were
 * measured. */
static void
play_and_measure (SjWindow   *window,
                  const char *code,
                  guint       cycles)
{
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = sj_test_evaluate (repl, code);
  Measured measured = { _sj_window_get_levels (window), 0 };

  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  /* The cycle playing now is partly the code before. */
  measured.after = floor (sj_repl_get_state (repl)->cycle) + cycles;
  sj_test_spin_until (cycle_measured, &measured, "whole cycles to be measured");
}

static void
stop (SjWindow *window)
{
  SjRepl *repl = _sj_window_get_repl (window);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

/* listen's figures for a sine agree with what reached the sink. */
static void
test_sine (void)
{
  SjWindow *window;
  g_autoptr(JsonObject) heard = NULL;
  JsonObject *bands;
  SjTestRecording recorded;
  double low, mid, high;

  if (!have_sink ())
    return;

  window = sj_test_open_window ();
  play_and_measure (window, SINE, 2);
  recorded = sj_test_record_sink (4, 0.3);
  heard = sj_levels_listen (_sj_window_get_levels (window), 2);
  bands = json_object_get_object_member (heard, "bands");
  low = json_object_get_double_member (bands, "low");
  mid = json_object_get_double_member (bands, "mid");
  high = json_object_get_double_member (bands, "high");
  g_test_message ("sine: listen rms %.1f peak %.1f dBFS, bands low %.1f mid %.1f high %.1f, %.1f onsets a cycle; "
                  "recorded rms %.1f peak %.1f dBFS",
                  json_object_get_double_member (heard, "rmsDb"), json_object_get_double_member (heard, "peakDb"),
                  low, mid, high, json_object_get_double_member (heard, "onsetsPerCycle"),
                  recorded.rms_db, recorded.peak_db);

  g_assert_false (json_object_get_boolean_member (heard, "silent"));
  g_assert_cmpfloat (fabs (json_object_get_double_member (heard, "peakDb") - recorded.peak_db), <, 2);
  g_assert_cmpfloat (fabs (json_object_get_double_member (heard, "rmsDb") - recorded.rms_db), <, 3);
  /* 440 Hz: the mid band holds it. */
  g_assert_cmpfloat (mid, >, low + 6);
  g_assert_cmpfloat (mid, >, high + 20);
  g_assert_cmpfloat (fabs (mid - json_object_get_double_member (heard, "rmsDb")), <, 3);
  /* The one layer, heard on its own orbit, is the whole. */
  {
    JsonArray *layers = json_object_get_array_member (heard, "layers");

    g_assert_cmpuint (json_array_get_length (layers), ==, 1);
    g_assert_cmpfloat (fabs (json_object_get_double_member (json_array_get_object_element (layers, 0), "rmsDb") -
                             json_object_get_double_member (heard, "rmsDb")), <, 3);
  }
  /* One note a cycle. */
  g_assert_cmpfloat (json_object_get_double_member (heard, "onsetsPerCycle"), <=, 1.5);
  g_assert_false (json_object_get_boolean_member (heard, "clipping"));

  /* What the analysis costs the page's main thread (it runs no script on
   * the audio thread): well under 3 % of a core. */
  {
    g_autoptr(JsonNode) cost = sj_test_call_js (_sj_window_get_repl (window), "return sjBridge.getLevelsCost();");
    JsonObject *figures = json_node_get_object (cost);
    double ms = json_object_get_double_member (figures, "ms");
    double seconds = json_object_get_double_member (figures, "seconds");
    double tick = json_object_get_double_member (figures, "medianTickMs");
    double per_second = json_object_get_double_member (figures, "ticksPerSecond");

    /* Wall-clock time: on a loaded machine the total includes the time
     * the thread was preempted; the median tick mostly does not. */
    g_test_message ("analysis: %.1f ms of the main thread in %.1f s (%.2f %% of a core); median tick %.3f ms, "
                    "%.0f a second (%.2f %% of a core)", ms, seconds, ms / seconds / 10, tick, per_second,
                    tick * per_second / 10);
    g_assert_cmpfloat (seconds, >, 2);
    g_assert_cmpfloat (tick * per_second / 10, <, 3);
  }

  stop (window);
  sj_test_close_window (window);
}

/* Four kicks a cycle are four onsets a cycle. */
static void
test_beat (void)
{
  SjWindow *window;
  g_autoptr(JsonObject) heard = NULL;
  double onsets;

  if (!have_sink ())
    return;

  window = sj_test_open_window ();
  /* The first cycle measured may have started late: the three after it. */
  play_and_measure (window, "$: s(\"bd*4\")\n", 4);
  heard = sj_levels_listen (_sj_window_get_levels (window), 3);
  onsets = json_object_get_double_member (heard, "onsetsPerCycle");
  g_test_message ("bd*4: %.1f onsets a cycle, rms %.1f dBFS, low band %.1f dB, high %.1f dB", onsets,
                  json_object_get_double_member (heard, "rmsDb"),
                  json_object_get_double_member (json_object_get_object_member (heard, "bands"), "low"),
                  json_object_get_double_member (json_object_get_object_member (heard, "bands"), "high"));
  {
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), heard);
    g_autofree char *text = json_to_string (node, FALSE);

    g_test_message ("bd*4: %s", text);
  }
  {
    g_autoptr(JsonNode) cost = sj_test_call_js (_sj_window_get_repl (window), "return sjBridge.getLevelsCost();");
    g_autoptr(JsonNode) stats = sj_test_call_js (_sj_window_get_repl (window), "return sjBridge.getState();");

    g_test_message ("bd*4: %.0f frames lost to a late main thread; page state %s",
                    json_object_get_double_member (json_node_get_object (cost), "lostFrames"),
                    json_to_string (stats, FALSE));
  }
  g_assert_cmpfloat (onsets, >=, 3.5);
  g_assert_cmpfloat (onsets, <=, 4.5);
  g_assert_false (json_object_get_boolean_member (heard, "silent"));

  /* While no one sees the meter (here: the page told its window is not
   * focused) the analysis reads half as often, and still hears every
   * kick: the analysers keep more than two ticks of samples. */
  {
    SjRepl *repl = _sj_window_get_repl (window);
    g_autoptr(JsonNode) slow = NULL;
    g_autoptr(JsonObject) unseen = NULL;
    g_autoptr(JsonNode) done = NULL;
    Measured measured = { _sj_window_get_levels (window), 0 };

    done = sj_test_call_js (repl, "document.hasFocus = () => false; return true;");
    g_assert_nonnull (done);
    measured.after = floor (sj_repl_get_state (repl)->cycle) + 4;
    sj_test_spin_until (cycle_measured, &measured, "whole cycles to be measured, unseen");
    slow = sj_test_call_js (repl, "return sjBridge.getLevelsCost();");
    unseen = sj_levels_listen (_sj_window_get_levels (window), 3);
    onsets = json_object_get_double_member (unseen, "onsetsPerCycle");
    g_test_message ("bd*4 unseen: %.1f onsets a cycle, rms %.1f dBFS, %.0f reads a second, %.0f frames lost",
                    onsets, json_object_get_double_member (unseen, "rmsDb"),
                    json_object_get_double_member (json_node_get_object (slow), "ticksPerSecond"),
                    json_object_get_double_member (json_node_get_object (slow), "lostFrames"));
    g_assert_true (json_object_get_boolean_member (json_node_get_object (slow), "slow"));
    g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (slow), "ticksPerSecond"), ==, 2);
    g_assert_cmpfloat (onsets, >=, 3.5);
    g_assert_cmpfloat (onsets, <=, 4.5);
    g_assert_cmpfloat (fabs (json_object_get_double_member (unseen, "rmsDb") -
                             json_object_get_double_member (heard, "rmsDb")), <, 1.5);
  }

  stop (window);
  sj_test_close_window (window);
}

typedef struct
{
  SjWindow   *window;
  const char *not;
} Label;

static gboolean
meter_label_changed (gpointer data)
{
  Label *label = data;

  return label->window->meter_label != NULL && g_strcmp0 (label->window->meter_label, label->not) != 0 &&
         g_str_has_prefix (label->window->meter_label, "Output level −");
}

static void
assert_meter_label (SjWindow *window)
{
  g_autofree char *problem = gtk_test_accessible_check_property (GTK_ACCESSIBLE (window->level_meter),
                                                                 GTK_ACCESSIBLE_PROPERTY_LABEL, window->meter_label);

  g_assert_null (problem);
}

/* The meter's accessible name says the level, and follows it. */
static void
test_meter (void)
{
  SjWindow *window;
  g_autofree char *loud = NULL;
  Label label;

  if (!have_sink ())
    return;

  window = sj_test_open_window ();
  g_assert_cmpstr (window->meter_label, ==, "Output level: stopped");
  assert_meter_label (window);
  g_assert_false (gtk_widget_get_sensitive (window->level_box));

  play_and_measure (window, SINE, 1);
  label = (Label) { window, "Output level: stopped" };
  sj_test_spin_until (meter_label_changed, &label, "the meter to show a level");
  g_assert_true (gtk_widget_get_sensitive (window->level_box));
  g_assert_cmpfloat (gtk_level_bar_get_value (window->level_meter), >, 0.5);
  assert_meter_label (window);
  loud = g_strdup (window->meter_label);
  g_test_message ("meter: %s", loud);

  play_and_measure (window, "$: note(\"a4\").s(\"sine\").gain(.05)\n", 1);
  label.not = loud;
  sj_test_spin_until (meter_label_changed, &label, "the meter to follow the level down");
  g_test_message ("meter, quieter: %s", window->meter_label);
  assert_meter_label (window);
  g_assert_cmpfloat (gtk_level_bar_get_value (window->level_meter), <, 0.8);

  stop (window);
  g_assert_cmpstr (window->meter_label, ==, "Output level: stopped");
  assert_meter_label (window);
  sj_test_close_window (window);
}

/* The agent ----------------------------------------------------------- */

typedef struct
{
  GPtrArray *states;
  GPtrArray *messages;
} Verdicts;

static void
verified_cb (SjChangeVerifier *verifier,
             double            cycle,
             const char       *state,
             const char       *message,
             Verdicts         *verdicts)
{
  g_ptr_array_add (verdicts->states, g_strdup (state));
  g_ptr_array_add (verdicts->messages, g_strdup (message));
}

static gboolean
agent_idle (gpointer data)
{
  return !sj_agent_is_busy (((SjWindow *) data)->agent);
}

typedef struct
{
  SjRepl     *repl;
  const char *code;
} Code;

static gboolean
code_is (gpointer data)
{
  Code *code = data;
  g_autofree char *text = sj_test_fetch_code (code->repl);

  return g_strcmp0 (text, code->code) == 0;
}

static gboolean
verdict_is_in (gpointer data)
{
  Verdicts *verdicts = data;

  for (guint i = 0; i < verdicts->states->len; i++)
    if (g_strcmp0 (g_ptr_array_index (verdicts->states, i), "listening") != 0)
      return TRUE;
  return FALSE;
}

/* Every swap state an answer shows, in order. */
static void
swap_notified_cb (SjChatMessage *message,
                  GParamSpec    *pspec,
                  GArray        *seen)
{
  int swap = sj_chat_message_get_swap (message);

  g_array_append_val (seen, swap);
}

static void
messages_changed_cb (GListModel *messages,
                     guint       position,
                     guint       removed,
                     guint       added,
                     GArray     *seen)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i);

      g_signal_connect (message, "notify::swap", G_CALLBACK (swap_notified_cb), seen);
    }
}

static SjWindow *
open_agent_window (SjTestModelServer *server,
                   Verdicts          *verdicts)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  SjWindow *window;

  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");

  window = sj_test_open_window ();
  g_assert_nonnull (sj_window_get_agent (window));
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  verdicts->states = g_ptr_array_new_with_free_func (g_free);
  verdicts->messages = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (_sj_window_get_verifier (window), "changed", G_CALLBACK (verified_cb), verdicts);

  return window;
}

static void
close_agent_window (SjWindow *window,
                    Verdicts *verdicts)
{
  g_signal_handlers_disconnect_by_data (_sj_window_get_verifier (window), verdicts);
  g_ptr_array_unref (verdicts->states);
  g_ptr_array_unref (verdicts->messages);
  stop (window);
  sj_test_close_window (window);
}

/* The agent changes the sine into something that makes no sound: heard
 * silent, put back at the next boundary, and said so. */
static void
test_silent_change_reverted (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(SjChatMessage) answer = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autofree char *hash = sj_code_hash (SINE);
  g_autofree char *args = NULL;
  g_autoptr(GArray) seen = g_array_new (FALSE, FALSE, sizeof (int));
  JsonObject *verification;
  Verdicts verdicts;
  SjWindow *window;
  SjRepl *repl;
  Code back;

  if (!have_sink ())
    return;

  window = open_agent_window (server, &verdicts);
  repl = _sj_window_get_repl (window);
  play_and_measure (window, SINE, 2);

  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"search_replace\","
                          "\"edits\":[{\"search\":\".s(\\\"sine\\\")\",\"replace\":\".s(\\\"sine\\\").gain(.0001)\"}]}}",
                          hash);
  sj_test_model_server_reply_tool_call (server, NULL, "call_1", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "It did not sound; the sine is back.", 6);
  g_signal_connect (_sj_chat_panel_get_messages (window->chat_panel), "items-changed",
                    G_CALLBACK (messages_changed_cb), seen);
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "much quieter");
  sj_test_spin_until (agent_idle, window, "the agent to answer");
  g_signal_handlers_disconnect_by_data (_sj_chat_panel_get_messages (window->chat_panel), seen);

  /* The answer counted down to the change (issue 32's "Lands in N
   * beats"), said Listening… while it played, never Applied. */
  while (seen->len > 0 && (g_array_index (seen, int, 0) == SJ_CHAT_SWAP_QUEUED ||
                            g_array_index (seen, int, 0) == SJ_CHAT_SWAP_LANDING))
    g_array_remove_index (seen, 0);
  g_assert_cmpuint (seen->len, >=, 2);
  g_assert_cmpint (g_array_index (seen, int, 0), ==, SJ_CHAT_SWAP_LISTENING);
  g_assert_cmpint (g_array_index (seen, int, seen->len - 1), ==, SJ_CHAT_SWAP_REVERTED);
  for (guint i = 0; i < seen->len; i++)
    g_assert_cmpint (g_array_index (seen, int, i), !=, SJ_CHAT_SWAP_APPLIED);

  /* Listening…, then reverted. */
  g_assert_cmpuint (verdicts.states->len, >=, 2);
  g_assert_cmpstr (g_ptr_array_index (verdicts.states, 0), ==, "listening");
  g_assert_cmpstr (g_ptr_array_index (verdicts.states, verdicts.states->len - 1), ==, "reverted");
  g_test_message ("verdict: %s", (char *) g_ptr_array_index (verdicts.messages, verdicts.messages->len - 1));

  /* The tool result says so. */
  calls = sj_history_store_list_session_tool_calls (window->history, sj_agent_get_session_id (window->agent), NULL);
  g_assert_cmpuint (calls->len, ==, 1);
  result = json_from_string (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->result, NULL);
  verification = json_object_get_object_member (json_node_get_object (result), "verification");
  g_assert_cmpstr (json_object_get_string_member (verification, "status"), ==, "reverted");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (verification, "message"),
                                   "reverted: the new code made no sound"));
  g_assert_cmpint (((SjHistoryToolCall *) g_ptr_array_index (calls, 0))->status, ==, SJ_HISTORY_TOOL_FAILED);

  /* The chat says so. */
  answer = g_list_model_get_item (_sj_chat_panel_get_messages (window->chat_panel), 1);
  g_assert_cmpint (sj_chat_message_get_swap (answer), ==, SJ_CHAT_SWAP_REVERTED);

  /* The sine is back. */
  back = (Code) { repl, SINE };
  sj_test_spin_until (code_is, &back, "the previous code to be back");

  close_agent_window (window, &verdicts);
}

/* An error the page reports from the new code's playing reverts it. */
static void
test_page_errors_reverted (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  Verdicts verdicts;
  SjWindow *window;
  SjRepl *repl;
  GAsyncResult *slot = NULL;
  g_autoptr(SjChangeResult) landed = NULL;
  g_autoptr(JsonNode) thrown = NULL;
  const char *message;
  Code back;

  if (!have_sink ())
    return;

  window = open_agent_window (server, &verdicts);
  repl = _sj_window_get_repl (window);
  play_and_measure (window, SINE, 2);

  sj_change_applier_replace_async (sj_window_get_applier (window), "$: note(\"e4\").s(\"sine\")\n", "user", NULL,
                                   sj_test_store_result_cb, &slot);
  landed = sj_change_applier_apply_finish (sj_window_get_applier (window), sj_test_wait_result (&slot), NULL);
  g_clear_object (&slot);
  g_assert_cmpint (landed->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  g_assert_true (sj_change_verifier_is_checking (_sj_window_get_verifier (window), landed->apply_at_cycle));

  /* What the page says when a note cannot be played: an error it throws. */
  thrown = sj_test_call_js (repl, "setTimeout(() => { throw new Error('[getTrigger] error: Decoding failed'); }, 0);"
                                  " return true;");
  sj_test_spin_until (verdict_is_in, &verdicts, "the change to be judged");
  g_assert_cmpstr (g_ptr_array_index (verdicts.states, verdicts.states->len - 1), ==, "reverted");
  message = g_ptr_array_index (verdicts.messages, verdicts.messages->len - 1);
  g_test_message ("verdict: %s", message);
  g_assert_nonnull (strstr (message, "the page reported an error from the new code"));
  g_assert_nonnull (strstr (message, "Decoding failed"));

  back = (Code) { repl, SINE };
  sj_test_spin_until (code_is, &back, "the previous code to be back");

  close_agent_window (window, &verdicts);
}

/* "warn": the silent change stays, and the verdict says it was kept. */
static void
test_warn_keeps (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(SjChangeResult) landed = NULL;
  Verdicts verdicts;
  SjWindow *window;
  SjRepl *repl;
  GAsyncResult *slot = NULL;
  g_autofree char *code = NULL;
  Measured measured;

  if (!have_sink ())
    return;

  g_settings_set_string (settings, "verify-landed-changes", "warn");
  window = open_agent_window (server, &verdicts);
  g_assert_cmpstr (sj_change_verifier_get_mode (_sj_window_get_verifier (window)), ==, "warn");
  repl = _sj_window_get_repl (window);
  play_and_measure (window, SINE, 2);

  sj_change_applier_replace_async (sj_window_get_applier (window), QUIET, "user", NULL,
                                   sj_test_store_result_cb, &slot);
  landed = sj_change_applier_apply_finish (sj_window_get_applier (window), sj_test_wait_result (&slot), NULL);
  g_clear_object (&slot);
  g_assert_cmpint (landed->status, ==, SJ_CHANGE_STATUS_SCHEDULED);
  sj_test_spin_until (verdict_is_in, &verdicts, "the change to be judged");
  g_assert_cmpstr (g_ptr_array_index (verdicts.states, verdicts.states->len - 1), ==, "kept");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (verdicts.messages, verdicts.messages->len - 1),
                                   "kept (verify-landed-changes is warn): the new code made no sound"));

  /* A cycle later, the quiet code still plays. */
  measured = (Measured) { _sj_window_get_levels (window), landed->apply_at_cycle + 3 };
  sj_test_spin_until (cycle_measured, &measured, "another cycle");
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, QUIET);

  g_settings_reset (settings, "verify-landed-changes");
  close_agent_window (window, &verdicts);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(GSettings) settings = NULL;
  int ret;

  /* The accessible name is read as a screen reader would be told it. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();
  /* Offline: the drums are the built-in kit's, as on a first start. */
  settings = g_settings_new (APP_ID);
  g_settings_set_boolean (settings, "download-sounds", FALSE);

  g_test_add_func ("/hear/sine", test_sine);
  g_test_add_func ("/hear/beat", test_beat);
  g_test_add_func ("/hear/meter", test_meter);
  g_test_add_func ("/hear/silent-change-reverted", test_silent_change_reverted);
  g_test_add_func ("/hear/page-errors-reverted", test_page_errors_reverted);
  g_test_add_func ("/hear/warn-keeps", test_warn_keeps);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
