/* test-window.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The real application window under Xvfb, with isolated XDG directories and
 * the memory GSettings backend: the Strudel page becomes ready offline,
 * plays a pattern whose events really fire, reports errors, stays on our
 * own scheme, survives malformed messages, keeps the code across restarts,
 * and renders something that is not blank.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <webkit/webkit.h>

#include "sj-console-page-private.h"
#include "sj-knowledge-item.h"
#include "sj-reference-page-private.h"
#include "sj-repl-private.h"
#include "sj-application-private.h"
#include "sj-sounds-page-private.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

static gboolean
tempo_shown (gpointer data)
{
  SjWindow *window = data;

  return gtk_widget_get_visible (GTK_WIDGET (window->tempo_label)) &&
         g_strcmp0 (gtk_label_get_label (window->tempo_label), "60 cpm · 1 cps") == 0;
}

static gboolean
horizon_ahead (gpointer repl)
{
  SjReplState state;

  sj_test_query_state (repl, &state);
  return state.horizon > state.cycle && state.triggered >= 8;
}

static void
test_first_start_and_playback (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) haps = NULL;
  g_autofree char *code = NULL;
  JsonObject *sounds;
  JsonObject *sound;
  const char * const *external;
  SjReplState state;
  Progress progress = { repl, 0, 0 };
  gint64 triggered_before;

  /* The very first start shows the demo, in the page's own editor. */
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, sj_code_store_get_demo_code ());

  /* ... and opens the side panel on the chat with the AI partner. */
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "chat");

  /* The bundled Strudel is the pinned one. */
  g_assert_cmpstr (json_object_get_string_member (_sj_repl_get_versions (repl), "@strudel/core"), ==, "1.2.6");
  g_assert_cmpstr (json_object_get_string_member (_sj_repl_get_versions (repl), "@strudel/codemirror"), ==, "1.3.0");

  /* The sound snapshot came with ready: superdough's synths and the GM
   * soundfonts, registered offline. */
  sounds = sj_repl_get_sounds (repl);
  if (sounds == NULL)
    {
      _sj_repl_fetch_sounds_async (repl, NULL, sj_test_store_result_cb, &result);
      sounds = _sj_repl_fetch_sounds_finish (repl, sj_test_wait_result (&result), &error);
      g_assert_no_error (error);
      g_clear_object (&result);
      json_object_unref (sounds);
      sounds = sj_repl_get_sounds (repl);
    }
  g_assert_nonnull (sounds);
  sound = json_object_get_object_member (sounds, "sawtooth");
  g_assert_nonnull (sound);
  g_assert_cmpstr (json_object_get_string_member (sound, "type"), ==, "synth");
  g_assert_true (json_object_get_boolean_member (sound, "prebake"));
  sound = json_object_get_object_member (sounds, "gm_acoustic_bass");
  g_assert_nonnull (sound);
  g_assert_cmpstr (json_object_get_string_member (sound, "type"), ==, "soundfont");
  g_assert_cmpint (json_object_get_int_member (sound, "count"), >, 0);
  g_assert_nonnull (json_object_get_object_member (sounds, "z_sine"));

  /* Evaluate and play: the scheduler runs in real time and notes fire. */
  /* Before the code has run, the header shows no tempo: setcpm() is code,
   * and Strudel's default is not the music's. */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->tempo_label)));
  outcome = sj_test_evaluate (repl, "setcps(1)\nnote(\"c3 e3 g3 b3\").s(\"sawtooth\").gain(.2)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));

  progress.cycle = 2.0;
  sj_test_spin_until (sj_test_progressed, &progress, "the scheduler to reach cycle 2 with events fired");

  sj_test_query_state (repl, &state);
  g_assert_true (state.playing);
  sj_test_spin_until (tempo_shown, window, "the header to show the code's tempo");
  g_assert_cmpfloat (state.cps, ==, 1.0);
  /* The scheduler queries ahead of the present: that horizon is what a
   * quantized swap must lie beyond (a page stalled on a busy machine falls
   * behind for a tick, then catches up). */
  sj_test_spin_until (horizon_ahead, repl, "the scheduler's horizon ahead of the present, 8 notes fired");

  /* The live pattern's events, as the scheduler sees them. */
  _sj_repl_query_haps_async (repl, 0, 1, 100, NULL, sj_test_store_result_cb, &result);
  haps = _sj_repl_query_haps_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_cmpuint (json_array_get_length (haps), ==, 4);
  g_test_message ("first hap: %s", json_object_get_string_member (json_array_get_object_element (haps, 0), "show"));
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (haps, 0), "show"),
                            "sawtooth"));

  /* Nothing left our own scheme while starting and playing. */
  external = _sj_repl_get_external_requests (repl);
  g_assert_null (external[0]);

  /* A broken change leaves the music playing and says why. */
  triggered_before = sj_repl_get_state (repl)->triggered;
  g_clear_pointer (&outcome, json_object_unref);
  outcome = sj_test_evaluate (repl, "note(\"c3 e3\").s(\"sawtooth\").nosuchfunction()");
  g_assert_false (json_object_get_boolean_member (outcome, "ok"));
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (outcome, "error"), "message"),
                            "nosuchfunction"));
  progress.cycle = sj_repl_get_state (repl)->cycle + 1;
  progress.triggered = triggered_before;
  sj_test_spin_until (sj_test_progressed, &progress, "the old pattern to keep playing after an error");

  {
    GListModel *model = _sj_console_page_get_model (_sj_window_get_console_page (window));
    g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (window));

    g_assert_cmpuint (g_list_model_get_n_items (model), >, 0);
    g_assert_nonnull (strstr (text, "nosuchfunction"));
  }

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static gboolean
console_has (gpointer data)
{
  g_autofree char *text = sj_console_page_dup_text (_sj_window_get_console_page (sj_test_current_window ()));

  return strstr (text, data) != NULL;
}

