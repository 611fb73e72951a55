/* bench-chat.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * bench/chat: the chat panel's cost on screen, in a real window under
 * Xvfb, with a real agent talking to a loopback model server and a real
 * SQLite history.
 *
 *  - Opening a session of 2,000 messages: from sj_chat_panel_load_session()
 *    to the first frame painted after it.
 *  - Streaming 200 tokens a second for 10 s: the gaps between painted
 *    frames while the answer grows, with the frame clock kept running.
 *  - The same stream rendered the naive way, side by side: one GtkLabel
 *    whose whole Markdown, as Pango markup, is set again on every token.
 *
 * Xvfb has no vblank: frames are paced by GTK's own 60 Hz timer, so a
 * frame that takes no longer than its budget leaves a gap of ~16.7 ms.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>

#include "sj-agent.h"
#include "sj-application.h"
#include "sj-chat-panel-private.h"
#include "sj-markdown-render.h"
#include "sj-resources.h"
#include "sj-test-model-server.h"
#include "sj-test-target.h"

#define N_TURNS       1000
#define N_OPENS       5
#define TOKEN_MS      5
#define STREAM_S      10
#define N_TOKENS      (STREAM_S * 1000 / TOKEN_MS)

typedef struct
{
  char              *dir;
  GSubprocess       *server;     /* the model, in a process of its own */
  char              *server_url;
  SjTestTarget      *target;
  SjDryRun          *dry_run;
  SjKnowledge       *knowledge;
  SjChangeApplier   *applier;
  SjHistoryStore    *store;
  SjAgentTools      *tools;
} Bench;

static gboolean
deadline_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until *@flag is set, giving up after a while. */
static void
spin_until_set (const gboolean *flag,
                guint           timeout_s,
                const char     *what)
{
  gboolean timed_out = FALSE;
  guint deadline = g_timeout_add_seconds (timeout_s, deadline_cb, &timed_out);

  while (!*flag)
    {
      if (timed_out)
        g_error ("Timed out waiting for %s", what);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (deadline);
}

static void
bench_init (Bench *bench)
{
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(SjTimeline) timeline = sj_timeline_new ();
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  SjSwapPolicy policy = { SJ_QUANTIZE_NEXT_CYCLE, 1, 4, FALSE, 1 };

  bench->dir = g_dir_make_tmp ("sj-bench-chat-XXXXXX", &error);
  g_assert_no_error (error);
  bench->target = sj_test_target_new ("s(\"bd sd\")");

  sj_sounds_index_load_bundled (sounds);
  bench->knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  bench->dry_run = sj_dry_run_new ();
  bench->applier = sj_change_applier_new (SJ_LIVE_TARGET (bench->target), bench->dry_run,
                                          bench->knowledge, timeline);
  sj_change_applier_set_defaults (bench->applier, &policy);

  path = g_build_filename (bench->dir, "history.db", NULL);
  bench->store = sj_history_store_new (path, &error);
  g_assert_no_error (error);
  bench->tools = sj_agent_tools_new (bench->applier, bench->knowledge, sj_knowledge_base_get_bundled ());
}

static SjAgent *
bench_new_agent (Bench *bench)
{
  g_autoptr(SjLlmClient) client = sj_llm_client_new (bench->server_url, "bench-key");
  SjAgent *agent = sj_agent_new (bench->tools, bench->store);

  sj_agent_set_client (agent, client, FALSE);
  sj_agent_set_model (agent, "test/model", "balanced", 0.5);
  return agent;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
bench_clear (Bench *bench)
{
  g_clear_object (&bench->tools);
  g_clear_object (&bench->store);
  g_clear_object (&bench->applier);
  g_clear_object (&bench->dry_run);
  g_clear_object (&bench->knowledge);
  g_clear_object (&bench->target);
  if (bench->server != NULL)
    g_subprocess_force_exit (bench->server);
  g_clear_object (&bench->server);
  g_clear_pointer (&bench->server_url, g_free);
  remove_tree (bench->dir);
  g_free (bench->dir);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *)a;
  double y = *(const double *)b;

  return (x > y) - (x < y);
}

/* The @p quantile of the sorted @values, by the nearest rank. */
static double
quantile (GArray *values,
          double  p)
{
  guint rank = (guint)ceil (p * values->len);

  return g_array_index (values, double, CLAMP (rank, 1, values->len) - 1);
}

static GtkWindow *
new_window (GtkWidget *child)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, 420, 700);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  return window;
}

