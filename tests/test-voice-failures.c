/* test-voice-failures.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Voice failing in the real window, under Xvfb with a private PulseAudio
 * (with-pulse.sh), Ctrl+Shift+Space typed with xdotool. Each failure gets
 * the voice banner, with a title that says what happened and a button with
 * the way forward, and what was typed in the composer stays: no
 * microphone, a busy one (its sink suspended, so it gives no sound), the
 * offline model missing, a transcription service that refuses the key (a
 * loopback server answering 401) or cannot be reached (its port closed),
 * where the offline recogniser's words, said by espeak-ng, still arrive.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-chat-panel-private.h"
#include "sj-problem-banner-private.h"
#include "sj-test-app.h"
#include "sj-test-chat-window.h"
#include "sj-test-voice.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

static SjTestKeyWindow keys;
static char *wav_dir;

static const char * const shortcut[] = { "ctrl+shift+space", NULL };

typedef struct
{
  SjWindow  *window;
  SjProblem  problem;
} Problem;

static SjProblemBanner *
voice_banner (SjWindow *window)
{
  return _sj_chat_panel_get_voice_banner (window->chat_panel);
}

static gboolean
banner_shows (gpointer data)
{
  Problem *want = data;

  return _sj_problem_banner_get_problem (voice_banner (want->window)) == want->problem;
}

static void
wait_banner (SjWindow  *window,
             SjProblem  problem)
{
  Problem want = { window, problem };

  sj_test_widgets_spin_until (banner_shows, &want, WAIT_TIMEOUT_S, "the voice banner");
}

/* The banner is there, says what happened in its title, and offers the way
 * forward on a button named for screen readers. */
static GtkWidget *
assert_banner (SjWindow   *window,
               const char *title,
               const char *button_label,
               const char *accessible_label)
{
  SjProblemBanner *banner = voice_banner (window);
  GtkWidget *button = GTK_WIDGET (_sj_problem_banner_get_button (banner));

  g_test_message ("banner: %s — %s [%s]", _sj_problem_banner_get_title (banner),
                  _sj_problem_banner_get_message (banner), gtk_button_get_label (GTK_BUTTON (button)));
  g_assert_true (_sj_problem_banner_get_revealed (banner));
  g_assert_cmpstr (_sj_problem_banner_get_title (banner), ==, title);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, button_label);
  gtk_test_accessible_assert_property (button, GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label);
  sj_test_widgets_spin_until ((gboolean (*) (gpointer)) gtk_widget_get_sensitive, button, WAIT_TIMEOUT_S,
                              "the banner's action");
  /* Shown above the composer, not only set. */
  sj_test_widgets_spin_until ((gboolean (*) (gpointer)) gtk_widget_get_mapped, button, WAIT_TIMEOUT_S,
                              "the banner to show");
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window->chat_panel)));

  return button;
}

typedef struct
{
  SjWindow   *window;
  const char *row;
} Focus;

static gboolean
row_has_focus (gpointer data)
{
  Focus *want = data;
  GtkWidget *row = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (want->window->settings_page), SJ_TYPE_SETTINGS_PAGE,
                                                  want->row);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (want->window));

  return focus != NULL && (focus == row || gtk_widget_is_ancestor (focus, row));
}

/* Voice Settings: the Settings page shows, with the keyboard in the Voice
 * group's @row. Then back to the chat, for the next test. */
static void
assert_opens_voice_settings (SjWindow   *window,
                             GtkWidget  *button,
                             const char *row)
{
  Focus want = { window, row };

  g_assert_nonnull (window->settings_page);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "agent-settings");
  sj_test_widgets_spin_until (row_has_focus, &want, WAIT_TIMEOUT_S, "the Voice group's row to have the keyboard");

  g_action_group_activate_action (G_ACTION_GROUP (window), "focus-composer", NULL);
}

static void
assert_text (SjComposer *composer,
             const char *expected)
{
  g_autofree char *text = sj_composer_get_text (composer);

  g_assert_cmpstr (text, ==, expected);
}

