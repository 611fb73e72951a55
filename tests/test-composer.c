/* test-composer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The chat panel's composer and autoscroll in a real window under Xvfb.
 * Keys are real X key events, typed with xdotool into the focused window,
 * so they go through GDK, the event controllers and the input method just
 * as a user's would; the input method is GTK's own (GtkIMContextSimple),
 * whose Ctrl+Shift+U code point entry is a real composition with preedit.
 */

#include "config.h"

#include <gdk/x11/gdkx.h>


#include "sj-autoscroll.h"
#include "sj-composer-private.h"
#include "sj-resources.h"
#include "sj-test-widgets.h"

#define WAIT_TIMEOUT_S 20
#define spin_until(done, data, what) sj_test_widgets_spin_until ((gboolean (*) (gpointer)) (done), (data), WAIT_TIMEOUT_S, (what))

typedef gboolean (*Condition) (gpointer data);

/* The window -------------------------------------------------------------- */

typedef SjTestKeyWindow Fixture;

static void
fixture_open (Fixture   *fixture,
              GtkWidget *child)
{
  sj_test_key_window_open (fixture, child, 400, 600, WAIT_TIMEOUT_S);
}

static void
fixture_close (Fixture *fixture)
{
  sj_test_key_window_close (fixture);
}

#define PRESS(fixture, ...) sj_test_key_window_press ((fixture), (const char *[]) { __VA_ARGS__, NULL })
#define wait_frames sj_test_key_window_wait_frames

static void
clicked_cb (GtkButton *button,
            gboolean  *clicked)
{
  *clicked = TRUE;
}

static gboolean
flag_is_set (gpointer data)
{
  return *(gboolean *)data;
}

/* Activates @button as Enter or Space would: clicked after a short
 * pressed state. */
static void
click (GtkWidget *button)
{
  gboolean clicked = FALSE;
  gulong handler = g_signal_connect (button, "clicked", G_CALLBACK (clicked_cb), &clicked);

  g_assert_true (gtk_widget_activate (button));
  spin_until (flag_is_set, &clicked, "a button to be clicked");
  g_signal_handler_disconnect (button, handler);
}

/* The composer ------------------------------------------------------------ */

typedef struct
{
  Fixture      fixture;
  SjComposer  *composer;
  GtkTextView *text_view;
  GtkButton   *button;
  GPtrArray   *sent;
  guint        stops;
} ComposerFixture;

static void
send_cb (SjComposer      *composer,
         const char      *text,
         ComposerFixture *cf)
{
  g_ptr_array_add (cf->sent, g_strdup (text));
}

static void
stop_cb (SjComposer      *composer,
         ComposerFixture *cf)
{
  cf->stops++;
}

static void
composer_open (ComposerFixture *cf)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *spacer = gtk_label_new ("conversation");

  cf->composer = SJ_COMPOSER (_sj_composer_new ());
  cf->text_view = GTK_TEXT_VIEW (sj_test_find_by_type (GTK_WIDGET (cf->composer), GTK_TYPE_TEXT_VIEW));
  cf->button = _sj_composer_get_button (cf->composer);
  g_assert_nonnull (cf->text_view);
  g_assert_nonnull (cf->button);
  cf->sent = g_ptr_array_new_with_free_func (g_free);
  cf->stops = 0;
  g_signal_connect (cf->composer, "send", G_CALLBACK (send_cb), cf);
  g_signal_connect (cf->composer, "stop", G_CALLBACK (stop_cb), cf);

  gtk_widget_set_vexpand (spacer, TRUE);
  gtk_box_append (GTK_BOX (box), spacer);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (cf->composer));
  fixture_open (&cf->fixture, box);

  sj_composer_focus (cf->composer);
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (cf->text_view)));
}

static void
composer_close (ComposerFixture *cf)
{
  fixture_close (&cf->fixture);
  g_clear_pointer (&cf->sent, g_ptr_array_unref);
}

static void
assert_text (ComposerFixture *cf,
             const char      *expected)
{
  g_autofree char *text = sj_composer_get_text (cf->composer);

  g_assert_cmpstr (text, ==, expected);
}

static void
assert_sent (ComposerFixture *cf,
             guint            n,
             const char      *last)
{
  g_assert_cmpuint (cf->sent->len, ==, n);
  if (last != NULL)
    g_assert_cmpstr (g_ptr_array_index (cf->sent, n - 1), ==, last);
}

