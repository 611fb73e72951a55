/* test-chat.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The chat panel end to end in a real window under Xvfb: a real SjAgent
 * with the real tools, the real dry-run helper and a real SQLite history,
 * talking to a loopback HTTP server that plays the model from a script.
 * Only the Strudel page is replaced, by music in memory (sj-test-target.c).
 * Keys are real X key events typed with xdotool, so they go through GDK,
 * the event controllers and GTK's own input method as a user's would.
 *
 * Nothing waits by sleeping: every wait iterates the main loop until what
 * is awaited holds, and fails after a while.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "sj-agent-private.h"
#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-code-block-private.h"
#include "sj-composer-private.h"
#include "sj-markdown-view-private.h"
#include "sj-message-row-private.h"
#include "sj-problem-banner-private.h"
#include "sj-resources.h"
#include "sj-test-files.h"
#include "sj-test-agent-stack.h"
#include "sj-test-widgets.h"
#include "sj-tool-log-row.h"

#define WAIT_TIMEOUT_S 30
#define spin_until(done, data, what) sj_test_widgets_spin_until ((gboolean (*) (gpointer)) (done), (data), WAIT_TIMEOUT_S, (what))
#define CODE "note(\"c3 e3 g3 b3\").s(\"sawtooth\").lpf(800)"
#define SECRET "sk-or-v1-abcdefghijklmnopqrstuvwxyz012345"

typedef gboolean (*Condition) (gpointer data);

/* The fixture -------------------------------------------------------------- */

typedef struct
{
  SjTestAgentStack   stack;
  SjAgent           *agent;

  SjTestKeyWindow    keys;
  SjChatPanel       *panel;
  SjComposer        *composer;
  GtkTextView       *text_view;
  GtkAdjustment     *adjustment;
} Fixture;

/* The first label under @root whose text contains @text. */
static GtkLabel *
find_label_containing (GtkWidget  *root,
                       const char *text)
{
  g_autoptr(GPtrArray) labels = sj_test_find_all_by_type (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_text (labels->pdata[i]), text) != NULL)
      return labels->pdata[i];

  return NULL;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  sj_test_agent_stack_init (&fixture->stack, CODE);
  fixture->agent = sj_test_agent_stack_new_agent (&fixture->stack, "test-key-not-secret");
  /* A refused key is not retried; anything else would be, quickly. */
  _sj_agent_set_retry_policy (fixture->agent, 1, 5, 50);

  fixture->panel = SJ_CHAT_PANEL (_sj_chat_panel_new ());
  sj_chat_panel_set_agent (fixture->panel, fixture->agent, NULL);
  fixture->composer = _sj_chat_panel_get_composer (fixture->panel);
  fixture->text_view = GTK_TEXT_VIEW (sj_test_find_by_type (GTK_WIDGET (fixture->composer), GTK_TYPE_TEXT_VIEW));
  fixture->adjustment = gtk_scrolled_window_get_vadjustment (_sj_chat_panel_get_scroller (fixture->panel));
  g_assert_nonnull (fixture->text_view);

  sj_test_key_window_open (&fixture->keys, GTK_WIDGET (fixture->panel), 420, 700, WAIT_TIMEOUT_S);

  sj_chat_panel_focus_composer (fixture->panel);
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (fixture->text_view)));
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  sj_test_key_window_close (&fixture->keys);
  g_clear_object (&fixture->agent);
  sj_test_agent_stack_clear (&fixture->stack);
}

#define PRESS(fixture, ...) sj_test_key_window_press (&(fixture)->keys, (const char *[]) { __VA_ARGS__, NULL })
#define wait_frames(fixture, n) sj_test_key_window_wait_frames (&(fixture)->keys, (n))

static void
assert_composer_text (Fixture    *fixture,
                      const char *expected)
{
  g_autofree char *text = sj_composer_get_text (fixture->composer);

  g_assert_cmpstr (text, ==, expected);
}

/* Sends @text as the musician would: typed in (set here, the keys are
 * covered by the Enter test) and Enter pressed. */
static void
send_message (Fixture    *fixture,
              const char *text)
{
  sj_composer_set_text (fixture->composer, text);
  PRESS (fixture, "Return");
  g_assert_true (sj_composer_get_streaming (fixture->composer));
}

static gboolean
turn_over (gpointer data)
{
  Fixture *fixture = data;

  return !sj_agent_is_busy (fixture->agent) && !sj_composer_get_streaming (fixture->composer);
}

static void
wait_turn_over (Fixture *fixture)
{
  spin_until (turn_over, fixture, "the turn to end");
}

/* The last message of @role in the panel's list, or NULL. */
static SjChatMessage *
last_message (Fixture       *fixture,
              SjHistoryRole  role)
{
  GListModel *messages = _sj_chat_panel_get_messages (fixture->panel);

  for (guint i = g_list_model_get_n_items (messages); i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (messages, i - 1);

      if (sj_chat_message_get_role (message) == role)
        return message;
    }

  return NULL;
}

/* The row on screen bound to @message, or NULL. */
static SjMessageRow *
row_for (Fixture       *fixture,
         SjChatMessage *message)
{
  g_autoptr(GPtrArray) rows = sj_test_find_all_by_type (GTK_WIDGET (fixture->panel), SJ_TYPE_MESSAGE_ROW);

  for (guint i = 0; message != NULL && i < rows->len; i++)
    if (_sj_message_row_get_message (rows->pdata[i]) == message)
      return rows->pdata[i];

  return NULL;
}

static SjMessageRow *
answer_row (Fixture *fixture)
{
  return row_for (fixture, last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT));
}

static SjMarkdownView *
answer_markdown (Fixture *fixture)
{
  SjMessageRow *row = answer_row (fixture);

  return row != NULL ? SJ_MARKDOWN_VIEW (_sj_message_row_get_markdown (row)) : NULL;
}

typedef struct
{
  Fixture    *fixture;
  const char *text;
} Shown;

static gboolean
answer_shows (gpointer data)
{
  Shown *shown = data;
  SjMarkdownView *markdown = answer_markdown (shown->fixture);

  return markdown != NULL && g_strcmp0 (_sj_markdown_view_get_text (markdown), shown->text) == 0;
}

static const char *
last_user_content (JsonObject *request)
{
  JsonArray *list = json_object_get_array_member (request, "messages");

  for (guint i = json_array_get_length (list); i > 0; i--)
    {
      JsonObject *message = json_array_get_object_element (list, i - 1);

      if (g_strcmp0 (json_object_get_string_member (message, "role"), "user") == 0)
        return json_object_get_string_member (message, "content");
    }

  return NULL;
}

/* Enter, Shift+Enter and input methods ------------------------------------ */

static void
emit_preedit (Fixture    *fixture,
              const char *preedit)
{
  g_signal_emit_by_name (fixture->text_view, "preedit-changed", preedit);
}

