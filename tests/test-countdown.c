/* test-countdown.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Live-set controls (issue 32) in the real window and page, with a private
 * PulseAudio null sink (tests/with-pulse.sh) so that the app hears what it
 * plays, and the agent over a loopback model server:
 *
 *  - the countdown "Lands in N beats" agrees with the swap's real boundary
 *    (the audio time of its first new event) at every moment it is read,
 *    counts down one beat at a time and reaches 0 when the boundary sounds;
 *  - a change canceled within its last beat, with the listed shortcut
 *    typed with xdotool: the old code plays on and is in the editor, the
 *    answer says Canceled, the tool result and the next message's context
 *    tell the model, and the code timeline is as before;
 *  - a change that lands on the next beat (the composer's choice for one
 *    message) starts exactly on a beat;
 *  - Panic (typed, and clicked in the header bar) while idle, while a
 *    change is pending and while an answer streams that never finishes;
 *  - too late to cancel: at the page's commit (its scheduler queries ahead
 *    of the boundary) Cancel Change says so, the answer's Cancel is
 *    insensitive and the editor's banner says Landing with its Cancel
 *    disabled (recorded in the page as it changes), and a cancel that
 *    crosses the commit (the page's events emitted in that order) says
 *    too late rather than that nothing was pending;
 *  - Panic right when an answer hands its change to the page: the change
 *    never plays; Panic while the page is still loading (and an answer
 *    streams): it says so at once, and works again once the page is back.
 *
 * test_cancel_buttons saves the help's figures (help/C/figures/) in
 * SJ_TEST_OUTPUT_DIR: figure-countdown.png and figure-answer-cost.png.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <webkit/webkit.h>

#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-composer-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-test-swap.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60
#define BEATS_PER_CYCLE 4
#define SILENT "note(\"c3*4\").s(\"sine\").gain(.00001)"

static SjTestKeyWindow keys;
static SjTestModelServer *server;

static const char * const cancel_keys[] = { "ctrl+shift+BackSpace", NULL };
static const char * const panic_keys[] = { "ctrl+shift+p", NULL };

/* What the page's countdown said (SjRepl::swap-countdown). */
typedef struct
{
  double cycle;
  int    beats;
  double seconds;
  gint64 time;    /* when it arrived, monotonic µs */
} Tick;

static void
countdown_cb (SjRepl *repl,
              double  cycle,
              int     beats,
              double  seconds,
              GArray *ticks)
{
  Tick tick = { cycle, beats, seconds, g_get_monotonic_time () };

  g_test_message ("countdown: %d beats to cycle %g (%.3f s)", beats, cycle, seconds);
  g_array_append_val (ticks, tick);
}

static gboolean
countdown_reached_zero (gpointer data)
{
  GArray *ticks = data;

  return ticks->len > 0 && g_array_index (ticks, Tick, ticks->len - 1).beats == 0;
}

typedef struct
{
  GArray *ticks;
  int     beats;
} BeatsWait;

static gboolean
countdown_at (gpointer data)
{
  BeatsWait *wait = data;

  return wait->ticks->len > 0 && g_array_index (wait->ticks, Tick, wait->ticks->len - 1).beats <= wait->beats;
}

static void
log_swap_cb (SjRepl     *repl,
             const char *state,
             double      cycle,
             gpointer    data)
{
  g_test_message ("swap %s at cycle %g (the page at %.3f)", state, cycle, sj_repl_get_state (repl)->cycle);
}

static JsonObject *
page_countdown (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "return window.sjBridge.getCountdown();");

  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_dup_object (node) : NULL;
}

static char *
banner_text (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "const b = document.getElementById('sj-swap-banner');"
                                                    "return b && !b.hidden ? b.textContent : '';");

  return json_node_dup_string (node);
}

static double
page_gain (SjRepl *repl)
{
  g_autoptr(JsonNode) node = sj_test_call_js (repl, "return window.sjBridge.getDuck();");

  return json_node_get_double (node);
}

static gboolean
not_ducked (gpointer repl)
{
  return page_gain (repl) > 0.95;
}

static gboolean
ducked (gpointer repl)
{
  return page_gain (repl) < 0.5;
}

static gboolean
have_sink (void)
{
  if (g_getenv ("SJ_TEST_PULSE_SINK") != NULL)
    return TRUE;
  g_test_skip ("no PulseAudio null sink (run under tests/with-pulse.sh)");
  return FALSE;
}

static SjWindow *
open_window (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);

  g_assert_nonnull (sj_window_get_agent (window));
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  /* The editor has the keyboard: the keys must work from there. */
  gtk_widget_grab_focus (sj_repl_get_widget (window->repl));
  return window;
}

static gboolean
agent_idle (gpointer data)
{
  return !sj_agent_is_busy (((SjWindow *) data)->agent);
}

static gboolean
agent_busy (gpointer data)
{
  return sj_agent_is_busy (((SjWindow *) data)->agent);
}

static gboolean
panic_done (gpointer data)
{
  return !_sj_window_is_panicking (data);
}

typedef struct
{
  SjWindow   *window;
  const char *code;
} HeardWait;

static gboolean
heard (gpointer data)
{
  HeardWait *wait = data;

  return g_strcmp0 (_sj_window_get_heard_code (wait->window), wait->code) == 0;
}

typedef struct
{
  SjRepl     *repl;
  const char *code;
} CodeWait;

static gboolean
code_is (gpointer data)
{
  CodeWait *wait = data;
  g_autofree char *text = sj_test_fetch_code (wait->repl);

  return g_strcmp0 (text, wait->code) == 0;
}

/* Plays @code at @cps from the editor and waits until it was heard. */
static void
play_heard (SjWindow   *window,
            const char *code)
{
  g_autoptr(JsonObject) outcome = sj_test_evaluate (window->repl, code);
  HeardWait wait = { window, code };

  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (heard, &wait, "the code to be heard sounding");
}

/* The last message of the chat, of the app (a system line). */
static SjChatMessage *
last_message (SjWindow *window)
{
  GListModel *messages = _sj_chat_panel_get_messages (window->chat_panel);
  guint n = g_list_model_get_n_items (messages);

  g_assert_cmpuint (n, >, 0);
  return g_list_model_get_item (messages, n - 1);
}

