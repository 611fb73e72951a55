/* sj-composer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The message composer under the chat: a text view that grows with the
 * message up to about eight lines and then scrolls, and a button that sends
 * the message, or stops the agent's answer while it streams.
 *
 * The microphone button beside them talks to the agent (sj-composer-voice.c).
 *
 * Enter sends and Shift+Enter starts a new line, as in chat applications;
 * Ctrl+Enter sends too. An input method that is composing (Japanese kana
 * waiting for conversion, a Ctrl+Shift+U code point…) owns Enter: it
 * commits the composition, and nothing is sent.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-composer-private.h"

/* How many lines the composer grows to before it scrolls. */
#define MAX_LINES 8


G_DEFINE_FINAL_TYPE (SjComposer, sj_composer, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_STREAMING,
  PROP_LISTENING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SEND,
  STOP,
  START_LISTENING,
  STOP_LISTENING,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkTextBuffer *
get_buffer (SjComposer *self)
{
  return gtk_text_view_get_buffer (self->text_view);
}

/* Whether there is nothing worth sending. Stops at the first visible
 * character, so a long message costs little on every keystroke. */
static gboolean
is_blank (SjComposer *self)
{
  GtkTextIter iter;

  gtk_text_buffer_get_start_iter (get_buffer (self), &iter);
  for (; !gtk_text_iter_is_end (&iter); gtk_text_iter_forward_char (&iter))
    if (!g_unichar_isspace (gtk_text_iter_get_char (&iter)))
      return FALSE;

  return TRUE;
}

static void
update_placeholder (SjComposer *self)
{
  /* The hint would sit on top of a composition shown as preedit, which is
   * not in the buffer yet. */
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder),
                          !self->composing && gtk_text_buffer_get_char_count (get_buffer (self)) == 0);
}

static void
update_button (SjComposer *self)
{
  const char *label;

  if (self->streaming)
    {
      label = _("Stop");
      gtk_button_set_icon_name (self->button, "media-playback-stop-symbolic");
      gtk_widget_remove_css_class (GTK_WIDGET (self->button), "suggested-action");
      gtk_widget_set_sensitive (GTK_WIDGET (self->button), TRUE);
    }
  else
    {
      label = _("Send");
      gtk_button_set_icon_name (self->button, "go-up-symbolic");
      gtk_widget_add_css_class (GTK_WIDGET (self->button), "suggested-action");
      /* An empty message is never sent, so the button says so. */
      gtk_widget_set_sensitive (GTK_WIDGET (self->button), !is_blank (self));
    }

  gtk_widget_set_tooltip_text (GTK_WIDGET (self->button), label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/* Sends the message, less its surrounding whitespace, unless there is
 * nothing but whitespace. The composer is emptied first, so that a handler
 * of ::send may already put something else in. */
static void
send_message (SjComposer *self)
{
  g_autofree char *text = sj_composer_get_text (self);

  g_strstrip (text);
  if (*text == '\0')
    return;

  gtk_text_buffer_set_text (get_buffer (self), "", 0);
  g_signal_emit (self, signals[SEND], 0, text);
}

static void
changed_cb (SjComposer    *self,
            GtkTextBuffer *buffer)
{
  g_assert (SJ_IS_COMPOSER (self));

  update_placeholder (self);
  if (!self->streaming)
    update_button (self);
}

static void
preedit_changed_cb (SjComposer  *self,
                    const char  *preedit,
                    GtkTextView *text_view)
{
  g_assert (SJ_IS_COMPOSER (self));

  self->composing = preedit != NULL && *preedit != '\0';
  update_placeholder (self);
}

static gboolean
is_enter (guint keyval)
{
  return keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter;
}

/* Runs in the capture phase, before the text view's own key controller.
 * That controller hands every key to the input method first and only then
 * inserts text, so letting a key through here (returning FALSE) is what
 * gives the input method its say. */
static gboolean
key_pressed_cb (SjComposer            *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  GdkModifierType modifiers = state & gtk_accelerator_get_default_mod_mask ();

  g_assert (SJ_IS_COMPOSER (self));

  /* Enter commits a composition and Escape cancels it: while the input
   * method composes, every key is its business. */
  if (self->composing)
    return FALSE;

  if (is_enter (keyval))
    {
      /* Shift+Enter is the text view's newline; Alt or Super with Enter
       * may be someone else's shortcut. */
      if ((modifiers & ~(GDK_CONTROL_MASK | GDK_SHIFT_MASK)) != 0 ||
          modifiers == GDK_SHIFT_MASK)
        return FALSE;

      /* One answer at a time: the message stays, to be sent once this
       * answer is over. Swallowing the key keeps a stray newline out. */
      if (!self->streaming)
        send_message (self);
      return TRUE;
    }

  if (keyval == GDK_KEY_Escape && modifiers == 0 && self->streaming)
    {
      g_signal_emit (self, signals[STOP], 0);
      return TRUE;
    }

  return FALSE;
}

static void
button_clicked_cb (SjComposer *self,
                   GtkButton  *button)
{
  g_assert (SJ_IS_COMPOSER (self));

  if (self->streaming)
    g_signal_emit (self, signals[STOP], 0);
  else
    send_message (self);
}

void
_sj_composer_emit_listening (SjComposer *self,
                             gboolean    start)
{
  g_signal_emit (self, signals[start ? START_LISTENING : STOP_LISTENING], 0);
}

void
_sj_composer_notify_listening (SjComposer *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LISTENING]);
}

