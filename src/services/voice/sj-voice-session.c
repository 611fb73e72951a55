/* sj-voice-session.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One push-to-talk utterance after another: start opens the microphone
 * (SjVoiceCapture) and feeds the offline recogniser (SjVoiceRecognizer),
 * whose partial words come out as ::partial; stop closes the microphone
 * and gives the final text. With a transcription endpoint set, the
 * utterance goes there and the offline text is the fallback when it fails
 * (::endpoint-failed says why, so the window can say it).
 *
 * The recogniser's model is loaded at the first start, on its worker
 * thread, and kept.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-transcription-client.h"
#include "sj-voice-capture.h"
#include "sj-voice-recognizer.h"
#include "sj-voice-session-private.h"

struct _SjVoiceSession
{
  GObject                parent_instance;

  char                  *device;
  char                  *model_dir;
  SjVoiceCapture        *capture;
  SjVoiceRecognizer     *recognizer;
  SjTranscriptionClient *endpoint;
  gboolean               listening;
  gboolean               loaded;
  SjVoiceMode            mode;
  SjVoiceEngine          engine;
  /* How sure the recogniser was of the last text stop gave. */
  double                 confidence;
};

G_DEFINE_FINAL_TYPE (SjVoiceSession, sj_voice_session, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_LISTENING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  LEVEL,
  PARTIAL,
  FAILED,
  ENDPOINT_FAILED,
  ENGINE_FALLBACK,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_listening (SjVoiceSession *self,
               gboolean        listening)
{
  if (self->listening == listening)
    return;

  self->listening = listening;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LISTENING]);
}

/* On the capture's streaming thread. */
static void
samples_cb (GBytes   *samples,
            gpointer  user_data)
{
  SjVoiceSession *self = user_data;

  sj_voice_recognizer_feed (self->recognizer, samples);
}

static void
level_cb (SjVoiceSession *self,
          double          level)
{
  g_signal_emit (self, signals[LEVEL], 0, level);
}

static void
partial_cb (SjVoiceSession *self,
            const char     *text)
{
  if (self->listening)
    g_signal_emit (self, signals[PARTIAL], 0, text);
}

static void
capture_failed_cb (SjVoiceSession *self,
                   const GError   *error)
{
  set_listening (self, FALSE);
  g_signal_emit (self, signals[FAILED], 0, error);
}