/* The first event of the new code in a recording: its onset and audio time. */
static gboolean
first_new_event (JsonObject *recording,
                 double     *onset,
                 double     *time,
                 char      **fraction)
{
  JsonArray *events = json_object_get_array_member (recording, "events");

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *event = json_array_get_object_element (events, i);

      if (g_strcmp0 (json_object_get_string_member (event, "source"), "new") == 0)
        {
          *onset = json_object_get_double_member (event, "onset");
          *time = json_object_get_double_member (event, "t");
          if (fraction != NULL)
            *fraction = g_strdup (json_object_get_string_member (event, "onsetFraction"));
          return TRUE;
        }
    }
  return FALSE;
}

/* The countdown against the swap's real boundary ------------------------- */

/* Wakes the main loop so a wait by iterations can look at the clock. */
static gboolean
keep_waking_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
test_beats (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (Tick));
  g_autoptr(GPtrArray) readings = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(SjSwapResult) swap = NULL;
  g_autoptr(JsonObject) recording = NULL;
  SjTestSwapEvent event = { 0 };
  double boundary, onset, boundary_time, cps;
  g_autofree char *text = NULL;
  gulong handler;
  guint skipped = 0;

  if (!have_sink ())
    return;

  sj_test_swap_start_playing (repl, 1, &sj_test_swap_voice_a);
  sj_test_swap_record_events (repl, TRUE);
  handler = g_signal_connect (repl, "swap-countdown", G_CALLBACK (countdown_cb), ticks);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);

  /* Two cycles or more ahead: eight beats or more to count. */
  swap = sj_test_schedule_swap (repl, sj_test_swap_voice_b.code, "bars", 1, 2, FALSE);
  g_assert_cmpint (swap->status, ==, SJ_SWAP_SCHEDULED);
  boundary = swap->apply_at_cycle;
  cps = swap->cps;
  g_assert_cmpfloat (cps, ==, 1);

  /* The banner counts, and the countdown is read a few times on the way. */
  text = banner_text (repl);
  g_assert_true (g_str_has_prefix (text, "Lands in "));
  while (g_strcmp0 (event.state, "applied") != 0)
    {
      JsonObject *now = page_countdown (repl);

      if (now != NULL)
        g_ptr_array_add (readings, now);
      /* Space the readings by running the main loop, not by sleeping: a
       * tick is stamped when it is dispatched, and a sleep here would
       * stamp it up to this long late. */
      {
        gint64 until = g_get_monotonic_time () + 137 * 1000;
        guint wake = g_timeout_add (10, keep_waking_cb, NULL);

        while (g_get_monotonic_time () < until && g_strcmp0 (event.state, "applied") != 0)
          g_main_context_iteration (NULL, TRUE);
        g_source_remove (wake);
      }
    }
  sj_test_spin_until (countdown_reached_zero, ticks, "the countdown to reach 0");
  g_signal_handler_disconnect (repl, handler);
  g_signal_handlers_disconnect_by_data (repl, &event);

  sj_test_swap_wait_for_cycle (repl, boundary + 1);
  recording = sj_test_swap_take_recorded (repl);
  sj_test_swap_record_events (repl, FALSE);
  g_assert_true (first_new_event (recording, &onset, &boundary_time, NULL));
  g_assert_cmpfloat (onset, ==, boundary);
  g_test_message ("boundary: cycle %g at audio time %.4f s; %u readings, %u ticks",
                  boundary, boundary_time, readings->len, ticks->len);

  /* Every reading: the page counts to the audio time of the real boundary,
   * and N is the beats left to it, rounded up. */
  g_assert_cmpuint (readings->len, >=, 5);
  for (guint i = 0; i < readings->len; i++)
    {
      JsonObject *now = g_ptr_array_index (readings, i);
      double time = json_object_get_double_member (now, "time");
      double end = json_object_get_double_member (now, "endTime");
      int beats = json_object_get_int_member (now, "beats");
      int expected = (int) MAX (0, ceil ((boundary_time - time) * cps * BEATS_PER_CYCLE - 0.0005 * BEATS_PER_CYCLE));

      g_test_message ("t=%.3f: %d beats (%.3f s left), expected %d", time, beats,
                      json_object_get_double_member (now, "seconds"), expected);
      g_assert_cmpfloat (fabs (end - boundary_time), <, 0.001);
      g_assert_cmpint (beats, ==, expected);
      g_assert_cmpfloat (json_object_get_double_member (now, "cycle"), ==, boundary);
    }

  /* The app heard the beats, one after the other, a beat apart, down to
   * 0 once the boundary sounded. The page's timer may come a beat late when
   * a busy machine stalls the page: then the count goes on from where the
   * audio clock is (a beat is never said twice, nor out of order). */
  g_assert_cmpuint (ticks->len, >=, 8);
  for (guint i = 1; i < ticks->len; i++)
    {
      Tick *previous = &g_array_index (ticks, Tick, i - 1);
      Tick *tick = &g_array_index (ticks, Tick, i);

      g_assert_cmpfloat (tick->cycle, ==, boundary);
      g_assert_cmpint (tick->beats, <, previous->beats);
      if (tick->beats != previous->beats - 1)
        {
          g_test_message ("beats %d to %d not said: the page's timer came late", previous->beats - 1, tick->beats + 1);
          skipped += previous->beats - 1 - tick->beats;
        }
    }
  g_assert_cmpuint (skipped * 4, <=, ticks->len);
  /* The 0 comes when the beats said it would. Each tick foretells the
   * boundary at its arrival plus the seconds it said were left; a tick
   * can only arrive late (the web process or this one held off the CPU on
   * a loaded machine), never early, so the earliest foretelling is the
   * truest. The 0 is never before it, and after it by no more than its
   * own delivery. The exact figures are checked against the audio clock
   * in the readings above; this checks what the app was told. */
  {
    Tick *zero = &g_array_index (ticks, Tick, ticks->len - 1);
    gint64 foretold = G_MAXINT64;
    double late;

    for (guint i = 0; i + 1 < ticks->len; i++)
      {
        Tick *tick = &g_array_index (ticks, Tick, i);

        foretold = MIN (foretold, tick->time + (gint64) (tick->seconds * 1e6));
      }
    late = (zero->time - foretold) / 1e6;
    g_test_message ("0 came %.3f s after the earliest foretold boundary (first said %.3f s)",
                    late, g_array_index (ticks, Tick, 0).seconds);
    g_assert_cmpfloat (late, >, -0.05);
    g_assert_cmpfloat (late, <, 0.5);
  }
  g_assert_cmpint (g_array_index (ticks, Tick, ticks->len - 1).beats, ==, 0);
  g_assert_cmpfloat (g_array_index (ticks, Tick, ticks->len - 1).seconds, ==, 0);
  g_assert_null (page_countdown (repl));
  g_free (text);
  text = banner_text (repl);
  g_assert_cmpstr (text, ==, "");

  g_free (event.state);
  sj_test_swap_stop_playing (repl);
}