static gboolean
answer_complete (gpointer data)
{
  Fixture *fixture = data;
  SjChatMessage *answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);

  return turn_over (fixture) && answer != NULL &&
         sj_chat_message_get_status (answer) == SJ_HISTORY_MESSAGE_COMPLETE;
}

static void
test_enter (Fixture       *fixture,
            gconstpointer  data)
{
  GListModel *messages = _sj_chat_panel_get_messages (fixture->panel);
  JsonObject *request;
  Shown shown = { fixture, "Hello back, **jammer**." };
  const char *content;
  GtkWidget *usage_label;

  sj_test_model_server_reply_text (fixture->stack.server, shown.text, 4);

  /* Shift+Enter starts a new line: nothing is sent. */
  PRESS (fixture, "h", "e", "l", "l", "o", "shift+Return", "y", "o", "u");
  assert_composer_text (fixture, "hello\nyou");
  g_assert_false (sj_agent_is_busy (fixture->agent));
  g_assert_false (sj_composer_get_streaming (fixture->composer));
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);

  /* An input method composing: Enter is the input method's, not a send.
   * GtkIMContextSimple, with no composition of its own, lets the key on
   * to the text view as a newline. */
  emit_preedit (fixture, "か");
  PRESS (fixture, "Return");
  assert_composer_text (fixture, "hello\nyou\n");
  g_assert_false (sj_agent_is_busy (fixture->agent));
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);
  emit_preedit (fixture, "");

  /* Enter sends: one request, ending with what was typed. */
  PRESS (fixture, "t", "o", "o", "Return");
  g_assert_true (sj_composer_get_streaming (fixture->composer));
  assert_composer_text (fixture, "");
  spin_until (answer_complete, fixture, "the answer");
  spin_until (answer_shows, &shown, "the answer to be shown");
  wait_frames (fixture, 3);

  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
  request = sj_test_model_server_get_request (fixture->stack.server, 0);
  content = last_user_content (request);
  g_assert_nonnull (content);
  g_assert_true (g_str_has_suffix (content, "hello\nyou\ntoo"));

  /* The conversation: the musician's words and the answer, in rows. */
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  g_assert_cmpstr (sj_chat_message_get_content (last_message (fixture, SJ_HISTORY_ROLE_USER)), ==, "hello\nyou\ntoo");
  g_assert_nonnull (row_for (fixture, last_message (fixture, SJ_HISTORY_ROLE_USER)));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (row_for (fixture, last_message (fixture, SJ_HISTORY_ROLE_USER))),
                                           "hello\nyou\ntoo"));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (answer_row (fixture)), "Cooked for"));
  g_assert_false (sj_composer_get_streaming (fixture->composer));

  /* Under the answer, what it cost (issue 32): the loopback server's usage
   * chunk says 120 tokens, and a local server costs nothing. */
  usage_label = _sj_message_row_get_usage_label (answer_row (fixture));
  g_assert_true (gtk_widget_get_visible (usage_label));
  g_assert_true (gtk_widget_has_css_class (usage_label, "dim-label"));
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (usage_label)), ==, "120 tokens · $0");
  g_assert_cmpstr (sj_chat_message_get_usage_caption (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT)), ==,
                   "120 tokens · $0");
  g_assert_false (gtk_widget_get_visible (_sj_message_row_get_usage_label (row_for (fixture,
                                                                            last_message (fixture, SJ_HISTORY_ROLE_USER)))));
}

/* Streaming, then Stop ----------------------------------------------------- */

static gboolean
answer_stopped (gpointer data)
{
  Fixture *fixture = data;
  SjChatMessage *answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);

  return turn_over (fixture) && answer != NULL &&
         sj_chat_message_get_status (answer) == SJ_HISTORY_MESSAGE_STOPPED;
}

static void
test_stop (Fixture       *fixture,
           gconstpointer  data)
{
  GtkButton *button = _sj_composer_get_button (fixture->composer);
  Shown shown = { fixture, "Dropping the hats for a bar, then" };
  SjChatMessage *answer;

  sj_test_model_server_reply_hold (fixture->stack.server, shown.text);
  send_message (fixture, "drop the hats");

  /* While the answer streams: the button is Stop, the partial answer is
   * on screen, and the footer says the agent is at it. */
  spin_until (answer_shows, &shown, "the partial answer");
  g_assert_true (sj_composer_get_streaming (fixture->composer));
  g_assert_cmpstr (gtk_button_get_icon_name (button), ==, "media-playback-stop-symbolic");
  g_assert_true (sj_agent_is_busy (fixture->agent));
  answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_STREAMING);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (answer_row (fixture)), "Cooking…"));

  /* Escape in the composer stops it. */
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (fixture->text_view)));
  PRESS (fixture, "Escape");
  spin_until (answer_stopped, fixture, "the answer to stop");
  wait_frames (fixture, 3);

  answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpstr (sj_chat_message_get_content (answer), ==, shown.text);
  g_assert_cmpstr (_sj_markdown_view_get_text (answer_markdown (fixture)), ==, shown.text);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (answer_row (fixture)), "Stopped"));
  g_assert_null (find_label_containing (GTK_WIDGET (answer_row (fixture)), "Cooking…"));
  g_assert_false (sj_composer_get_streaming (fixture->composer));
  g_assert_cmpstr (gtk_button_get_icon_name (button), ==, "go-up-symbolic");
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
}

/* Autoscroll ---------------------------------------------------------------- */

typedef struct
{
  Fixture   *fixture;
  gboolean   pinned_phase;   /* checking the view keeps to the bottom */
  guint      samples;        /* frames sampled while overflowing */
  double     worst;          /* the largest distance to the bottom seen */
} ScrollWatch;

static double
distance_to_bottom (Fixture *fixture)
{
  GtkAdjustment *adjustment = fixture->adjustment;

  return gtk_adjustment_get_upper (adjustment) -
         (gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment));
}

/* After each frame is painted, what the musician sees: while pinned, the
 * view must be at the bottom in every frame, not only in the end. */
static void
scroll_after_paint_cb (GdkFrameClock *clock,
                       ScrollWatch   *watch)
{
  Fixture *fixture = watch->fixture;

  if (!watch->pinned_phase)
    return;
  if (gtk_adjustment_get_upper (fixture->adjustment) <= gtk_adjustment_get_page_size (fixture->adjustment))
    return;

  watch->samples++;
  watch->worst = MAX (watch->worst, distance_to_bottom (fixture));
}

static gboolean
overflowing_a_lot (gpointer data)
{
  Fixture *fixture = data;

  return gtk_adjustment_get_upper (fixture->adjustment) > 3 * gtk_adjustment_get_page_size (fixture->adjustment);
}

typedef struct
{
  Fixture *fixture;
  gsize    length;
} Grown;