static void
eval_js_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(JSCValue) value = webkit_web_view_evaluate_javascript_finish (WEBKIT_WEB_VIEW (object), result, NULL);
}

static void
post_from_page (SjRepl     *repl,
                const char *detail_js)
{
  g_autofree char *script = g_strdup_printf ("document.dispatchEvent(new CustomEvent('sj-bridge-post', {detail: %s}));",
                                             detail_js);

  webkit_web_view_evaluate_javascript (WEBKIT_WEB_VIEW (sj_repl_get_widget (repl)), script, -1,
                                       NULL, NULL, NULL, eval_js_cb, NULL);
}

static void
test_malformed_page_messages (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  double cps_before = sj_repl_get_state (repl)->cps;

  /* Anything the page's world can send: garbage, unknown types, wrong
   * types, huge text. Each is logged and dropped. */
  post_from_page (repl, "'not json at all'");
  post_from_page (repl, "'{\"type\":\"launch-missiles\"}'");
  post_from_page (repl, "'{\"type\":\"state\",\"playing\":\"very\",\"cps\":\"fast\",\"cycle\":0,\"horizon\":0}'");
  post_from_page (repl, "JSON.stringify({type: 'log', message: 'x'.repeat(100000)})");
  post_from_page (repl, "42");
  post_from_page (repl, "JSON.stringify({type: 'sounds', sounds: {bd: {type: 5}}})");

  /* Messages are handled in order: once this one shows up, every one
   * above has been seen and refused. */
  post_from_page (repl, "JSON.stringify({type: 'log', level: 'info', message: 'still alive'})");
  sj_test_spin_until (console_has, (gpointer)"still alive", "the valid message after the malformed ones");

  g_assert_false (console_has ((gpointer)"xxxxxxxxxx"));
  g_assert_cmpfloat (sj_repl_get_state (repl)->cps, ==, cps_before);
  g_assert_nonnull (json_object_get_object_member (sj_repl_get_sounds (repl), "sawtooth"));
  g_assert_true (sj_repl_get_ready (repl));
}

static gboolean
has_external_request (gpointer data)
{
  const char * const *external = _sj_repl_get_external_requests (SJ_REPL (data));

  return external[0] != NULL;
}

/* The "nothing left our scheme" check above is only worth something if a
 * request that does leave is seen. The page's own scripts cannot make one
 * any more (the CSP allows only our scheme, samples('github:…') included):
 * a fetch() from the page is refused before it starts. A script in a world
 * of its own, which the page's CSP does not bind, still can (to a closed
 * loopback port), and it is noticed. */
static void
test_external_requests_are_seen (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonNode) refused = NULL;
  const char * const *external;

  g_assert_null (_sj_repl_get_external_requests (repl)[0]);
  refused = sj_test_call_js (repl,
                             "const seen = new Promise((resolve) => document.addEventListener("
                             "  'securitypolicyviolation', (event) => resolve(event.blockedURI), { once: true }));"
                             "let failed = false;"
                             "try { await fetch('https://127.0.0.1:39999/page'); } catch { failed = true; }"
                             "return { failed, blocked: await seen };");
  g_assert_true (json_object_get_boolean_member (json_node_get_object (refused), "failed"));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (refused), "blocked"), ==,
                   "https://127.0.0.1:39999/page");
  g_assert_null (_sj_repl_get_external_requests (repl)[0]);

  webkit_web_view_evaluate_javascript (WEBKIT_WEB_VIEW (sj_repl_get_widget (repl)),
                                       "fetch('https://127.0.0.1:39999/probe').catch(() => {}); 0", -1,
                                       "sj-test-probe", NULL, NULL, eval_js_cb, NULL);
  sj_test_spin_until (has_external_request, repl, "the outgoing request to be noticed");

  external = _sj_repl_get_external_requests (repl);
  g_assert_cmpstr (external[0], ==, "https://127.0.0.1:39999/probe");
  g_assert_null (external[1]);
}