/* The height of MAX_LINES lines in the text view's font, so that the
 * composer grows with the message up to there and scrolls beyond. */
static void
update_max_height (SjComposer *self)
{
  PangoContext *context = gtk_widget_get_pango_context (GTK_WIDGET (self));
  PangoFontMetrics *metrics = pango_context_get_metrics (context, NULL, NULL);
  int line_height = pango_font_metrics_get_height (metrics);

  if (line_height <= 0)
    line_height = pango_font_metrics_get_ascent (metrics) + pango_font_metrics_get_descent (metrics);
  pango_font_metrics_unref (metrics);

  gtk_scrolled_window_set_max_content_height (self->scroller,
                                              MAX_LINES * PANGO_PIXELS_CEIL (line_height) +
                                              gtk_text_view_get_top_margin (self->text_view) +
                                              gtk_text_view_get_bottom_margin (self->text_view));
}

/* GtkWidget --------------------------------------------------------------- */

static void
sj_composer_css_changed (GtkWidget         *widget,
                         GtkCssStyleChange *change)
{
  SjComposer *self = SJ_COMPOSER (widget);

  /* Chained up first: that is where the Pango context takes the new font. */
  GTK_WIDGET_CLASS (sj_composer_parent_class)->css_changed (widget, change);

  update_max_height (self);
}

static gboolean
sj_composer_grab_focus (GtkWidget *widget)
{
  SjComposer *self = SJ_COMPOSER (widget);

  return gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_composer_dispose (GObject *object)
{
  SjComposer *self = (SjComposer *)object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_COMPOSER);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (sj_composer_parent_class)->dispose (object);
}