static void
ensure_parts (SjVoiceSession *self)
{
  if (self->recognizer == NULL)
    {
      self->recognizer = sj_voice_recognizer_new (self->model_dir);
      sj_voice_recognizer_set_mode (self->recognizer, self->mode);
      sj_voice_recognizer_set_engine (self->recognizer, self->engine);
      g_signal_connect_object (self->recognizer, "partial", G_CALLBACK (partial_cb), self, G_CONNECT_SWAPPED);
    }

  if (self->capture == NULL)
    {
      self->capture = sj_voice_capture_new ();
      sj_voice_capture_set_device (self->capture, self->device);
      sj_voice_capture_set_samples_func (self->capture, samples_cb, self);
      g_signal_connect_object (self->capture, "level", G_CALLBACK (level_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->capture, "failed", G_CALLBACK (capture_failed_cb), self, G_CONNECT_SWAPPED);
    }
}

static void
sj_voice_session_dispose (GObject *object)
{
  SjVoiceSession *self = (SjVoiceSession *)object;

  if (self->capture != NULL)
    sj_voice_capture_stop (self->capture);
  g_clear_object (&self->capture);
  g_clear_object (&self->recognizer);
  g_clear_object (&self->endpoint);

  G_OBJECT_CLASS (sj_voice_session_parent_class)->dispose (object);
}

static void
sj_voice_session_finalize (GObject *object)
{
  SjVoiceSession *self = (SjVoiceSession *)object;

  g_free (self->device);
  g_free (self->model_dir);

  G_OBJECT_CLASS (sj_voice_session_parent_class)->finalize (object);
}

static void
sj_voice_session_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  SjVoiceSession *self = SJ_VOICE_SESSION (object);

  switch (prop_id)
    {
    case PROP_LISTENING:
      g_value_set_boolean (value, self->listening);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_voice_session_class_init (SjVoiceSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_voice_session_dispose;
  object_class->finalize = sj_voice_session_finalize;
  object_class->get_property = sj_voice_session_get_property;

  properties[PROP_LISTENING] =
    g_param_spec_boolean ("listening", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /** SjVoiceSession::level: @level: the microphone's loudness, 0 to 1 */
  signals[LEVEL] = g_signal_new ("level", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
  /** SjVoiceSession::partial: @text: the words recognised so far */
  signals[PARTIAL] = g_signal_new ("partial", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /** SjVoiceSession::failed: @error: why listening stopped by itself */
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  /** SjVoiceSession::endpoint-failed: @error: why the endpoint gave no
   * text; the offline text was used instead */
  /**
   * SjVoiceSession::engine-fallback:
   * @reason: why Moonshine could not be loaded
   *
   * Emitted when the offline model is loaded and PocketSphinx hears
   * instead of the Moonshine the voice-engine setting asked for.
   */
  signals[ENGINE_FALLBACK] = g_signal_new ("engine-fallback", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[ENDPOINT_FAILED] = g_signal_new ("endpoint-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sj_voice_session_init (SjVoiceSession *self)
{
  self->mode = SJ_VOICE_MODE_JAM;
  self->confidence = 1.0;
}

SjVoiceSession *
sj_voice_session_new (void)
{
  return g_object_new (SJ_TYPE_VOICE_SESSION, NULL);
}

/**
 * sj_voice_session_set_device:
 * @device: (nullable): the sound server's source, %NULL for the default
 */
void
sj_voice_session_set_device (SjVoiceSession *self,
                             const char     *device)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  g_free (self->device);
  self->device = g_strdup (device);
  if (self->capture != NULL && !self->listening)
    g_clear_object (&self->capture);
}

/**
 * sj_voice_session_set_model_dir:
 * @model_dir: (nullable): where the PocketSphinx models are, %NULL for
 *   the one the build found. Takes effect at the next start (the model is
 *   loaded again then).
 */
void
sj_voice_session_set_model_dir (SjVoiceSession *self,
                                const char     *model_dir)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  if (g_strcmp0 (self->model_dir, model_dir) == 0)
    return;

  g_free (self->model_dir);
  self->model_dir = g_strdup (model_dir);
  /* A stop still decoding keeps the old recogniser alive through its task. */
  if (self->recognizer != NULL && !self->listening)
    {
      g_clear_object (&self->recognizer);
      self->loaded = FALSE;
    }
}

/**
 * sj_voice_session_set_engine:
 * @engine: which offline recogniser should hear (the voice-engine
 *   setting). Takes effect at the next start.
 */
void
sj_voice_session_set_engine (SjVoiceSession *self,
                             SjVoiceEngine   engine)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  if (self->engine == engine)
    return;

  self->engine = engine;
  if (self->recognizer != NULL && !self->listening)
    {
      g_clear_object (&self->recognizer);
      self->loaded = FALSE;
    }
}

/**
 * sj_voice_session_set_endpoint:
 * @url: (nullable): an OpenAI-compatible base URL; %NULL or empty for
 *   offline recognition only
 */
void
sj_voice_session_set_endpoint (SjVoiceSession *self,
                               const char     *url,
                               const char     *model,
                               const char     *api_key)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  g_clear_object (&self->endpoint);
  if (url != NULL && *url != '\0')
    self->endpoint = sj_transcription_client_new (url, model, api_key);
}

gboolean
sj_voice_session_get_listening (SjVoiceSession *self)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  return self->listening;
}

static void
capture_started_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjVoiceSession *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!sj_voice_capture_start_finish (SJ_VOICE_CAPTURE (object), result, &error))
    {
      set_listening (self, FALSE);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_task_return_boolean (task, TRUE);
}

static void
begin_listening (SjVoiceSession *self,
                 GTask          *task)
{
  GCancellable *cancellable = g_task_get_cancellable (task);

  sj_voice_recognizer_begin (self->recognizer);
  sj_voice_capture_start_async (self->capture, cancellable, capture_started_cb, task);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjVoiceSession *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!sj_voice_recognizer_load_finish (SJ_VOICE_RECOGNIZER (object), result, &error))
    {
      set_listening (self, FALSE);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* The model directory changed meanwhile: this model is not the one. */
  if (object != (GObject *) self->recognizer)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Listening was stopped"));
      return;
    }

  self->loaded = TRUE;
  if (sj_voice_recognizer_get_fallback_reason (self->recognizer) != NULL)
    g_signal_emit (self, signals[ENGINE_FALLBACK], 0, sj_voice_recognizer_get_fallback_reason (self->recognizer));
  if (!self->listening)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Listening was stopped"));
      return;
    }

  begin_listening (self, g_steal_pointer (&task));
}

/**
 * sj_voice_session_start_async:
 *
 * Starts listening: loads the offline model the first time, then opens
 * the microphone. Fails with an %SJ_VOICE_ERROR (no microphone, busy, the
 * model missing).
 */
void
sj_voice_session_start_async (SjVoiceSession      *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_assert (SJ_IS_VOICE_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_voice_session_start_async);

  if (self->listening)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, _("Already listening"));
      return;
    }

  ensure_parts (self);
  set_listening (self, TRUE);

  if (!self->loaded)
    sj_voice_recognizer_load_async (self->recognizer, cancellable, loaded_cb, g_steal_pointer (&task));
  else
    begin_listening (self, g_steal_pointer (&task));
}

gboolean
sj_voice_session_start_finish (SjVoiceSession  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  char   *offline_text;
  double  offline_confidence;
  GError *offline_error;
} StopData;

static void
stop_data_free (gpointer data)
{
  StopData *stop = data;

  g_free (stop->offline_text);
  g_clear_error (&stop->offline_error);
  g_free (stop);
}