static void
record_string_cb (gpointer    instance,
                  const char *text,
                  gpointer    user_data)
{
  char **slot = user_data;

  g_free (*slot);
  *slot = g_strdup (text);
}

static gboolean
string_set (gpointer data)
{
  return *(char **)data != NULL;
}

static void
run_js (SjRepl     *repl,
        const char *script)
{
  webkit_web_view_evaluate_javascript (WEBKIT_WEB_VIEW (sj_repl_get_widget (repl)), script, -1,
                                       NULL, NULL, NULL, eval_js_cb, NULL);
}

/* The page may not navigate away from the REPL, not even by script. */
static void
test_navigation_is_refused (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  WebKitWebView *view = WEBKIT_WEB_VIEW (sj_repl_get_widget (repl));
  g_autofree char *refused = NULL;
  gulong handler;

  handler = g_signal_connect (repl, "navigation-refused", G_CALLBACK (record_string_cb), &refused);

  run_js (repl, "location.href = 'https://127.0.0.1:39999/elsewhere'; 0");
  sj_test_spin_until (string_set, &refused, "the navigation to be refused");
  g_assert_cmpstr (refused, ==, "https://127.0.0.1:39999/elsewhere");
  g_clear_pointer (&refused, g_free);

  /* (window.open() without a user gesture and file: URIs never get this
   * far: WebKit's popup blocker and its local-file rule stop them first.) */
  run_js (repl, "location.assign('http://127.0.0.1:39999/plain'); 0");
  sj_test_spin_until (string_set, &refused, "the http: navigation to be refused");
  g_assert_cmpstr (refused, ==, "http://127.0.0.1:39999/plain");

  g_signal_handler_disconnect (repl, handler);
  g_assert_cmpstr (webkit_web_view_get_uri (view), ==, "strudel-jam://app/index.html");
  g_assert_true (sj_repl_get_ready (repl));
}

static gboolean
has_sound (gpointer data)
{
  JsonObject *sounds = sj_repl_get_sounds (_sj_window_get_repl (sj_test_current_window ()));

  return sounds != NULL && json_object_has_member (sounds, data);
}

/* A new snapshot arrives whenever the sound registry changes. */
static void
test_sound_snapshot_follows_registry (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  JsonObject *sound;

  g_assert_false (has_sound ((gpointer)"sjtestdrum"));

  /* Registering a sample map does not fetch anything until a sound plays. */
  outcome = sj_test_evaluate (repl, "samples({sjtestdrum: ['a.wav', 'b.wav', 'c.wav']}, 'https://127.0.0.1:39999/')\n"
                            "note(\"c3\").s(\"sine\").gain(0)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (has_sound, (gpointer)"sjtestdrum", "the new sound in the snapshot");

  sound = json_object_get_object_member (sj_repl_get_sounds (repl), "sjtestdrum");
  g_assert_cmpstr (json_object_get_string_member (sound, "type"), ==, "sample");
  g_assert_false (json_object_get_boolean_member (sound, "prebake"));
  g_assert_cmpint (json_object_get_int_member (sound, "count"), ==, 3);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static void
read_text_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(char **)user_data = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (object), result, NULL);
}

/* Copy puts every line on the clipboard; clear empties the console. */
static void
test_console_copy_and_clear (void)
{
  SjWindow *window = sj_test_open_window ();
  SjConsolePage *console = _sj_window_get_console_page (window);
  g_autoptr(SjLogEntry) entry = sj_log_entry_new (SJ_LOG_LEVEL_ERROR, "sound bd not found! Is it loaded?");
  g_autofree char *copied = NULL;
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (console));

  sj_console_page_append (console, entry);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (console), "console.copy", NULL));
  gdk_clipboard_read_text_async (clipboard, NULL, read_text_cb, &copied);
  sj_test_spin_until (string_set, &copied, "the clipboard text");
  g_assert_nonnull (strstr (copied, "error: sound bd not found! Is it loaded?\n"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (console), "console.clear", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (_sj_console_page_get_model (console)), ==, 0);
}

/* The Console's own scroller (its empty state's status page has one too). */
static gboolean
is_list_scroller (GtkWidget *widget,
                  gpointer   data)
{
  return GTK_IS_SCROLLED_WINDOW (widget) && GTK_IS_LIST_VIEW (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (widget)));
}

static gboolean
console_at_newest (gpointer data)
{
  SjConsolePage *console = data;
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (sj_test_find_widget (GTK_WIDGET (console), is_list_scroller, NULL));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);

  return gtk_widget_get_mapped (GTK_WIDGET (console)) &&
         gtk_adjustment_get_upper (adj) > gtk_adjustment_get_page_size (adj) &&
         gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj) >= gtk_adjustment_get_upper (adj) - 1;
}