static void
test_composer_enter (void)
{
  ComposerFixture cf = { 0 };

  composer_open (&cf);

  /* Nothing to send: the button says so. */
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (cf.button)));

  /* Typed text, then Enter: sent, and the composer is empty again. */
  PRESS (&cf.fixture, "h", "i");
  assert_text (&cf, "hi");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (cf.button)));
  PRESS (&cf.fixture, "Return");
  assert_sent (&cf, 1, "hi");
  assert_text (&cf, "");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (cf.button)));

  /* Shift+Enter starts a new line and sends nothing. */
  sj_composer_set_text (cf.composer, "line one");
  PRESS (&cf.fixture, "shift+Return");
  assert_text (&cf, "line one\n");
  assert_sent (&cf, 1, NULL);
  PRESS (&cf.fixture, "t", "w", "o", "Return");
  assert_sent (&cf, 2, "line one\ntwo");
  assert_text (&cf, "");

  /* Ctrl+Enter sends too. */
  sj_composer_set_text (cf.composer, "with ctrl");
  PRESS (&cf.fixture, "ctrl+Return");
  assert_sent (&cf, 2 + 1, "with ctrl");
  assert_text (&cf, "");

  /* Only whitespace, or nothing: not sent, and left as it is. */
  sj_composer_set_text (cf.composer, "  \n\t ");
  PRESS (&cf.fixture, "Return");
  PRESS (&cf.fixture, "ctrl+Return");
  assert_sent (&cf, 3, NULL);
  assert_text (&cf, "  \n\t ");
  sj_composer_set_text (cf.composer, "");
  PRESS (&cf.fixture, "Return");
  assert_sent (&cf, 3, NULL);
  assert_text (&cf, "");

  /* The button sends as Enter does; the message goes without its
   * surrounding whitespace. */
  sj_composer_set_text (cf.composer, "  clicked\n");
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (cf.text_view)));
  click (GTK_WIDGET (cf.button));
  assert_sent (&cf, 4, "clicked");
  assert_text (&cf, "");

  composer_close (&cf);
}

/* A text view preedit-changed as an input method emits it. */
static void
emit_preedit (ComposerFixture *cf,
              const char      *preedit)
{
  g_signal_emit_by_name (cf->text_view, "preedit-changed", preedit);
}

static void
preedit_cb (GtkTextView *text_view,
            const char  *preedit,
            char       **last)
{
  g_free (*last);
  *last = g_strdup (preedit);
}

static void
test_composer_input_method (void)
{
  ComposerFixture cf = { 0 };
  g_autofree char *preedit = NULL;

  composer_open (&cf);

  /* An input method composing (as it announces with preedit-changed):
   * Enter is the input method's, not a send. GtkIMContextSimple, which
   * has no composition of its own here, lets the key on to the text view:
   * a newline. */
  sj_composer_set_text (cf.composer, "kana");
  emit_preedit (&cf, "か");
  PRESS (&cf.fixture, "Return");
  assert_sent (&cf, 0, NULL);
  assert_text (&cf, "kana\n");
  PRESS (&cf.fixture, "ctrl+Return");
  assert_sent (&cf, 0, NULL);

  /* The composition over, Enter sends again. */
  emit_preedit (&cf, "");
  PRESS (&cf.fixture, "Return");
  assert_sent (&cf, 1, "kana");

  /* A real composition: Ctrl+Shift+U starts a code point, shown as
   * preedit; Enter commits it, sending nothing; the next Enter sends. */
  g_signal_connect (cf.text_view, "preedit-changed", G_CALLBACK (preedit_cb), &preedit);
  PRESS (&cf.fixture, "ctrl+shift+u", "e", "9");
  g_assert_nonnull (preedit);
  g_assert_cmpstr (preedit, !=, "");
  assert_text (&cf, "");
  PRESS (&cf.fixture, "Return");
  g_assert_cmpstr (preedit, ==, "");
  assert_text (&cf, "é");
  assert_sent (&cf, 1, NULL);
  PRESS (&cf.fixture, "Return");
  assert_sent (&cf, 2, "é");
  assert_text (&cf, "");

  composer_close (&cf);
}

