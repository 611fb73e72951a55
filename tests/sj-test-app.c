/* sj-test-app.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Helpers shared by the programs that drive the real application window:
 * the integration test and the soak test. Waiting always means spinning
 * the main loop until a condition holds; the deadline only turns a hang
 * into a failure.
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include <glib/gstdio.h>
#include <webkit/webkit.h>

#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

SjApplication *sj_test_app;

/* Spins the main loop until @done returns TRUE; the deadline only turns a
 * hang into a failure, it is not used to synchronise. */
static gboolean
deadline_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

void
sj_test_spin_until (gboolean (*done) (gpointer),
            gpointer   data,
            const char *what)
{
  gboolean timed_out = FALSE;
  guint deadline = g_timeout_add_seconds (SJ_TEST_WAIT_TIMEOUT_S, deadline_cb, &timed_out);

  while (!done (data))
    {
      if (timed_out)
        g_error ("Timed out waiting for %s", what);
      g_main_context_iteration (NULL, TRUE);
    }

  g_source_remove (deadline);
}

static gboolean
result_arrived (gpointer data)
{
  return *(GAsyncResult **)data != NULL;
}

GAsyncResult *
sj_test_wait_result (GAsyncResult **slot)
{
  sj_test_spin_until (result_arrived, slot, "an asynchronous result");
  return *slot;
}

SjWindow *
sj_test_current_window (void)
{
  return SJ_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (sj_test_app)));
}

gboolean
sj_test_repl_is_ready (gpointer data)
{
  SjWindow *window = sj_test_current_window ();

  return window != NULL && sj_repl_get_ready (_sj_window_get_repl (window));
}

SjWindow *
sj_test_open_window (void)
{
  g_application_activate (G_APPLICATION (sj_test_app));
  sj_test_spin_until (sj_test_repl_is_ready, NULL, "the Strudel page to become ready");

  return sj_test_current_window ();
}

/* The window the test types into: the current one, or a new one whose real
 * key presses @keys takes (its waits fail after @timeout_s). */
SjWindow *
sj_test_open_key_window (SjTestKeyWindow *keys,
                         guint            timeout_s)
{
  SjWindow *window = sj_test_current_window ();

  if (window == NULL)
    {
      window = sj_test_open_window ();
      sj_test_key_window_attach (keys, GTK_WINDOW (window), timeout_s);
    }

  return window;
}

/* Whether @data, an SjWindow, has an agent that can work: its setup read
 * and no problem with it.  For sj_test_spin_until(). */
gboolean
sj_test_agent_is_ready (gpointer data)
{
  SjWindow *window = data;

  return window->agent_config != NULL && sj_agent_config_is_ready (window->agent_config) &&
         sj_agent_config_get_problem (window->agent_config) == NULL;
}

/* Connected to SjRepl::swap-changed, keeps the swap's last state in @event. */
void
sj_test_swap_changed_cb (SjRepl          *repl,
                         const char      *state,
                         double           cycle,
                         SjTestSwapEvent *event)
{
  g_free (event->state);
  event->state = g_strdup (state);
  event->cycle = cycle;
}

/* Whether @data, an SjTestSwapEvent, says the swap landed. */
gboolean
sj_test_swap_applied (gpointer data)
{
  return g_strcmp0 (((SjTestSwapEvent *) data)->state, "applied") == 0;
}

static gboolean
window_gone (gpointer data)
{
  return gtk_application_get_active_window (GTK_APPLICATION (sj_test_app)) == NULL;
}

void
sj_test_close_window (SjWindow *window)
{
  gtk_window_close (GTK_WINDOW (window));
  sj_test_spin_until (window_gone, NULL, "the window to close");
}

JsonObject *
sj_test_evaluate (SjRepl     *repl,
          const char *code)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *outcome;

  sj_repl_evaluate_async (repl, code, NULL, sj_test_store_result_cb, &result);
  outcome = sj_repl_evaluate_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (outcome);

  return outcome;
}

char *
sj_test_fetch_code (SjRepl *repl)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *code;

  sj_repl_fetch_code_async (repl, NULL, sj_test_store_result_cb, &result);
  code = sj_repl_fetch_code_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);

  return code;
}

void
sj_test_query_state (SjRepl      *repl,
             SjReplState *state)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  sj_repl_query_state_async (repl, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_query_state_finish (repl, sj_test_wait_result (&result), state, &error));
  g_assert_no_error (error);
}


gboolean
sj_test_progressed (gpointer data)
{
  Progress *progress = data;
  const SjReplState *state = sj_repl_get_state (progress->repl);

  return state->playing && state->cycle >= progress->cycle && state->triggered > progress->triggered;
}