/* The Console opens on its newest line, lines that arrived while it was
 * hidden included, and stays there as more come; scrolled up to read, it
 * stays put. */
static void
test_console_follows_newest (void)
{
  SjWindow *window = sj_test_open_window ();
  SjConsolePage *console = _sj_window_get_console_page (window);
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (sj_test_find_widget (GTK_WIDGET (console), is_list_scroller, NULL));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-reference", NULL);
  sj_console_page_clear (console);
  for (guint i = 0; i < 300; i++)
    {
      g_autofree char *text = g_strdup_printf ("line %u", i);
      g_autoptr(SjLogEntry) entry = sj_log_entry_new (SJ_LOG_LEVEL_INFO, text);

      sj_console_page_append (console, entry);
    }
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (console)));

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-console", NULL);
  sj_test_spin_until (console_at_newest, console, "the Console to open on its newest line");

  /* More lines: still at the newest. */
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(SjLogEntry) entry = sj_log_entry_new (SJ_LOG_LEVEL_INFO, "more");

      sj_console_page_append (console, entry);
    }
  sj_test_spin_until (console_at_newest, console, "the Console to follow new lines");

  /* Scrolled to the top to read: new lines do not pull it down. */
  gtk_adjustment_set_value (adj, 0);
  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(SjLogEntry) entry = sj_log_entry_new (SJ_LOG_LEVEL_INFO, "later");

      sj_console_page_append (console, entry);
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, 0);
  sj_console_page_clear (console);
}

static gboolean
repl_not_ready (gpointer data)
{
  return !sj_repl_get_ready (SJ_REPL (data));
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* Code that loops forever blocks the page for good. Commands still come
 * back (cancelled here, timed out otherwise), the UI stays responsive, and
 * restarting the page brings the REPL back with the code kept. */
static void
test_endless_loop_is_survivable (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *code = NULL;
  const char *endless = "// stuck\nwhile (true) {}\nnote(\"c3\")\n";
  SjReplState state;
  gint64 started;

  started = g_get_monotonic_time ();
  g_timeout_add (1000, cancel_cb, cancellable);
  sj_repl_evaluate_async (repl, endless, cancellable, sj_test_store_result_cb, &result);
  outcome = sj_repl_evaluate_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_null (outcome);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* Back promptly, although the page never answered. */
  g_assert_cmpint (g_get_monotonic_time () - started, <, 5 * G_USEC_PER_SEC);
  g_clear_object (&result);
  g_clear_error (&error);

  /* The page really is stuck: it answers nothing any more. */
  g_clear_object (&cancellable);
  cancellable = g_cancellable_new ();
  g_timeout_add (500, cancel_cb, cancellable);
  sj_repl_query_state_async (repl, cancellable, sj_test_store_result_cb, &result);
  g_assert_false (sj_repl_query_state_finish (repl, sj_test_wait_result (&result), &state, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_action_group_activate_action (G_ACTION_GROUP (window), "restart-page", NULL);
  sj_test_spin_until (repl_not_ready, repl, "the stuck page to go away");
  sj_test_spin_until (sj_test_repl_is_ready, NULL, "the restarted page to become ready");

  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, endless);
  outcome = sj_test_evaluate (repl, "note(\"c3\").s(\"sine\").gain(0)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *)data;
}

static gboolean
set_flag_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The music keeps exact time while the window is hidden (minimised, on
 * another workspace, covered): hidden pages get their timers throttled,
 * and Strudel's scheduler runs on a timer. */
static void
test_hidden_window_keeps_time (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  Progress progress = { repl, 1.0, 0 };
  SjReplState before, after;
  gboolean elapsed = FALSE;
  gint64 t0a, t0, t1a, t1;
  double seconds, shortest, longest, cycles, expected_events;

  outcome = sj_test_evaluate (repl, "setcps(1)\nnote(\"c3*8\").s(\"sine\").decay(.05).sustain(0).gain(.05)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (sj_test_progressed, &progress, "playback to start");

  gtk_widget_set_visible (GTK_WIDGET (window), FALSE);
  /* Each state is the page's at some moment while its query was out: the
   * times are taken on both sides, so a test process held off the CPU
   * between a query and its time stamp (as on a loaded machine) widens the
   * bounds instead of skewing the measurement. */
  t0a = g_get_monotonic_time ();
  sj_test_query_state (repl, &before);
  t0 = g_get_monotonic_time ();

  /* Six seconds of playing unseen: a measurement window, not a wait for an
   * event. */
  g_timeout_add (6000, set_flag_cb, &elapsed);
  sj_test_spin_until (flag_set, &elapsed, "six seconds to pass");

  t1a = g_get_monotonic_time ();
  sj_test_query_state (repl, &after);
  t1 = g_get_monotonic_time ();
  gtk_widget_set_visible (GTK_WIDGET (window), TRUE);

  seconds = (t1 - t0) / (double)G_USEC_PER_SEC;
  shortest = (t1a - t0) / (double)G_USEC_PER_SEC;
  longest = (t1 - t0a) / (double)G_USEC_PER_SEC;
  cycles = after.cycle - before.cycle;
  expected_events = 8 * cycles;
  g_test_message ("hidden for %.2f s: %.2f cycles, %" G_GINT64_FORMAT " events, %" G_GINT64_FORMAT
                  " late (max %.1f ms)", seconds, cycles, after.triggered - before.triggered,
                  after.late - before.late, after.max_late_ms);

  g_assert_true (after.playing);
  /* The scheduler's clock follows the audio clock: one cycle a second. */
  g_assert_cmpfloat (cycles, >, shortest - 0.25);
  g_assert_cmpfloat (cycles, <, longest + 0.25);
  /* Every event fired, on time: a hidden page's timers throttled to a
   * second would make nearly all of the 48 late; one or two come late when
   * a busy machine stalls the page, hidden or not. */
  g_assert_cmpfloat (fabs ((after.triggered - before.triggered) - expected_events), <=, 9);
  g_assert_cmpint (after.late - before.late, <=, 2);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

/* Reference and Sounds pages ---------------------------------------------- */

/* A button bound to @data->action, with @data->target if given. */
typedef struct
{
  const char *action;
  const char *target;
} ActionMatch;

static gboolean
is_action_button (GtkWidget *widget,
                  gpointer   data)
{
  ActionMatch *want = data;
  GVariant *target;

  if (!GTK_IS_BUTTON (widget) || g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), want->action) != 0)
    return FALSE;
  target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (widget));
  return want->target == NULL ||
         (target != NULL && g_variant_is_of_type (target, G_VARIANT_TYPE_STRING) &&
          g_strcmp0 (g_variant_get_string (target, NULL), want->target) == 0);
}

static gboolean
is_label_with (GtkWidget *widget,
               gpointer   data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0;
}

static gboolean
is_chip (GtkWidget *widget,
         gpointer   data)
{
  GtkWidget *label;

  if (!GTK_IS_TOGGLE_BUTTON (widget) || !gtk_widget_has_css_class (widget, "sj-chip"))
    return FALSE;
  label = gtk_button_get_child (GTK_BUTTON (widget));
  return GTK_IS_LABEL (label) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), data);
}