static void
test_composer_streaming (void)
{
  ComposerFixture cf = { 0 };
  g_autofree char *text = NULL;

  composer_open (&cf);

  g_assert_cmpstr (gtk_button_get_icon_name (cf.button), ==, "go-up-symbolic");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (cf.button)), ==, "Send");
  gtk_test_accessible_assert_property (cf.button, GTK_ACCESSIBLE_PROPERTY_LABEL, "Send");
  gtk_test_accessible_assert_property (cf.text_view, GTK_ACCESSIBLE_PROPERTY_LABEL, "Message to the agent");
  gtk_test_accessible_assert_property (cf.text_view, GTK_ACCESSIBLE_PROPERTY_PLACEHOLDER, "Ask the agent…");

  /* Not streaming, Escape is someone else's business. */
  PRESS (&cf.fixture, "Escape");
  g_assert_cmpuint (cf.stops, ==, 0);

  g_object_set (cf.composer, "streaming", TRUE, NULL);
  g_assert_true (sj_composer_get_streaming (cf.composer));
  g_assert_cmpstr (gtk_button_get_icon_name (cf.button), ==, "media-playback-stop-symbolic");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (cf.button)), ==, "Stop");
  gtk_test_accessible_assert_property (cf.button, GTK_ACCESSIBLE_PROPERTY_LABEL, "Stop");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (cf.button)));

  /* While the answer streams, Enter keeps the next message. */
  PRESS (&cf.fixture, "n", "e", "x", "t", "Return");
  assert_sent (&cf, 0, NULL);
  assert_text (&cf, "next");

  /* Escape and the button stop the answer. */
  PRESS (&cf.fixture, "Escape");
  g_assert_cmpuint (cf.stops, ==, 1);
  click (GTK_WIDGET (cf.button));
  g_assert_cmpuint (cf.stops, ==, 2);
  assert_sent (&cf, 0, NULL);
  assert_text (&cf, "next");

  /* Answer over: the button sends the message kept. */
  sj_composer_set_streaming (cf.composer, FALSE);
  g_assert_cmpstr (gtk_button_get_icon_name (cf.button), ==, "go-up-symbolic");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (cf.button)), ==, "Send");
  gtk_test_accessible_assert_property (cf.button, GTK_ACCESSIBLE_PROPERTY_LABEL, "Send");
  click (GTK_WIDGET (cf.button));
  assert_sent (&cf, 1, "next");
  g_assert_cmpuint (cf.stops, ==, 2);

  /* Editing the last message again: the text, the cursor at its end. */
  gtk_widget_grab_focus (GTK_WIDGET (cf.button));
  sj_composer_set_text (cf.composer, "next");
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (cf.text_view)));
  PRESS (&cf.fixture, "exclam");
  text = sj_composer_get_text (cf.composer);
  g_assert_cmpstr (text, ==, "next!");

  composer_close (&cf);
}

/* Sets @text, and returns the height the composer settles at once the
 * text view has laid it out. */
static int
settled_height (ComposerFixture   *cf,
                GtkScrolledWindow *scroller,
                const char        *text)
{
  sj_composer_set_text (cf->composer, text);
  /* The text view lays out its lines on idle: let it finish. */
  wait_frames (&cf->fixture, 10);
  return gtk_widget_get_height (GTK_WIDGET (scroller));
}

static void
test_composer_grows (void)
{
  ComposerFixture cf = { 0 };
  GtkScrolledWindow *scroller;
  GtkAdjustment *adjustment;
  g_autoptr(GString) many = g_string_new ("1");
  int empty, three, six, eight, all, line;

  composer_open (&cf);
  scroller = GTK_SCROLLED_WINDOW (sj_test_find_by_type (GTK_WIDGET (cf.composer), GTK_TYPE_SCROLLED_WINDOW));
  adjustment = gtk_scrolled_window_get_vadjustment (scroller);

  /* (A line or two fit in the scrolled window's minimum height, which
   * its scrollbar sets: growth is measured from three lines on.) */
  wait_frames (&cf.fixture, 5);
  empty = gtk_widget_get_height (GTK_WIDGET (scroller));
  three = settled_height (&cf, scroller, "1\n2\n3");
  six = settled_height (&cf, scroller, "1\n2\n3\n4\n5\n6");
  eight = settled_height (&cf, scroller, "1\n2\n3\n4\n5\n6\n7\n8");
  for (int i = 2; i <= 30; i++)
    g_string_append_printf (many, "\n%d", i);
  all = settled_height (&cf, scroller, many->str);
  g_test_message ("heights: empty %d, 3 lines %d, 6 lines %d, 8 lines %d, 30 lines %d", empty, three, six, eight, all);

  /* It grows a line at a time up to eight lines… */
  line = (six - three) / 3;
  g_assert_cmpint (line, >, 8);
  g_assert_cmpint (empty, <=, three);
  g_assert_cmpint (eight - six, >=, 2 * line - 1);
  g_assert_cmpint (eight - six, <=, 2 * line + 1);

  /* …and then scrolls. */
  g_assert_cmpint (all, <=, eight + line / 2);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), >, gtk_adjustment_get_page_size (adjustment) + 10 * line);

  /* Sent, it shrinks back. */
  PRESS (&cf.fixture, "Return");
  assert_sent (&cf, 1, many->str);
  wait_frames (&cf.fixture, 10);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (scroller)), <, three);

  composer_close (&cf);
}

