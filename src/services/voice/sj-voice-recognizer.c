/* sj-voice-recognizer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The offline recogniser: PocketSphinx with its US English acoustic model
 * and the words CMUdict lacks added (jam-extra.dict), as sj-voice-decoder.c
 * sets it up. At the end of an utterance it is decoded twice: with the
 * grammar of jam commands (data/voice/jam-commands.gram), exact on the
 * phrases it was written from, and with the jam's domain language model
 * (data/voice/make-corpus.py), which takes a musician's own words. The
 * grammar's words win when they fit the sound about as well as the
 * domain model's; otherwise the domain model's do (choose_hyp). The
 * general English language model, which turns jam commands into noise,
 * is only the peer bench/voice measures.
 *
 * Or, when the voice-engine setting says so and it is installed, Moonshine
 * (sj-moonshine.c, issue 30) hears the whole utterance at its end, held to
 * the same domain model's words and trigrams; PocketSphinx is then not
 * loaded, and is the fallback when Moonshine cannot be (the reason is kept
 * for the window to show).
 *
 * The decoder is not thread-safe and decoding takes time, so it lives on a
 * worker thread of its own that takes messages from a queue: load, begin,
 * audio, end. Audio comes from any thread (the capture's streaming thread);
 * partial hypotheses and results come back to the context that made the
 * recogniser.
 */

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <pocketsphinx.h>

#include "sj-moonshine-private.h"
#include "sj-voice-decoder-private.h"
#include "sj-voice-recognizer.h"

typedef enum
{
  MSG_LOAD,
  MSG_BEGIN,
  MSG_AUDIO,
  MSG_END,
  MSG_QUIT,
} MsgKind;

typedef struct
{
  MsgKind  kind;
  GBytes  *audio;
  GTask   *task;
  /* The outcome of a load or an end, returned on the owner's context. */
  char    *text;
  double   confidence;
  GError  *error;
  /* A load's: the engine it made ready, and why not Moonshine. */
  SjVoiceEngine engine;
  char    *fallback;
} Msg;

struct _SjVoiceRecognizer
{
  GObject       parent_instance;

  char         *model_dir;
  GMainContext *context;
  GThread      *thread;
  GAsyncQueue  *queue;

  /* The utterance's audio, kept for the fallback and for an endpoint. */
  GMutex        audio_lock;
  GByteArray   *audio;

  /* Atomic: an SjVoiceMode, what gives the final text. */
  gint          mode;

  /* Atomic: the SjVoiceEngine wanted, and Moonshine's greedy search. */
  gint          engine;
  gint          greedy;

  /* The confidence of the last text, the engine the last load made
   * ready and why it is not Moonshine, on the owner's context. */
  double        confidence;
  SjVoiceEngine engine_ready;
  char         *fallback_reason;

  /* Only the worker thread touches these. */
  ps_decoder_t *ps;
  SjMoonshine  *moonshine;
  char         *moonshine_error;
  gboolean      in_utterance;
  gboolean      ps_in_utterance;
  char         *last_partial;
};

G_DEFINE_FINAL_TYPE (SjVoiceRecognizer, sj_voice_recognizer, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-voice-error-quark, sj_voice_error)

enum {
  PARTIAL,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
msg_free (Msg *msg)
{
  g_clear_pointer (&msg->audio, g_bytes_unref);
  g_clear_object (&msg->task);
  g_free (msg->text);
  g_free (msg->fallback);
  g_clear_error (&msg->error);
  g_free (msg);
}

static gboolean
complete_cb (gpointer data)
{
  Msg *msg = data;

  if (msg->error != NULL)
    g_task_return_error (msg->task, g_steal_pointer (&msg->error));
  else if (msg->kind == MSG_END)
    {
      SjVoiceRecognizer *self = g_task_get_source_object (msg->task);

      self->confidence = msg->confidence;
      g_task_return_pointer (msg->task, g_steal_pointer (&msg->text), g_free);
    }
  else
    {
      SjVoiceRecognizer *self = g_task_get_source_object (msg->task);

      self->engine_ready = msg->engine;
      g_free (self->fallback_reason);
      self->fallback_reason = g_steal_pointer (&msg->fallback);
      g_task_return_boolean (msg->task, TRUE);
    }

  return G_SOURCE_REMOVE;
}

/* Returns a load's or an end's task on the owner's context, where the
 * task (and the recogniser it holds) is then let go: the worker never
 * holds the last reference, so finalize never runs on it. */
static void
complete (SjVoiceRecognizer *self,
          Msg               *msg)
{
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, complete_cb, msg, (GDestroyNotify) msg_free);
}