static GtkWidget *
find_mapped (GtkWidget *root,
             GType      type)
{
  return sj_test_find_widget (root, sj_test_is_mapped_of_type, GSIZE_TO_POINTER (type));
}

/* Types @text into the search entry of @page, as the user would. */
static void
search_for (GtkWidget  *page,
            const char *text)
{
  GtkWidget *entry = find_mapped (page, GTK_TYPE_SEARCH_ENTRY);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
}

typedef struct
{
  SjWindow   *window;
  const char *name;
} FirstResult;

static const char *
reference_name (SjWindow        *window,
                SjKnowledgeItem *item)
{
  SjKnowledge *knowledge = sj_reference_page_get_knowledge (_sj_window_get_reference_page (window));

  return sj_reference_index_get_entry (sj_knowledge_get_reference (knowledge),
                                       sj_knowledge_item_get_index (item))->name;
}

static gboolean
first_function_is (gpointer data)
{
  FirstResult *want = data;
  GListModel *results = _sj_reference_page_get_results (_sj_window_get_reference_page (want->window));
  g_autoptr(SjKnowledgeItem) item = g_list_model_get_item (results, 0);

  return item != NULL && g_str_equal (reference_name (want->window, item), want->name);
}

static gboolean
first_sound_is (gpointer data)
{
  FirstResult *want = data;
  SjSoundsPage *page = _sj_window_get_sounds_page (want->window);
  g_autoptr(SjKnowledgeItem) item = g_list_model_get_item (_sj_sounds_page_get_results (page), 0);
  SjSoundsIndex *sounds = sj_knowledge_get_sounds (_sj_sounds_page_get_knowledge (page));

  return item != NULL && g_str_equal (sj_sounds_index_get_sound (sounds, sj_knowledge_item_get_index (item))->name,
                                      want->name);
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

static void
press_key_in_editor (SjRepl     *repl,
                     const char *key_init)
{
  g_autofree char *script = g_strdup_printf ("document.querySelector('.cm-content').dispatchEvent("
                                             "new KeyboardEvent('keydown', {%s, bubbles: true, cancelable: true})); 0",
                                             key_init);

  run_js (repl, script);
}

/* The Reference page finds functions the forgiving way, shows their
 * documentation, and inserts an example at the cursor as one undoable
 * edit without playing it. */
static void
test_reference_page (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  GtkWidget *page = GTK_WIDGET (_sj_window_get_reference_page (window));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *example = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *code = NULL;
  const char *before = "// before\n";
  FirstResult lpf = { window, "lpf" };
  ActionMatch insert = { "reference.insert-example", NULL };
  CodeCheck check = { repl, NULL };
  GtkWidget *list_view;
  GtkWidget *button;
  SjReplState state_before, state_after;
  GVariant *target;

  g_assert_false (sj_repl_get_state (repl)->playing);

  /* Its shortcut opens the page with the keyboard in the search entry. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-reference", NULL);
  g_assert_true (gtk_widget_get_mapped (page));
  g_assert_nonnull (sj_reference_page_get_knowledge (SJ_REFERENCE_PAGE (page)));
  g_assert_true (sj_test_has_focus_within (find_mapped (page, GTK_TYPE_SEARCH_ENTRY)));

  /* A typo and a synonym both find lpf, first. */
  search_for (page, "cutof");
  sj_test_spin_until (first_function_is, &lpf, "lpf to be found from “cutof”");
  /* (Clearing the search lists everything at once, alphabetically.) */
  search_for (page, "");
  g_assert_false (first_function_is (&lpf));
  search_for (page, "cutoff");
  sj_test_spin_until (first_function_is, &lpf, "lpf to be found from its synonym “cutoff”");

  /* Opening it shows its parameters and examples. */
  list_view = find_mapped (page, GTK_TYPE_LIST_VIEW);
  g_assert_true (gtk_widget_activate_action (list_view, "list.activate-item", "u", 0));
  g_assert_nonnull (sj_test_find_widget (page, is_label_with, (gpointer)"lpf"));
  g_assert_nonnull (sj_test_find_widget (page, is_label_with, (gpointer)"audible between 0 and 20000"));
  button = sj_test_find_widget (page, is_action_button, &insert);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));
  target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  example = g_variant_dup_string (target, NULL);
  g_assert_nonnull (strstr (example, ".lpf("));
  g_assert_nonnull (sj_test_find_widget (page, is_label_with, example));

  /* Put the cursor at the end of some code (Ctrl+End in the editor). */
  sj_repl_set_code_async (repl, before, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_set_code_finish (repl, sj_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  press_key_in_editor (repl, "key: 'End', code: 'End', keyCode: 35, ctrlKey: true");
  check.code = before;
  sj_test_spin_until (code_is, &check, "the editor to report the code");
  sj_test_query_state (repl, &state_before);

  /* Insert puts the example at the cursor… */
  sj_test_click (button);
  expected = g_strconcat (before, example, NULL);
  check.code = expected;
  sj_test_spin_until (code_is, &check, "the example to be inserted at the cursor");
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, expected);

  /* …without playing it… */
  sj_test_query_state (repl, &state_after);
  g_assert_false (state_after.playing);
  g_assert_cmpint (state_after.triggered, ==, state_before.triggered);

  /* …and one undo takes it all back. */
  press_key_in_editor (repl, "key: 'z', code: 'KeyZ', keyCode: 90, ctrlKey: true");
  check.code = before;
  sj_test_spin_until (code_is, &check, "one undo to remove the inserted example");
  g_clear_pointer (&code, g_free);
  code = sj_test_fetch_code (repl);
  g_assert_cmpstr (code, ==, before);

  /* Back (Escape) returns to the list. */
  g_assert_true (gtk_widget_activate_action (page, "reference.back", NULL));
  g_assert_true (gtk_widget_get_mapped (list_view));

  search_for (page, "");
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-console", NULL);
}