static gboolean
answer_grown (gpointer data)
{
  Grown *grown = data;
  SjChatMessage *answer = last_message (grown->fixture, SJ_HISTORY_ROLE_ASSISTANT);

  return answer != NULL && strlen (sj_chat_message_get_content (answer)) >= grown->length;
}

static gboolean
pinned_at_bottom (gpointer data)
{
  Fixture *fixture = data;

  return sj_autoscroll_get_pinned (_sj_chat_panel_get_autoscroll (fixture->panel)) &&
         distance_to_bottom (fixture) <= 48;
}

static void
test_autoscroll (Fixture       *fixture,
                 gconstpointer  data)
{
  SjAutoscroll *autoscroll = _sj_chat_panel_get_autoscroll (fixture->panel);
  GtkWidget *jump = sj_test_find_by_class (GTK_WIDGET (fixture->panel), "osd");
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (fixture->keys.window));
  g_autoptr(GString) text = g_string_new (NULL);
  ScrollWatch watch = { fixture, TRUE, 0, 0 };
  SjChatMessage *answer;
  Grown grown = { fixture, 0 };
  gulong handler;
  double value;

  g_assert_true (GTK_IS_BUTTON (jump));
  g_assert_false (gtk_widget_get_visible (jump));

  /* A long answer of many paragraphs, streamed slowly enough to scroll
   * up in the middle of it. */
  for (guint i = 1; i <= 150; i++)
    g_string_append_printf (text, "Paragraph %u: the hats go half time, the bass follows the kick and "
                                  "the pads open slowly over the next cycles.\n\n", i);
  sj_test_model_server_reply_slow_text (fixture->stack.server, text->str, 24, 8);
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (scroll_after_paint_cb), &watch);

  send_message (fixture, "write me a long one");

  /* Pinned: every frame painted while the answer grows is at the bottom. */
  spin_until (overflowing_a_lot, fixture, "the answer to fill three pages");
  answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_STREAMING);
  g_test_message ("%u frames sampled while pinned, at most %.0f px from the bottom", watch.samples, watch.worst);
  g_assert_cmpuint (watch.samples, >, 10);
  g_assert_cmpfloat (watch.worst, <=, 48);
  g_assert_true (sj_autoscroll_get_pinned (autoscroll));
  g_assert_false (gtk_widget_get_visible (jump));

  /* Scrolled up mid-stream: the position holds while text keeps coming,
   * and the jump button shows. */
  watch.pinned_phase = FALSE;
  gtk_adjustment_set_value (fixture->adjustment, gtk_adjustment_get_value (fixture->adjustment) / 2);
  value = gtk_adjustment_get_value (fixture->adjustment);
  g_assert_false (sj_autoscroll_get_pinned (autoscroll));
  grown.length = strlen (sj_chat_message_get_content (answer)) + 600;
  spin_until (answer_grown, &grown, "more of the answer");
  wait_frames (fixture, 5);
  g_assert_cmpint (sj_chat_message_get_status (answer), ==, SJ_HISTORY_MESSAGE_STREAMING);
  g_assert_cmpfloat (gtk_adjustment_get_value (fixture->adjustment), ==, value);
  g_assert_false (sj_autoscroll_get_pinned (autoscroll));
  g_assert_true (gtk_widget_get_visible (jump));

  /* Jump to latest: back at the bottom, and following again. */
  g_signal_emit_by_name (jump, "clicked");
  g_assert_true (sj_autoscroll_get_pinned (autoscroll));
  spin_until (pinned_at_bottom, fixture, "the view back at the bottom");
  g_assert_false (gtk_widget_get_visible (jump));
  watch.pinned_phase = TRUE;
  watch.samples = 0;
  watch.worst = 0;
  wait_frames (fixture, 5);

  spin_until (answer_complete, fixture, "the whole answer");
  wait_frames (fixture, 10);
  spin_until (pinned_at_bottom, fixture, "the view at the bottom in the end");
  g_test_message ("%u frames sampled after the jump, at most %.0f px from the bottom", watch.samples, watch.worst);
  g_assert_cmpfloat (watch.worst, <=, 48);
  g_assert_cmpstr (sj_chat_message_get_content (answer), ==, text->str);

  g_signal_handler_disconnect (clock, handler);
}

/* Tool-log rows ------------------------------------------------------------ */

typedef struct
{
  char     *text;
  gboolean  read;
} Clipboard;

static void
clipboard_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Clipboard *clipboard = user_data;
  g_autoptr(GError) error = NULL;

  clipboard->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (object), result, &error);
  g_assert_no_error (error);
  clipboard->read = TRUE;
}

static gboolean
clipboard_was_read (gpointer data)
{
  return ((Clipboard *)data)->read;
}

static GPtrArray *
tool_rows (Fixture *fixture)
{
  SjMessageRow *row = answer_row (fixture);
  GtkWidget *list;

  g_assert_nonnull (row);
  list = sj_test_find_by_type (GTK_WIDGET (row), GTK_TYPE_LIST_BOX);
  g_assert_nonnull (list);
  return sj_test_find_all_by_type (list, SJ_TYPE_TOOL_LOG_ROW);
}

typedef struct
{
  Fixture *fixture;
  guint    n;
} RowCount;

static gboolean
has_tool_rows (gpointer data)
{
  RowCount *count = data;
  g_autoptr(GPtrArray) rows = NULL;

  if (answer_row (count->fixture) == NULL)
    return FALSE;
  rows = tool_rows (count->fixture);
  return rows->len == count->n;
}

static gboolean
fetch_held (gpointer data)
{
  Fixture *fixture = data;

  return sj_test_target_get_n_held (fixture->stack.target) > 0;
}

static guint
n_stored_calls (Fixture *fixture)
{
  SjChatMessage *answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);
  g_autoptr(GPtrArray) calls = NULL;

  if (answer == NULL)
    return 0;
  calls = sj_history_store_list_tool_calls (fixture->stack.store, sj_chat_message_get_id (answer), NULL);
  return calls != NULL ? calls->len : 0;
}

static gboolean
one_call_stored (gpointer data)
{
  return n_stored_calls (data) >= 1;
}

static double screenshot (Fixture    *fixture,
                          const char *name);

