/* sj-window-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's side of voice: the composer's microphone button and the
 * win.voice-listen shortcut start and stop an SjVoiceSession; its level,
 * partial and final words go to the composer; its failures to the banner
 * above it, with the way forward. While listening, the music is lowered
 * (the voice-duck-music setting) through the page's master gain, which
 * leaves the scheduler alone. Words sent at once (voice-send-automatically)
 * are sent only when the recogniser is sure of them
 * (voice-confidence-threshold); uncertain ones stay in the composer,
 * selected, to be checked. The transcription endpoint and its model
 * come from the settings and its key from the keyring (provider
 * "transcription" and the endpoint's URL), read at each start.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-secrets.h"
#include "sj-voice-session.h"
#include "sj-window-private.h"

static SjComposer *
get_composer (SjWindow *self)
{
  return sj_chat_panel_get_composer (self->chat_panel);
}

static void
duck (SjWindow *self,
      gboolean  on)
{
  if (on && !g_settings_get_boolean (self->settings, "voice-duck-music"))
    return;
  if (!on && !self->voice_ducked)
    return;

  self->voice_ducked = on;
  sj_repl_set_duck_async (self->repl, on, NULL, NULL, NULL);
}

static void
show_problem (SjWindow     *self,
              const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  g_debug ("Voice: %s", error->message);
  sj_chat_panel_show_voice_problem (self->chat_panel, error);
}

static void
listening_cb (SjWindow       *self,
              GParamSpec     *pspec,
              SjVoiceSession *session)
{
  gboolean listening = sj_voice_session_get_listening (session);

  /* Listening that ends without Stop (canceled, or failed) drops what was
   * said, as the session does: the partial words shown so far go, only
   * final words are kept. */
  if (!listening && !self->voice_stopping)
    sj_composer_set_voice_text (get_composer (self), "");
  sj_composer_set_listening (get_composer (self), listening);
  duck (self, listening);
}

static void
level_cb (SjWindow       *self,
          double          level,
          SjVoiceSession *session)
{
  sj_composer_set_voice_level (get_composer (self), level);
}

static void
partial_cb (SjWindow       *self,
            const char     *text,
            SjVoiceSession *session)
{
  /* Words still on their way when listening was canceled are dropped. */
  if (sj_voice_session_get_listening (session) || self->voice_stopping)
    sj_composer_set_voice_text (get_composer (self), text);
}

static void
failed_cb (SjWindow       *self,
           const GError   *error,
           SjVoiceSession *session)
{
  show_problem (self, error);
}

/* The offline text is used instead: the banner says why the service gave
 * none, and how to fix it. */
static void
endpoint_failed_cb (SjWindow       *self,
                    const GError   *error,
                    SjVoiceSession *session)
{
  self->voice_endpoint_failed = TRUE;
  show_problem (self, error);
}

/* Moonshine was asked for and cannot be loaded: say so, once a run, and
 * that PocketSphinx hears instead. */
static void
engine_fallback_cb (SjWindow       *self,
                    const char     *reason,
                    SjVoiceSession *session)
{
  g_autofree char *title = NULL;

  g_message ("Voice: %s", reason);
  if (self->voice_fallback_said)
    return;
  self->voice_fallback_said = TRUE;
  title = g_strdup_printf (_("Moonshine is not installed: PocketSphinx hears instead (%s)"), reason);
  _sj_window_show_toast (self, title, _("Voice Settings"), "win.show-voice-settings::engine");
}

static void
engine_changed_cb (SjWindow   *self,
                   const char *key,
                   GSettings  *settings)
{
  g_autofree char *engine = g_settings_get_string (settings, "voice-engine");

  sj_voice_session_set_engine (self->voice, g_str_equal (engine, "moonshine") ? SJ_VOICE_ENGINE_MOONSHINE
                                                                              : SJ_VOICE_ENGINE_POCKETSPHINX);
}

static void
started_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_voice_session_start_finish (SJ_VOICE_SESSION (object), result, &error))
    show_problem (self, error);
}

static void
stopped_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  SjComposer *composer;

  self->voice_stopping = FALSE;
  text = sj_voice_session_stop_finish (SJ_VOICE_SESSION (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  composer = get_composer (self);
  /* The partial words give way to the final ones, or to nothing when
   * nothing was recognised; what was typed stays. */
  sj_composer_set_voice_text (composer, text != NULL ? text : "");
  if (text == NULL)
    {
      /* The service's failure, and its fix, say more than "nothing heard"
       * by the offline recogniser that stood in for it. */
      if (!self->voice_endpoint_failed)
        show_problem (self, error);
      return;
    }

  /* Uncertain words are shown for checking, even when they would be sent
   * at once: a wrong command to the agent costs more than a look. */
  if (sj_voice_session_should_send (g_settings_get_boolean (self->settings, "voice-send-automatically"),
                                    sj_voice_session_get_confidence (SJ_VOICE_SESSION (object)),
                                    g_settings_get_double (self->settings, "voice-confidence-threshold")))
    sj_composer_send (composer);
  else if (g_settings_get_boolean (self->settings, "voice-send-automatically"))
    sj_composer_select_voice_text (composer);
}

static void
key_found_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autofree char *url = g_settings_get_string (self->settings, "voice-endpoint-url");
  g_autofree char *model = g_settings_get_string (self->settings, "voice-endpoint-model");
  g_autofree char *key = NULL;
  g_autoptr(GError) error = NULL;

  /* No keyring, or no key, is fine: a local server needs none. */
  key = sj_secrets_lookup_api_key_finish (result, &error);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && self->voice != NULL)
    {
      self->voice_starting = FALSE;
      sj_voice_session_set_endpoint (self->voice, g_strstrip (url), model, key);
      sj_voice_session_start_async (self->voice, self->cancellable, started_cb, g_object_ref (self));
    }

  /* The client keeps its own copy (and wipes it); none is left here. */
  if (key != NULL)
    explicit_bzero (key, strlen (key));
}