static gboolean
has_snapshot (gpointer data)
{
  return sj_repl_get_sounds (SJ_REPL (data)) != NULL;
}

static gboolean
has_sound_named (gpointer data)
{
  SjSoundsIndex *sounds = _sj_application_get_sounds (sj_test_app);

  return sj_sounds_index_lookup (sounds, data) != NULL;
}

static gboolean
cache_has_sound (gpointer data)
{
  g_autoptr(SjSoundsIndex) cached = sj_sounds_index_new ();
  g_autoptr(GFile) file = sj_sounds_index_get_cache_file ();

  return sj_sounds_index_load_file (cached, file, NULL) && sj_sounds_index_lookup (cached, data) != NULL;
}

static gboolean
triggered_more (gpointer data)
{
  Progress *progress = data;

  return sj_repl_get_state (progress->repl)->triggered > progress->triggered;
}

static gboolean
find_preview_button (gpointer data)
{
  GtkWidget **slot = data;
  ActionMatch preview = { "sounds.preview", "sawtooth" };
  GtkWidget *page = GTK_WIDGET (_sj_window_get_sounds_page (sj_test_current_window ()));

  *slot = sj_test_find_widget (page, is_action_button, &preview);
  return *slot != NULL && gtk_widget_get_mapped (*slot);
}

typedef struct
{
  SjSoundsPage *page;
  guint         below;
} ResultsBelow;