/* Cancel at the last moment ------------------------------------------------ */

static void
test_cancel_last_moment (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  SjTimeline *timeline;
  g_autoptr(GArray) ticks = g_array_new (FALSE, FALSE, sizeof (Tick));
  g_autofree char *code_a = g_strdup_printf ("setcps(0.25)\n%s", sj_test_swap_voice_a.code);
  g_autofree char *code_b = g_strdup_printf ("setcps(0.25)\n%s", sj_test_swap_voice_b.code);
  g_autofree char *hash = sj_code_hash (code_a);
  g_autofree char *args = NULL;
  g_autofree char *escaped = g_strescape (code_b, NULL);
  g_autoptr(JsonObject) recording = NULL;
  g_autoptr(SjChatMessage) answer = NULL;
  g_autoptr(SjChatMessage) line = NULL;
  JsonObject *request;
  g_autofree char *request_text = NULL;
  g_autofree char *tool_result = NULL;
  SjTestSwapEvent event = { 0 };
  BeatsWait last_beat = { ticks, 1 };
  CodeWait old_code = { repl, code_a };
  const SjSnapshot *current;
  JsonArray *events;
  guint n_snapshots, base_requests;
  double boundary;

  if (!have_sink ())
    return;

  play_heard (window, code_a);
  timeline = sj_change_applier_get_timeline (sj_window_get_applier (window));

  /* The agent changes voice A into B on the next cycle. */
  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"full_code\",\"code\":\"%s\"},"
                          "\"policy\":{\"quantize\":\"next_cycle\"}}", hash, escaped);
  base_requests = sj_test_model_server_get_n_requests (server);
  sj_test_model_server_reply_tool_call (server, NULL, "call_cancel", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "Fine, it stays as it was.", 6);
  g_signal_connect (repl, "swap-countdown", G_CALLBACK (countdown_cb), ticks);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (log_swap_cb), ticks);
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "switch to the triangle");

  /* Within the last beat (a second at 0.25 cps), with the keys. */
  sj_test_spin_until (countdown_at, &last_beat, "the last beat before the boundary");
  boundary = g_array_index (ticks, Tick, ticks->len - 1).cycle;
  n_snapshots = sj_timeline_get_n_items (timeline);
  /* The answer counts down with the page. */
  answer = last_message (window);
  g_assert_cmpint (sj_chat_message_get_swap (answer), ==, SJ_CHAT_SWAP_QUEUED);
  g_assert_cmpint (sj_chat_message_get_swap_beats (answer), ==, 1);
  g_assert_cmpfloat (sj_chat_message_get_swap_cycle (answer), ==, boundary);
  g_test_message ("canceling %.3f s after the last beat began",
                  (g_get_monotonic_time () - g_array_index (ticks, Tick, ticks->len - 1).time) / 1e6);
  sj_test_key_window_press (&keys, cancel_keys);
  sj_test_swap_record_events (repl, TRUE);

  sj_test_spin_until (agent_idle, window, "the agent to finish");
  g_assert_cmpstr (event.state, ==, "canceled");
  g_assert_cmpfloat (event.cycle, ==, boundary);

  /* The old code plays on past the boundary and is in the editor. */
  sj_test_swap_wait_for_cycle (repl, boundary + 1);
  recording = sj_test_swap_take_recorded (repl);
  sj_test_swap_record_events (repl, FALSE);
  events = json_object_get_array_member (recording, "events");
  g_assert_cmpuint (json_array_get_length (events), >=, 4);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *value = json_object_get_object_member (json_array_get_object_element (events, i), "value");

      g_assert_cmpstr (json_object_get_string_member (value, "note"), ==, sj_test_swap_voice_a.note);
    }
  sj_test_spin_until (code_is, &old_code, "the old code in the editor");
  g_assert_true (g_strcmp0 (event.state, "canceled") == 0);

  /* The timeline does not keep the change that never played. */
  g_assert_cmpuint (sj_timeline_get_n_items (timeline), ==, n_snapshots - 1);
  current = sj_timeline_get (timeline, sj_timeline_get_n_items (timeline) - 1);
  g_assert_cmpstr (current->code, ==, code_a);

  /* The chat says canceled: the answer's label, and the app's line. */
  g_clear_object (&answer);
  {
    GListModel *messages = _sj_chat_panel_get_messages (window->chat_panel);
    gboolean seen_answer = FALSE, seen_line = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
      {
        g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i);

        if (sj_chat_message_get_swap (message) == SJ_CHAT_SWAP_CANCELED)
          seen_answer = TRUE;
        if (sj_chat_message_get_role (message) == SJ_HISTORY_ROLE_SYSTEM &&
            strstr (sj_chat_message_get_content (message), "canceled") != NULL)
          seen_line = TRUE;
      }
    g_assert_true (seen_answer);
    g_assert_true (seen_line);
  }

  /* The tool result told the model, and so does the next message. */
  tool_result = sj_test_model_server_find_tool_result (server, base_requests + 1, "call_cancel");
  g_assert_nonnull (tool_result);
  g_test_message ("tool result: %s", tool_result);
  g_assert_nonnull (strstr (tool_result, "\"canceled\""));
  sj_test_model_server_reply_text (server, "Noted.", 6);
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "what now?");
  sj_test_spin_until (agent_idle, window, "the agent to answer");
  request = sj_test_model_server_get_request (server, base_requests + 2);
  {
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), request);

    request_text = json_to_string (node, FALSE);
  }
  g_assert_nonnull (strstr (request_text, "The musician canceled the pending change at cycle"));

  g_signal_handlers_disconnect_by_data (repl, ticks);
  g_signal_handlers_disconnect_by_data (repl, &event);
  g_free (event.state);
  sj_test_swap_stop_playing (repl);
}

/* Cancel with the mouse: the editor banner's button (it asks the window,
 * which cancels as its action does), then the answer's. */
static gboolean
is_cancel_button (GtkWidget *widget,
                  gpointer   data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.cancel-change") == 0;
}

static gboolean
cancel_button_shown (gpointer window)
{
  return sj_test_find_widget (GTK_WIDGET (window), is_cancel_button, NULL) != NULL;
}

/* Figures for the help (help/C/figures/ are taken from these): what
 * @widget shows, saved as @name in SJ_TEST_OUTPUT_DIR (build/tests). */