static void
test_tool_logs (Fixture       *fixture,
                gconstpointer  data)
{
  const char *ids[] = { "k1", "m1" };
  const char *names[] = { "strudel_knowledge", "apply_strudel_change" };
  const char *args[] = { "{\"query\":\"lpf\",\"apiKey\":\"" SECRET "\"}",
                         "{\"baseHash\": \"abc\", \"change\": {\"kind\": \"full_co" };
  const char *held_ids[] = { "k2", "r1" };
  const char *held_names[] = { "strudel_knowledge", "read_code" };
  const char *held_args[] = { "{\"query\":\"room\"}", "{}" };
  Shown shown = { fixture, "The filter is `lpf`; my change was broken, so nothing changed." };
  RowCount count = { fixture, 2 };
  g_autoptr(GPtrArray) rows = NULL;
  GdkClipboard *clipboard;
  Clipboard received = { 0 };
  GtkWidget *copy;

  /* A turn with a knowledge look-up and a malformed apply, then the
   * final answer: the row lists both calls, finished, collapsed. */
  sj_test_model_server_reply_tool_calls (fixture->stack.server, 2, ids, names, args);
  sj_test_model_server_reply_text (fixture->stack.server, shown.text, 6);
  send_message (fixture, "what does lpf do? then apply it");
  spin_until (answer_complete, fixture, "the answer");
  spin_until (answer_shows, &shown, "the answer to be shown");
  spin_until (has_tool_rows, &count, "two tool rows");
  wait_frames (fixture, 3);

  rows = tool_rows (fixture);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_cmpuint (n_stored_calls (fixture), ==, 2);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[0], "sj-tool-log-name"))), ==, "strudel_knowledge");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[1], "sj-tool-log-name"))), ==, "apply_strudel_change");
  g_assert_true (gtk_widget_has_css_class (sj_test_find_by_class (rows->pdata[0], "sj-tool-log-status"), "success"));
  g_assert_true (gtk_widget_has_css_class (sj_test_find_by_class (rows->pdata[1], "sj-tool-log-status"), "error"));
  for (guint i = 0; i < rows->len; i++)
    g_assert_false (sj_tool_log_row_get_expanded (rows->pdata[i]));
  /* Nothing was applied, and no cycle is announced. */
  g_assert_cmpstr (sj_test_target_get_code (fixture->stack.target), ==, CODE);
  g_assert_cmpint (sj_chat_message_get_swap (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT)), ==, SJ_CHAT_SWAP_NONE);

  /* Copy, expanded, never gives away the secret in the arguments. */
  sj_tool_log_row_set_expanded (rows->pdata[0], TRUE);
  copy = sj_test_find_by_class (rows->pdata[0], "sj-tool-log-copy");
  g_assert_nonnull (copy);
  clipboard = gtk_widget_get_clipboard (copy);
  gdk_clipboard_set_text (clipboard, "something else");
  g_signal_emit_by_name (copy, "clicked");
  gdk_clipboard_read_text_async (clipboard, NULL, clipboard_read_cb, &received);
  spin_until (clipboard_was_read, &received, "the clipboard");
  g_test_message ("Copied: %s", received.text);
  g_assert_nonnull (received.text);
  g_assert_null (strstr (received.text, SECRET));
  g_assert_null (strstr (received.text, "abcdefghijklmnopqrstuvwxyz"));
  g_assert_nonnull (strstr (received.text, "[redacted]"));
  g_assert_nonnull (strstr (received.text, "\"query\" : \"lpf\""));
  g_free (received.text);

  /* Expanded in the chat, the call is in words, one member per line, not
   * JSON (issue 31), and its summary wraps rather than being cut. */
  {
    g_autoptr(GPtrArray) labels = sj_test_find_all_by_type (rows->pdata[0], GTK_TYPE_LABEL);
    GtkWidget *summary = sj_test_find_by_class (rows->pdata[0], "sj-tool-log-summary");
    gboolean key = FALSE, value = FALSE;

    g_assert_null (sj_test_find_by_type (rows->pdata[0], GTK_SOURCE_TYPE_VIEW));
    g_assert_nonnull (sj_test_find_by_class (rows->pdata[0], "sj-tool-call-details"));
    for (guint i = 0; i < labels->len; i++)
      {
        const char *text = gtk_label_get_text (labels->pdata[i]);

        g_assert_null (strstr (text, SECRET));
        if (strchr (text, '{') != NULL)
          g_test_message ("a label with a brace: %.300s", text);
        g_assert_null (strchr (text, '{'));
        key |= gtk_widget_has_css_class (labels->pdata[i], "sj-tool-call-key") && g_str_equal (text, "query");
        value |= gtk_widget_has_css_class (labels->pdata[i], "sj-tool-call-value") && g_str_equal (text, "lpf");
      }
    g_assert_true (key);
    g_assert_true (value);
    g_assert_true (gtk_label_get_wrap (GTK_LABEL (summary)));
    g_assert_false (gtk_label_get_single_line_mode (GTK_LABEL (summary)));
    wait_frames (fixture, 3);
    screenshot (fixture, "chat-tool-details.png");
  }
  g_clear_pointer (&rows, g_ptr_array_unref);

  /* A call still running has no row: the look-up is done, the read of
   * the code waits in the page. The turn's own read passes. */
  sj_test_target_hold_fetches (fixture->stack.target, 1);
  sj_test_model_server_reply_tool_calls (fixture->stack.server, 2, held_ids, held_names, held_args);
  send_message (fixture, "what is playing?");
  spin_until (fetch_held, fixture, "the read_code call to be running");
  spin_until (one_call_stored, fixture, "the look-up to finish");
  count.n = 1;
  spin_until (has_tool_rows, &count, "the look-up's row");
  wait_frames (fixture, 5);
  rows = tool_rows (fixture);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpuint (n_stored_calls (fixture), ==, 1);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[0], "sj-tool-log-name"))), ==, "strudel_knowledge");
  g_assert_true (sj_agent_is_busy (fixture->agent));
  g_assert_cmpuint (sj_test_target_get_n_held (fixture->stack.target), ==, 1);
  g_clear_pointer (&rows, g_ptr_array_unref);

  /* Stopped, the read is canceled: a finished call, so now a row. */
  PRESS (fixture, "Escape");
  spin_until (answer_stopped, fixture, "the turn to stop");
  count.n = 2;
  spin_until (has_tool_rows, &count, "the canceled call's row");
  rows = tool_rows (fixture);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[1], "sj-tool-log-name"))), ==, "read_code");
  g_assert_true (gtk_widget_has_css_class (sj_test_find_by_class (rows->pdata[1], "sj-tool-log-status"), "dim-label"));
  g_assert_false (sj_tool_log_row_get_expanded (rows->pdata[1]));
  sj_test_target_hold_fetches (fixture->stack.target, 0);
}

/* Markdown ----------------------------------------------------------------- */

/* The answer's @n code blocks are laid out with their code in view, not
 * only their header: a view measured before its text arrived must have
 * grown since. */
typedef struct
{
  Fixture *fixture;
  guint    n;
} CodeShown;

static gboolean
code_laid_out (CodeShown *shown)
{
  g_autoptr(GPtrArray) blocks = sj_test_find_all_by_type (GTK_WIDGET (answer_markdown (shown->fixture)), SJ_TYPE_CODE_BLOCK);

  if (blocks->len != shown->n)
    return FALSE;
  for (guint i = 0; i < blocks->len; i++)
    {
      GtkWidget *view = _sj_code_block_get_view (blocks->pdata[i]);
      int minimum;

      gtk_widget_measure (view, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (view), &minimum, NULL, NULL, NULL);
      if (minimum <= 20 || gtk_widget_get_height (view) < minimum)
        return FALSE;
    }
  return TRUE;
}