/* Opening a long session ------------------------------------------------- */

static const char *user_lines[] = {
  "make it groovier",
  "add a bassline that follows the kick",
  "drop the hats for a bar, then bring them back with some swing",
  "can you slow the pads down and open the filter over 8 cycles?",
  "what does `jux` do?",
};

/* A realistic answer of the agent: paragraphs, emphasis, a list and now
 * and then a code block. */
static char *
answer_markdown (guint i)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "Here is take **%u**: the hats move to *half time* and the bass answers the kick "
                                "on the off-beats, so the groove breathes without losing its drive.\n\n", i);
  g_string_append (text, "- `lpf` opens from 400 to 1200 Hz\n- the pads get `room(0.4)`\n- tempo unchanged\n\n");
  if (i % 3 == 0)
    g_string_append_printf (text, "```js\nsetcps(0.5)\nstack(\n  s(\"bd*2 [~ bd] sd ~\"),\n"
                                  "  note(\"c2 ~ g2 c3\").s(\"sawtooth\").lpf(%u)\n)\n```\n\n", 400 + i);
  g_string_append (text, "Press **Apply** to hear it on the next cycle, or ask for something else.");
  return g_string_free (text, FALSE);
}

static gint64
fill_history (Bench *bench)
{
  g_autoptr(GError) error = NULL;
  gint64 session = sj_history_store_create_session (bench->store, "A long jam", &error);

  g_assert_no_error (error);
  for (guint i = 0; i < N_TURNS; i++)
    {
      g_autofree char *answer = answer_markdown (i);
      gint64 id;

      sj_history_store_append_message (bench->store, session, SJ_HISTORY_ROLE_USER,
                                       user_lines[i % G_N_ELEMENTS (user_lines)], NULL,
                                       SJ_HISTORY_MESSAGE_COMPLETE, &error);
      g_assert_no_error (error);
      id = sj_history_store_append_message (bench->store, session, SJ_HISTORY_ROLE_ASSISTANT, answer,
                                            "test/model", SJ_HISTORY_MESSAGE_COMPLETE, &error);
      g_assert_no_error (error);

      /* Every fourth answer looked something up and applied a change. */
      if (i % 4 == 0)
        {
          sj_history_store_record_tool_call (bench->store, id, "strudel_knowledge", "{\"query\":\"lpf\"}",
                                             "{\"ok\":true,\"entries\":[{\"name\":\"lpf\"}]}",
                                             SJ_HISTORY_TOOL_SUCCEEDED, 3, NAN, &error);
          g_assert_no_error (error);
          sj_history_store_record_tool_call (bench->store, id, "apply_strudel_change",
                                             "{\"baseHash\":\"h1\",\"code\":\"s(\\\"bd*2\\\")\"}",
                                             "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":13}}",
                                             SJ_HISTORY_TOOL_SUCCEEDED, 120, 13, &error);
          g_assert_no_error (error);
        }
    }

  return session;
}

typedef struct
{
  gint64   painted;   /* monotonic time of the last after-paint */
  guint64  n_painted;
} PaintWatch;

static void
after_paint_cb (GdkFrameClock *clock,
                PaintWatch    *watch)
{
  watch->painted = g_get_monotonic_time ();
  watch->n_painted++;
}

/* Waits for the first frame painted from now on. */
static void
wait_next_paint (PaintWatch *watch)
{
  guint64 after = watch->n_painted;

  while (watch->n_painted <= after)
    g_main_context_iteration (NULL, TRUE);
}