static void
save_figure (GtkWidget  *widget,
             const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  sj_test_wait_widget_frames (widget, 2, SJ_TEST_WAIT_TIMEOUT_S);
  texture = sj_test_render_widget (widget);
  g_assert_nonnull (texture);
  path = sj_test_save_png (texture, name);
  g_test_message ("figure: %s", path);
}

/* The same, of the area @top to @bottom (in @widget's coordinates, full
 * width): the help's figures show only what they are about. */
static void
save_figure_band (GtkWidget  *widget,
                  const char *name,
                  double      top,
                  double      bottom)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  sj_test_wait_widget_frames (widget, 2, SJ_TEST_WAIT_TIMEOUT_S);
  top = CLAMP (floor (top), 0, height - 1);
  bottom = CLAMP (ceil (bottom), top + 1, height);
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, top, width, bottom - top));
  path = sj_test_save_png (texture, name);
  g_test_message ("figure: %s", path);
}

static gboolean
is_label_with (GtkWidget *widget,
               gpointer   text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), text);
}

/* Where the label that starts with @text is, top and bottom, in @root's
 * coordinates. */
static void
label_bounds (GtkWidget  *root,
              const char *text,
              double     *top,
              double     *bottom)
{
  GtkWidget *label = sj_test_find_widget (root, is_label_with, (gpointer) text);
  graphene_rect_t bounds;

  g_assert_nonnull (label);
  g_assert_true (gtk_widget_compute_bounds (label, root, &bounds));
  *top = bounds.origin.y;
  *bottom = bounds.origin.y + bounds.size.height;
}

/* The page as WebKit draws it (the banner is the page's own). */
static void
save_page_figure (SjRepl     *repl,
                  const char *name)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  WebKitWebView *view = WEBKIT_WEB_VIEW (sj_repl_get_widget (repl));

  webkit_web_view_get_snapshot (view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, NULL,
                                sj_test_store_result_cb, &result);
  texture = webkit_web_view_get_snapshot_finish (view, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);
  path = sj_test_save_png (texture, name);
  g_test_message ("figure: %s", path);
}

static void
test_cancel_buttons (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autofree char *code_a = g_strdup_printf ("setcps(0.5)\n%s", sj_test_swap_voice_a.code);
  g_autofree char *code_b = g_strdup_printf ("setcps(0.5)\n%s", sj_test_swap_voice_b.code);
  g_autofree char *escaped = g_strescape (code_b, NULL);
  g_autofree char *hash = sj_code_hash (code_a);
  g_autofree char *args = NULL;
  g_autoptr(SjSwapResult) swap = NULL;
  g_autoptr(JsonNode) clicked = NULL;
  SjTestSwapEvent event = { 0 };
  CodeWait old_code = { repl, code_a };
  GtkWidget *button;

  if (!have_sink ())
    return;

  play_heard (window, code_a);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);

  /* The banner's Cancel. */
  swap = sj_test_schedule_swap (repl, code_b, "bars", 1, 4, FALSE);
  g_assert_cmpint (swap->status, ==, SJ_SWAP_SCHEDULED);
  clicked = sj_test_call_js (repl, "const b = document.getElementById('sj-swap-cancel');"
                                   "if (!b || b.closest('[hidden]')) return false;"
                                   "b.click(); return b.getAttribute('aria-label');");
  g_assert_cmpstr (json_node_get_string (clicked), ==, "Cancel the pending change");
  sj_test_spin_until (code_is, &old_code, "the old code in the editor");
  g_assert_cmpstr (event.state, ==, "canceled");

  /* The answer's Cancel, while it counts down. */
  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"full_code\",\"code\":\"%s\"},"
                          "\"policy\":{\"quantize\":\"bars\",\"bars\":1}}", hash, escaped);
  sj_test_model_server_reply_tool_call (server, NULL, "call_click", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "Kept as it was.", 6);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (window->panel_stack, "chat");
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "the triangle, later");
  sj_test_spin_until (cancel_button_shown, window, "the answer's Cancel");
  save_figure (GTK_WIDGET (window), "figure-countdown-window.png");
  save_page_figure (repl, "figure-countdown-banner.png");
  {
    double top, bottom, unused;

    /* The window, above the toasts: the banner and the answer counting
     * down with their Cancel. */
    label_bounds (GTK_WIDGET (window), "the triangle, later", &top, &unused);
    label_bounds (GTK_WIDGET (window), "Lands in ", &unused, &bottom);
    save_figure_band (GTK_WIDGET (window), "figure-countdown.png", 0, bottom + 12);
  }
  button = sj_test_find_widget (GTK_WIDGET (window), is_cancel_button, NULL);
  sj_test_click (button);
  sj_test_spin_until (agent_idle, window, "the agent to finish");
  g_assert_cmpstr (event.state, ==, "canceled");
  sj_test_spin_until (code_is, &old_code, "the old code in the editor");
  {
    g_autoptr(SjChatMessage) answer = NULL;
    GListModel *messages = _sj_chat_panel_get_messages (window->chat_panel);
    gboolean canceled = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
      {
        g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i);

        canceled |= sj_chat_message_get_swap (message) == SJ_CHAT_SWAP_CANCELED;
      }
    g_assert_true (canceled);
  }
  g_assert_false (cancel_button_shown (window));
  /* The answer with its tokens and cost (the loopback server's usage). */
  save_figure (window->panel, "figure-answer-usage.png");
  {
    double top, bottom, unused;

    label_bounds (window->panel, "the triangle, later", &top, &unused);
    label_bounds (window->panel, "240 tokens", &unused, &bottom);
    save_figure_band (window->panel, "figure-answer-cost.png", top - 30, bottom + 10);
  }

  g_signal_handlers_disconnect_by_data (repl, &event);
  g_free (event.state);
  sj_test_swap_stop_playing (repl);
}

/* Next beat --------------------------------------------------------------- */