static void
sj_composer_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  SjComposer *self = SJ_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_STREAMING:
      g_value_set_boolean (value, self->streaming);
      break;

    case PROP_LISTENING:
      g_value_set_boolean (value, self->listening);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_composer_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  SjComposer *self = SJ_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_STREAMING:
      sj_composer_set_streaming (self, g_value_get_boolean (value));
      break;

    case PROP_LISTENING:
      sj_composer_set_listening (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_composer_class_init (SjComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_composer_dispose;
  object_class->get_property = sj_composer_get_property;
  object_class->set_property = sj_composer_set_property;

  widget_class->css_changed = sj_composer_css_changed;
  widget_class->grab_focus = sj_composer_grab_focus;

  /**
   * SjComposer:streaming:
   *
   * Whether the agent is answering: the button then stops the answer, as
   * does Escape, and Enter sends nothing.
   */
  properties[PROP_STREAMING] =
    g_param_spec_boolean ("streaming", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SjComposer:listening:
   *
   * Whether the microphone listens: the button shows it, and the level
   * bar is shown.
   */
  properties[PROP_LISTENING] =
    g_param_spec_boolean ("listening", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjComposer::send:
   * @text: the message, without surrounding whitespace; never empty
   */
  signals[SEND] =
    g_signal_new ("send", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjComposer::stop:
   *
   * The user asked to stop the answer being streamed.
   */
  signals[STOP] =
    g_signal_new ("stop", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SjComposer::start-listening:
   *
   * The user asked to talk to the agent: a press of the microphone button
   * or of its shortcut.
   */
  signals[START_LISTENING] =
    g_signal_new ("start-listening", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SjComposer::stop-listening:
   *
   * The user is done talking.
   */
  signals[STOP_LISTENING] =
    g_signal_new ("stop-listening", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, SjComposer, scroller);
  gtk_widget_class_bind_template_child (widget_class, SjComposer, text_view);
  gtk_widget_class_bind_template_child (widget_class, SjComposer, placeholder);
  gtk_widget_class_bind_template_child (widget_class, SjComposer, button);
  gtk_widget_class_bind_template_child (widget_class, SjComposer, mic_button);
  gtk_widget_class_bind_template_child (widget_class, SjComposer, level_bar);
  gtk_widget_class_bind_template_child (widget_class, SjComposer, landing_dropdown);
  gtk_widget_class_bind_template_callback (widget_class, preedit_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, button_clicked_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjcomposer");
}

static void
sj_composer_init (SjComposer *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect_object (get_buffer (self), "changed", G_CALLBACK (changed_cb), self, G_CONNECT_SWAPPED);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->text_view), keys);

  _sj_composer_voice_init (self);

  update_placeholder (self);
  update_button (self);
  update_max_height (self);
}

GtkWidget *
_sj_composer_new (void)
{
  return g_object_new (SJ_TYPE_COMPOSER, NULL);
}

GtkButton *
_sj_composer_get_button (SjComposer *self)
{
  g_assert (SJ_IS_COMPOSER (self));

  return self->button;
}

GtkButton *
_sj_composer_get_mic_button (SjComposer *self)
{
  g_assert (SJ_IS_COMPOSER (self));

  return self->mic_button;
}

/* Returns: (transfer full): the message being written, as it stands. */
char *
sj_composer_get_text (SjComposer *self)
{
  GtkTextIter start, end;

  g_assert (SJ_IS_COMPOSER (self));

  gtk_text_buffer_get_bounds (get_buffer (self), &start, &end);
  return gtk_text_buffer_get_text (get_buffer (self), &start, &end, FALSE);
}

/**
 * sj_composer_set_text:
 *
 * Replaces the message with @text and puts the cursor at its end, ready
 * for editing: how the last message is edited and sent again.
 */
void
sj_composer_set_text (SjComposer *self,
                      const char *text)
{
  GtkTextBuffer *buffer;
  GtkTextIter end;

  g_assert (SJ_IS_COMPOSER (self));
  g_return_if_fail (text != NULL);

  buffer = get_buffer (self);
  /* A composition in progress belongs to the text being replaced. */
  gtk_text_view_reset_im_context (self->text_view);
  gtk_text_buffer_set_text (buffer, text, -1);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_place_cursor (buffer, &end);
  sj_composer_focus (self);
  gtk_text_view_scroll_mark_onscreen (self->text_view, gtk_text_buffer_get_insert (buffer));
}

void
sj_composer_focus (SjComposer *self)
{
  g_assert (SJ_IS_COMPOSER (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

gboolean
sj_composer_get_streaming (SjComposer *self)
{
  g_assert (SJ_IS_COMPOSER (self));

  return self->streaming;
}

void
sj_composer_set_streaming (SjComposer *self,
                           gboolean    streaming)
{
  g_assert (SJ_IS_COMPOSER (self));

  streaming = !!streaming;
  if (self->streaming == streaming)
    return;

  self->streaming = streaming;
  update_button (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STREAMING]);
}

/**
 * sj_composer_send:
 *
 * Sends the message as Enter would: not while the agent answers, nor an
 * empty one.
 */
void
sj_composer_send (SjComposer *self)
{
  g_assert (SJ_IS_COMPOSER (self));

  if (!self->streaming)
    send_message (self);
}

/* The landing choices, in the dropdown's order (ui/sj-composer.ui). */
static const char * const landing_choices[] = { NULL, "next_beat", "next_cycle", "next_bar", "bars" };

/**
 * sj_composer_get_landing:
 *
 * Returns: (nullable): where the agent's change for the message being sent
 *   lands, as a quantize mode ("next_beat", "next_cycle", "next_bar",
 *   "bars": the Settings' number of bars); %NULL for the Settings' choice
 */
const char *
sj_composer_get_landing (SjComposer *self)
{
  guint selected;

  g_assert (SJ_IS_COMPOSER (self));

  selected = gtk_drop_down_get_selected (self->landing_dropdown);
  return selected < G_N_ELEMENTS (landing_choices) ? landing_choices[selected] : NULL;
}

/**
 * sj_composer_set_landing:
 * @quantize: (nullable): a quantize mode, or %NULL for Default
 */
void
sj_composer_set_landing (SjComposer *self,
                         const char *quantize)
{
  guint selected = 0;

  g_assert (SJ_IS_COMPOSER (self));

  for (guint i = 1; i < G_N_ELEMENTS (landing_choices); i++)
    if (g_strcmp0 (landing_choices[i], quantize) == 0)
      selected = i;
  gtk_drop_down_set_selected (self->landing_dropdown, selected);
}