/* The autoscroll ---------------------------------------------------------- */

typedef struct
{
  Fixture            fixture;
  GtkStringList     *rows;
  GtkScrolledWindow *scroller;
  GtkAdjustment     *adjustment;
  GtkWidget         *jump;
  SjAutoscroll      *autoscroll;
} ScrollFixture;

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_list_item_set_child (item, label);
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  GtkStringObject *string = gtk_list_item_get_item (item);

  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), gtk_string_object_get_string (string));
}

static double
distance_to_bottom (ScrollFixture *sf)
{
  GtkAdjustment *adjustment = sf->adjustment;

  return gtk_adjustment_get_upper (adjustment) -
         (gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment));
}

/* Rows of uneven heights, so GtkListView's estimates are off until it
 * has measured them. */
static void
append_rows (ScrollFixture *sf,
             guint          n)
{
  guint first = g_list_model_get_n_items (G_LIST_MODEL (sf->rows));

  for (guint i = first; i < first + n; i++)
    {
      g_autoptr(GString) row = g_string_new (NULL);

      g_string_append_printf (row, "Message %u", i);
      for (guint line = 0; line < i % 4; line++)
        g_string_append (row, "\nand one more line");
      gtk_string_list_append (sf->rows, row->str);
    }
}

typedef struct
{
  ScrollFixture *sf;
  double         upper;
} Grown;

static gboolean
grown (gpointer data)
{
  Grown *g = data;

  return gtk_adjustment_get_upper (g->sf->adjustment) > g->upper;
}

static gboolean
at_bottom (gpointer data)
{
  ScrollFixture *sf = data;

  return sj_autoscroll_get_pinned (sf->autoscroll) && distance_to_bottom (sf) <= 48;
}

/* Waits until the view is at the bottom and stays there while the list
 * view measures its rows. */
static void
assert_settles_at_bottom (ScrollFixture *sf)
{
  for (guint frame = 0; frame < 10; frame++)
    {
      spin_until (at_bottom, sf, "the view to be at the bottom");
      wait_frames (&sf->fixture, 1);
    }
  g_assert_true (at_bottom (sf));
  g_assert_false (gtk_widget_get_visible (sf->jump));
}

static gboolean
unpinned (gpointer data)
{
  ScrollFixture *sf = data;

  return !sj_autoscroll_get_pinned (sf->autoscroll);
}

static void
count_cb (GObject    *object,
          GParamSpec *pspec,
          guint      *count)
{
  (*count)++;
}

