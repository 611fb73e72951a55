/* sj-window-play-in.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjWindow's part for playing in (issue 32), the header bar's MIDI Input
 * menu and its shortcuts:
 *
 *  - Record a Phrase (win.record-phrase): the page's cycle clock is read,
 *    SjPhraseRecorder listens to the JACK MIDI input from the next cycle
 *    for the cycles of "phrase-cycles", and the phrase, note("…"), goes
 *    in at the editor's cursor as one edit (a single undo takes it back),
 *    or, with "phrase-to-agent", to the agent as a message. Again while
 *    recording: cancel.
 *  - Learn (win.learn-controller): the next control change on the MIDI
 *    input (its number and channel) becomes a cc() reading at the cursor
 *    (sj-midi-learn.c chooses what), with midin()'s line when the code
 *    has none, in one edit. Again while waiting: cancel.
 *
 * Both listen to "midi-input" (empty: every hardware MIDI output) and say
 * plainly when there is no JACK server. The window only wires: the
 * services decide what is written.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-jack-midi.h"
#include "sj-json.h"
#include "sj-midi-learn.h"
#include "sj-phrase-recorder.h"
#include "sj-repl-play-in.h"
#include "sj-window-private.h"

/* How long Learn waits for a controller to move. */
#define LEARN_TIMEOUT_S 30

/* Says @text in a toast and keeps it for the tests. */
static void
say (SjWindow   *self,
     const char *text)
{
  g_free (self->play_in_status);
  self->play_in_status = g_strdup (text);
  /* Not once the window is going away (its template is gone first). */
  if (self->toast_overlay != NULL)
    _sj_window_show_toast (self, text, NULL, NULL);
}

static void
say_no_jack (SjWindow   *self,
             const char *feature_message,
             GError     *error)
{
  if (g_error_matches (error, SJ_JACK_MIDI_ERROR, SJ_JACK_MIDI_ERROR_NO_SERVER))
    say (self, feature_message);
  else
    say (self, error->message);
}

static char *
midi_input (SjWindow *self)
{
  return g_settings_get_string (self->settings, "midi-input");
}

/* Record a Phrase ---------------------------------------------------------- */

static void
phrase_inserted_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_repl_insert_text_finish (SJ_REPL (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        say (self, error->message);
      return;
    }
  say (self, _("Phrase inserted at the cursor: play it with Ctrl+Enter, undo it with Ctrl+Z"));
}

/* The phrase as the musician's message to the agent, after what they had
 * written already; sent unless the agent is answering. */
static void
give_to_agent (SjWindow   *self,
               const char *phrase,
               guint       n_cycles)
{
  SjComposer *composer = sj_chat_panel_get_composer (self->chat_panel);
  g_autofree char *written = sj_composer_get_text (composer);
  g_autofree char *message = NULL;
  g_autofree char *text = NULL;

  message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "I played this phrase on my MIDI keyboard (%u cycle, quantized to "
                                          "sixteenths of a cycle):\n\n%s",
                                          "I played this phrase on my MIDI keyboard (%u cycles, quantized to "
                                          "sixteenths of a cycle):\n\n%s",
                                          n_cycles),
                             n_cycles, phrase);
  g_strstrip (written);
  text = *written != '\0' ? g_strconcat (written, "\n\n", message, NULL) : g_strdup (message);

  g_action_group_activate_action (G_ACTION_GROUP (self), "focus-composer", NULL);
  sj_composer_set_text (composer, text);
  if (sj_composer_get_streaming (composer))
    {
      say (self, _("The phrase waits in the message box until the agent has answered"));
      return;
    }
  sj_composer_send (composer);
  say (self, _("Phrase sent to the agent"));
}