static gboolean
results_below (gpointer data)
{
  ResultsBelow *want = data;

  return g_list_model_get_n_items (_sj_sounds_page_get_results (want->page)) < want->below;
}

/* The Sounds page lists what the live page registered, by category,
 * follows new registrations, keeps them in the cache, and previews a sound
 * by playing one note. */
static void
test_sounds_page (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  GtkWidget *page = GTK_WIDGET (_sj_window_get_sounds_page (window));
  SjSoundsIndex *sounds = _sj_application_get_sounds (sj_test_app);
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *synths_label = NULL;
  JsonObjectIter iter;
  JsonNode *node;
  const char *name;
  guint synths = 0;
  FirstResult sawtooth = { window, "sawtooth" };
  ResultsBelow sounds_count = { NULL, 0 };
  FirstResult bell = { window, "sjtestbell" };
  Progress progress = { repl, 0, 0 };
  GtkWidget *chip;
  GtkWidget *preview = NULL;

  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sounds", NULL);
  g_assert_true (gtk_widget_get_mapped (page));
  g_assert_true (sj_test_has_focus_within (find_mapped (page, GTK_TYPE_SEARCH_ENTRY)));

  /* The synths are those of the live page's snapshot. */
  sj_test_spin_until (has_snapshot, repl, "the page's sound snapshot");
  json_object_iter_init (&iter, sj_repl_get_sounds (repl));
  while (json_object_iter_next (&iter, &name, &node))
    {
      const char *type = json_object_get_string_member (json_node_get_object (node), "type");

      synths += g_str_equal (type, "synth") || g_str_equal (type, "soundfont");
    }
  g_assert_cmpuint (synths, >, 100);
  g_assert_cmpuint (sj_sounds_index_count (sounds, SJ_SOUND_CATEGORY_SYNTHS), ==, synths);

  chip = sj_test_find_widget (page, is_chip, (gpointer)"Synths");
  g_assert_nonnull (chip);
  synths_label = g_strdup_printf ("Synths %u", synths);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (chip)))), ==, synths_label);
  sj_test_click (chip);
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (chip)));
  search_for (page, "");
  g_assert_cmpuint (g_list_model_get_n_items (_sj_sounds_page_get_results (SJ_SOUNDS_PAGE (page))), ==, synths);

  /* A typo still finds the sawtooth (the search runs a moment after the
   * text changes; sawtooth already heads the synths, common sounds first). */
  search_for (page, "sawtoth");
  sounds_count.page = SJ_SOUNDS_PAGE (page);
  sounds_count.below = synths;
  sj_test_spin_until (results_below, &sounds_count, "the search for “sawtoth” to run");
  sj_test_spin_until (first_sound_is, &sawtooth, "sawtooth to be found from “sawtoth”");

  /* Preview plays one note, without evaluating anything. */
  sj_test_spin_until (find_preview_button, &preview, "the preview button of sawtooth");
  progress.triggered = sj_repl_get_state (repl)->triggered;
  sj_test_click (preview);
  sj_test_spin_until (triggered_more, &progress, "the preview note to be triggered");
  g_assert_false (sj_repl_get_state (repl)->playing);

  /* A sound the code registers shows up in the list, under All… */
  outcome = sj_test_evaluate (repl, "samples({sjtestbell: ['a.wav', 'b.wav']}, 'https://127.0.0.1:39999/')\n"
                                    "note(\"c3\").s(\"sine\").gain(0)");
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (has_sound_named, (gpointer)"sjtestbell", "the new sound in the app's index");
  sj_test_click (sj_test_find_widget (page, is_chip, (gpointer)"All"));
  search_for (page, "sjtestbel");
  sj_test_spin_until (first_sound_is, &bell, "the new sound in the list");

  /* …and in the cache, for lookups while the page is not running. */
  sj_test_spin_until (cache_has_sound, (gpointer)"sjtestbell", "the cache to hold the new sound");

  search_for (page, "");
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-console", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

typedef struct
{
  const char *path;
  const char *expected;
} FileCheck;

static gboolean
file_has (gpointer data)
{
  FileCheck *check = data;
  g_autofree char *contents = NULL;

  return g_file_get_contents (check->path, &contents, NULL, NULL) &&
         g_strcmp0 (contents, check->expected) == 0;
}