static void
test_next_beat (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  g_autoptr(SjSwapResult) swap = NULL;
  g_autoptr(JsonObject) recording = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *fraction = NULL;
  g_autofree char *args = NULL;
  g_autofree char *hash = NULL;
  g_autofree char *escaped = g_strescape (sj_test_swap_voice_a.code, NULL);
  g_autofree char *settings_quantize = NULL;
  SjTestSwapEvent event = { 0 };
  double boundary, onset, time;

  if (!have_sink ())
    return;

  /* The page's own next beat: the first new onset is the boundary, a
   * quarter of a cycle exactly. */
  sj_test_swap_start_playing (repl, 1, &sj_test_swap_voice_a);
  sj_test_swap_record_events (repl, TRUE);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);
  swap = sj_test_schedule_swap (repl, sj_test_swap_voice_b.code, "next_beat", 1, 4, FALSE);
  boundary = swap->apply_at_cycle;
  g_assert_cmpfloat (boundary * BEATS_PER_CYCLE, ==, floor (boundary * BEATS_PER_CYCLE));
  g_assert_cmpfloat (boundary - sj_repl_get_state (repl)->cycle, <, 1);
  sj_test_spin_until (sj_test_swap_applied, &event, "the swap to land");
  sj_test_swap_wait_for_cycle (repl, boundary + 0.5);
  recording = sj_test_swap_take_recorded (repl);
  sj_test_swap_record_events (repl, FALSE);
  g_assert_true (first_new_event (recording, &onset, &time, &fraction));
  g_test_message ("next beat: boundary %g, first new onset %s", boundary, fraction);
  g_assert_cmpfloat (onset, ==, boundary);

  /* The composer's choice for one message: the agent's change lands on a
   * beat, the Settings keep theirs, and the next message is Default. */
  settings_quantize = g_settings_get_string (window->settings, "quantize");
  {
    g_autofree char *code = sj_test_fetch_code (repl);

    hash = sj_code_hash (code);
  }
  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"full_code\",\"code\":\"%s\"}}",
                          hash, escaped);
  sj_test_model_server_reply_tool_call (server, NULL, "call_beat", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "Back to A on the next beat.", 6);
  sj_composer_set_landing (composer, "next_beat");
  g_signal_emit_by_name (composer, "send", "back to A, on the beat");
  sj_test_spin_until (agent_idle, window, "the agent to answer");
  calls = sj_history_store_list_session_tool_calls (window->history, sj_agent_get_session_id (window->agent), NULL);
  {
    SjHistoryToolCall *call = g_ptr_array_index (calls, calls->len - 1);

    g_test_message ("agent's change: cycle %g, %s", call->apply_cycle, call->result);
    g_assert_false (isnan (call->apply_cycle));
    g_assert_cmpfloat (call->apply_cycle * BEATS_PER_CYCLE, ==, floor (call->apply_cycle * BEATS_PER_CYCLE));
  }
  g_assert_null (sj_composer_get_landing (composer));
  {
    g_autofree char *after = g_settings_get_string (window->settings, "quantize");
    SjSwapPolicy policy;

    g_assert_cmpstr (after, ==, settings_quantize);
    sj_change_applier_get_defaults (sj_window_get_applier (window), &policy);
    g_assert_cmpstr (sj_quantize_to_string (policy.quantize), ==, settings_quantize);
  }

  g_signal_handlers_disconnect_by_data (repl, &event);
  g_free (event.state);
  sj_test_swap_stop_playing (repl);
}

/* Too late to cancel ------------------------------------------------------- */

typedef struct
{
  SjWindow  *window;
  gboolean   committed;
  gboolean   landing;      /* the window's word at the commit */
  double     cycle;
  char      *said;         /* what Cancel Change said, asked at the commit */
  int        answer_swap;  /* the answer's state then */
  gboolean   button_shown; /* the answer's Cancel then */
  gboolean   button_sensitive;
  guint      base_requests;
} Commit;

/* The page committed the swap (its scheduler queried the span from the
 * boundary on, ahead of it): Cancel Change is asked at that very event. */
static gboolean is_cancel_button (GtkWidget *widget,
                                  gpointer   data);

static void
commit_cb (SjRepl     *repl,
           const char *state,
           double      cycle,
           Commit     *commit)
{
  g_autoptr(SjChatMessage) answer = NULL;
  GtkWidget *button;

  if (!g_str_equal (state, "applied") || commit->committed)
    return;

  commit->committed = TRUE;
  commit->cycle = cycle;
  commit->landing = _sj_window_is_landing (commit->window);
  g_clear_pointer (&commit->window->live_status, g_free);
  g_action_group_activate_action (G_ACTION_GROUP (commit->window), "cancel-change", NULL);
  commit->said = g_strdup (_sj_window_get_live_status (commit->window));
  answer = last_message (commit->window);
  commit->answer_swap = sj_chat_message_get_swap (answer);
  button = sj_test_find_widget (GTK_WIDGET (commit->window), is_cancel_button, NULL);
  commit->button_shown = button != NULL && gtk_widget_get_visible (button);
  commit->button_sensitive = button != NULL && gtk_widget_get_sensitive (button);
}

static gboolean
committed_or_idle (gpointer data)
{
  Commit *commit = data;

  return commit->committed || (!sj_agent_is_busy (commit->window->agent) &&
                               sj_test_model_server_get_n_requests (server) > commit->base_requests + 1);
}

static gboolean
not_landing (gpointer window)
{
  return !_sj_window_is_landing (window);
}

typedef struct
{
  SjWindow   *window;
  const char *text;
} SaidWait;

static gboolean
said (gpointer data)
{
  SaidWait *wait = data;

  return g_strcmp0 (_sj_window_get_live_status (wait->window), wait->text) == 0;
}

/* Once the page has committed the agent's change it is too late: the
 * banner says it is landing with its Cancel insensitive, the answer's
 * Cancel is insensitive, Cancel Change says so; B plays. */