/* Waits for the layout (a loaded machine may take more than a few frames
 * to allocate), then checks what a frozen layout would fail. */
static void
assert_code_shown (Fixture *fixture,
                   guint    n)
{
  CodeShown shown = { fixture, n };
  g_autoptr(GPtrArray) blocks = NULL;

  spin_until (code_laid_out, &shown, "the code blocks to be laid out with their code in view");
  blocks = sj_test_find_all_by_type (GTK_WIDGET (answer_markdown (fixture)), SJ_TYPE_CODE_BLOCK);
  g_assert_cmpuint (blocks->len, ==, n);
}

static void
test_markdown (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *path = g_build_filename (SJ_TEST_DATA, "markdown", "fixture.md", NULL);
  g_autofree char *markdown = NULL;
  g_autoptr(GPtrArray) applied = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) blocks = NULL;
  g_autoptr(GError) error = NULL;
  Shown shown = { fixture, NULL };
  GtkWidget *view;
  GtkWidget *apply;

  g_file_get_contents (path, &markdown, NULL, &error);
  g_assert_no_error (error);
  shown.text = markdown;

  /* Streamed in small pieces: constructs arrive cut anywhere. */
  sj_test_model_server_reply_slow_text (fixture->stack.server, markdown, 7, 2);
  send_message (fixture, "show me everything");
  spin_until (answer_complete, fixture, "the answer");
  spin_until (answer_shows, &shown, "the whole answer to be shown");
  wait_frames (fixture, 3);
  g_assert_cmpstr (sj_chat_message_get_content (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT)), ==, markdown);
  assert_code_shown (fixture, 2);

  view = GTK_WIDGET (answer_markdown (fixture));
  blocks = sj_test_find_all_by_type (view, SJ_TYPE_CODE_BLOCK);
  g_assert_cmpuint (blocks->len, ==, 2);
  g_assert_true (GTK_SOURCE_IS_VIEW (_sj_code_block_get_view (blocks->pdata[0])));
  g_assert_true (gtk_widget_is_ancestor (_sj_code_block_get_view (blocks->pdata[0]), blocks->pdata[0]));
  g_assert_cmpstr (_sj_code_block_get_code (blocks->pdata[0]), ==, "setcps(0.5)\nnote(\"c3 e3 g3\").s(\"sawtooth\")");
  g_assert_nonnull (find_label_containing (view, "Strudel & friends"));
  g_assert_nonnull (find_label_containing (view, "The end."));

  /* Apply on the code block is the window's win.apply-code, with the code:
   * straight there, through nothing in between. */
  sj_test_catch_win_action (GTK_WIDGET (fixture->keys.window), "apply-code", applied);
  apply = sj_test_find_by_class (blocks->pdata[0], "sj-code-apply");
  g_assert_nonnull (apply);
  g_assert_true (gtk_widget_get_sensitive (apply));
  g_signal_emit_by_name (apply, "clicked");
  g_assert_cmpuint (applied->len, ==, 1);
  g_assert_cmpstr (applied->pdata[0], ==, "setcps(0.5)\nnote(\"c3 e3 g3\").s(\"sawtooth\")");
}

/* Screenshots -------------------------------------------------------------- */

/* Saves the window as @name and returns its mean luma (0 to 255), having
 * checked it is not blank. */
static double
screenshot (Fixture    *fixture,
            const char *name)
{
  g_autoptr(GdkTexture) texture = sj_test_render_widget (GTK_WIDGET (fixture->keys.window));
  g_autofree char *path = NULL;
  guint colours;
  double luma;

  g_assert_cmpint (gdk_texture_get_width (texture), >=, 400);
  g_assert_cmpint (gdk_texture_get_height (texture), >=, 600);

  path = sj_test_save_png (texture, name);
  colours = sj_test_count_colours (texture, &luma);
  g_test_message ("%s: %u colours, mean luma %.0f", path, colours, luma);
  /* Not blank: text, a code block and buttons make many colours. */
  g_assert_cmpuint (colours, >, 50);
  return luma;
}

typedef struct
{
  Fixture  *fixture;
  gboolean  dark;
} Scheme;

static gboolean
scheme_is (gpointer data)
{
  Scheme *scheme = data;

  return adw_style_manager_get_dark (adw_style_manager_get_default ()) == scheme->dark;
}

static void
test_screenshots (Fixture       *fixture,
                  gconstpointer  data)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  Shown shown = { fixture, "Groovier: the hats swing and the bass answers the kick.\n\n"
                           "```js\nnote(\"c2 ~ g2 c3\").s(\"sawtooth\").lpf(600)\n```\n\n"
                           "Press **Apply** to hear it on the next cycle." };
  Scheme scheme = { fixture, FALSE };
  double light, dark;

  sj_test_model_server_reply_text (fixture->stack.server, shown.text, 9);
  send_message (fixture, "make it groovier");
  spin_until (answer_complete, fixture, "the answer");
  spin_until (answer_shows, &shown, "the answer to be shown");

  wait_frames (fixture, 3);
  assert_code_shown (fixture, 1);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  spin_until (scheme_is, &scheme, "the light style");
  wait_frames (fixture, 10);
  light = screenshot (fixture, "chat-light.png");

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  scheme.dark = TRUE;
  spin_until (scheme_is, &scheme, "the dark style");
  wait_frames (fixture, 10);
  dark = screenshot (fixture, "chat-dark.png");

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  g_assert_cmpfloat (dark + 60, <, light);
}

/* Banner ------------------------------------------------------------------- */

static void
test_banner (Fixture       *fixture,
             gconstpointer  data)
{
  SjProblemBanner *banner = _sj_chat_panel_get_banner (fixture->panel);
  GtkButton *button;

  g_assert_cmpint (_sj_problem_banner_get_problem (banner), ==, SJ_PROBLEM_NONE);

  sj_test_model_server_reply_status (fixture->stack.server, 401, NULL,
                                     "{\"error\":{\"message\":\"Invalid API key\",\"code\":401}}");
  send_message (fixture, "hello?");
  wait_turn_over (fixture);
  wait_frames (fixture, 3);

  g_assert_cmpint (_sj_problem_banner_get_problem (banner), ==, SJ_PROBLEM_UNAUTHORIZED);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (banner)));
  button = GTK_BUTTON (sj_test_find_by_class (GTK_WIDGET (banner), "suggested-action"));
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_button_get_label (button), ==, "Replace Key");
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (button)));
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.show-agent-settings");
  /* A refused key is not tried again. */
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 1);
}

/* The panel follows its agent ---------------------------------------------- */

