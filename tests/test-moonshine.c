/* test-moonshine.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Moonshine engine of the offline recogniser (issue 30), with the
 * model, onnxruntime and tokens the build fetched (data/voice/moonshine):
 * espeak-ng says jam commands, the engine hears them held to the jam's
 * words; what goes wrong gives a structured error (no library, no model, a
 * corrupt model, a cancelled decoding); the recogniser hears with it, and
 * falls back to PocketSphinx, saying why, when it cannot be loaded. Skips,
 * saying so, when the build has no Moonshine (-Dmoonshine=disabled).
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "sj-moonshine-private.h"
#include "sj-voice-recognizer.h"

static const char *model_dir;
static const char *library;

static gboolean
have_moonshine (void)
{
  if (model_dir == NULL || library == NULL)
    {
      g_test_skip ("This build has no Moonshine (-Dmoonshine=disabled, or no npm): nothing to test");
      return FALSE;
    }
  return TRUE;
}

/* espeak-ng's words at 16 kHz, signed 16-bit mono (its 22050 Hz resampled
 * linearly: speech keeps its words). */
static GBytes *
speak (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) wav = NULL;
  g_autoptr(GSubprocess) espeak = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                                    &error, "espeak-ng", "-v", "en-us", "-s", "150", "--stdout", text, NULL);
  const guint8 *data;
  gsize size, offset = 12;
  const gint16 *in = NULL;
  gsize n_in = 0, n_out;
  gint16 *out;

  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate (espeak, NULL, NULL, &wav, NULL, &error));
  g_assert_no_error (error);
  data = g_bytes_get_data (wav, &size);
  while (offset + 8 <= size)
    {
      guint32 chunk = GUINT32_FROM_LE (*(guint32 *) (data + offset + 4));

      if (memcmp (data + offset, "data", 4) == 0)
        {
          in = (const gint16 *) (data + offset + 8);
          n_in = MIN (chunk, size - offset - 8) / 2;
          /* espeak-ng writing to a pipe leaves the size unknown. */
          if (chunk == 0 || chunk == G_MAXUINT32)
            n_in = (size - offset - 8) / 2;
          break;
        }
      offset += 8 + chunk;
    }
  g_assert_nonnull (in);
  n_out = n_in * 16000 / 22050;
  out = g_new (gint16, n_out);
  for (gsize i = 0; i < n_out; i++)
    {
      double x = i * 22050.0 / 16000.0;
      gsize j = (gsize) x;
      double f = x - j;

      out[i] = j + 1 < n_in ? (gint16) ((1 - f) * in[j] + f * in[j + 1]) : in[MIN (j, n_in - 1)];
    }

  return g_bytes_new_take (out, n_out * sizeof (gint16));
}

static void
test_missing_library (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjMoonshine) engine = _sj_moonshine_load ("libsj-no-such-onnxruntime.so.1", "/nonexistent", &error);

  g_assert_null (engine);
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING);
}

static void
test_missing_model (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjMoonshine) engine = NULL;

  if (!have_moonshine ())
    return;
  engine = _sj_moonshine_load (library, "/nonexistent/moonshine", &error);
  g_assert_null (engine);
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING);
}

static void
copy_file (const char *from_dir,
           const char *to_dir,
           const char *name)
{
  g_autofree char *from = g_build_filename (from_dir, name, NULL);
  g_autofree char *to = g_build_filename (to_dir, name, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (from, &contents, &length, &error));
  g_assert_true (g_file_set_contents (to, contents, length, &error));
  g_assert_no_error (error);
}