/* No microphone: the banner says so, and the typed text stays. */
static void
test_no_microphone (void)
{
  SjWindow *window = sj_test_open_chat_window (&keys, WAIT_TIMEOUT_S);
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  SjVoiceSession *voice = _sj_window_get_voice (window);

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh");
      return;
    }

  sj_voice_session_set_device (voice, "sj-no-such-microphone");
  sj_composer_set_text (composer, "keep this");
  sj_test_key_window_press (&keys, shortcut);
  wait_banner (window, SJ_PROBLEM_VOICE_NO_MICROPHONE);
  sj_test_widgets_spin_until (sj_test_is_not_listening, composer, WAIT_TIMEOUT_S, "listening to stop");
  assert_banner (window, "No Microphone", "Try Again", "Try Listening Again");
  assert_text (composer, "keep this");

  sj_voice_session_set_device (voice, NULL);
  sj_composer_set_text (composer, "");
}

static void
suspend_microphone (gboolean suspend)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "pactl", "suspend-sink", g_getenv ("SJ_TEST_PULSE_MIC"), suspend ? "1" : "0", NULL };
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);
}

static void
count_level_cb (SjVoiceSession *session,
                double          level,
                guint          *n)
{
  (*n)++;
}

static gboolean
is_nonzero (gpointer data)
{
  return *(guint *) data > 0;
}

/* A microphone that gives no sound (held elsewhere, or suspended): the
 * banner says it is busy; once it is back, Try Again listens. */
static void
test_busy (void)
{
  SjWindow *window = sj_test_open_chat_window (&keys, WAIT_TIMEOUT_S);
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  SjVoiceSession *voice = _sj_window_get_voice (window);
  GtkWidget *button;
  guint n_levels = 0;
  gulong handler;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh");
      return;
    }

  sj_composer_set_text (composer, "half a thought");
  suspend_microphone (TRUE);
  sj_test_key_window_press (&keys, shortcut);
  wait_banner (window, SJ_PROBLEM_VOICE_BUSY);
  suspend_microphone (FALSE);
  sj_test_widgets_spin_until (sj_test_is_not_listening, composer, WAIT_TIMEOUT_S, "listening to stop");
  button = assert_banner (window, "Microphone Busy", "Try Again", "Try Listening Again");
  g_assert_nonnull (strstr (_sj_problem_banner_get_message (voice_banner (window)), "another program"));
  assert_text (composer, "half a thought");

  handler = g_signal_connect (voice, "level", G_CALLBACK (count_level_cb), &n_levels);
  g_signal_emit_by_name (button, "clicked");
  sj_test_widgets_spin_until (sj_test_is_listening, composer, WAIT_TIMEOUT_S, "Try Again to listen");
  sj_test_widgets_spin_until (is_nonzero, &n_levels, WAIT_TIMEOUT_S, "the microphone to deliver again");
  g_assert_false (_sj_problem_banner_get_revealed (voice_banner (window)));
  g_signal_handler_disconnect (voice, handler);
  sj_voice_session_cancel (voice);
  assert_text (composer, "half a thought");

  sj_composer_set_text (composer, "");
}

/* The offline model missing: the banner names the package, and Voice
 * Settings, for a transcription service instead. */
static void
test_model_missing (void)
{
  SjWindow *window = sj_test_open_chat_window (&keys, WAIT_TIMEOUT_S);
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  SjVoiceSession *voice = _sj_window_get_voice (window);
  GtkWidget *button;

  sj_voice_session_set_model_dir (voice, wav_dir);
  sj_composer_set_text (composer, "keep this");
  sj_test_key_window_press (&keys, shortcut);
  wait_banner (window, SJ_PROBLEM_VOICE_MODEL_MISSING);
  sj_test_widgets_spin_until (sj_test_is_not_listening, composer, WAIT_TIMEOUT_S, "listening to stop");
  button = assert_banner (window, "Speech Model Missing", "Voice Settings", "Open Voice Settings");
  g_assert_nonnull (strstr (_sj_problem_banner_get_message (voice_banner (window)), "pocketsphinx-en-us"));
  assert_text (composer, "keep this");
  assert_opens_voice_settings (window, button, "voice_endpoint_row");
  assert_text (composer, "keep this");

  sj_voice_session_set_model_dir (voice, NULL);
  sj_composer_set_text (composer, "");
}