static void
post (SjVoiceRecognizer *self,
      MsgKind            kind,
      GBytes            *audio,
      GTask             *task)
{
  Msg *msg = g_new0 (Msg, 1);

  msg->kind = kind;
  msg->audio = audio != NULL ? g_bytes_ref (audio) : NULL;
  msg->task = task;
  g_async_queue_push (self->queue, msg);
}

typedef struct
{
  SjVoiceRecognizer *self;
  char              *text;
} Partial;

static gboolean
emit_partial_cb (gpointer data)
{
  Partial *partial = data;

  g_signal_emit (partial->self, signals[PARTIAL], 0, partial->text);

  return G_SOURCE_REMOVE;
}

static void
partial_free (gpointer data)
{
  Partial *partial = data;

  g_object_unref (partial->self);
  g_free (partial->text);
  g_free (partial);
}

static void
update_partial (SjVoiceRecognizer *self)
{
  const char *hyp = ps_get_hyp (self->ps, NULL);
  Partial *partial;

  if (hyp == NULL || *hyp == '\0' || g_strcmp0 (hyp, self->last_partial) == 0)
    return;

  g_free (self->last_partial);
  self->last_partial = g_strdup (hyp);

  partial = g_new0 (Partial, 1);
  partial->self = g_object_ref (self);
  partial->text = _sj_voice_spell_out (g_strdup (hyp));
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, emit_partial_cb, partial, partial_free);
}

/* Decodes the whole utterance again with @search, then goes back to the
 * grammar for the live decoding of the next one. */
static SjVoiceEngine
engine_in_use (SjVoiceRecognizer *self)
{
  return g_atomic_int_get (&self->engine) == SJ_VOICE_ENGINE_MOONSHINE && self->moonshine != NULL
         ? SJ_VOICE_ENGINE_MOONSHINE : SJ_VOICE_ENGINE_POCKETSPHINX;
}

/* Moonshine's text as the musician's words: lower case, no punctuation
 * (its greedy reading writes sentences; the held search writes the jam
 * model's words already). */
static char *
plain_words (const char *text)
{
  g_autofree char *lower = g_utf8_strdown (text, -1);
  GString *out = g_string_new (NULL);

  for (const char *p = lower; *p != '\0'; p++)
    if (g_ascii_isalnum (*p) || *p == '\'' || *p == '-' || (guchar) *p >= 0x80)
      g_string_append_c (out, *p);
    else if (out->len > 0 && out->str[out->len - 1] != ' ')
      g_string_append_c (out, ' ');

  return g_strstrip (g_string_free (out, FALSE));
}

/* Moonshine's confidence is its mean token probability (a geometric
 * mean), lower than PocketSphinx's word posteriors for the same doubt:
 * raised to this power, 0.35, the level that best parts right commands
 * from wrong ones on bench/voice's tuned set (50 of 64 right ones over it,
 * 38 of 56 wrong ones under; the held-out set was not looked at), becomes
 * 0.5, the voice-confidence-threshold's default. */
#define MOONSHINE_CONFIDENCE_POWER 0.66

static void
handle_end_moonshine (SjVoiceRecognizer *self,
                      Msg               *msg)
{
  g_autoptr(GBytes) audio = sj_voice_recognizer_get_audio (self);
  SjMoonshineOptions options;
  g_autofree char *text = NULL;
  double confidence = 0.0;
  gint64 start = g_get_monotonic_time ();

  _sj_moonshine_options_init (&options);
  options.greedy = g_atomic_int_get (&self->greedy);
  text = _sj_moonshine_transcribe (self->moonshine, g_bytes_get_data (audio, NULL),
                                   g_bytes_get_size (audio) / sizeof (gint16), &options, &confidence,
                                   g_task_get_cancellable (msg->task), &msg->error);
  g_debug ("Voice: Moonshine \"%s\" (confidence %.3f) in %.0f ms", text, confidence,
           (g_get_monotonic_time () - start) / 1000.0);
  if (text == NULL)
    return;

  {
    g_autofree char *words = plain_words (text);

    if (*words == '\0')
      msg->error = g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_NOTHING_HEARD, _("No words were recognised"));
    else
      {
        msg->text = _sj_voice_spell_out (g_steal_pointer (&words));
        msg->confidence = CLAMP (pow (confidence, MOONSHINE_CONFIDENCE_POWER), 0.0, 0.99);
      }
  }
}