static void
bench_open (Bench *bench)
{
  g_autoptr(SjAgent) agent = bench_new_agent (bench);
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) loads = g_array_new (FALSE, FALSE, sizeof (double));
  SjChatPanel *panel = SJ_CHAT_PANEL (_sj_chat_panel_new ());
  GtkWindow *window;
  GdkFrameClock *clock;
  PaintWatch watch = { 0 };
  gint64 session;
  gint64 start;
  gulong handler;

  start = g_get_monotonic_time ();
  session = fill_history (bench);
  g_print ("Filled a session of %u messages (%u with tool calls) in %.0f ms\n",
           2 * N_TURNS, (N_TURNS + 3) / 4, (g_get_monotonic_time () - start) / 1000.0);

  sj_chat_panel_set_agent (panel, agent, NULL);
  window = new_window (GTK_WIDGET (panel));
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  while (clock == NULL)
    {
      g_main_context_iteration (NULL, TRUE);
      clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
    }
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &watch);
  wait_next_paint (&watch);

  for (guint i = 0; i < N_OPENS; i++)
    {
      /* From an empty conversation, as when switching sessions. */
      sj_chat_panel_load_session (panel, 0);
      gtk_widget_queue_draw (GTK_WIDGET (window));
      wait_next_paint (&watch);

      start = g_get_monotonic_time ();
      sj_chat_panel_load_session (panel, session);
      g_array_append_val (loads, (double){ (g_get_monotonic_time () - start) / 1000.0 });
      gtk_widget_queue_draw (GTK_WIDGET (window));
      wait_next_paint (&watch);
      g_array_append_val (times, (double){ (watch.painted - start) / 1000.0 });
      g_assert_cmpuint (g_list_model_get_n_items (_sj_chat_panel_get_messages (panel)), ==, 2 * N_TURNS);
    }

  /* What the call itself takes (reading the store, building the list)
   * against the whole, layout and paint included. */
  g_print ("  to first paint (ms):");
  for (guint i = 0; i < times->len; i++)
    g_print (" %.1f", g_array_index (times, double, i));
  g_print ("\n  of which in load_session (ms):");
  for (guint i = 0; i < loads->len; i++)
    g_print (" %.1f", g_array_index (loads, double, i));
  g_print ("\n");
  g_array_sort (times, compare_doubles);
  g_print ("Open a %u-message session (load_session to first painted frame), %u runs: "
           "median %.1f ms, max %.1f ms  (target < 300 ms)\n",
           2 * N_TURNS, N_OPENS, quantile (times, 0.5), g_array_index (times, double, times->len - 1));

  g_signal_handler_disconnect (clock, handler);
  gtk_window_destroy (window);
}

/* Streaming -------------------------------------------------------------- */

/* "word " tokens, 5 characters each so that the server's 5-character
 * pieces are one token each, with some emphasis, code and paragraphs. */
static char *
stream_text (void)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < N_TOKENS; i++)
    {
      if (i % 60 == 59)
        g_string_append (text, "bar.\n");
      else if (i % 60 == 0 && i > 0)
        g_string_append (text, "\nkik ");
      else if (i % 9 == 4)
        g_string_append (text, "*hat*");
      else if (i % 13 == 6)
        g_string_append (text, "`lpf`");
      else
        g_string_append (text, "word ");
    }

  return g_string_free (text, FALSE);
}

typedef struct
{
  GArray   *work;       /* ms from a frame's start to its end (layout and paint) */
  GArray   *stalls;     /* ms a 4 ms timer was late: how long the main loop was busy */
  gint64    frame_start;
  gint64    probe_due;
  GArray   *gaps;       /* ms between painted frames while streaming */
  gint64    last;       /* the last after-paint, 0 before the first */
  gboolean  streaming;  /* between the first token and the end */
  guint     tokens;
  gboolean  done;
  /* The naive peer's own rendering of the stream. */
  GtkLabel *label;
  GString  *text;
} StreamWatch;

static void
stream_flush_events_cb (GdkFrameClock *clock,
                        StreamWatch   *watch)
{
  watch->frame_start = g_get_monotonic_time ();
}

static void
stream_after_paint_cb (GdkFrameClock *clock,
                       StreamWatch   *watch)
{
  gint64 now = g_get_monotonic_time ();

  if (watch->streaming && watch->last != 0)
    g_array_append_val (watch->gaps, (double){ (now - watch->last) / 1000.0 });
  if (watch->streaming && watch->frame_start != 0)
    g_array_append_val (watch->work, (double){ (now - watch->frame_start) / 1000.0 });
  watch->last = watch->streaming ? now : 0;
}

#define PROBE_MS 4

/* A timer that should fire every 4 ms: how late it fires is how long the
 * main loop was busy with something else, input handling included. */
static gboolean
probe_cb (gpointer user_data)
{
  StreamWatch *watch = user_data;
  gint64 now = g_get_monotonic_time ();

  if (watch->streaming && watch->probe_due != 0)
    g_array_append_val (watch->stalls, (double){ MAX (now - watch->probe_due, 0) / 1000.0 });
  watch->probe_due = now + PROBE_MS * 1000;

  return watch->done ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

static void
stream_delta_cb (SjAgent     *agent,
                 gint64       message_id,
                 int          kind,
                 const char  *text,
                 StreamWatch *watch)
{
  watch->streaming = TRUE;
  watch->tokens++;
}

static void
stream_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  StreamWatch *watch = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_agent_send_finish (SJ_AGENT (object), result, &error))
    g_error ("The stream failed: %s", error->message);
  watch->streaming = FALSE;
  watch->done = TRUE;
}

