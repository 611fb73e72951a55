/* test-osc.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * .osc() end to end: the real window and page under Xvfb play
 * s("bd sd").osc(), and a stand-in SuperDirt (tests/sj-test-osc.c, a
 * loopback UDP port set in Settings) decodes the bundles: /dirt/play with
 * the fields @strudel/osc sends, and timetags that follow the haps' times
 * (cycle / cps) within 2 ms, sent ahead of them. Code without .osc() sends
 * nothing, and where OSC goes is said once in the Console.
 */

#include "config.h"

#include <math.h>

#include "sj-console-page.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
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
  Collect collect = { receiver, messages, 12 };
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
  sj_test_spin_until (collected, &collect, "twelve OSC messages");
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
      g_array_append_val (residuals, residual_us);
      sum += residual_us;
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

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/osc/plays", test_osc_plays);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
