/* bench-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The offline voice on 30 jam commands: espeak-ng says each into the test
 * microphone (bench/voice/run brings the private PulseAudio), the real
 * session (GStreamer capture, PocketSphinx with the jam grammar) hears
 * it, and the word error rate and two latencies are printed: from the end
 * of speech (the first silent 50 ms the microphone hears after it) to the
 * final text, which includes the 250 ms of silence the bench waits for
 * before it releases, as a musician releases the button after the last
 * word; and from the release (the session's stop) to the final text,
 * which is what the recogniser adds. Beside it, in the same run, the
 * peer: PocketSphinx as it ships, with its general English model and no
 * jam grammar, on the same audio path.
 */

#include "config.h"

#include <stdlib.h>
#include <glib/gstdio.h>

#include "sj-test-voice.h"
#include "sj-voice-session-private.h"

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
report (const char *what,
        gint64     *values,
        guint       n)
{
  double sum = 0;

  qsort (values, n, sizeof (gint64), compare_gint64);
  for (guint i = 0; i < n; i++)
    sum += values[i];
  g_print ("%-28s median %6.0f ms   mean %6.0f ms   p90 %6.0f ms   max %6.0f ms\n", what,
           values[n / 2] / 1000.0, sum / n / 1000.0, values[(n * 9) / 10] / 1000.0, values[n - 1] / 1000.0);
}

typedef struct
{
  const char     *name;
  SjVoiceSession *session;
  guint           errors, words, exact, n;
  gint64         *release;
  gint64         *speech_end;
} Engine;

static void
hear (Engine     *engine,
      guint       i,
      const char *wav)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *normal = NULL;
  SjTestVoiceTiming timing = { 0 };
  guint ref_words = 0;
  guint e;

  text = sj_test_voice_say (engine->session, wav, &timing, &error);
  normal = sj_test_voice_normalize (text != NULL ? text : "");
  e = sj_test_voice_word_errors (sj_test_voice_commands[i], normal, &ref_words);
  engine->errors += e;
  engine->words += ref_words;
  engine->exact += e == 0;
  engine->release[engine->n] = timing.release_to_text_us;
  engine->speech_end[engine->n] = timing.speech_end_to_text_us;
  engine->n++;
  if (e > 0)
    g_print ("  %-8s \"%s\" heard as \"%s\"\n", engine->name, sj_test_voice_commands[i], normal);
}

static void
print_engine (Engine     *engine,
              const char *title)
{
  g_print ("\n%s, %u commands:\n", title, engine->n);
  g_print ("word error rate              %.1f %% (%u errors in %u words), %u of %u commands word for word\n",
           100.0 * engine->errors / engine->words, engine->errors, engine->words, engine->exact, engine->n);
  report ("end of speech -> text", engine->speech_end, engine->n);
  report ("release -> text", engine->release, engine->n);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  char *wavs[SJ_TEST_VOICE_N_COMMANDS];
  Engine engines[2] = { { .name = "grammar" }, { .name = "english" } };
  guint rounds = 1;

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--rounds") && i + 1 < argc)
      {
        int value = atoi (argv[++i]);

        rounds = MAX (1, value);
      }

  if (!sj_test_voice_available ())
    {
      g_printerr ("bench-voice: needs tests/with-pulse.sh (bench/voice/run), espeak-ng and paplay\n");
      return 1;
    }

  dir = g_dir_make_tmp ("sj-bench-voice-XXXXXX", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < SJ_TEST_VOICE_N_COMMANDS; i++)
    wavs[i] = sj_test_voice_render (sj_test_voice_commands[i], dir, i);

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      engines[e].session = sj_voice_session_new ();
      _sj_voice_session_set_use_grammar (engines[e].session, e == 0);
      engines[e].release = g_new0 (gint64, rounds * SJ_TEST_VOICE_N_COMMANDS);
      engines[e].speech_end = g_new0 (gint64, rounds * SJ_TEST_VOICE_N_COMMANDS);
    }

  /* Alternately, so both meet the same load. */
  for (guint r = 0; r < rounds; r++)
    for (guint i = 0; i < SJ_TEST_VOICE_N_COMMANDS; i++)
      for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
        hear (&engines[e], i, wavs[i]);

  print_engine (&engines[0], "Strudel Jam: PocketSphinx en-us with the jam grammar");
  print_engine (&engines[1], "Peer: PocketSphinx en-us as it ships (general English model)");

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      g_object_unref (engines[e].session);
      g_free (engines[e].release);
      g_free (engines[e].speech_end);
    }
  for (guint i = 0; i < SJ_TEST_VOICE_N_COMMANDS; i++)
    {
      g_unlink (wavs[i]);
      g_free (wavs[i]);
    }
  g_rmdir (dir);

  return 0;
}
