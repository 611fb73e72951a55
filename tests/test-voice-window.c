/* test-voice-window.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Voice in the real window, under Xvfb with a private PulseAudio
 * (with-pulse.sh): Ctrl+Shift+Space typed with xdotool starts listening,
 * espeak-ng says a jam command into the test microphone, the words appear
 * in the composer after what was typed, the music is lowered meanwhile and
 * back after, and a second Ctrl+Shift+Space leaves the final text there. A
 * microphone that is not there gets the banner, and the typed text stays.
 */

#include "config.h"

#include "sj-chat-panel-private.h"
#include "sj-problem-banner-private.h"
#include "sj-test-app.h"
#include "sj-test-voice.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

static SjTestKeyWindow keys;
static char *wav_dir;

static const char * const shortcut[] = { "ctrl+shift+space", NULL };

static gboolean
is_listening (gpointer data)
{
  return sj_composer_get_listening (data);
}

static gboolean
is_not_listening (gpointer data)
{
  return !sj_composer_get_listening (data);
}

typedef struct
{
  SjComposer *composer;
  const char *text;
} Text;

static gboolean
is_stopped (gpointer data)
{
  SjWindow *window = data;

  return !window->voice_stopping;
}

static gboolean
has_more_text (gpointer data)
{
  Text *want = data;
  g_autofree char *text = sj_composer_get_text (want->composer);

  return strlen (text) > strlen (want->text) && g_str_has_prefix (text, want->text);
}

static double
page_gain (SjWindow *window)
{
  g_autoptr(JsonNode) node = sj_test_call_js (window->repl, "return window.sjBridge.getDuck();");

  return json_node_get_double (node);
}

static gboolean
is_ducked (gpointer data)
{
  return page_gain (data) < 0.4;
}

static gboolean
is_not_ducked (gpointer data)
{
  return page_gain (data) > 0.9;
}

typedef struct
{
  double level;
  guint  n;
} Level;

static void
level_cb (SjVoiceSession *session,
          double          level,
          Level          *seen)
{
  seen->level = level;
  seen->n++;
}

static gboolean
heard_silence (gpointer data)
{
  Level *seen = data;

  return seen->n > 0 && seen->level < 0.05;
}

/* Typed text, then the shortcut, a spoken command, the shortcut again:
 * the words join the text, the music is lowered while listening. */
static void
test_shortcut (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  SjVoiceSession *voice = _sj_window_get_voice (window);
  g_autofree char *wav = NULL;
  g_autoptr(JsonObject) result = NULL;
  Text typed = { composer, "Drums:" };
  g_autofree char *text = NULL;
  Level seen = { 0 };
  gulong handler;
  gint64 released;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh, espeak-ng and paplay");
      return;
    }

  wav = sj_test_voice_render ("add a cowbell", wav_dir, 0);
  g_settings_set_boolean (window->settings, "voice-send-automatically", FALSE);

  /* Music plays, to be lowered. */
  result = sj_test_evaluate (window->repl, "s(\"bd*4\").gain(0.2)");
  g_assert_true (json_object_get_boolean_member (result, "ok"));
  sj_test_spin_until (is_not_ducked, window, "the music at full gain");

  sj_composer_set_text (composer, "Drums:");
  sj_test_key_window_press (&keys, shortcut);
  sj_test_widgets_spin_until (is_listening, composer, WAIT_TIMEOUT_S, "listening to start");
  sj_test_widgets_spin_until (is_ducked, window, WAIT_TIMEOUT_S, "the music to be lowered");

  /* Speak once the microphone delivers (the model loads at the first
   * start), as one speaks once the meter moves. */
  handler = g_signal_connect (voice, "level", G_CALLBACK (level_cb), &seen);
  sj_test_widgets_spin_until (heard_silence, &seen, WAIT_TIMEOUT_S, "the microphone to deliver");
  sj_test_voice_play (wav);
  /* The words come in while listening, after what was typed. */
  sj_test_widgets_spin_until (has_more_text, &typed, WAIT_TIMEOUT_S, "partial words in the composer");
  seen.n = 0;
  sj_test_widgets_spin_until (heard_silence, &seen, WAIT_TIMEOUT_S, "the end of speech");
  g_signal_handler_disconnect (voice, handler);

  released = g_get_monotonic_time ();
  sj_test_key_window_press (&keys, shortcut);
  sj_test_widgets_spin_until (is_not_listening, composer, WAIT_TIMEOUT_S, "listening to stop");
  sj_test_widgets_spin_until (is_stopped, window, WAIT_TIMEOUT_S, "the final words");
  g_test_message ("shortcut released to text in the composer: %.0f ms",
                  (g_get_monotonic_time () - released) / 1000.0);
  /* What was typed stays; the words after it are the command (one word
   * off at most: a loaded machine may drop an "a"). */
  text = sj_composer_get_text (composer);
  g_test_message ("composer: \"%s\"", text);
  g_assert_true (g_str_has_prefix (text, "Drums: "));
  g_assert_cmpuint (sj_test_voice_word_errors ("add a cowbell", text + strlen ("Drums: "), NULL), <=, 1);
  sj_test_widgets_spin_until (is_not_ducked, window, WAIT_TIMEOUT_S, "the music back to full gain");

  sj_composer_set_text (composer, "");
  sj_test_evaluate (window->repl, "silence");
}

static gboolean
banner_shows (gpointer data)
{
  SjWindow *window = data;

  return _sj_problem_banner_get_problem (_sj_chat_panel_get_voice_banner (window->chat_panel)) ==
         SJ_PROBLEM_VOICE_NO_MICROPHONE;
}

/* No microphone: the banner says so, and the typed text stays. */
static void
test_no_microphone (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  SjVoiceSession *voice = _sj_window_get_voice (window);
  g_autofree char *text = NULL;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh");
      return;
    }

  sj_voice_session_set_device (voice, "sj-no-such-microphone");
  sj_composer_set_text (composer, "keep this");
  sj_test_key_window_press (&keys, shortcut);
  sj_test_widgets_spin_until (banner_shows, window, WAIT_TIMEOUT_S, "the no-microphone banner");
  sj_test_widgets_spin_until (is_not_listening, composer, WAIT_TIMEOUT_S, "listening to stop");
  text = sj_composer_get_text (composer);
  g_assert_cmpstr (text, ==, "keep this");

  sj_voice_session_set_device (voice, NULL);
  sj_composer_set_text (composer, "");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(GError) error = NULL;
  int ret;

  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();
  wav_dir = g_dir_make_tmp ("sj-voice-window-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/voice-window/shortcut", test_shortcut);
  g_test_add_func ("/voice-window/no-microphone", test_no_microphone);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);
  sj_test_remove_tree (wav_dir);
  g_free (wav_dir);

  return ret;
}