static gboolean
agent_idle (gpointer data)
{
  return !sj_agent_is_busy (SJ_AGENT (data));
}

static void
test_follows_agent (Fixture       *fixture,
                    gconstpointer  data)
{
  GListModel *messages = _sj_chat_panel_get_messages (fixture->panel);
  g_autoptr(SjAgent) other = NULL;
  gint64 session;

  /* A turn the composer did not start (the window's Regenerate, say)
   * still makes Send a Stop, and takes Edit and Regenerate off the last
   * messages until it is over. */
  sj_test_model_server_reply_text (fixture->stack.server, "One.", 2);
  sj_agent_send_async (fixture->agent, "first", NULL, NULL, NULL);
  g_assert_true (sj_composer_get_streaming (fixture->composer));
  wait_turn_over (fixture);
  g_assert_true (sj_chat_message_get_is_last (last_message (fixture, SJ_HISTORY_ROLE_USER)));

  sj_test_model_server_reply_text (fixture->stack.server, "Two.", 2);
  sj_agent_send_async (fixture->agent, "second", NULL, NULL, NULL);
  g_assert_true (sj_composer_get_streaming (fixture->composer));
  g_assert_false (sj_chat_message_get_is_last (last_message (fixture, SJ_HISTORY_ROLE_USER)));
  wait_turn_over (fixture);
  g_assert_true (sj_chat_message_get_is_last (last_message (fixture, SJ_HISTORY_ROLE_USER)));
  g_assert_true (sj_chat_message_get_is_last (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT)));

  /* The conversation shown is the agent's session, whoever changes it. */
  session = sj_agent_get_session_id (fixture->agent);
  sj_agent_new_session (fixture->agent);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);
  g_assert_true (sj_agent_load_session (fixture->agent, session, NULL));
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 4);

  /* Given another agent, the panel follows that one, and only that one. */
  other = sj_agent_new (_sj_agent_get_tools (fixture->agent), sj_agent_get_store (fixture->agent));
  sj_chat_panel_set_agent (fixture->panel, other, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);
  g_assert_true (sj_agent_load_session (fixture->agent, session, NULL));
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);
  sj_test_model_server_reply_text (fixture->stack.server, "Three.", 2);
  sj_agent_send_async (fixture->agent, "third", NULL, NULL, NULL);
  g_assert_false (sj_composer_get_streaming (fixture->composer));
  spin_until (agent_idle, fixture->agent, "the old agent to answer");
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 0);

  g_assert_true (sj_agent_load_session (other, session, NULL));
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 6);
}

/* Skill chips ------------------------------------------------------------ */

static GPtrArray *
skill_chips (Fixture *fixture)
{
  SjMessageRow *row = answer_row (fixture);
  g_autoptr(GPtrArray) labels = row != NULL ? sj_test_find_all_by_type (GTK_WIDGET (row), GTK_TYPE_MENU_BUTTON) : NULL;
  GPtrArray *chips = g_ptr_array_new ();

  for (guint i = 0; labels != NULL && i < labels->len; i++)
    if (gtk_widget_has_css_class (labels->pdata[i], "sj-skill-chip") && gtk_widget_is_visible (labels->pdata[i]))
      g_ptr_array_add (chips, labels->pdata[i]);

  return chips;
}

static gboolean
has_chips (gpointer data)
{
  g_autoptr(GPtrArray) chips = skill_chips (data);

  return chips->len > 0;
}

/* The skills a turn used show as chips on its answer, named for screen
 * readers, pin or unpin their skill from their menu, and show again when
 * the session is read back from the store. */
static void
test_skill_chips (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SjSkillRegistry) skills = sj_skill_registry_new_for_roots (SJ_TEST_DATA "/skills/bundled", NULL, NULL);
  g_autoptr(GPtrArray) chips = NULL;
  Shown shown = { fixture, "Swung." };
  gint64 session;

  sj_agent_set_skills (fixture->agent, skills);
  g_assert_true (sj_agent_set_skill_pinned (fixture->agent, "dub", TRUE, NULL));
  sj_test_model_server_reply_text (fixture->stack.server, shown.text, 3);
  send_message (fixture, "make it jazzy");
  spin_until (answer_complete, fixture, "the answer");
  spin_until (answer_shows, &shown, "the answer's text");
  spin_until (has_chips, fixture, "the skill chips");

  chips = skill_chips (fixture);
  g_assert_cmpuint (chips->len, ==, 2);
  wait_frames (fixture, 2);
  screenshot (fixture, "chat-skills.png");
  g_assert_cmpstr (gtk_menu_button_get_label (chips->pdata[0]), ==, "Dub");
  g_assert_cmpstr (gtk_menu_button_get_label (chips->pdata[1]), ==, "Jazz");
  gtk_test_accessible_assert_property (chips->pdata[1], GTK_ACCESSIBLE_PROPERTY_LABEL, "Skill used: Jazz");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (chips->pdata[0]), ==, "Pinned to this session");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (chips->pdata[1]), ==, "Matched your words");

  /* Each chip's menu pins its skill, or unpins a pinned one, and shows it. */
  for (guint i = 0; i < 2; i++)
    {
      GMenuModel *menu = gtk_menu_button_get_menu_model (chips->pdata[i]);
      g_autofree char *action = NULL;
      g_autofree char *target = NULL;

      g_autofree char *show = NULL;
      g_autofree char *show_target = NULL;

      /* Its second item shows the skill in the Skills page (the window's
       * action; test-panel activates it). */
      g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 2);
      g_assert_true (g_menu_model_get_item_attribute (menu, 1, G_MENU_ATTRIBUTE_ACTION, "s", &show));
      g_assert_true (g_menu_model_get_item_attribute (menu, 1, G_MENU_ATTRIBUTE_TARGET, "s", &show_target));
      g_assert_cmpstr (show, ==, "win.show-skill");
      g_assert_cmpstr (show_target, ==, i == 0 ? "dub" : "jazz");

      g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
      g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_TARGET, "s", &target));
      g_assert_cmpstr (action, ==, i == 0 ? "chat.unpin-skill" : "chat.pin-skill");
      g_assert_cmpstr (target, ==, i == 0 ? "dub" : "jazz");
      g_assert_true (gtk_widget_activate_action (chips->pdata[i], action, "s", target));
    }
  {
    g_auto(GStrv) pinned = sj_agent_get_pinned_skills (fixture->agent);

    g_assert_cmpuint (g_strv_length (pinned), ==, 1);
    g_assert_cmpstr (pinned[0], ==, "jazz");
  }
  g_clear_pointer (&chips, g_ptr_array_unref);

  session = sj_agent_get_session_id (fixture->agent);
  sj_agent_new_session (fixture->agent);
  g_assert_true (sj_agent_load_session (fixture->agent, session, NULL));
  spin_until (has_chips, fixture, "the skill chips after a reload");
  chips = skill_chips (fixture);
  g_assert_cmpuint (chips->len, ==, 2);
  g_assert_cmpstr (gtk_menu_button_get_label (chips->pdata[1]), ==, "Jazz");
}