gboolean
sj_test_stopped (gpointer data)
{
  return !sj_repl_get_state (SJ_REPL (data))->playing;
}

/* Widgets ----------------------------------------------------------------- */

/* The first descendant of @root (depth first) that @match accepts. */
GtkWidget *
sj_test_find_widget (GtkWidget          *root,
                     SjTestWidgetMatch   match,
                     gpointer            data)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (match (child, data))
        return child;
      if ((found = sj_test_find_widget (child, match, data)) != NULL)
        return found;
    }

  return NULL;
}

/* Matches a mapped widget of the GType in @data (GSIZE_TO_POINTER). */
gboolean
sj_test_is_mapped_of_type (GtkWidget *widget,
                           gpointer   data)
{
  return gtk_widget_get_mapped (widget) && G_TYPE_CHECK_INSTANCE_TYPE (widget, GPOINTER_TO_SIZE (data));
}

static void
clicked_cb (GtkButton *button,
            gpointer   user_data)
{
  *(gboolean *)user_data = TRUE;
}

static gboolean
flag_is_set (gpointer data)
{
  return *(gboolean *)data;
}

/* Activates @button as the keyboard does (Space, Enter). A GTK button
 * shows itself pressed for a moment before it reports the click, so this
 * waits for the click. */
void
sj_test_click (GtkWidget *button)
{
  gboolean clicked = FALSE;
  gulong handler = g_signal_connect (button, "clicked", G_CALLBACK (clicked_cb), &clicked);

  g_assert_true (gtk_widget_activate (button));
  sj_test_spin_until (flag_is_set, &clicked, "a button to be clicked");
  g_signal_handler_disconnect (button, handler);
}

/* Whether the keyboard focus is in @widget or one of its descendants. */
gboolean
sj_test_has_focus_within (GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* The page ---------------------------------------------------------------- */

static void
call_js_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  JsonNode **slot = user_data;
  g_autoptr(JSCValue) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;

  value = webkit_web_view_call_async_javascript_function_finish (WEBKIT_WEB_VIEW (object), result, &error);
  g_assert_no_error (error);
  json = jsc_value_to_json (value, 0);
  *slot = json != NULL ? json_from_string (json, &error) : json_node_new (JSON_NODE_NULL);
  g_assert_no_error (error);
}

static gboolean
node_arrived (gpointer data)
{
  return *(JsonNode **)data != NULL;
}

/* Runs @body (the body of an async function) in the page's main world, where
 * window.sjBridge lives, and returns its result as JSON. */
JsonNode *
sj_test_call_js (SjRepl     *repl,
                 const char *body)
{
  JsonNode *node = NULL;

  webkit_web_view_call_async_javascript_function (WEBKIT_WEB_VIEW (sj_repl_get_widget (repl)), body, -1,
                                                  NULL, NULL, NULL, NULL, call_js_cb, &node);
  sj_test_spin_until (node_arrived, &node, "a script in the page");

  return node;
}

SjSwapResult *
sj_test_schedule_swap (SjRepl     *repl,
                       const char *code,
                       const char *quantize,
                       guint       bars,
                       guint       bar_cycles,
                       gboolean    auto_start)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  SjSwapResult *answer;

  sj_repl_schedule_swap_async (repl, code, quantize, bars, bar_cycles, auto_start, FALSE, NULL,
                               sj_test_store_result_cb, &result);
  answer = sj_repl_schedule_swap_finish (repl, sj_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (answer);

  return answer;
}

/* Returns: whether a swap was pending. */
gboolean
sj_test_cancel_swap (SjRepl *repl)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gboolean canceled = FALSE;

  sj_repl_cancel_swap_async (repl, NULL, sj_test_store_result_cb, &result);
  g_assert_true (sj_repl_cancel_swap_finish (repl, sj_test_wait_result (&result), &canceled, &error));
  g_assert_no_error (error);

  return canceled;
}


/**
 * sj_test_app_init:
 *
 * Points the XDG user directories at a fresh temporary directory, which it
 * returns (remove it with sj_test_remove_tree()). GLib's own
 * G_TEST_OPTION_ISOLATE_DIRS would also hide the system data dirs, and with
 * them the MIME database that GTK needs to load its SVG icons.
 */