static void
return_offline (GTask *task)
{
  StopData *stop = g_task_get_task_data (task);
  SjVoiceSession *self = g_task_get_source_object (task);

  self->confidence = stop->offline_confidence;
  if (stop->offline_text != NULL)
    g_task_return_pointer (task, g_steal_pointer (&stop->offline_text), g_free);
  else
    g_task_return_error (task, g_steal_pointer (&stop->offline_error));
}

static void
transcribed_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjVoiceSession *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  text = sj_transcription_client_transcribe_finish (SJ_TRANSCRIPTION_CLIENT (object), result, &error);
  if (text != NULL && *text != '\0')
    {
      /* A transcription service gives no confidence: its words stand. */
      self->confidence = 1.0;
      g_task_return_pointer (task, g_steal_pointer (&text), g_free);
      return;
    }

  if (error == NULL)
    error = g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_NOTHING_HEARD,
                         _("The transcription service heard no words"));
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_signal_emit (self, signals[ENDPOINT_FAILED], 0, error);

  return_offline (task);
}

static void
recognized_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjVoiceSession *self = g_task_get_source_object (task);
  StopData *stop = g_new0 (StopData, 1);

  stop->offline_text = sj_voice_recognizer_end_finish (SJ_VOICE_RECOGNIZER (object), result, &stop->offline_error);
  stop->offline_confidence = sj_voice_recognizer_get_confidence (SJ_VOICE_RECOGNIZER (object));
  g_task_set_task_data (task, stop, stop_data_free);

  if (self->endpoint != NULL && !g_task_return_error_if_cancelled (task))
    {
      g_autoptr(GBytes) audio = sj_voice_recognizer_get_audio (SJ_VOICE_RECOGNIZER (object));
      SjTranscriptionClient *endpoint = g_object_ref (self->endpoint);
      GCancellable *cancellable = g_task_get_cancellable (task);

      sj_transcription_client_transcribe_async (endpoint, audio, cancellable, transcribed_cb, g_steal_pointer (&task));
      g_object_unref (endpoint);
      return;
    }

  return_offline (task);
}

/**
 * sj_voice_session_stop_async:
 *
 * Stops listening and gives the text of what was said: the endpoint's
 * when one is set and answers, the offline recogniser's otherwise. Fails
 * with %SJ_VOICE_ERROR_NOTHING_HEARD when no words came.
 */
void
sj_voice_session_stop_async (SjVoiceSession      *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_assert (SJ_IS_VOICE_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_voice_session_stop_async);

  if (self->capture != NULL)
    sj_voice_capture_stop (self->capture);
  set_listening (self, FALSE);

  if (self->recognizer == NULL || !self->loaded)
    {
      g_task_return_new_error (task, SJ_VOICE_ERROR, SJ_VOICE_ERROR_NOTHING_HEARD, _("Nothing was heard"));
      return;
    }

  sj_voice_recognizer_end_async (self->recognizer, cancellable, recognized_cb, g_steal_pointer (&task));
}

char *
sj_voice_session_stop_finish (SjVoiceSession  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sj_voice_session_cancel:
 *
 * Stops listening and drops what was said.
 */
void
sj_voice_session_cancel (SjVoiceSession *self)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  if (self->capture != NULL)
    sj_voice_capture_stop (self->capture);
  set_listening (self, FALSE);
  if (self->recognizer != NULL && self->loaded)
    sj_voice_recognizer_begin (self->recognizer);
}

/**
 * sj_voice_session_get_confidence:
 *
 * Returns: how sure the recogniser was of the last text
 *   sj_voice_session_stop_finish() gave, 0 to 1 (1 for a transcription
 *   service's, which gives none)
 */
double
sj_voice_session_get_confidence (SjVoiceSession *self)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  return self->confidence;
}

/**
 * sj_voice_session_should_send:
 * @send_at_once: whether the musician asked for the words to be sent as
 *   soon as they are recognised (the voice-send-automatically setting)
 * @confidence: how sure the recogniser was of them
 *   (sj_voice_session_get_confidence())
 * @threshold: the confidence under which words are uncertain (the
 *   voice-confidence-threshold setting)
 *
 * Returns: whether the words go to the agent at once: only when asked and
 *   certain; uncertain words stay in the composer to be checked first
 */
gboolean
sj_voice_session_should_send (gboolean send_at_once,
                              double   confidence,
                              double   threshold)
{
  return send_at_once && confidence >= threshold;
}

void
_sj_voice_session_set_mode (SjVoiceSession *self,
                            SjVoiceMode     mode)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  self->mode = mode;
  if (self->recognizer != NULL)
    sj_voice_recognizer_set_mode (self->recognizer, mode);
}

/* Returns: (transfer full) (nullable): the audio of the last utterance. */
GBytes *
_sj_voice_session_get_audio (SjVoiceSession *self)
{
  g_assert (SJ_IS_VOICE_SESSION (self));

  return self->recognizer != NULL ? sj_voice_recognizer_get_audio (self->recognizer) : NULL;
}
