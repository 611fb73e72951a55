/* sj-test-chat-window.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window with its agent set up against a loopback model server, so
 * that the Chat shows its conversation, composer and banners rather than
 * the first steps that connect a model, and the Chat in front.
 */

#include "config.h"

#include "sj-test-app.h"
#include "sj-test-chat-window.h"
#include "sj-test-model-server.h"
#include "sj-window-private.h"

static SjTestModelServer *model_server;

/**
 * sj_test_open_chat_window:
 *
 * Opens (or reuses) the test window, as sj_test_open_key_window() does,
 * with a model set up (once per process; the server lives until
 * sj_test_chat_window_cleanup()) and the keyboard in the composer.
 */
SjWindow *
sj_test_open_chat_window (SjTestKeyWindow *keys,
                          guint            timeout_s)
{
  SjWindow *window = sj_test_open_key_window (keys, timeout_s);

  if (model_server == NULL)
    {
      model_server = sj_test_model_server_new ();
      sj_test_model_server_set_models (model_server, "{\"data\":[{\"id\":\"test/model\"}]}");
      g_settings_set_string (window->settings, "provider", "custom");
      g_settings_set_string (window->settings, "base-url", sj_test_model_server_get_url (model_server));
      g_settings_set_string (window->settings, "model", "test/model");
      sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
    }
  g_action_group_activate_action (G_ACTION_GROUP (window), "focus-composer", NULL);

  return window;
}

void
sj_test_chat_window_cleanup (void)
{
  g_clear_pointer (&model_server, sj_test_model_server_free);
}

gboolean
sj_test_is_listening (gpointer composer)
{
  return sj_composer_get_listening (composer);
}

gboolean
sj_test_is_not_listening (gpointer composer)
{
  return !sj_composer_get_listening (composer);
}

/* The final words are in (or the failure is shown). */
gboolean
sj_test_voice_is_stopped (gpointer window)
{
  return !SJ_WINDOW (window)->voice_stopping;
}

/* Words came after what was typed. */
gboolean
sj_test_composer_has_more_text (gpointer data)
{
  SjTestText *want = data;
  g_autofree char *text = sj_composer_get_text (want->composer);

  return strlen (text) > strlen (want->text) && g_str_has_prefix (text, want->text);
}

void
sj_test_level_cb (SjVoiceSession *session,
                  double          level,
                  SjTestLevel    *seen)
{
  seen->level = level;
  seen->n++;
}

/* The microphone delivers, and is quiet now. */
gboolean
sj_test_heard_silence (gpointer data)
{
  SjTestLevel *seen = data;

  return seen->n > 0 && seen->level < 0.05;
}