static void
phrase_recorded_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *phrase = NULL;

  phrase = sj_phrase_recorder_record_finish (SJ_PHRASE_RECORDER (object), result, &error);
  g_clear_object (&self->phrase_cancellable);
  if (phrase == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          say (self, _("Recording canceled"));
          return;
        }
      say_no_jack (self, _("Record a Phrase needs JACK: start PipeWire’s JACK support (pipewire-jack) or jackd, "
                           "then try again"), error);
      return;
    }

  if (g_settings_get_boolean (self->settings, "phrase-to-agent"))
    {
      give_to_agent (self, phrase, self->phrase_cycles);
      return;
    }
  sj_repl_insert_text_async (self->repl, phrase, self->cancellable, phrase_inserted_cb, g_object_ref (self));
}

static void
phrase_started_cb (SjWindow         *self,
                   gint64            first_cycle,
                   guint             n_cycles,
                   gint64            start_us,
                   gint64            end_us,
                   SjPhraseRecorder *recorder)
{
  g_autofree char *text = NULL;

  g_assert (SJ_IS_WINDOW (self));

  /* TRANSLATORS: %u is how many cycles are recorded, %d the number of the cycle they start at */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Recording %u cycle of MIDI from cycle %d…",
                                       "Recording %u cycles of MIDI from cycle %d…", n_cycles),
                          n_cycles, (int)first_cycle);
  say (self, text);
}

static void
clock_read_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  SjCycleClock clock = { 0 };
  gboolean playing = FALSE;

  if (!sj_repl_read_cycle_clock_finish (SJ_REPL (object), result, &clock, &playing, &error))
    {
      g_clear_object (&self->phrase_cancellable);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        say (self, error->message);
      return;
    }
  if (g_cancellable_is_cancelled (self->phrase_cancellable))
    {
      g_clear_object (&self->phrase_cancellable);
      return;
    }
  if (!playing)
    {
      g_clear_object (&self->phrase_cancellable);
      say (self, _("Play the music first: a phrase is recorded on its cycles"));
      return;
    }

  source = midi_input (self);
  self->phrase_cycles = (guint)CLAMP (g_settings_get_int (self->settings, "phrase-cycles"), 1,
                                      SJ_PHRASE_RECORDER_MAX_CYCLES);
  sj_phrase_recorder_record_async (self->phrase_recorder, source, &clock, self->phrase_cycles,
                                   self->phrase_cancellable, phrase_recorded_cb, g_object_ref (self));
}

static void
record_phrase_action (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  /* Again while recording (or reading the clock): cancel. */
  if (self->phrase_cancellable != NULL)
    {
      g_cancellable_cancel (self->phrase_cancellable);
      return;
    }

  self->phrase_cancellable = g_cancellable_new ();
  sj_repl_read_cycle_clock_async (self->repl, self->phrase_cancellable, clock_read_cb, g_object_ref (self));
}

/* Learn -------------------------------------------------------------------- */

static void
stop_learning (SjWindow *self)
{
  g_clear_signal_handler (&self->learn_handler, self->outputs);
  g_clear_handle_id (&self->learn_timeout_id, g_source_remove);
}

static void
learned_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_repl_replace_selection_finish (SJ_REPL (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        say (self, error->message);
      return;
    }
  say (self, self->learn_message);
}

static void
cursor_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(SjReplCursor) cursor = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  g_autofree char *header = NULL;
  g_autofree char *expression = NULL;

  cursor = sj_repl_read_cursor_finish (SJ_REPL (object), result, &error);
  if (cursor == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        say (self, error->message);
      return;
    }

  source = midi_input (self);
  expression = sj_midi_learn_expression (cursor->code, cursor->selected, cursor->before, self->learn_control,
                                         self->learn_channel, source, &header);
  g_free (self->learn_message);
  /* TRANSLATORS: %u is a MIDI control number, %s the code written for it, as cc(74).range(200, 4000) */
  self->learn_message = g_strdup_printf (_("Controller %u mapped: %s"), self->learn_control, expression);
  sj_repl_replace_selection_async (self->repl, expression, header, self->cancellable, learned_cb,
                                   g_object_ref (self));
}