/* Pango markup for Markdown, the whole text at once, as a simple chat
 * would do it: the baseline the panel's incremental rendering is measured
 * against. */
static void
append_markup (GString    *markup,
               cmark_node *node)
{
  for (cmark_node *child = cmark_node_first_child (node); child != NULL; child = cmark_node_next (child))
    {
      g_autofree char *escaped = NULL;

      switch (cmark_node_get_type (child))
        {
        case CMARK_NODE_TEXT:
          escaped = g_markup_escape_text (cmark_node_get_literal (child), -1);
          g_string_append (markup, escaped);
          break;
        case CMARK_NODE_CODE:
          escaped = g_markup_escape_text (cmark_node_get_literal (child), -1);
          g_string_append_printf (markup, "<tt>%s</tt>", escaped);
          break;
        case CMARK_NODE_CODE_BLOCK:
          escaped = g_markup_escape_text (cmark_node_get_literal (child), -1);
          g_string_append_printf (markup, "<tt>%s</tt>\n", escaped);
          break;
        case CMARK_NODE_EMPH:
          g_string_append (markup, "<i>");
          append_markup (markup, child);
          g_string_append (markup, "</i>");
          break;
        case CMARK_NODE_STRONG:
          g_string_append (markup, "<b>");
          append_markup (markup, child);
          g_string_append (markup, "</b>");
          break;
        case CMARK_NODE_SOFTBREAK:
        case CMARK_NODE_LINEBREAK:
          g_string_append_c (markup, '\n');
          break;
        case CMARK_NODE_PARAGRAPH:
        case CMARK_NODE_HEADING:
          append_markup (markup, child);
          g_string_append (markup, "\n\n");
          break;
        default:
          append_markup (markup, child);
          break;
        }
    }
}

static void
naive_delta_cb (SjAgent     *agent,
                gint64       message_id,
                int          kind,
                const char  *text,
                StreamWatch *watch)
{
  g_autoptr(GString) markup = g_string_new (NULL);
  cmark_node *document;

  g_string_append (watch->text, text);
  document = sj_markdown_parse (watch->text->str, watch->text->len);
  append_markup (markup, document);
  cmark_node_free (document);
  gtk_label_set_markup (watch->label, markup->str);
}

/* Streams the answer into @child's window, and prints the frame gaps. */
static double
bench_stream (Bench      *bench,
              const char *name,
              SjAgent    *agent,
              GtkWidget  *child,
              StreamWatch *watch)
{
  GtkWindow *window = new_window (child);
  GdkFrameClock *clock;
  gulong paint_handler, flush_handler, delta_handler;
  double work_p99, stall_p99;
  double p50, p99, max;
  gint64 start;
  gboolean settled = FALSE;

  watch->gaps = g_array_new (FALSE, FALSE, sizeof (double));
  watch->work = g_array_new (FALSE, FALSE, sizeof (double));
  watch->stalls = g_array_new (FALSE, FALSE, sizeof (double));
  while ((clock = gtk_widget_get_frame_clock (GTK_WIDGET (window))) == NULL)
    g_main_context_iteration (NULL, TRUE);

  /* Let the window map and paint before the stream starts. */
  g_timeout_add (500, deadline_cb, &settled);
  spin_until_set (&settled, 5, "the window to settle");

  paint_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (stream_after_paint_cb), watch);
  flush_handler = g_signal_connect (clock, "before-paint", G_CALLBACK (stream_flush_events_cb), watch);
  g_timeout_add_full (G_PRIORITY_HIGH, PROBE_MS, probe_cb, watch, NULL);
  delta_handler = g_signal_connect (agent, "text-delta", G_CALLBACK (stream_delta_cb), watch);
  gdk_frame_clock_begin_updating (clock);

  start = g_get_monotonic_time ();
  sj_agent_send_async (agent, "play me a long one", NULL, stream_done_cb, watch);
  spin_until_set (&watch->done, 10 * STREAM_S, "the stream to end");

  gdk_frame_clock_end_updating (clock);
  g_signal_handler_disconnect (clock, paint_handler);
  g_signal_handler_disconnect (clock, flush_handler);
  g_signal_handler_disconnect (agent, delta_handler);

  g_array_sort (watch->gaps, compare_doubles);
  p50 = quantile (watch->gaps, 0.5);
  p99 = quantile (watch->gaps, 0.99);
  max = g_array_index (watch->gaps, double, watch->gaps->len - 1);
  g_print ("%-34s %u tokens in %.1f s, %u frames: gap p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
           name, watch->tokens, (g_get_monotonic_time () - start) / 1e6, watch->gaps->len + 1, p50, p99, max);
  g_array_sort (watch->work, compare_doubles);
  g_array_sort (watch->stalls, compare_doubles);
  work_p99 = quantile (watch->work, 0.99);
  stall_p99 = quantile (watch->stalls, 0.99);
  g_print ("%-34s frame work p50 %.1f ms, p99 %.1f ms; main loop busy p99 %.1f ms, max %.1f ms\n", "",
           quantile (watch->work, 0.5), work_p99, stall_p99,
           g_array_index (watch->stalls, double, watch->stalls->len - 1));

  g_array_unref (watch->gaps);
  g_array_unref (watch->work);
  g_array_unref (watch->stalls);
  gtk_window_destroy (window);
  return p99;
}

