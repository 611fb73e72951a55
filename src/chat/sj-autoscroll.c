/* sj-autoscroll.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Keeps the conversation scrolled to its latest message while it grows, as
 * long as the user has not scrolled away to read something older; then a
 * "Jump to latest" button brings them back.
 *
 * The view is "pinned" to the bottom when the user is there. Content
 * growing while pinned scrolls along; content growing while unpinned leaves
 * the position alone. What tells the two apart is who moved the
 * adjustment: the layout moves it with gtk_adjustment_configure(), which
 * emits ::changed (with the new value already in place) before
 * ::value-changed, while the user's scrolling (wheel, touchpad, scrollbar,
 * keys) only emits ::value-changed. A ::value-changed whose value was not
 * seen at the last ::changed is therefore the user's.
 *
 * GtkListView's upper bound is an estimate until its rows are measured, so
 * one scroll to the bottom is not enough: every ::changed while pinned
 * scrolls to the bottom again, and the estimate converges within a few
 * frames.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-autoscroll.h"

/* How close to the bottom, in pixels, still counts as being there. */
#define PIN_DISTANCE 48.0

struct _SjAutoscroll
{
  GObject            parent_instance;

  GtkScrolledWindow *scroller;
  GtkWidget         *jump_button;
  GtkAdjustment     *adjustment;

  /* The adjustment as last seen, to recognise the user's scrolling. */
  double             last_value;

  gboolean           pinned;
  /* Set while we move the adjustment ourselves. */
  gboolean           scrolling;
  /* A scroll to the bottom waiting for the layout to finish. */
  guint              scroll_idle;
};

G_DEFINE_FINAL_TYPE (SjAutoscroll, sj_autoscroll, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PINNED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static double
distance_to_bottom (GtkAdjustment *adjustment)
{
  return gtk_adjustment_get_upper (adjustment) -
         (gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment));
}

static void
set_pinned (SjAutoscroll *self,
            gboolean      pinned)
{
  if (self->pinned == pinned)
    return;

  self->pinned = pinned;
  gtk_widget_set_visible (self->jump_button, !pinned);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PINNED]);
}

static void
remember (SjAutoscroll *self)
{
  self->last_value = gtk_adjustment_get_value (self->adjustment);
}

/* The user moved from last_value to the adjustment's value. */
static void
user_scrolled (SjAutoscroll *self)
{
  double value = gtk_adjustment_get_value (self->adjustment);
  double distance = distance_to_bottom (self->adjustment);

  /* Any step up leaves the bottom, not only one that goes past
   * PIN_DISTANCE at once: a touchpad scrolls a few pixels at a time, and
   * each step would otherwise be undone by the next streamed token.
   * Coming back within PIN_DISTANCE of the bottom pins again. */
  if (value < self->last_value && distance > 1.0)
    set_pinned (self, FALSE);
  else if (value > self->last_value && distance <= PIN_DISTANCE)
    set_pinned (self, TRUE);
}

static void
scroll_to_bottom (SjAutoscroll *self)
{
  GtkAdjustment *adjustment = self->adjustment;

  /* gtk_adjustment_set_value() clamps to upper - page-size. */
  self->scrolling = TRUE;
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  self->scrolling = FALSE;

  remember (self);
}

static gboolean
scroll_idle_cb (gpointer data)
{
  SjAutoscroll *self = data;

  self->scroll_idle = 0;
  if (self->pinned && self->adjustment != NULL && distance_to_bottom (self->adjustment) > 0)
    scroll_to_bottom (self);

  return G_SOURCE_REMOVE;
}

/* The layout changed: content added or measured, the view resized. */
static void
adjustment_changed_cb (SjAutoscroll  *self,
                       GtkAdjustment *adjustment)
{
  g_assert (SJ_IS_AUTOSCROLL (self));

  if (self->pinned)
    {
      /* Whatever the list view made of the new content (rows appended at
       * the bottom may even come with a value of 0), back to the bottom
       * before anything is drawn. */
      /* Not from inside the list view's allocation, though: GtkListView
       * takes its anchor from a value set there against rows not yet
       * placed, and on the next frame puts the view back at the top with
       * only ::value-changed, as a user's scroll. Right after the frame,
       * before the next one. */
      remember (self);
      if (distance_to_bottom (adjustment) > 0 && self->scroll_idle == 0)
        self->scroll_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, scroll_idle_cb, self, NULL);
      return;
    }

  /* A conversation that no longer scrolls (cleared, say) has no older
   * messages to read: there is nothing to jump to. */
  if (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) <=
      gtk_adjustment_get_lower (adjustment))
    set_pinned (self, TRUE);

  remember (self);
}