static void
test_code_survives_restart (void)
{
  SjWindow *window;
  SjRepl *repl;
  SjCodeStore *store;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *restored = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *mine = "// my groove\nnote(\"<c3 g2>*2\").s(\"square\").lpf(900)\n";
  FileCheck check;

  window = sj_test_open_window ();
  repl = _sj_window_get_repl (window);
  store = _sj_window_get_code_store (window);

  g_assert_nonnull (store);

  /* Typing in the editor reaches the disk (debounced, atomically). */
  sj_repl_set_code_async (repl, mine, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_set_code_finish (repl, sj_test_wait_result (&result), &error));
  g_assert_no_error (error);
  /* The store emits SjCodeStore::saved after each write, which wakes the
   * loop; the file then holds exactly the editor's text. */
  path = g_file_get_path (sj_code_store_get_file (store));
  check.path = path;
  check.expected = mine;
  sj_test_spin_until (file_has, &check, "the code to be saved");

  /* Window state persists too. */
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-panel", g_variant_new_boolean (FALSE));
  g_assert_false (g_settings_get_boolean (settings, "panel-visible"));

  sj_test_close_window (window);

  /* The next start restores the code instead of the demo, and the panel
   * stays hidden. */
  window = sj_test_open_window ();
  restored = sj_test_fetch_code (_sj_window_get_repl (window));
  g_assert_cmpstr (restored, ==, mine);
  {
    g_autoptr(GVariant) visible = g_action_group_get_action_state (G_ACTION_GROUP (window), "show-panel");

    g_assert_false (g_variant_get_boolean (visible));
    g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (_sj_window_get_console_page (window))));
  }
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-panel", g_variant_new_boolean (TRUE));
  g_assert_true (g_settings_get_boolean (settings, "panel-visible"));
}

typedef struct
{
  guint frames;
} FrameCount;

static void
after_paint_cb (GdkFrameClock *clock,
                gpointer       user_data)
{
  ((FrameCount *)user_data)->frames++;
}

static gboolean
painted_enough (gpointer data)
{
  return ((FrameCount *)data)->frames >= 10;
}

static void
test_screenshot_not_blank (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  g_autofree char *path = NULL;
  GdkFrameClock *clock;
  FrameCount count = { 0 };
  GHashTable *colours;
  gsize stride, dark = 0, light = 0, n_pixels;
  int width, height;
  gulong handler;

  outcome = sj_test_evaluate (repl, sj_code_store_get_demo_code ());
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));

  /* Let GTK and WebKit paint a few frames with the music playing. */
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &count);
  gdk_frame_clock_begin_updating (clock);
  sj_test_spin_until (painted_enough, &count, "frames to be painted");
  gdk_frame_clock_end_updating (clock);
  g_signal_handler_disconnect (clock, handler);

  texture = sj_test_render_widget (GTK_WIDGET (window));
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  g_assert_cmpint (width, >, 400);
  g_assert_cmpint (height, >, 300);

  path = sj_test_save_png (texture, "strudel-jam-window.png");
  g_test_message ("Screenshot written to %s", path);

  /* Not blank: many colours, and both the dark editor and the light panel
   * are there in quantity. */
  stride = (gsize)width * 4;
  n_pixels = (gsize)width * height;
  pixels = g_malloc (stride * height);
  gdk_texture_download (texture, pixels, stride);
  colours = g_hash_table_new (NULL, NULL);
  for (gsize i = 0; i < n_pixels; i++)
    {
      const guchar *p = pixels + i * 4;
      guint luma = (p[0] * 3 + p[1] * 6 + p[2]) / 10;

      g_hash_table_add (colours, GUINT_TO_POINTER ((p[0] << 16) | (p[1] << 8) | p[2]));
      if (luma < 64)
        dark++;
      else if (luma > 192)
        light++;
    }
  g_test_message ("%u colours, %.0f%% dark, %.0f%% light", g_hash_table_size (colours),
                  100.0 * dark / n_pixels, 100.0 * light / n_pixels);
  g_assert_cmpuint (g_hash_table_size (colours), >, 50);
  g_assert_cmpfloat ((double)dark / n_pixels, >, 0.2);
  g_assert_cmpfloat ((double)light / n_pixels, >, 0.05);
  g_hash_table_unref (colours);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Private user directories: the test never sees the user's own code. */
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/window/first-start-and-playback", test_first_start_and_playback);
  g_test_add_func ("/window/malformed-page-messages", test_malformed_page_messages);
  g_test_add_func ("/window/code-survives-restart", test_code_survives_restart);
  g_test_add_func ("/window/external-requests-are-seen", test_external_requests_are_seen);
  g_test_add_func ("/window/navigation-is-refused", test_navigation_is_refused);
  g_test_add_func ("/window/sound-snapshot-follows-registry", test_sound_snapshot_follows_registry);
  g_test_add_func ("/window/console-copy-and-clear", test_console_copy_and_clear);
  g_test_add_func ("/window/console-follows-newest", test_console_follows_newest);
  g_test_add_func ("/window/reference-page", test_reference_page);
  g_test_add_func ("/window/sounds-page", test_sounds_page);
  g_test_add_func ("/window/endless-loop-is-survivable", test_endless_loop_is_survivable);
  g_test_add_func ("/window/hidden-window-keeps-time", test_hidden_window_keeps_time);
  g_test_add_func ("/window/screenshot-not-blank", test_screenshot_not_blank);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