/* The model, in a process of its own as a real provider is: the panel's
 * main loop does only what the app's would. Two streams, one per run. */
static int
serve (void)
{
  g_autoptr(SjTestModelServer) server = NULL;
  g_autofree char *text = stream_text ();

  /* Gone with the benchmark, however it ends. */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  server = sj_test_model_server_new ();
  sj_test_model_server_reply_slow_text (server, text, 5, TOKEN_MS);
  sj_test_model_server_reply_slow_text (server, text, 5, TOKEN_MS);
  g_print ("%s\n", sj_test_model_server_get_url (server));
  fflush (stdout);
  while (TRUE)
    g_main_context_iteration (NULL, TRUE);
  return 0;
}

static void
start_server (Bench      *bench,
              const char *self_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) lines = NULL;

  bench->server = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self_path, "--serve", NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (bench->server));
  bench->server_url = g_data_input_stream_read_line (lines, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bench->server_url);
}

int
main (int   argc,
      char *argv[])
{
  Bench bench = { 0 };
  StreamWatch panel_watch = { 0 };
  StreamWatch naive_watch = { 0 };
  g_autoptr(SjAgent) panel_agent = NULL;
  g_autoptr(SjAgent) naive_agent = NULL;
  SjChatPanel *panel;
  GtkWidget *scroller;
  double panel_p99, naive_p99;

  if (argc > 1 && g_str_equal (argv[1], "--serve"))
    return serve ();

  /* The renderer the app picks on this machine (cairo without a GPU). */
  sj_application_prepare_env ();
  gtk_init ();
  adw_init ();
  sj_register_resource ();
  bench_init (&bench);

  bench_open (&bench);
  /* For profiling the opening alone. */
  if (g_strcmp0 (g_getenv ("SJ_BENCH_CHAT_OPEN_ONLY"), "1") == 0)
    {
      bench_clear (&bench);
      return 0;
    }

  /* The chat panel. */
  start_server (&bench, argv[0]);
  panel_agent = bench_new_agent (&bench);
  panel = SJ_CHAT_PANEL (_sj_chat_panel_new ());
  sj_chat_panel_set_agent (panel, panel_agent, NULL);
  panel_p99 = bench_stream (&bench, "Chat panel (200 tokens/s, 10 s):", panel_agent, GTK_WIDGET (panel), &panel_watch);

  /* The naive peer: one label, its whole markup set again per token. */
  naive_agent = bench_new_agent (&bench);
  naive_watch.text = g_string_new (NULL);
  naive_watch.label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (naive_watch.label, TRUE);
  gtk_label_set_xalign (naive_watch.label, 0);
  gtk_label_set_yalign (naive_watch.label, 0);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (naive_watch.label));
  g_signal_connect (naive_agent, "text-delta", G_CALLBACK (naive_delta_cb), &naive_watch);
  naive_p99 = bench_stream (&bench, "Naive label (whole markup/token):", naive_agent, scroller, &naive_watch);
  g_string_free (naive_watch.text, TRUE);

  g_print ("Frame gap p99: chat panel %.1f ms (target < 16 ms), naive label %.1f ms: naive/panel = %.2fx\n",
           panel_p99, naive_p99, naive_p99 / panel_p99);

  bench_clear (&bench);
  return 0;
}