/* Regenerate and edit ---------------------------------------------------- */

static void
test_regenerate_and_edit (Fixture       *fixture,
                          gconstpointer  data)
{
  GListModel *messages = _sj_chat_panel_get_messages (fixture->panel);
  g_autoptr(SjChatMessage) first_answer = NULL;
  SjChatMessage *answer;
  SjMessageRow *row;

  sj_test_model_server_reply_text (fixture->stack.server, "First try.", 4);
  send_message (fixture, "make it fsater");
  wait_turn_over (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  first_answer = g_object_ref (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT));
  g_assert_true (sj_chat_message_get_is_last (first_answer));

  /* Regenerate: the answer is replaced, the message kept. */
  sj_test_model_server_reply_text (fixture->stack.server, "Second try.", 4);
  gtk_widget_activate_action (GTK_WIDGET (fixture->panel), "chat.regenerate", NULL);
  wait_turn_over (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);
  g_assert_true (answer != first_answer);
  g_assert_cmpstr (sj_chat_message_get_content (answer), ==, "Second try.");
  g_assert_cmpuint (sj_test_model_server_get_n_requests (fixture->stack.server), ==, 2);

  /* The Regenerate button sits on that last answer only. */
  wait_frames (fixture, 3);
  row = answer_row (fixture);
  g_assert_nonnull (row);

  /* Edit: the last message comes back into the composer; sending it
   * replaces the message and its answer. */
  gtk_widget_activate_action (GTK_WIDGET (fixture->panel), "chat.edit-last", NULL);
  assert_composer_text (fixture, "make it fsater");
  sj_test_model_server_reply_text (fixture->stack.server, "Faster it is.", 4);
  sj_composer_set_text (fixture->composer, "make it faster");
  PRESS (fixture, "Return");
  wait_turn_over (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 2);
  g_assert_cmpstr (sj_chat_message_get_content (last_message (fixture, SJ_HISTORY_ROLE_USER)), ==, "make it faster");
  g_assert_cmpstr (sj_chat_message_get_content (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT)), ==, "Faster it is.");
  g_assert_null (strstr (last_user_content (sj_test_model_server_get_request (fixture->stack.server, 2)), "fsater"));
}

static gboolean
idle_ran_cb (gpointer user_data)
{
  *(gint64 *)user_data = g_get_monotonic_time ();
  return G_SOURCE_REMOVE;
}

static gboolean
has_time (gpointer user_data)
{
  return *(gint64 *)user_data != 0;
}

/* A 1 MB answer in one chunk took 79 s to finish while the jam waited
 * (issue 23). Now the turn ends promptly, the main loop is idle again
 * within a second, and the next message is taken at once. */
static void
test_big_answer (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 sent, over, idle = 0;

  while (text->len < 1024 * 1024)
    g_string_append (text, "A line of a long answer, with *some* `code` in it.\n\n");
  sj_test_model_server_reply_text (fixture->stack.server, text->str, G_MAXUINT);
  sj_test_model_server_reply_text (fixture->stack.server, "Short.", 4);

  sent = g_get_monotonic_time ();
  send_message (fixture, "write a lot");
  wait_turn_over (fixture);
  over = g_get_monotonic_time ();
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, idle_ran_cb, &idle, NULL);
  spin_until (has_time, &idle, "the main loop to be idle");
  g_test_message ("1 MB answer: turn over after %.3f s, main loop idle %.3f s later",
                  (over - sent) / 1e6, (idle - over) / 1e6);
  g_assert_cmpint (idle - over, <, G_USEC_PER_SEC);
  g_assert_cmpuint (strlen (_sj_markdown_view_get_text (answer_markdown (fixture))), ==, text->len);

  /* The next message is taken at once. */
  send_message (fixture, "and now short");
  wait_turn_over (fixture);
  g_assert_cmpstr (sj_chat_message_get_content (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT)), ==, "Short.");
}

/* A change of an earlier session read back from the history says how it
 * landed when its call said so, and otherwise only that it was sent: never
 * "Queued" for a cycle long gone (issue 31). */
static void
test_reloaded_swaps (Fixture       *fixture,
                     gconstpointer  data)
{
  SjHistoryStore *store = fixture->stack.store;
  GListModel *messages = _sj_chat_panel_get_messages (fixture->panel);
  g_autoptr(GError) error = NULL;
  gint64 session, heard, unknown;

  session = sj_history_store_create_session (store, "make it groovier", &error);
  sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_USER, "make it groovier", NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  heard = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "Swung.", "test/model",
                                           SJ_HISTORY_MESSAGE_COMPLETE, &error);
  sj_history_store_record_tool_call (store, heard, "apply_strudel_change", "{}",
                                     "{\"status\":\"scheduled\",\"verification\":{\"status\":\"heard\"}}",
                                     SJ_HISTORY_TOOL_SUCCEEDED, 5, 2, &error);
  sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_USER, "and darker", NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  unknown = sj_history_store_append_message (store, session, SJ_HISTORY_ROLE_ASSISTANT, "Darker.", "test/model",
                                             SJ_HISTORY_MESSAGE_COMPLETE, &error);
  sj_history_store_record_tool_call (store, unknown, "apply_strudel_change", "{}", "{\"status\":\"scheduled\"}",
                                     SJ_HISTORY_TOOL_SUCCEEDED, 5, 4, &error);
  g_assert_no_error (error);

  g_assert_true (sj_agent_load_session (fixture->agent, session, NULL));
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, 4);
  {
    g_autoptr(SjChatMessage) first = g_list_model_get_item (messages, 1);
    g_autoptr(SjChatMessage) second = g_list_model_get_item (messages, 3);

    g_assert_cmpint (sj_chat_message_get_swap (first), ==, SJ_CHAT_SWAP_APPLIED);
    g_assert_cmpfloat (sj_chat_message_get_swap_cycle (first), ==, 2);
    g_assert_cmpint (sj_chat_message_get_swap (second), ==, SJ_CHAT_SWAP_SENT);
    g_assert_cmpfloat (sj_chat_message_get_swap_cycle (second), ==, 4);
  }
  wait_frames (fixture, 3);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (fixture->panel), "Applied at cycle 2"));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (fixture->panel), "Sent for cycle 4"));
  g_assert_null (find_label_containing (GTK_WIDGET (fixture->panel), "Queued"));
}

/* The answer in the order it was written --------------------------------- */

static gboolean
no_answer_shown (gpointer data)
{
  return last_message (data, SJ_HISTORY_ROLE_ASSISTANT) == NULL;
}

/* Appends what @widget and its children show, in order: "text:" and a
 * Markdown view's text, "tool:" and a tool call's name. */