static void
controls_cb (SjWindow   *self,
             const char *json,
             SjOutputs  *outputs)
{
  g_autoptr(JsonNode) node = NULL;
  JsonArray *list, *first;

  g_assert (SJ_IS_WINDOW (self));

  /* [[channel, control, value], …] from sj_jack_midi_read_controls(). */
  node = sj_json_parse (json, -1, NULL, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  list = json_node_get_array (node);
  if (json_array_get_length (list) == 0 || !JSON_NODE_HOLDS_ARRAY (json_array_get_element (list, 0)))
    return;
  first = json_array_get_array_element (list, 0);
  if (json_array_get_length (first) != 3)
    return;

  self->learn_channel = (guint)CLAMP (json_array_get_int_element (first, 0), 1, 16);
  self->learn_control = (guint)CLAMP (json_array_get_int_element (first, 1), 0, 127);
  stop_learning (self);
  sj_repl_read_cursor_async (self->repl, self->cancellable, cursor_read_cb, g_object_ref (self));
}

static gboolean
learn_timeout_cb (gpointer user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  self->learn_timeout_id = 0;
  stop_learning (self);
  say (self, _("No controller moved: nothing was learned"));

  return G_SOURCE_REMOVE;
}

static void
learn_controller_action (GSimpleAction *action,
                         GVariant      *parameter,
                         gpointer       user_data)
{
  SjWindow *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;

  g_assert (SJ_IS_WINDOW (self));

  /* Again while waiting: cancel. */
  if (self->learn_handler != 0)
    {
      stop_learning (self);
      say (self, _("Learn canceled"));
      return;
    }

  source = midi_input (self);
  if (!sj_outputs_listen_midi (self->outputs, source, &error))
    {
      say_no_jack (self, _("Learn needs JACK: start PipeWire’s JACK support (pipewire-jack) or jackd, then try "
                           "again"), error);
      return;
    }

  self->learn_handler = g_signal_connect_object (self->outputs, "midi-controls", G_CALLBACK (controls_cb), self,
                                                 G_CONNECT_SWAPPED);
  self->learn_timeout_id = g_timeout_add_seconds (LEARN_TIMEOUT_S, learn_timeout_cb, self);
  say (self, _("Move a knob or fader on the MIDI controller to map it at the cursor"));
}

/* Setup -------------------------------------------------------------------- */

static const GActionEntry play_in_entries[] = {
  { "record-phrase", record_phrase_action },
  { "learn-controller", learn_controller_action },
};

void
_sj_window_play_in_init (SjWindow *self)
{
  g_autoptr(GAction) cycles = NULL;
  g_autoptr(GAction) to_agent = NULL;

  g_assert (SJ_IS_WINDOW (self));

  self->phrase_recorder = sj_phrase_recorder_new (self->outputs);
  g_signal_connect_object (self->phrase_recorder, "started", G_CALLBACK (phrase_started_cb), self,
                           G_CONNECT_SWAPPED);
  g_action_map_add_action_entries (G_ACTION_MAP (self), play_in_entries, G_N_ELEMENTS (play_in_entries), self);
  cycles = g_settings_create_action (self->settings, "phrase-cycles");
  to_agent = g_settings_create_action (self->settings, "phrase-to-agent");
  g_action_map_add_action (G_ACTION_MAP (self), cycles);
  g_action_map_add_action (G_ACTION_MAP (self), to_agent);
}

void
_sj_window_play_in_dispose (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->phrase_cancellable != NULL)
    g_cancellable_cancel (self->phrase_cancellable);
  stop_learning (self);
  g_clear_object (&self->phrase_recorder);
  g_clear_pointer (&self->play_in_status, g_free);
  g_clear_pointer (&self->learn_message, g_free);
}

/* For the tests. */
SjPhraseRecorder *
_sj_window_get_phrase_recorder (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->phrase_recorder;
}

/* For the tests: the last thing Record a Phrase or Learn said. */
const char *
_sj_window_get_play_in_status (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->play_in_status;
}