static void
test_corrupt_model (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjMoonshine) engine = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *encoder = NULL;

  if (!have_moonshine ())
    return;
  dir = g_dir_make_tmp ("sj-moonshine-XXXXXX", &error);
  g_assert_no_error (error);
  copy_file (model_dir, dir, SJ_MOONSHINE_TOKENS);
  copy_file (model_dir, dir, SJ_MOONSHINE_WORDS);
  copy_file (model_dir, dir, SJ_MOONSHINE_DECODER);
  /* Half a download. */
  encoder = g_build_filename (dir, SJ_MOONSHINE_ENCODER, NULL);
  g_assert_true (g_file_set_contents (encoder, "\x08\x07\x12\x0cnot a model", -1, &error));

  engine = _sj_moonshine_load (library, dir, &error);
  g_assert_null (engine);
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_INVALID);
  g_test_message ("%s", error->message);

  for (const char *const *name = (const char *const[]) { SJ_MOONSHINE_TOKENS, SJ_MOONSHINE_WORDS, SJ_MOONSHINE_DECODER,
                                                         SJ_MOONSHINE_ENCODER, NULL }; *name != NULL; name++)
    {
      g_autofree char *path = g_build_filename (dir, *name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

static SjMoonshine *shared_engine;

static SjMoonshine *
engine (void)
{
  g_autoptr(GError) error = NULL;

  if (shared_engine == NULL)
    shared_engine = _sj_moonshine_load (library, model_dir, &error);
  g_assert_no_error (error);

  return shared_engine;
}

/* Commands in the jam's words, as a musician says them. */
static const struct
{
  const char *said;
  const char *expected;
} commands[] = {
  { "make it faster", "make it faster" },
  { "stop the music", "stop the music" },
};

static void
test_decode (void)
{
  SjMoonshineOptions options;

  if (!have_moonshine ())
    return;
  _sj_moonshine_options_init (&options);

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autoptr(GBytes) audio = speak (commands[i].said);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      double confidence = -1;
      gint64 start = g_get_monotonic_time ();

      text = _sj_moonshine_transcribe (engine (), g_bytes_get_data (audio, NULL),
                                       g_bytes_get_size (audio) / sizeof (gint16), &options, &confidence, NULL, &error);
      g_assert_no_error (error);
      g_test_message ("\"%s\" → \"%s\" (confidence %.3f, %.0f ms)", commands[i].said, text, confidence,
                      (g_get_monotonic_time () - start) / 1000.0);
      g_assert_cmpstr (text, ==, commands[i].expected);
      g_assert_cmpfloat (confidence, >, 0.3);
      g_assert_cmpfloat (confidence, <=, 1.0);
    }
}

/* Greedy, Moonshine's own reading: a sentence with its capitals. */
static void
test_decode_greedy (void)
{
  g_autoptr(GBytes) audio = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *lower = NULL;
  SjMoonshineOptions options;

  if (!have_moonshine ())
    return;
  _sj_moonshine_options_init (&options);
  options.greedy = TRUE;
  audio = speak ("make the drums louder");
  text = _sj_moonshine_transcribe (engine (), g_bytes_get_data (audio, NULL), g_bytes_get_size (audio) / sizeof (gint16),
                                   &options, NULL, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("greedy: \"%s\"", text);
  lower = g_utf8_strdown (text, -1);
  g_assert_nonnull (strstr (lower, "drums louder"));
}

typedef struct
{
  GBytes       *audio;
  GCancellable *cancellable;
  GMutex        lock;
  GCond         cond;
  gboolean      started;
  char         *text;
  GError       *error;
  gint64        took;
} Cancel;

static gpointer
decode_thread (gpointer data)
{
  Cancel *c = data;
  SjMoonshineOptions options;
  gint64 start;

  _sj_moonshine_options_init (&options);
  g_mutex_lock (&c->lock);
  c->started = TRUE;
  g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
  start = g_get_monotonic_time ();
  c->text = _sj_moonshine_transcribe (engine (), g_bytes_get_data (c->audio, NULL),
                                      g_bytes_get_size (c->audio) / sizeof (gint16), &options, NULL, c->cancellable,
                                      &c->error);
  c->took = g_get_monotonic_time () - start;

  return NULL;
}

static void
test_cancel (void)
{
  Cancel c = { 0 };
  GThread *thread;
  gsize n;
  gint16 *samples;
  g_autoptr(GBytes) speech = NULL;

  if (!have_moonshine ())
    return;
  engine ();
  /* 30 s of speech, said again and again: seconds of decoding. */
  speech = speak ("make the drums louder and add some reverb to the piano");
  n = 30 * 16000;
  samples = g_new (gint16, n);
  for (gsize i = 0; i < n; i++)
    samples[i] = ((const gint16 *) g_bytes_get_data (speech, NULL))[i % (g_bytes_get_size (speech) / 2)];
  c.audio = g_bytes_new_take (samples, n * sizeof (gint16));
  c.cancellable = g_cancellable_new ();
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);

  thread = g_thread_new ("decode", decode_thread, &c);
  g_mutex_lock (&c.lock);
  while (!c.started)
    g_cond_wait (&c.cond, &c.lock);
  g_mutex_unlock (&c.lock);
  g_cancellable_cancel (c.cancellable);
  g_thread_join (thread);

  g_test_message ("cancelled after %.0f ms", c.took / 1000.0);
  g_assert_null (c.text);
  g_assert_error (c.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_clear_error (&c.error);
  g_bytes_unref (c.audio);
  g_object_unref (c.cancellable);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  GError **error = data;

  sj_voice_recognizer_load_finish (SJ_VOICE_RECOGNIZER (object), result, error);
  *(gboolean *) g_object_get_data (object, "done") = TRUE;
}

static void
ended_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      data)
{
  char **text = data;
  g_autoptr(GError) error = NULL;

  *text = sj_voice_recognizer_end_finish (SJ_VOICE_RECOGNIZER (object), result, &error);
  g_assert_no_error (error);
}

static SjVoiceRecognizer *
load_recognizer (SjVoiceEngine engine_wanted)
{
  SjVoiceRecognizer *recognizer = sj_voice_recognizer_new (NULL);
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  sj_voice_recognizer_set_engine (recognizer, engine_wanted);
  g_object_set_data (G_OBJECT (recognizer), "done", &done);
  sj_voice_recognizer_load_async (recognizer, NULL, loaded_cb, &error);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (error);

  return recognizer;
}

/* The recogniser with Moonshine: the same words, through its worker. */
static void
test_recognizer (void)
{
  g_autoptr(SjVoiceRecognizer) recognizer = NULL;
  g_autoptr(GBytes) audio = NULL;
  g_autofree char *text = NULL;

  if (!have_moonshine ())
    return;
  g_setenv ("SJ_MOONSHINE_DIR", model_dir, TRUE);
  g_setenv ("SJ_ONNXRUNTIME_LIBRARY", library, TRUE);
  recognizer = load_recognizer (SJ_VOICE_ENGINE_MOONSHINE);
  g_assert_cmpint (sj_voice_recognizer_get_engine (recognizer), ==, SJ_VOICE_ENGINE_MOONSHINE);
  g_assert_null (sj_voice_recognizer_get_fallback_reason (recognizer));

  audio = speak ("stop the music");
  sj_voice_recognizer_begin (recognizer);
  sj_voice_recognizer_feed (recognizer, audio);
  sj_voice_recognizer_end_async (recognizer, NULL, ended_cb, &text);
  while (text == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (text, ==, "stop the music");
  g_assert_cmpfloat (sj_voice_recognizer_get_confidence (recognizer), >, 0.3);
  g_assert_cmpfloat (sj_voice_recognizer_get_confidence (recognizer), <, 1.0);
}

/* No Moonshine installed: PocketSphinx hears, and the recogniser says why. */
static void
test_recognizer_fallback (void)
{
  g_autoptr(SjVoiceRecognizer) recognizer = NULL;

  g_setenv ("SJ_MOONSHINE_DIR", "/nonexistent/moonshine", TRUE);
  g_setenv ("SJ_ONNXRUNTIME_LIBRARY", library != NULL ? library : "libsj-no-such-onnxruntime.so.1", TRUE);
  recognizer = load_recognizer (SJ_VOICE_ENGINE_MOONSHINE);
  g_assert_cmpint (sj_voice_recognizer_get_engine (recognizer), ==, SJ_VOICE_ENGINE_POCKETSPHINX);
  g_assert_nonnull (sj_voice_recognizer_get_fallback_reason (recognizer));
  g_test_message ("fallback: %s", sj_voice_recognizer_get_fallback_reason (recognizer));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  model_dir = g_getenv ("SJ_TEST_MOONSHINE_DIR");
  library = g_getenv ("SJ_TEST_ONNXRUNTIME_LIBRARY");
  if (model_dir != NULL && *model_dir == '\0')
    model_dir = library = NULL;

  g_test_add_func ("/moonshine/missing-library", test_missing_library);
  g_test_add_func ("/moonshine/missing-model", test_missing_model);
  g_test_add_func ("/moonshine/corrupt-model", test_corrupt_model);
  g_test_add_func ("/moonshine/decode", test_decode);
  g_test_add_func ("/moonshine/decode-greedy", test_decode_greedy);
  g_test_add_func ("/moonshine/cancel", test_cancel);
  g_test_add_func ("/moonshine/recognizer", test_recognizer);
  g_test_add_func ("/moonshine/recognizer-fallback", test_recognizer_fallback);

  status = g_test_run ();
  g_clear_pointer (&shared_engine, _sj_moonshine_free);

  return status;
}