static void
test_autoscroll (void)
{
  ScrollFixture sf = { 0 };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  GtkWidget *list_view;
  Grown g = { &sf, 0 };
  double value;
  guint notified = 0;

  sf.rows = gtk_string_list_new (NULL);
  append_rows (&sf, 3);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row_cb), NULL);
  list_view = gtk_list_view_new (GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (g_object_ref (sf.rows)))),
                                 g_object_ref (factory));
  sf.scroller = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  gtk_scrolled_window_set_child (sf.scroller, list_view);
  gtk_widget_set_size_request (GTK_WIDGET (sf.scroller), 300, 200);
  sf.jump = gtk_button_new_with_label ("Jump");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (sf.scroller));
  gtk_box_append (GTK_BOX (box), sf.jump);

  sf.autoscroll = sj_autoscroll_new (sf.scroller, sf.jump);
  sf.adjustment = gtk_scrolled_window_get_vadjustment (sf.scroller);
  g_signal_connect (sf.autoscroll, "notify::pinned", G_CALLBACK (count_cb), &notified);
  g_assert_true (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_false (gtk_widget_get_visible (sf.jump));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (sf.jump), ==, "Jump to latest");
  gtk_test_accessible_assert_property (sf.jump, GTK_ACCESSIBLE_PROPERTY_LABEL, "Jump to latest");

  fixture_open (&sf.fixture, box);
  wait_frames (&sf.fixture, 3);
  g_assert_true (sj_autoscroll_get_pinned (sf.autoscroll));

  /* Rows added while at the bottom: the view follows them, for a batch
   * and for rows streamed in one at a time. */
  g.upper = gtk_adjustment_get_upper (sf.adjustment);
  append_rows (&sf, 60);
  spin_until (grown, &g, "the list to grow");
  assert_settles_at_bottom (&sf);
  g_assert_cmpfloat (gtk_adjustment_get_upper (sf.adjustment), >, 4 * gtk_adjustment_get_page_size (sf.adjustment));
  for (guint i = 0; i < 10; i++)
    {
      append_rows (&sf, 1);
      wait_frames (&sf.fixture, 1);
    }
  assert_settles_at_bottom (&sf);
  g_assert_cmpuint (notified, ==, 0);

  /* The user scrolls up: rows added keep the position, and the jump
   * button shows. */
  gtk_adjustment_set_value (sf.adjustment, gtk_adjustment_get_value (sf.adjustment) / 2);
  g_assert_false (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_true (gtk_widget_get_visible (sf.jump));
  g_assert_cmpuint (notified, ==, 1);
  wait_frames (&sf.fixture, 5);
  value = gtk_adjustment_get_value (sf.adjustment);
  g.upper = gtk_adjustment_get_upper (sf.adjustment);
  append_rows (&sf, 40);
  spin_until (grown, &g, "the list to grow");
  wait_frames (&sf.fixture, 10);
  g_assert_cmpfloat (gtk_adjustment_get_value (sf.adjustment), ==, value);
  g_assert_false (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_true (gtk_widget_get_visible (sf.jump));

  /* Jump: back at the bottom, following again. */
  click (sf.jump);
  g_assert_true (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_false (gtk_widget_get_visible (sf.jump));
  assert_settles_at_bottom (&sf);
  append_rows (&sf, 20);
  assert_settles_at_bottom (&sf);

  /* A small step up leaves the bottom too (a touchpad's), and scrolling
   * back down near the bottom pins again. */
  gtk_adjustment_set_value (sf.adjustment, gtk_adjustment_get_value (sf.adjustment) - 5);
  g_assert_false (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_true (gtk_widget_get_visible (sf.jump));
  gtk_adjustment_set_value (sf.adjustment, gtk_adjustment_get_value (sf.adjustment) - 300);
  g_assert_false (sj_autoscroll_get_pinned (sf.autoscroll));
  gtk_adjustment_set_value (sf.adjustment, gtk_adjustment_get_upper (sf.adjustment) -
                                           gtk_adjustment_get_page_size (sf.adjustment) - 20);
  g_assert_true (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_false (gtk_widget_get_visible (sf.jump));
  append_rows (&sf, 5);
  assert_settles_at_bottom (&sf);

  /* The list view scrolling itself to a row, as when the keyboard focus
   * moves up, is the user's doing: not undone. */
  g_assert_true (gtk_widget_activate_action (list_view, "list.scroll-to-item", "u", 0));
  spin_until (unpinned, &sf, "the view to leave the bottom");
  wait_frames (&sf.fixture, 10);
  g_assert_cmpfloat (gtk_adjustment_get_value (sf.adjustment), <, gtk_adjustment_get_page_size (sf.adjustment));
  g_assert_false (sj_autoscroll_get_pinned (sf.autoscroll));
  g_assert_true (gtk_widget_get_visible (sf.jump));
  click (sf.jump);
  assert_settles_at_bottom (&sf);

  /* A conversation cleared while scrolled up has nothing to jump to. */
  gtk_adjustment_set_value (sf.adjustment, 0);
  g_assert_false (sj_autoscroll_get_pinned (sf.autoscroll));
  gtk_string_list_splice (sf.rows, 0, g_list_model_get_n_items (G_LIST_MODEL (sf.rows)), NULL);
  spin_until (at_bottom, &sf, "the cleared view to pin");
  g_assert_false (gtk_widget_get_visible (sf.jump));

  fixture_close (&sf.fixture);
  g_clear_object (&sf.autoscroll);
  g_clear_object (&sf.rows);
}

/* The microphone ---------------------------------------------------------- */

typedef struct
{
  SjComposer *composer;
  guint       starts;
  guint       stops;
} Mic;

static void
mic_start_cb (SjComposer *composer,
              Mic        *mic)
{
  mic->starts++;
  /* As the window does once the session listens. */
  sj_composer_set_listening (composer, TRUE);
}

static void
mic_stop_cb (SjComposer *composer,
             Mic        *mic)
{
  mic->stops++;
  sj_composer_set_listening (composer, FALSE);
}

/* Real pointer events on the microphone button, then the key barrier:
 * X delivers them in order. */
static void
mouse (ComposerFixture *cf,
       const char      *what)
{
  GtkWidget *mic = GTK_WIDGET (_sj_composer_get_mic_button (cf->composer));
  GtkNative *native = gtk_widget_get_native (mic);
  g_autofree char *xid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (gtk_native_get_surface (native)));
  graphene_point_t centre;
  double dx, dy;
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;

  g_assert_true (gtk_widget_compute_point (mic, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT (gtk_widget_get_width (mic) / 2.0,
                                                                 gtk_widget_get_height (mic) / 2.0),
                                           &centre));
  gtk_native_get_surface_transform (native, &dx, &dy);
  x = g_strdup_printf ("%d", (int) (centre.x + dx));
  y = g_strdup_printf ("%d", (int) (centre.y + dy));
  sj_test_run_xdotool ((const char * const[]) { "mousemove", "--window", xid, x, y, what, "1", NULL });
  sj_test_key_window_press (&cf->fixture, (const char * const[]) { NULL });
}

typedef struct
{
  gint64 until;
} Until;

static gboolean
time_passed (gpointer data)
{
  return g_get_monotonic_time () >= ((Until *) data)->until;
}

/* Held, the microphone listens until released; clicked, until clicked
 * again. The words go after what was typed. */
static void
test_composer_microphone (void)
{
  ComposerFixture cf;
  Mic mic = { 0 };
  Until held;
  g_autofree char *text = NULL;
  const char *pressed;

  composer_open (&cf);
  mic.composer = cf.composer;
  g_signal_connect (cf.composer, "start-listening", G_CALLBACK (mic_start_cb), &mic);
  g_signal_connect (cf.composer, "stop-listening", G_CALLBACK (mic_stop_cb), &mic);
  sj_composer_set_text (cf.composer, "Drums:");
  wait_frames (&cf.fixture, 3);

  /* Push to talk: pressed, it listens; released after a while, it stops. */
  mouse (&cf, "mousedown");
  g_assert_cmpuint (mic.starts, ==, 1);
  g_assert_true (sj_composer_get_listening (cf.composer));
  pressed = gtk_widget_get_tooltip_text (GTK_WIDGET (_sj_composer_get_mic_button (cf.composer)));
  g_assert_nonnull (strstr (pressed, "Stop listening"));
  sj_composer_set_voice_text (cf.composer, "add a");
  sj_composer_set_voice_text (cf.composer, "add a cowbell");
  held.until = g_get_monotonic_time () + 600 * G_TIME_SPAN_MILLISECOND;
  spin_until (time_passed, &held, "the button to be held");
  mouse (&cf, "mouseup");
  g_assert_cmpuint (mic.stops, ==, 1);
  g_assert_false (sj_composer_get_listening (cf.composer));
  text = sj_composer_get_text (cf.composer);
  g_assert_cmpstr (text, ==, "Drums: add a cowbell");

  /* A click: it listens until the next click. */
  mouse (&cf, "click");
  g_assert_cmpuint (mic.starts, ==, 2);
  g_assert_cmpuint (mic.stops, ==, 1);
  g_assert_true (sj_composer_get_listening (cf.composer));
  mouse (&cf, "click");
  g_assert_cmpuint (mic.stops, ==, 2);
  g_assert_false (sj_composer_get_listening (cf.composer));
  g_assert_cmpuint (cf.sent->len, ==, 0);

  composer_close (&cf);
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
  /* GTK's test accessibility backend, whose properties can be checked
   * (and no accessibility bus to look for). */
  g_setenv ("GTK_A11Y", "test", TRUE);

  sj_test_tolerate_gtk_snapshot_race ();
  gtk_test_init (&argc, &argv, NULL);
  sj_register_resource ();

  xdotool = g_find_program_in_path ("xdotool");
  if (xdotool == NULL)
    g_error ("xdotool is needed to type real keys (apt-get install xdotool)");

  g_test_add_func ("/composer/enter", test_composer_enter);
  g_test_add_func ("/composer/input-method", test_composer_input_method);
  g_test_add_func ("/composer/streaming", test_composer_streaming);
  g_test_add_func ("/composer/grows", test_composer_grows);
  g_test_add_func ("/composer/microphone", test_composer_microphone);
  g_test_add_func ("/autoscroll/follow", test_autoscroll);

  return g_test_run ();
}