static void
test_too_late (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autofree char *code_a = g_strdup_printf ("setcps(1)\n%s", sj_test_swap_voice_a.code);
  g_autofree char *code_b = g_strdup_printf ("setcps(1)\n%s", sj_test_swap_voice_b.code);
  g_autofree char *escaped = g_strescape (code_b, NULL);
  g_autofree char *hash = sj_code_hash (code_a);
  g_autofree char *args = NULL;
  g_autofree char *page = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonObject) banner = NULL;
  Commit commit = { window };
  CodeWait new_code = { repl, code_b };
  SaidWait nothing = { window, "No change is pending" };

  if (!have_sink ())
    return;

  play_heard (window, code_a);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (window->panel_stack, "chat");
  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"full_code\",\"code\":\"%s\"},"
                          "\"policy\":{\"quantize\":\"next_cycle\"}}", hash, escaped);
  sj_test_model_server_reply_tool_call (server, NULL, "call_late", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "There it goes.", 6);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (commit_cb), &commit);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (log_swap_cb), &commit);
  /* What the editor's banner shows, each time it changes, as the page
   * records it (the boundary sounds a scheduler's lookahead after the
   * commit, about a tenth of a second: too soon to ask afterwards). */
  node = sj_test_call_js (repl, "const seen = window.sjTestBanner = [];"
                                "new MutationObserver(() => {"
                                "  const b = document.getElementById('sj-swap-banner');"
                                "  if (!b) return;"
                                "  const now = { shown: !b.hidden, text: b.textContent,"
                                "                disabled: b.querySelector('button').disabled };"
                                "  const last = seen.at(-1);"
                                "  if (!last || last.shown !== now.shown || last.text !== now.text ||"
                                "      last.disabled !== now.disabled) seen.push(now);"
                                "}).observe(document.body, { attributes: true, childList: true, subtree: true,"
                                "                            characterData: true });"
                                "return true;");
  g_clear_pointer (&node, json_node_unref);
  commit.base_requests = sj_test_model_server_get_n_requests (server);
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "the triangle now");
  sj_test_spin_until (committed_or_idle, &commit, "the page to commit the change");
  if (!commit.committed)
    {
      g_autofree char *result = sj_test_model_server_find_tool_result (server, commit.base_requests + 1, "call_late");
      g_autoptr(SjChatMessage) last = last_message (window);

      g_test_message ("no commit; the tool said %s; the chat ends with %s", result,
                      sj_chat_message_get_content (last));
    }
  g_assert_true (commit.committed);

  /* At the commit: landing, too late, the answer says so. */
  g_test_message ("at the commit: %s", commit.said);
  g_assert_true (commit.landing);
  g_assert_cmpstr (commit.said, ==, "Too late to cancel: the change is landing");
  g_assert_cmpint (commit.answer_swap, ==, SJ_CHAT_SWAP_LANDING);

  /* The answer's Cancel was there but insensitive. */
  g_assert_true (commit.button_shown);
  g_assert_false (commit.button_sensitive);

  /* It lands: B is in the editor and nothing is pending any more. */
  sj_test_spin_until (not_landing, window, "the boundary to be heard");
  sj_test_spin_until (code_is, &new_code, "B in the editor");

  /* The banner counted down with its Cancel, then said it was landing
   * with its Cancel insensitive, then went away. */
  node = sj_test_call_js (repl, "return window.sjTestBanner;");
  page = json_to_string (node, FALSE);
  g_test_message ("the banner showed: %s", page);
  {
    JsonArray *seen = json_node_get_array (node);
    g_autofree char *landing_text = g_strdup_printf ("Landing at cycle %g", commit.cycle);
    guint n = json_array_get_length (seen);
    gboolean counted = FALSE;
    guint landing_at = 0;

    for (guint i = 0; i < n; i++)
      {
        JsonObject *state = json_array_get_object_element (seen, i);
        const char *text = json_object_get_string_member (state, "text");

        if (g_str_has_prefix (text, "Lands in ") && landing_at == 0)
          {
            g_assert_true (json_object_get_boolean_member (state, "shown"));
            g_assert_false (json_object_get_boolean_member (state, "disabled"));
            counted = TRUE;
          }
        else if (g_str_has_prefix (text, landing_text) && json_object_get_boolean_member (state, "shown"))
          {
            g_assert_true (json_object_get_boolean_member (state, "disabled"));
            landing_at = i;
          }
      }
    g_assert_true (counted);
    g_assert_cmpuint (landing_at, >, 0);
    banner = json_array_get_object_element (seen, n - 1) ? json_object_ref (json_array_get_object_element (seen, n - 1)) : NULL;
    g_assert_false (json_object_get_boolean_member (banner, "shown"));
  }
  g_clear_pointer (&window->live_status, g_free);
  g_action_group_activate_action (G_ACTION_GROUP (window), "cancel-change", NULL);
  sj_test_spin_until (said, &nothing, "Cancel Change to say nothing is pending");
  sj_test_spin_until (agent_idle, window, "the agent to finish");

  g_signal_handlers_disconnect_by_data (repl, &commit);
  g_free (commit.said);
  sj_test_swap_stop_playing (repl);
}

/* The page's events as they come when a cancel crosses the commit: the
 * cancel is on its way when the page says the change is committed; the
 * page then has nothing pending, and the window says it is too late, not
 * that nothing was pending. At the commit and until the boundary is heard
 * the action says so at once; after it, nothing is pending. */
static void
test_too_late_crossing (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  SaidWait late = { window, "Too late to cancel: the change is landing" };
  SaidWait nothing = { window, "No change is pending" };

  g_clear_pointer (&window->live_status, g_free);
  g_signal_emit_by_name (repl, "swap-changed", "scheduled", 999.0);
  g_signal_emit_by_name (repl, "swap-countdown", 999.0, 2, 0.5);
  g_assert_false (_sj_window_is_landing (window));
  g_action_group_activate_action (G_ACTION_GROUP (window), "cancel-change", NULL);
  g_assert_null (_sj_window_get_live_status (window));
  /* Committed before the page reads the cancel. */
  g_signal_emit_by_name (repl, "swap-countdown", 999.0, 1, 0.12);
  g_signal_emit_by_name (repl, "swap-changed", "applied", 999.0);
  g_assert_true (_sj_window_is_landing (window));
  sj_test_spin_until (said, &late, "the cancel's answer");

  /* Asked again while it lands: at once. */
  g_clear_pointer (&window->live_status, g_free);
  g_action_group_activate_action (G_ACTION_GROUP (window), "cancel-change", NULL);
  g_assert_cmpstr (_sj_window_get_live_status (window), ==, late.text);

  /* Heard: nothing is pending. */
  g_signal_emit_by_name (repl, "swap-countdown", 999.0, 0, 0.0);
  g_assert_false (_sj_window_is_landing (window));
  g_action_group_activate_action (G_ACTION_GROUP (window), "cancel-change", NULL);
  sj_test_spin_until (said, &nothing, "Cancel Change to say nothing is pending");

  /* A change applied at once (playback stopped) never lands late. */
  g_signal_emit_by_name (repl, "swap-changed", "scheduled", 1000.0);
  g_signal_emit_by_name (repl, "swap-countdown", 1000.0, 0, 0.0);
  g_signal_emit_by_name (repl, "swap-changed", "applied", 1000.0);
  g_assert_false (_sj_window_is_landing (window));
}

/* Panic ------------------------------------------------------------------- */

static void
assert_panic_line (SjWindow   *window,
                   const char *contains)
{
  g_autoptr(SjChatMessage) line = last_message (window);
  const char *text = sj_chat_message_get_content (line);

  g_test_message ("panic said: %s", text);
  g_assert_cmpint (sj_chat_message_get_role (line), ==, SJ_HISTORY_ROLE_SYSTEM);
  g_assert_true (g_str_has_prefix (text, "Panic: "));
  g_assert_nonnull (strstr (text, "turned ducking off"));
  if (contains != NULL)
    g_assert_nonnull (strstr (text, contains));
}