static void
handle_end (SjVoiceRecognizer *self,
            Msg               *msg)
{
  g_autofree char *text = NULL;
  double confidence = 1.0;

  if (!self->in_utterance || (self->ps == NULL && self->moonshine == NULL))
    {
      msg->error = g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_NOTHING_HEARD, _("Nothing was heard"));
      return;
    }
  self->in_utterance = FALSE;

  if (engine_in_use (self) == SJ_VOICE_ENGINE_MOONSHINE)
    {
      handle_end_moonshine (self, msg);
      return;
    }
  if (self->ps_in_utterance)
    ps_end_utt (self->ps);
  self->ps_in_utterance = FALSE;

  {
    g_autoptr(GBytes) audio = sj_voice_recognizer_get_audio (self);

    text = _sj_voice_hear (self->ps, (SjVoiceMode) g_atomic_int_get (&self->mode),
                           g_bytes_get_data (audio, NULL), g_bytes_get_size (audio) / sizeof (gint16),
                           &confidence);
  }

  if (text == NULL || *text == '\0')
    msg->error = g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_NOTHING_HEARD, _("No words were recognised"));
  else
    {
      msg->text = _sj_voice_spell_out (g_steal_pointer (&text));
      /* An offline reading is never quite certain. */
      msg->confidence = CLAMP (confidence, 0.0, 0.99);
    }
}

/* Makes the wanted engine ready (once) and returns the one that is:
 * PocketSphinx when Moonshine is not wanted or cannot be loaded (why is
 * kept in moonshine_error). */
static SjVoiceEngine
load_engine (SjVoiceRecognizer  *self,
             GError            **error)
{
  if (g_atomic_int_get (&self->engine) == SJ_VOICE_ENGINE_MOONSHINE && self->moonshine == NULL
      && self->moonshine_error == NULL)
    {
      g_autoptr(GError) local_error = NULL;
      const char *library = g_getenv ("SJ_ONNXRUNTIME_LIBRARY");
      const char *dir = g_getenv ("SJ_MOONSHINE_DIR");

      self->moonshine = _sj_moonshine_load (library != NULL ? library : SJ_ONNXRUNTIME_LIBRARY,
                                            dir != NULL ? dir : SJ_MOONSHINE_DIR, &local_error);
      if (self->moonshine == NULL)
        {
          g_message ("Voice: Moonshine is not available, PocketSphinx hears instead: %s", local_error->message);
          self->moonshine_error = g_strdup (local_error->message);
        }
      else
        {
          /* The first runs of the graphs set themselves up for each new
           * shape (seconds on a busy machine): done here, with the beam's
           * shapes, on a second of silence while the microphone opens, not
           * on the musician's first words. */
          static const gint16 silence[SJ_VOICE_SAMPLE_RATE] = { 0 };
          SjMoonshineOptions options;

          _sj_moonshine_options_init (&options);
          g_free (_sj_moonshine_transcribe (self->moonshine, silence, G_N_ELEMENTS (silence), &options, NULL, NULL, NULL));
        }
    }
  if (engine_in_use (self) == SJ_VOICE_ENGINE_MOONSHINE)
    return SJ_VOICE_ENGINE_MOONSHINE;
  if (self->ps == NULL)
    self->ps = _sj_voice_decoder_load (self->model_dir, error);

  return SJ_VOICE_ENGINE_POCKETSPHINX;
}