static void
adjustment_value_changed_cb (SjAutoscroll  *self,
                             GtkAdjustment *adjustment)
{
  g_assert (SJ_IS_AUTOSCROLL (self));

  /* Ours, or the layout's (seen at ::changed already); anything else is
   * the user scrolling. */
  if (!self->scrolling && gtk_adjustment_get_value (adjustment) != self->last_value)
    user_scrolled (self);

  remember (self);
}

static void
jump_clicked_cb (SjAutoscroll *self,
                 GtkButton    *button)
{
  g_assert (SJ_IS_AUTOSCROLL (self));

  sj_autoscroll_jump_to_latest (self);
}

static void
set_adjustment (SjAutoscroll  *self,
                GtkAdjustment *adjustment)
{
  if (self->adjustment == adjustment)
    return;

  if (self->adjustment != NULL)
    g_signal_handlers_disconnect_by_data (self->adjustment, self);
  g_set_object (&self->adjustment, adjustment);
  if (adjustment == NULL)
    return;

  g_signal_connect_object (adjustment, "changed", G_CALLBACK (adjustment_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adjustment, "value-changed", G_CALLBACK (adjustment_value_changed_cb), self,
                           G_CONNECT_SWAPPED);
  remember (self);
  if (self->pinned)
    scroll_to_bottom (self);
}

/* A scrolled window may be given another adjustment. */
static void
vadjustment_notify_cb (SjAutoscroll      *self,
                       GParamSpec        *pspec,
                       GtkScrolledWindow *scroller)
{
  g_assert (SJ_IS_AUTOSCROLL (self));

  set_adjustment (self, gtk_scrolled_window_get_vadjustment (scroller));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_autoscroll_dispose (GObject *object)
{
  SjAutoscroll *self = (SjAutoscroll *)object;

  set_adjustment (self, NULL);
  g_clear_handle_id (&self->scroll_idle, g_source_remove);
  g_clear_object (&self->scroller);
  g_clear_object (&self->jump_button);

  G_OBJECT_CLASS (sj_autoscroll_parent_class)->dispose (object);
}

static void
sj_autoscroll_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  SjAutoscroll *self = SJ_AUTOSCROLL (object);

  switch (prop_id)
    {
    case PROP_PINNED:
      g_value_set_boolean (value, self->pinned);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_autoscroll_class_init (SjAutoscrollClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_autoscroll_dispose;
  object_class->get_property = sj_autoscroll_get_property;

  /**
   * SjAutoscroll:pinned:
   *
   * Whether the view follows the latest message; the jump button shows
   * when it does not.
   */
  properties[PROP_PINNED] =
    g_param_spec_boolean ("pinned", NULL, NULL, TRUE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sj_autoscroll_init (SjAutoscroll *self)
{
  self->pinned = TRUE;
}

/**
 * sj_autoscroll_new:
 * @scroller: the scrolled window of the conversation
 * @jump_button: a button to show when the user has scrolled away
 *
 * Keeps @scroller at the bottom while the user is there, and manages
 * @jump_button: its visibility, accessible label and click. Both widgets
 * are kept alive until the returned object is disposed.
 */
SjAutoscroll *
sj_autoscroll_new (GtkScrolledWindow *scroller,
                   GtkWidget         *jump_button)
{
  SjAutoscroll *self;
  const char *label = _("Jump to latest");

  g_return_val_if_fail (GTK_IS_SCROLLED_WINDOW (scroller), NULL);
  g_return_val_if_fail (GTK_IS_BUTTON (jump_button), NULL);

  self = g_object_new (SJ_TYPE_AUTOSCROLL, NULL);
  self->scroller = g_object_ref (scroller);
  self->jump_button = g_object_ref (jump_button);

  gtk_widget_set_visible (jump_button, FALSE);
  gtk_widget_set_tooltip_text (jump_button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (jump_button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  g_signal_connect_object (jump_button, "clicked", G_CALLBACK (jump_clicked_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (scroller, "notify::vadjustment", G_CALLBACK (vadjustment_notify_cb), self,
                           G_CONNECT_SWAPPED);
  set_adjustment (self, gtk_scrolled_window_get_vadjustment (scroller));

  return self;
}

gboolean
sj_autoscroll_get_pinned (SjAutoscroll *self)
{
  g_assert (SJ_IS_AUTOSCROLL (self));

  return self->pinned;
}

/**
 * sj_autoscroll_jump_to_latest:
 *
 * Scrolls to the bottom, and follows the conversation from there on.
 */
void
sj_autoscroll_jump_to_latest (SjAutoscroll *self)
{
  g_assert (SJ_IS_AUTOSCROLL (self));

  set_pinned (self, TRUE);
  if (self->adjustment != NULL)
    scroll_to_bottom (self);
}