/* Stopped, nothing pending, nothing streaming: Panic keeps the code, turns
 * ducking off and says so; twice is the same. */
static void
test_panic_idle (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autofree char *before = sj_test_fetch_code (repl);
  g_autofree char *after = NULL;

  sj_repl_set_duck_async (repl, TRUE, NULL, NULL, NULL);
  sj_test_spin_until (ducked, repl, "the music to be ducked");
  for (guint i = 0; i < 2; i++)
    {
      sj_test_key_window_press (&keys, panic_keys);
      sj_test_spin_until (panic_done, window, "Panic to finish");
      sj_test_spin_until (not_ducked, repl, "ducking off");
      assert_panic_line (window, NULL);
      g_assert_null (strstr (sj_chat_message_get_content (last_message (window)), "canceled"));
      g_assert_false (sj_repl_get_state (repl)->playing);
      g_free (after);
      after = sj_test_fetch_code (repl);
      if (_sj_window_get_heard_code (window) == NULL)
        g_assert_cmpstr (after, ==, before);
    }
}

/* The header bar's Panic: named so, and the action's. */
static gboolean
is_panic_button (GtkWidget *widget,
                 gpointer   data)
{
  return GTK_IS_BUTTON (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.panic") == 0;
}

/* Playing A, then a pending change to B, and silence meanwhile: Panic
 * (the header bar's button) cancels B and brings back A, the last code
 * heard sounding. */
static void
test_panic_pending (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autofree char *code_a = g_strdup_printf ("setcps(1)\n%s", sj_test_swap_voice_a.code);
  g_autofree char *silent = g_strdup_printf ("setcps(1)\n%s", SILENT);
  g_autoptr(SjSwapResult) swap = NULL;
  g_autoptr(JsonObject) recording = NULL;
  SjTestSwapEvent event = { 0 };
  CodeWait back = { repl, code_a };
  GtkWidget *button;
  JsonArray *events;
  double cycle;

  if (!have_sink ())
    return;

  play_heard (window, code_a);
  /* Silence plays now: A stays the last code heard. */
  {
    g_autoptr(JsonObject) outcome = sj_test_evaluate (repl, silent);

    g_assert_true (json_object_get_boolean_member (outcome, "ok"));
    sj_test_swap_wait_for_cycle (repl, sj_repl_get_state (repl)->cycle + 3);
  }
  g_assert_cmpstr (_sj_window_get_heard_code (window), ==, code_a);

  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);
  swap = sj_test_schedule_swap (repl, sj_test_swap_voice_b.code, "bars", 1, 4, FALSE);
  g_assert_cmpint (swap->status, ==, SJ_SWAP_SCHEDULED);
  sj_repl_set_duck_async (repl, TRUE, NULL, NULL, NULL);
  sj_test_spin_until (ducked, repl, "the music to be ducked");

  button = sj_test_find_widget (GTK_WIDGET (window), is_panic_button, NULL);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));
  sj_test_click (button);
  sj_test_spin_until (panic_done, window, "Panic to finish");

  g_assert_cmpstr (event.state, ==, "canceled");
  sj_test_spin_until (code_is, &back, "A back in the editor");
  sj_test_spin_until (not_ducked, repl, "ducking off");
  assert_panic_line (window, "canceled the change due at cycle");
  assert_panic_line (window, "brought back the last code heard sounding");

  /* A plays again. */
  cycle = sj_repl_get_state (repl)->cycle;
  sj_test_swap_record_events (repl, TRUE);
  sj_test_swap_wait_for_cycle (repl, cycle + 2);
  recording = sj_test_swap_take_recorded (repl);
  sj_test_swap_record_events (repl, FALSE);
  events = json_object_get_array_member (recording, "events");
  g_assert_cmpuint (json_array_get_length (events), >=, 4);
  {
    JsonObject *last = json_array_get_object_element (events, json_array_get_length (events) - 1);

    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (last, "value"), "note"), ==,
                     sj_test_swap_voice_a.note);
  }

  /* Again, once A was heard since: nothing left to cancel or bring back. */
  {
    HeardWait wait = { window, code_a };

    sj_test_spin_until (heard, &wait, "A to be heard again");
  }
  sj_test_key_window_press (&keys, panic_keys);
  sj_test_spin_until (panic_done, window, "Panic to finish");
  assert_panic_line (window, "kept the code");
  g_assert_true (sj_repl_get_state (repl)->playing);

  g_signal_handlers_disconnect_by_data (repl, &event);
  g_free (event.state);
  sj_test_swap_stop_playing (repl);
}

/* An answer that never finishes: Panic stops it. */
static void
test_panic_streaming (void)
{
  SjWindow *window = open_window ();
  g_autoptr(SjChatMessage) answer = NULL;
  GListModel *messages = _sj_chat_panel_get_messages (window->chat_panel);
  guint n;

  sj_test_model_server_reply_hold (server, "Let me think about");
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "something long");
  sj_test_spin_until (agent_busy, window, "the answer to start");
  n = g_list_model_get_n_items (messages);
  answer = g_list_model_get_item (messages, n - 1);
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_STREAMING);

  sj_test_key_window_press (&keys, panic_keys);
  sj_test_spin_until (panic_done, window, "Panic to finish");
  sj_test_spin_until (agent_idle, window, "the answer to stop");
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_STOPPED);
  {
    gboolean said = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
      {
        g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i);

        if (sj_chat_message_get_role (message) == SJ_HISTORY_ROLE_SYSTEM &&
            g_str_has_prefix (sj_chat_message_get_content (message), "Panic: stopped the agent’s answer"))
          said = TRUE;
      }
    g_assert_true (said);
  }
}

/* The page still loading (after a restart, say) while an answer streams:
 * Panic stops the answer, does not crash or wait for the page, and says
 * that the music is still loading; the page comes back. */