static gpointer
worker_thread (gpointer data)
{
  SjVoiceRecognizer *self = data;

  for (;;)
    {
      Msg *msg = g_async_queue_pop (self->queue);
      g_autoptr(GError) error = NULL;

      switch (msg->kind)
        {
        case MSG_LOAD:
          msg->engine = load_engine (self, &error);
          msg->error = g_steal_pointer (&error);
          if (g_atomic_int_get (&self->engine) == SJ_VOICE_ENGINE_MOONSHINE && msg->engine != SJ_VOICE_ENGINE_MOONSHINE)
            msg->fallback = g_strdup (self->moonshine_error);
          complete (self, g_steal_pointer (&msg));
          break;

        case MSG_BEGIN:
          if (self->ps_in_utterance)
            ps_end_utt (self->ps);
          self->ps_in_utterance = FALSE;
          g_clear_pointer (&self->last_partial, g_free);
          if (load_engine (self, NULL) == SJ_VOICE_ENGINE_MOONSHINE)
            self->in_utterance = TRUE;
          else if (self->ps != NULL)
            self->in_utterance = self->ps_in_utterance = ps_start_utt (self->ps) == 0;
          break;

        case MSG_AUDIO:
          if (self->ps != NULL && self->ps_in_utterance)
            {
              gsize size;
              const gint16 *samples = g_bytes_get_data (msg->audio, &size);

              ps_process_raw (self->ps, samples, size / sizeof (gint16), FALSE, FALSE);
              update_partial (self);
            }
          break;

        case MSG_END:
          handle_end (self, msg);
          complete (self, g_steal_pointer (&msg));
          break;

        case MSG_QUIT:
          msg_free (msg);
          if (self->ps != NULL)
            ps_free (self->ps);
          g_clear_pointer (&self->moonshine, _sj_moonshine_free);
          g_free (self->moonshine_error);
          return NULL;
        }

      g_clear_pointer (&msg, msg_free);
    }
}

static void
sj_voice_recognizer_finalize (GObject *object)
{
  SjVoiceRecognizer *self = (SjVoiceRecognizer *)object;

  post (self, MSG_QUIT, NULL, NULL);
  g_thread_join (self->thread);
  g_async_queue_unref (self->queue);
  g_byte_array_unref (self->audio);
  g_mutex_clear (&self->audio_lock);
  g_main_context_unref (self->context);
  g_free (self->model_dir);
  g_free (self->last_partial);
  g_free (self->fallback_reason);

  G_OBJECT_CLASS (sj_voice_recognizer_parent_class)->finalize (object);
}

static void
sj_voice_recognizer_class_init (SjVoiceRecognizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_voice_recognizer_finalize;

  /**
   * SjVoiceRecognizer::partial:
   * @text: the words recognised so far
   *
   * Emitted while audio comes in, whenever the best guess changes.
   */
  signals[PARTIAL] = g_signal_new ("partial", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
sj_voice_recognizer_init (SjVoiceRecognizer *self)
{
  g_mutex_init (&self->audio_lock);
  self->audio = g_byte_array_new ();
  self->queue = g_async_queue_new ();
  self->context = g_main_context_ref_thread_default ();
  self->mode = SJ_VOICE_MODE_JAM;
  self->confidence = 1.0;
}

/**
 * sj_voice_recognizer_new:
 * @model_dir: (nullable): where the PocketSphinx models are (the folder
 *   holding en-us/), or %NULL for the one the build found
 */
SjVoiceRecognizer *
sj_voice_recognizer_new (const char *model_dir)
{
  SjVoiceRecognizer *self = g_object_new (SJ_TYPE_VOICE_RECOGNIZER, NULL);

  self->model_dir = g_strdup (model_dir != NULL ? model_dir : SJ_POCKETSPHINX_MODELDIR);
  self->thread = g_thread_new ("sj-voice-recognizer", worker_thread, self);

  return self;
}

/**
 * sj_voice_recognizer_load_async:
 *
 * Loads the model (once; it takes a moment) on the worker thread. Fails
 * with %SJ_VOICE_ERROR_MODEL_MISSING when it is not installed.
 */
void
sj_voice_recognizer_load_async (SjVoiceRecognizer   *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task;

  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_voice_recognizer_load_async);
  post (self, MSG_LOAD, NULL, task);
}

gboolean
sj_voice_recognizer_load_finish (SjVoiceRecognizer  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sj_voice_recognizer_begin:
 *
 * Starts an utterance; the audio fed after it is decoded as it comes.
 */
void
sj_voice_recognizer_begin (SjVoiceRecognizer *self)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  g_mutex_lock (&self->audio_lock);
  g_byte_array_set_size (self->audio, 0);
  g_mutex_unlock (&self->audio_lock);
  post (self, MSG_BEGIN, NULL, NULL);
}

/**
 * sj_voice_recognizer_feed:
 * @samples: 16 kHz signed 16-bit mono samples
 *
 * May be called from any thread.
 */
void
sj_voice_recognizer_feed (SjVoiceRecognizer *self,
                          GBytes            *samples)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  g_mutex_lock (&self->audio_lock);
  g_byte_array_append (self->audio, g_bytes_get_data (samples, NULL), g_bytes_get_size (samples));
  g_mutex_unlock (&self->audio_lock);
  post (self, MSG_AUDIO, samples, NULL);
}