char *
sj_test_app_init (void)
{
  static const char *user_dirs[] = { "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME" };
  char *home = g_dir_make_tmp ("strudel-jam-test-XXXXXX", NULL);

  g_assert_nonnull (home);
  sj_test_tolerate_gtk_snapshot_race ();
  for (guint i = 0; i < G_N_ELEMENTS (user_dirs); i++)
    {
      g_autofree char *dir = g_build_filename (home, user_dirs[i] + strlen ("XDG_"), NULL);

      g_setenv (user_dirs[i], dir, TRUE);
    }
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  sj_application_prepare_env ();

  return home;
}

/* Registers the application (without a unique name) so windows can open. */
void
sj_test_app_start (void)
{
  gtk_init ();
  sj_test_app = sj_application_new ();
  g_application_set_flags (G_APPLICATION (sj_test_app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (sj_test_app), NULL, NULL));
  g_application_hold (G_APPLICATION (sj_test_app));
}

void
sj_test_app_stop (void)
{
  g_application_release (G_APPLICATION (sj_test_app));
  g_clear_object (&sj_test_app);
}

static gboolean
time_reached (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *) data;
}

/**
 * sj_test_record_sink:
 * @seconds: how long to measure
 * @skip_seconds: recorded first and left out (parecord's start-up)
 *
 * Records the monitor of $SJ_TEST_PULSE_SINK (s16le stereo, 44.1 kHz)
 * while the main loop runs, and measures it.
 */
SjTestRecording
sj_test_record_sink (double seconds,
                     double skip_seconds)
{
  return sj_test_record_sink_exact (seconds, skip_seconds, FALSE);
}

/**
 * sj_test_record_sink_exact:
 * @exact: measure exactly @seconds (recording a little longer to have
 *   them), so that a periodic pattern measures the same whatever its phase
 *   (whole cycles), instead of whatever parecord recorded after the skip
 */
SjTestRecording
sj_test_record_sink_exact (double   seconds,
                           double   skip_seconds,
                           gboolean exact)
{
  g_autofree char *file = g_build_filename (g_get_user_cache_dir (), "sink.raw", NULL);
  g_autofree char *device = g_strdup_printf ("--device=%s.monitor", g_getenv ("SJ_TEST_PULSE_SINK"));
  g_autoptr(GSubprocess) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  const gsize rate = 44100, channels = 2;
  const gint16 *frames;
  gsize length = 0, skip = (gsize) (skip_seconds * rate) * channels;
  SjTestRecording recording = { 0, -INFINITY, -INFINITY, 0 };
  gint64 until = g_get_monotonic_time () + (gint64) ((seconds + skip_seconds + (exact ? 0.6 : 0)) * G_USEC_PER_SEC);
  double sum = 0;
  int peak = 0;

  g_assert_nonnull (g_getenv ("SJ_TEST_PULSE_SINK"));
  recorder = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "parecord", "--raw", device, "--format=s16le",
                               "--rate=44100", "--channels=2", "--latency-msec=10", file, NULL);
  g_assert_no_error (error);
  sj_test_spin_until (time_reached, &until, "the recording's time to pass");
  g_subprocess_send_signal (recorder, SIGTERM);
  g_subprocess_wait (recorder, NULL, NULL);

  g_assert_true (g_file_get_contents (file, &contents, &length, NULL));
  frames = (const gint16 *) contents;
  g_assert_cmpuint (length / 2, >, skip + rate * channels);
  if (exact)
    {
      gsize want = skip + (gsize) (seconds * rate) * channels;

      g_assert_cmpuint (length / 2, >=, want);
      length = want * 2;
    }
  for (gsize i = skip; i < length / 2; i++)
    {
      int x = abs ((int) GINT16_FROM_LE (frames[i]));

      if (x >= 32767)
        recording.full_scale++;
      peak = MAX (peak, x);
      sum += (double) x * x;
    }
  recording.seconds = (double) (length / 2 - skip) / (rate * channels);
  recording.peak_db = peak > 0 ? 20 * log10 (peak / 32768.0) : -INFINITY;
  if (sum > 0)
    recording.rms_db = 10 * log10 (sum / (length / 2 - skip) / (32768.0 * 32768.0));
  g_remove (file);

  return recording;
}

/**
 * sj_test_only_recording:
 * @dir: the folder a test set as the recordings' (its "Strudel Jam" folder)
 *
 * Returns: (transfer full): the path of the one file recorded there
 */
char *
sj_test_only_recording (const char *dir)
{
  g_autofree char *folder = g_build_filename (dir, "Strudel Jam", NULL);
  g_autoptr(GDir) d = g_dir_open (folder, 0, NULL);
  const char *name;
  char *found = NULL;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_assert_null (found);
      found = g_build_filename (folder, name, NULL);
    }
  g_assert_nonnull (found);

  return found;
}