static void
refuse_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  static const char body[] = "{\"error\": {\"message\": \"Incorrect API key provided\"}}";

  (*(guint *) user_data)++;
  soup_server_message_set_status (msg, SOUP_STATUS_UNAUTHORIZED, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

/* Typed text, then the shortcut, @wav said, the shortcut again: returns
 * once the final words are in. */
static void
say (SjWindow   *window,
     const char *wav,
     const char *typed)
{
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  SjVoiceSession *voice = _sj_window_get_voice (window);
  SjTestText more = { composer, typed };
  SjTestLevel seen = { 0 };
  gulong handler;

  sj_composer_set_text (composer, typed);
  sj_test_key_window_press (&keys, shortcut);
  sj_test_widgets_spin_until (sj_test_is_listening, composer, WAIT_TIMEOUT_S, "listening to start");
  handler = g_signal_connect (voice, "level", G_CALLBACK (sj_test_level_cb), &seen);
  sj_test_widgets_spin_until (sj_test_heard_silence, &seen, WAIT_TIMEOUT_S, "the microphone to deliver");
  sj_test_voice_play (wav);
  sj_test_widgets_spin_until (sj_test_composer_has_more_text, &more, WAIT_TIMEOUT_S, "partial words in the composer");
  seen.n = 0;
  sj_test_widgets_spin_until (sj_test_heard_silence, &seen, WAIT_TIMEOUT_S, "the end of speech");
  g_signal_handler_disconnect (voice, handler);

  sj_test_key_window_press (&keys, shortcut);
  sj_test_widgets_spin_until (sj_test_is_not_listening, composer, WAIT_TIMEOUT_S, "listening to stop");
  sj_test_widgets_spin_until (sj_test_voice_is_stopped, window, WAIT_TIMEOUT_S, "the final words");
}

/* The offline recogniser's words after what was typed, which stays as it
 * was. Their accuracy is test-voice's and bench/voice's to judge: on a
 * loaded machine "more reverb" has come out as "more room" or "where", but
 * words must come. */
static void
assert_words_after (SjComposer *composer,
                    const char *typed,
                    const char *said)
{
  g_autofree char *text = sj_composer_get_text (composer);
  guint errors;

  g_assert_true (g_str_has_prefix (text, typed));
  errors = sj_test_voice_word_errors (said, text + strlen (typed), NULL);
  g_test_message ("composer: \"%s\" (%u word errors)", text, errors);
  g_assert_cmpuint (strlen (text), >, strlen (typed));
}

/* A transcription service that refuses the key, then one that is not
 * there: the offline words still come, after the typed text, and the
 * banner says what happened and opens the Voice settings at the key, or at
 * the address. */
static void
test_endpoint (void)
{
  SjWindow *window = sj_test_open_chat_window (&keys, WAIT_TIMEOUT_S);
  SjComposer *composer = sj_chat_panel_get_composer (window->chat_panel);
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *wav = NULL;
  g_autofree char *url = NULL;
  GSList *uris;
  GtkWidget *button;
  guint requests = 0;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh, espeak-ng and paplay");
      return;
    }

  server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server, "/", refuse_cb, &requests, NULL);
  soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  wav = sj_test_voice_render ("more reverb", wav_dir, 1);
  g_settings_set_boolean (window->settings, "voice-send-automatically", FALSE);
  g_settings_set_string (window->settings, "voice-endpoint-url", url);

  say (window, wav, "Mix:");
  g_assert_cmpuint (requests, ==, 1);
  wait_banner (window, SJ_PROBLEM_VOICE_ENDPOINT_REFUSED);
  button = assert_banner (window, "Transcription Key Refused", "Voice Settings", "Open Voice Settings");
  assert_words_after (composer, "Mix: ", "more reverb");
  assert_opens_voice_settings (window, button, "voice_key_row");

  /* The same port, closed. */
  g_clear_object (&server);
  say (window, wav, "Mix again:");
  wait_banner (window, SJ_PROBLEM_VOICE_ENDPOINT_UNREACHABLE);
  button = assert_banner (window, "Transcription Service Unreachable", "Voice Settings", "Open Voice Settings");
  assert_words_after (composer, "Mix again: ", "more reverb");
  assert_opens_voice_settings (window, button, "voice_endpoint_row");

  g_settings_set_string (window->settings, "voice-endpoint-url", "");
  sj_composer_set_text (composer, "");
}