static void
collect_parts (GtkWidget *widget,
               GPtrArray *parts)
{
  if (!gtk_widget_get_visible (widget))
    return;

  if (SJ_IS_MARKDOWN_VIEW (widget))
    {
      const char *text = _sj_markdown_view_get_text (SJ_MARKDOWN_VIEW (widget));

      if (*text != '\0')
        g_ptr_array_add (parts, g_strconcat ("text:", text, NULL));
      return;
    }
  if (SJ_IS_TOOL_LOG_ROW (widget))
    {
      GtkWidget *name = sj_test_find_by_class (widget, "sj-tool-log-name");

      g_ptr_array_add (parts, g_strconcat ("tool:", name ? gtk_label_get_label (GTK_LABEL (name)) : "?", NULL));
      return;
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_parts (child, parts);
}

/* Parts in the answer's row, each a prefix of what it shows. */
typedef struct
{
  Fixture            *fixture;
  const char * const *expected;
} Parts;

static gboolean
answer_parts_are (gpointer data)
{
  Parts *parts = data;
  SjMessageRow *row = answer_row (parts->fixture);
  g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);
  guint n = g_strv_length ((char **) parts->expected);

  if (row == NULL)
    return FALSE;
  collect_parts (GTK_WIDGET (row), shown);
  if (shown->len != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!g_str_has_prefix (shown->pdata[i], parts->expected[i]))
      return FALSE;
  return TRUE;
}

static void
assert_answer_parts (Fixture            *fixture,
                     const char * const *expected,
                     const char         *what)
{
  Parts parts = { fixture, expected };
  g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);

  gint64 deadline = g_get_monotonic_time () + WAIT_TIMEOUT_S * G_USEC_PER_SEC;

  /* Spun here rather than by spin_until(), to say what was shown instead. */
  while (!answer_parts_are (&parts) && g_get_monotonic_time () < deadline)
    {
      GSource *tick = g_timeout_source_new (50);

      /* Wakes the loop when nothing else does. */
      g_source_set_dummy_callback (tick);
      g_source_attach (tick, NULL);
      g_main_context_iteration (NULL, TRUE);
      g_source_destroy (tick);
      g_source_unref (tick);
    }
  if (!answer_parts_are (&parts))
    {
      if (answer_row (fixture) != NULL)
        collect_parts (GTK_WIDGET (answer_row (fixture)), shown);
      for (guint i = 0; i < shown->len; i++)
        g_test_message ("part %u: %.80s", i, (char *) shown->pdata[i]);
      g_error ("The answer's parts are not in order: %s", what);
    }
  /* Each part says only its own words. */
  collect_parts (GTK_WIDGET (answer_row (fixture)), shown);
  for (guint i = 0; i < shown->len; i++)
    if (g_str_has_prefix (shown->pdata[i], "text:First"))
      g_assert_null (strstr (shown->pdata[i], "Middle"));
    else if (g_str_has_prefix (shown->pdata[i], "text:Middle"))
      g_assert_null (strstr (shown->pdata[i], "Last"));
}

/* An answer that says something, calls a tool, says more, calls another
 * and goes on shows its tool rows where the calls were made, not after all
 * its text: while it streams, and read back from the history (issue 31). */
static void
test_tool_row_order (Fixture       *fixture,
                     gconstpointer  data)
{
  const char * const live[] = { "text:First words: I look the filter up.", "tool:strudel_knowledge",
                                "text:Middle words: now I read the code.", "tool:read_code",
                                "text:Last words", NULL };
  g_autoptr(GPtrArray) calls = NULL;
  SjChatMessage *answer;
  gint64 session;

  sj_test_model_server_reply_tool_call (fixture->stack.server, "First words: I look the filter up.",
                                        "k1", "strudel_knowledge", "{\"query\":\"lpf\"}");
  sj_test_model_server_reply_tool_call (fixture->stack.server, "Middle words: now I read the code.",
                                        "r1", "read_code", "{}");
  sj_test_model_server_reply_hold (fixture->stack.server, "Last words: the filter is lpf");
  send_message (fixture, "what does lpf do?");

  /* While it streams: the third round's words are there, after both rows. */
  assert_answer_parts (fixture, live, "while streaming");
  g_assert_true (sj_agent_is_busy (fixture->agent));

  PRESS (fixture, "Escape");
  spin_until (answer_stopped, fixture, "the turn to stop");
  assert_answer_parts (fixture, live, "once stopped");

  /* The store knows where each call was made: after the text before it. */
  answer = last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT);
  calls = sj_history_store_list_tool_calls (fixture->stack.store, sj_chat_message_get_id (answer), NULL);
  g_assert_cmpuint (calls->len, ==, 2);
  g_assert_cmpint (((SjHistoryToolCall *) calls->pdata[0])->text_offset, ==, strlen ("First words: I look the filter up."));
  g_assert_cmpint (((SjHistoryToolCall *) calls->pdata[1])->text_offset, ==,
                   strlen ("First words: I look the filter up.\n\nMiddle words: now I read the code."));

  /* Read back from the history, in new rows: the same order. */
  session = sj_agent_get_session_id (fixture->agent);
  sj_agent_new_session (fixture->agent);
  spin_until (no_answer_shown, fixture, "the chat to be empty");
  g_assert_true (sj_agent_load_session (fixture->agent, session, NULL));
  g_assert_true (last_message (fixture, SJ_HISTORY_ROLE_ASSISTANT) != answer);
  assert_answer_parts (fixture, live, "read back from the history");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *xdotool = NULL;

  /* Real X key events through GTK's own input method, whatever the
   * session around the test has. */
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  g_setenv ("GTK_IM_MODULE", "gtk-im-context-simple", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);
  /* Accessible names are read back (the skill chips). */
  g_setenv ("GTK_A11Y", "test", TRUE);

  sj_test_tolerate_gtk_snapshot_race ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  sj_register_resource ();

  xdotool = g_find_program_in_path ("xdotool");
  if (xdotool == NULL)
    g_error ("xdotool is needed to type real keys (apt-get install xdotool)");

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/chat/big-answer", test_big_answer);
  ADD ("/chat/enter", test_enter);
  ADD ("/chat/stop", test_stop);
  ADD ("/chat/autoscroll", test_autoscroll);
  ADD ("/chat/tool-logs", test_tool_logs);
  ADD ("/chat/markdown", test_markdown);
  ADD ("/chat/regenerate-and-edit", test_regenerate_and_edit);
  ADD ("/chat/follows-agent", test_follows_agent);
  ADD ("/chat/screenshots", test_screenshots);
  ADD ("/chat/banner", test_banner);
  ADD ("/chat/skill-chips", test_skill_chips);
  ADD ("/chat/reloaded-swaps", test_reloaded_swaps);
  ADD ("/chat/tool-row-order", test_tool_row_order);
#undef ADD

  return g_test_run ();
}