static void
test_panic_not_ready (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autofree char *code = sj_test_fetch_code (repl);

  sj_test_model_server_reply_hold (server, "Let me think about");
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "something while it loads");
  sj_test_spin_until (agent_busy, window, "the answer to start");

  sj_repl_load (repl, code);
  g_assert_false (sj_repl_get_ready (repl));
  g_clear_pointer (&window->live_status, g_free);
  g_action_group_activate_action (G_ACTION_GROUP (window), "panic", NULL);
  /* Nothing to ask the page: done at once. */
  g_assert_false (_sj_window_is_panicking (window));
  g_test_message ("panic said: %s", _sj_window_get_live_status (window));
  g_assert_cmpstr (_sj_window_get_live_status (window), ==,
                   "Panic: stopped the agent’s answer; the music is still loading, nothing played yet.");
  sj_test_spin_until (agent_idle, window, "the answer to stop");

  /* Alone, while the page still loads: the same words, without the answer. */
  if (!sj_repl_get_ready (repl))
    {
      g_action_group_activate_action (G_ACTION_GROUP (window), "panic", NULL);
      g_assert_cmpstr (_sj_window_get_live_status (window), ==,
                       "Panic: the music is still loading, nothing played yet.");
    }

  sj_test_spin_until (sj_test_repl_is_ready, NULL, "the page to be ready again");
  g_assert_true (sj_repl_get_ready (repl));
  /* And Panic works as before. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "panic", NULL);
  sj_test_spin_until (panic_done, window, "Panic to finish");
  assert_panic_line (window, NULL);
}

typedef struct
{
  SjWindow *window;
  gboolean  pressed;
  gboolean  busy;   /* the answer was still at work then */
} HandOver;

/* The page has the answer's change (its tool has not returned yet):
 * Panic, right then. */
static void
hand_over_cb (SjRepl     *repl,
              const char *state,
              double      cycle,
              HandOver   *hand_over)
{
  if (!g_str_equal (state, "scheduled") || hand_over->pressed)
    return;

  hand_over->pressed = TRUE;
  hand_over->busy = sj_agent_is_busy (hand_over->window->agent);
  g_action_group_activate_action (G_ACTION_GROUP (hand_over->window), "panic", NULL);
}

static gboolean
hand_over_pressed (gpointer data)
{
  return ((HandOver *) data)->pressed;
}

/* An answer hands its change over to the page and Panic is pressed before
 * the answer is done with it: the change never plays, the answer stops,
 * and A goes on. */
static void
test_panic_hand_over (void)
{
  SjWindow *window = open_window ();
  SjRepl *repl = window->repl;
  g_autofree char *code_a = g_strdup_printf ("setcps(1)\n%s", sj_test_swap_voice_a.code);
  g_autofree char *code_b = g_strdup_printf ("setcps(1)\n%s", sj_test_swap_voice_b.code);
  g_autofree char *escaped = g_strescape (code_b, NULL);
  g_autofree char *hash = sj_code_hash (code_a);
  g_autofree char *args = NULL;
  g_autoptr(JsonObject) recording = NULL;
  HandOver hand_over = { window };
  SjTestSwapEvent event = { 0 };
  CodeWait back = { repl, code_a };
  JsonArray *events;
  double cycle;

  if (!have_sink ())
    return;

  play_heard (window, code_a);
  args = g_strdup_printf ("{\"baseHash\":\"%s\",\"change\":{\"kind\":\"full_code\",\"code\":\"%s\"},"
                          "\"policy\":{\"quantize\":\"bars\",\"bars\":1}}", hash, escaped);
  sj_test_model_server_reply_tool_call (server, NULL, "call_panic", "apply_strudel_change", args);
  sj_test_model_server_reply_text (server, "Switched.", 6);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (hand_over_cb), &hand_over);
  g_signal_connect (repl, "swap-changed", G_CALLBACK (sj_test_swap_changed_cb), &event);
  g_signal_emit_by_name (_sj_chat_panel_get_composer (window->chat_panel), "send", "the triangle, next bar");
  sj_test_spin_until (hand_over_pressed, &hand_over, "the change to reach the page");
  g_assert_true (hand_over.busy);
  sj_test_spin_until (panic_done, window, "Panic to finish");
  sj_test_spin_until (agent_idle, window, "the answer to stop");
  g_assert_cmpstr (event.state, ==, "canceled");
  assert_panic_line (window, "stopped the agent’s answer");
  sj_test_spin_until (code_is, &back, "A back in the editor");

  /* Two cycles on (the change was due within a bar of four), A alone. */
  cycle = sj_repl_get_state (repl)->cycle;
  sj_test_swap_record_events (repl, TRUE);
  sj_test_swap_wait_for_cycle (repl, cycle + 5);
  recording = sj_test_swap_take_recorded (repl);
  sj_test_swap_record_events (repl, FALSE);
  events = json_object_get_array_member (recording, "events");
  g_assert_cmpuint (json_array_get_length (events), >=, 8);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *value = json_object_get_object_member (json_array_get_object_element (events, i), "value");

      g_assert_cmpstr (json_object_get_string_member (value, "note"), ==, sj_test_swap_voice_a.note);
    }
  g_assert_cmpstr (event.state, ==, "canceled");

  g_signal_handlers_disconnect_by_data (repl, &hand_over);
  g_signal_handlers_disconnect_by_data (repl, &event);
  g_free (event.state);
  sj_test_swap_stop_playing (repl);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(GSettings) settings = NULL;
  int ret;

  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  server = sj_test_model_server_new ();
  sj_test_model_server_set_models (server, "{\"data\":[{\"id\":\"test/model\"}]}");
  settings = g_settings_new (APP_ID);
  g_settings_set_boolean (settings, "download-sounds", FALSE);
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  /* The tests cancel and compare the music: nothing is reverted under them. */
  g_settings_set_string (settings, "verify-landed-changes", "warn");

  g_test_add_func ("/countdown/beats", test_beats);
  g_test_add_func ("/countdown/cancel-last-moment", test_cancel_last_moment);
  g_test_add_func ("/countdown/cancel-buttons", test_cancel_buttons);
  g_test_add_func ("/countdown/next-beat", test_next_beat);
  g_test_add_func ("/countdown/too-late", test_too_late);
  g_test_add_func ("/countdown/too-late-crossing", test_too_late_crossing);
  g_test_add_func ("/countdown/panic-idle", test_panic_idle);
  g_test_add_func ("/countdown/panic-pending", test_panic_pending);
  g_test_add_func ("/countdown/panic-hand-over", test_panic_hand_over);
  /* Last: the answers they stop are held open by the model server, which
   * answers nothing after them. */
  g_test_add_func ("/countdown/panic-streaming", test_panic_streaming);
  g_test_add_func ("/countdown/panic-not-ready", test_panic_not_ready);

  ret = g_test_run ();

  sj_test_key_window_close (&keys);
  sj_test_app_stop ();
  sj_test_model_server_free (server);
  sj_test_remove_tree (home);

  return ret;
}