/* The voice's problems: a title that says what happened, the way forward
 * in the message, a button that goes there, named for screen readers. */
static void
test_voice_banner (void)
{
  static const struct {
    SjProblem   problem;
    const char *title;
    const char *text;
    const char *button;
    const char *accessible;
    const char *action;
    const char *target;
  } cases[] = {
    { SJ_PROBLEM_VOICE_NO_MICROPHONE, "No Microphone", "Sound settings", "Try Again", "Try Listening Again",
      "win.voice-listen", NULL },
    { SJ_PROBLEM_VOICE_BUSY, "Microphone Busy", "another program", "Try Again", "Try Listening Again",
      "win.voice-listen", NULL },
    { SJ_PROBLEM_VOICE_MODEL_MISSING, "Speech Model Missing", "pocketsphinx-en-us", "Voice Settings",
      "Open Voice Settings", "win.show-voice-settings", "endpoint" },
    { SJ_PROBLEM_VOICE_ENDPOINT_UNREACHABLE, "Transcription Service Unreachable", "offline recogniser was used",
      "Voice Settings", "Open Voice Settings", "win.show-voice-settings", "endpoint" },
    { SJ_PROBLEM_VOICE_ENDPOINT_REFUSED, "Transcription Key Refused", "valid key", "Voice Settings",
      "Open Voice Settings", "win.show-voice-settings", "key" },
  };
  SjProblemBanner *banner = g_object_ref_sink (SJ_PROBLEM_BANNER (_sj_problem_banner_new ()));
  GtkWidget *button = GTK_WIDGET (_sj_problem_banner_get_button (banner));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GVariant *target;

      sj_problem_banner_show (banner, cases[i].problem, NULL);
      g_assert_true (_sj_problem_banner_get_revealed (banner));
      g_assert_cmpstr (_sj_problem_banner_get_title (banner), ==, cases[i].title);
      g_assert_nonnull (strstr (_sj_problem_banner_get_message (banner), cases[i].text));
      g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, cases[i].button);
      gtk_test_accessible_assert_property (button, GTK_ACCESSIBLE_PROPERTY_LABEL, cases[i].accessible);
      gtk_test_accessible_assert_property (button, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                           _sj_problem_banner_get_message (banner));
      g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, cases[i].action);
      target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
      if (cases[i].target == NULL)
        g_assert_null (target);
      else
        g_assert_cmpstr (g_variant_get_string (target, NULL), ==, cases[i].target);
    }

  g_object_unref (banner);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  g_autoptr(GError) error = NULL;
  int ret;

  g_setenv ("GDK_BACKEND", "x11", TRUE);
  /* GTK's test backend needs no accessibility bus, and lets the banner's
   * accessible names be read. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();
  /* The WAVs, and an empty model directory. */
  wav_dir = g_dir_make_tmp ("sj-voice-failures-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/voice-failures/banner", test_voice_banner);
  g_test_add_func ("/voice-failures/no-microphone", test_no_microphone);
  g_test_add_func ("/voice-failures/busy", test_busy);
  g_test_add_func ("/voice-failures/endpoint", test_endpoint);
  g_test_add_func ("/voice-failures/model-missing", test_model_missing);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_chat_window_cleanup ();
  sj_test_remove_tree (home);
  sj_test_remove_tree (wav_dir);
  g_free (wav_dir);

  return ret;
}