/* The endpoint and its key are read at every start, so a change in
 * Settings or in the keyring counts from the next utterance. */
static void
start_listening (SjWindow *self)
{
  g_autofree char *url = NULL;

  if (sj_voice_session_get_listening (self->voice) || self->voice_stopping || self->voice_starting)
    return;

  sj_chat_panel_show_voice_problem (self->chat_panel, NULL);
  self->voice_endpoint_failed = FALSE;
  url = g_settings_get_string (self->settings, "voice-endpoint-url");
  g_strstrip (url);
  if (*url == '\0')
    {
      sj_voice_session_set_endpoint (self->voice, NULL, NULL, NULL);
      sj_voice_session_start_async (self->voice, self->cancellable, started_cb, g_object_ref (self));
      return;
    }

  self->voice_starting = TRUE;
  sj_secrets_lookup_api_key_async (SJ_SETTINGS_PAGE_TRANSCRIPTION_PROVIDER, url, self->cancellable, key_found_cb,
                                   g_object_ref (self));
}

static void
stop_listening (SjWindow *self)
{
  if (!sj_voice_session_get_listening (self->voice))
    return;

  self->voice_stopping = TRUE;
  sj_voice_session_stop_async (self->voice, self->cancellable, stopped_cb, g_object_ref (self));
}

static void
start_listening_cb (SjWindow   *self,
                    SjComposer *composer)
{
  start_listening (self);
}

static void
stop_listening_cb (SjWindow   *self,
                   SjComposer *composer)
{
  stop_listening (self);
}

/* win.voice-listen: starts listening, or stops and takes the words. */
static void
voice_listen_action (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  SjWindow *self = user_data;

  if (sj_voice_session_get_listening (self->voice))
    {
      stop_listening (self);
      return;
    }

  /* The words go to the agent: with no model to answer them, the
   * shortcut leads to the Chat's first steps instead. */
  if (sj_chat_panel_get_needs_setup (self->chat_panel))
    {
      g_action_group_activate_action (G_ACTION_GROUP (self), "focus-composer", NULL);
      return;
    }

  /* The words must be seen as they come: the Chat is shown, and the
   * keyboard stays where it is (in the code, often). */
  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, "chat");
  start_listening (self);
}

static void
duck_changed_cb (SjWindow  *self,
                 const char *key,
                 GSettings  *settings)
{
  duck (self, g_settings_get_boolean (settings, "voice-duck-music") && sj_voice_session_get_listening (self->voice));
}

/* win.show-voice-settings('endpoint' or 'key'): the banner's way forward
 * when the transcription service fails or the offline model is missing. */
static void
show_voice_settings_action (GSimpleAction *action,
                            GVariant      *param,
                            gpointer       user_data)
{
  SjWindow *self = user_data;

  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (TRUE));
  adw_view_stack_set_visible_child_name (self->panel_stack, "agent-settings");
  if (self->settings_page != NULL)
    sj_settings_page_focus_voice (self->settings_page, g_str_equal (g_variant_get_string (param, NULL), "key"));
}

static const GActionEntry voice_actions[] = {
  { "voice-listen", voice_listen_action },
  { "show-voice-settings", show_voice_settings_action, "s" },
};

void
_sj_window_voice_init (SjWindow *self)
{
  SjComposer *composer = get_composer (self);

  g_action_map_add_action_entries (G_ACTION_MAP (self), voice_actions, G_N_ELEMENTS (voice_actions), self);

  self->voice = sj_voice_session_new ();
  g_signal_connect_object (self->voice, "notify::listening", G_CALLBACK (listening_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->voice, "level", G_CALLBACK (level_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->voice, "partial", G_CALLBACK (partial_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->voice, "failed", G_CALLBACK (failed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->voice, "endpoint-failed", G_CALLBACK (endpoint_failed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->voice, "engine-fallback", G_CALLBACK (engine_fallback_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::voice-engine", G_CALLBACK (engine_changed_cb), self,
                           G_CONNECT_SWAPPED);
  engine_changed_cb (self, "voice-engine", self->settings);

  g_signal_connect_object (composer, "start-listening", G_CALLBACK (start_listening_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (composer, "stop-listening", G_CALLBACK (stop_listening_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (self->settings, "changed::voice-duck-music", G_CALLBACK (duck_changed_cb), self,
                           G_CONNECT_SWAPPED);
}

void
_sj_window_voice_dispose (SjWindow *self)
{
  if (self->voice != NULL)
    sj_voice_session_cancel (self->voice);
  g_clear_object (&self->voice);
}

/* Returns: (transfer none): the voice session, for tests. */
SjVoiceSession *
_sj_window_get_voice (SjWindow *self)
{
  return self->voice;
}
