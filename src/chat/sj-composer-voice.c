/* sj-composer-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The composer's microphone: push to talk, and the spoken words in the
 * message. Held, the button listens while held; clicked (or Ctrl+Shift+Space,
 * the window's win.voice-listen), it listens until clicked again. The
 * composer only asks (::start-listening, ::stop-listening) and shows:
 * whoever owns the voice session says when it listens, the level, and the
 * words, which go where the cursor was, after what was typed, never over
 * it.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-composer-private.h"

/* A press of the microphone longer than this is push to talk: releasing it
 * stops. A shorter one is a click, which toggles. */
#define HOLD_US (400 * G_TIME_SPAN_MILLISECOND)

static GtkTextBuffer *
get_buffer (SjComposer *self)
{
  return gtk_text_view_get_buffer (self->text_view);
}

static void
mic_pressed_cb (SjComposer      *self,
                int              n_press,
                double           x,
                double           y,
                GtkGestureClick *gesture)
{
  g_assert (SJ_IS_COMPOSER (self));

  self->pointer_handled = TRUE;
  if (!self->listening)
    {
      self->press_started = TRUE;
      self->press_time = g_get_monotonic_time ();
      _sj_composer_emit_listening (self, TRUE);
    }
  else
    {
      self->stop_on_release = TRUE;
    }
}

static void
mic_released_cb (SjComposer      *self,
                 int              n_press,
                 double           x,
                 double           y,
                 GtkGestureClick *gesture)
{
  gboolean held = self->press_started && g_get_monotonic_time () - self->press_time >= HOLD_US;

  g_assert (SJ_IS_COMPOSER (self));

  if (held || self->stop_on_release)
    _sj_composer_emit_listening (self, FALSE);
  self->press_started = FALSE;
  self->stop_on_release = FALSE;
}

/* The keyboard's activation of the focused button (Space, Enter): a
 * toggle. The pointer's presses were handled above. */
static void
mic_clicked_cb (SjComposer *self,
                GtkButton  *button)
{
  g_assert (SJ_IS_COMPOSER (self));

  if (self->pointer_handled)
    {
      self->pointer_handled = FALSE;
      return;
    }

  _sj_composer_emit_listening (self, !self->listening);
}

void
_sj_composer_voice_init (SjComposer *self)
{
  GtkGesture *gesture = gtk_gesture_click_new ();

  /* In the capture phase, before the button's own gesture takes the press. */
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect_object (gesture, "pressed", G_CALLBACK (mic_pressed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gesture, "released", G_CALLBACK (mic_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->mic_button), GTK_EVENT_CONTROLLER (gesture));
  g_signal_connect_object (self->mic_button, "clicked", G_CALLBACK (mic_clicked_cb), self, G_CONNECT_SWAPPED);
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->mic_button), GTK_ACCESSIBLE_STATE_PRESSED,
                               GTK_ACCESSIBLE_TRISTATE_FALSE, -1);
}

gboolean
sj_composer_get_listening (SjComposer *self)
{
  g_assert (SJ_IS_COMPOSER (self));

  return self->listening;
}

/**
 * sj_composer_set_listening:
 *
 * Shows whether the microphone listens. Starting marks where the spoken
 * words go: at the cursor, so what was typed stays as it is.
 */
void
sj_composer_set_listening (SjComposer *self,
                           gboolean    listening)
{
  GtkTextBuffer *buffer;
  GtkTextIter cursor;

  g_assert (SJ_IS_COMPOSER (self));

  listening = !!listening;
  if (self->listening == listening)
    return;

  self->listening = listening;
  buffer = get_buffer (self);
  if (listening)
    {
      gtk_text_view_reset_im_context (self->text_view);
      gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
      if (self->voice_start != NULL)
        {
          gtk_text_buffer_move_mark (buffer, self->voice_start, &cursor);
          gtk_text_buffer_move_mark (buffer, self->voice_end, &cursor);
        }
      else
        {
          self->voice_start = gtk_text_buffer_create_mark (buffer, NULL, &cursor, TRUE);
          self->voice_end = gtk_text_buffer_create_mark (buffer, NULL, &cursor, FALSE);
        }
    }

  gtk_level_bar_set_value (self->level_bar, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->level_bar), listening);
  if (listening)
    gtk_widget_add_css_class (GTK_WIDGET (self->mic_button), "destructive-action");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->mic_button), "destructive-action");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->mic_button),
                               listening ? _("Stop listening (Ctrl+Shift+Space)")
                                         : _("Talk to the agent (Ctrl+Shift+Space)"));
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->mic_button), GTK_ACCESSIBLE_STATE_PRESSED,
                               listening ? GTK_ACCESSIBLE_TRISTATE_TRUE : GTK_ACCESSIBLE_TRISTATE_FALSE, -1);
  _sj_composer_notify_listening (self);
}

/**
 * sj_composer_set_voice_level:
 * @level: the microphone's loudness, 0 to 1
 */
void
sj_composer_set_voice_level (SjComposer *self,
                             double      level)
{
  g_assert (SJ_IS_COMPOSER (self));

  gtk_level_bar_set_value (self->level_bar, CLAMP (level, 0.0, 1.0));
}

/**
 * sj_composer_set_voice_text:
 * @text: the words recognised so far, or in the end
 *
 * Puts the spoken words where listening started, in place of the words
 * recognised before, with a space from what was typed before them.
 */
void
sj_composer_set_voice_text (SjComposer *self,
                            const char *text)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *spaced = NULL;

  g_assert (SJ_IS_COMPOSER (self));
  g_return_if_fail (text != NULL);

  if (self->voice_start == NULL)
    return;

  buffer = get_buffer (self);
  gtk_text_buffer_get_iter_at_mark (buffer, &start, self->voice_start);
  gtk_text_buffer_get_iter_at_mark (buffer, &end, self->voice_end);
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_get_iter_at_mark (buffer, &start, self->voice_start);
  if (*text != '\0' && !gtk_text_iter_is_start (&start))
    {
      GtkTextIter before = start;

      gtk_text_iter_backward_char (&before);
      if (!g_unichar_isspace (gtk_text_iter_get_char (&before)))
        text = spaced = g_strconcat (" ", text, NULL);
    }
  gtk_text_buffer_insert (buffer, &start, text, -1);
  gtk_text_buffer_end_user_action (buffer);

  gtk_text_buffer_get_iter_at_mark (buffer, &end, self->voice_end);
  gtk_text_buffer_place_cursor (buffer, &end);
  gtk_text_view_scroll_mark_onscreen (self->text_view, gtk_text_buffer_get_insert (buffer));
}

/**
 * sj_composer_select_voice_text:
 *
 * Selects the spoken words and puts the keyboard in the composer: words
 * the recogniser was unsure of, to be checked and retyped before sending.
 */
void
sj_composer_select_voice_text (SjComposer *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_assert (SJ_IS_COMPOSER (self));

  if (self->voice_start == NULL)
    return;

  buffer = get_buffer (self);
  gtk_text_buffer_get_iter_at_mark (buffer, &start, self->voice_start);
  gtk_text_buffer_get_iter_at_mark (buffer, &end, self->voice_end);
  while (gtk_text_iter_compare (&start, &end) < 0 && g_unichar_isspace (gtk_text_iter_get_char (&start)))
    gtk_text_iter_forward_char (&start);
  gtk_text_buffer_select_range (buffer, &end, &start);
  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}