/**
 * sj_voice_recognizer_end_async:
 *
 * Ends the utterance and gives its text, once the audio fed before is
 * decoded. Fails with %SJ_VOICE_ERROR_NOTHING_HEARD when no words came.
 */
void
sj_voice_recognizer_end_async (SjVoiceRecognizer   *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GTask *task;

  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_voice_recognizer_end_async);
  post (self, MSG_END, NULL, task);
}

char *
sj_voice_recognizer_end_finish (SjVoiceRecognizer  *self,
                                GAsyncResult       *result,
                                GError            **error)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sj_voice_recognizer_get_audio:
 *
 * Returns: (transfer full): the audio of the current or last utterance,
 *   16 kHz signed 16-bit mono
 */
GBytes *
sj_voice_recognizer_get_audio (SjVoiceRecognizer *self)
{
  GBytes *bytes;

  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  g_mutex_lock (&self->audio_lock);
  bytes = g_bytes_new (self->audio->data, self->audio->len);
  g_mutex_unlock (&self->audio_lock);

  return bytes;
}

/**
 * sj_voice_recognizer_get_confidence:
 *
 * Returns: how sure the recogniser is of the last text it gave, 0 to 1
 */
double
sj_voice_recognizer_get_confidence (SjVoiceRecognizer *self)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  return self->confidence;
}

/**
 * sj_voice_recognizer_set_mode:
 * @mode: what gives the final text
 *
 * The jam's two searches together are the default; the others are what
 * bench/voice measures beside them.
 */
void
sj_voice_recognizer_set_mode (SjVoiceRecognizer *self,
                              SjVoiceMode        mode)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  g_atomic_int_set (&self->mode, mode);
}

/**
 * sj_voice_recognizer_set_engine:
 * @engine: which recogniser should hear
 *
 * Moonshine is loaded by the next load or utterance; when it cannot be,
 * PocketSphinx hears (sj_voice_recognizer_get_fallback_reason() says why).
 */
void
sj_voice_recognizer_set_engine (SjVoiceRecognizer *self,
                                SjVoiceEngine      engine)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  g_atomic_int_set (&self->engine, engine);
}

/**
 * sj_voice_recognizer_get_engine:
 *
 * Returns: the engine the last load made ready
 */
SjVoiceEngine
sj_voice_recognizer_get_engine (SjVoiceRecognizer *self)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  return self->engine_ready;
}

/**
 * sj_voice_recognizer_get_fallback_reason:
 *
 * Returns: (nullable): why the last load fell back to PocketSphinx when
 *   Moonshine was wanted, or %NULL
 */
const char *
sj_voice_recognizer_get_fallback_reason (SjVoiceRecognizer *self)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  return self->fallback_reason;
}

/**
 * sj_voice_recognizer_set_moonshine_greedy:
 * @greedy: Moonshine's own reading, not held to the jam's words (bench/voice)
 */
void
sj_voice_recognizer_set_moonshine_greedy (SjVoiceRecognizer *self,
                                          gboolean           greedy)
{
  g_assert (SJ_IS_VOICE_RECOGNIZER (self));

  g_atomic_int_set (&self->greedy, greedy);
}
