/* bench-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The offline voice on jam commands said by espeak-ng into the test
 * microphone (bench/voice/run brings the private PulseAudio and plays
 * music into its speakers all along): the tuned set (the 30 commands of
 * tests/sj-test-voice.c, which the grammar was written from) and the
 * held-out set (bench/voice/held-out.txt, written before the domain
 * language model and never tuned on), each said by two espeak-ng voices at
 * two speeds. The real session (GStreamer capture, PocketSphinx with the
 * jam's grammar and domain model) hears each command live; the word error
 * rate, the whole-command accuracy and two latencies are printed: from
 * the end of speech (the first silent 50 ms the microphone hears after it)
 * to the final text, which includes the 250 ms of silence the bench waits
 * for before it releases, as a musician releases the button after the
 * last word; and from the release (the session's stop) to the final text.
 * The same captured audio then goes through the recogniser with one
 * search alone (the grammar as before issue 30, the domain model alone,
 * and the peer: PocketSphinx as it ships, with its general English model).
 *
 * Usage: bench-voice [--held-out FILE] [--dev FILE --dev-count N]
 *                    [--limit N] [--conditions N] [--verbose]
 *                    [--save DIR | --replay DIR] [--live-only]
 *                    [--engine moonshine [--greedy]]
 * --save keeps each utterance's captured audio in DIR; --replay decodes
 * audio kept so, with no live session (and no latency figures);
 * --live-only leaves out the searches alone (replay them later).
 * --engine moonshine: Moonshine (issue 30) hears instead of the jam's two
 * PocketSphinx searches, in the live session and the first column of a
 * replay (SJ_MOONSHINE_DIR and SJ_ONNXRUNTIME_LIBRARY say where the build's
 * are; bench/voice/run sets them); --greedy: Moonshine as it ships.
 */

#include "config.h"

#include <stdlib.h>
#include <glib/gstdio.h>

#include "sj-test-voice.h"
#include "sj-voice-recognizer.h"
#include "sj-voice-session-private.h"

typedef struct
{
  const char *voice;
  guint       speed;
} Condition;

static const Condition conditions[] = {
  { "en-us", 150 },
  { "en-us", 190 },
  { "en+f3", 150 },
  { "en+f3", 190 },
};

static const char *mode_names[] = { "jam (grammar + domain LM)", "grammar, English fallback (before)",
                                           "domain LM alone", "peer: English LM as shipped" };

typedef struct
{
  guint   errors, words, exact, n;
} Score;

typedef struct
{
  const char *name;
  GPtrArray  *commands;
  Score       score[G_N_ELEMENTS (mode_names)];
  GArray     *speech_end;  /* gint64, µs, live (jam) */
  GArray     *release;
  double      conf_right_sum, conf_wrong_sum;
  guint       n_right, n_wrong;
  /* At the thresholds 0.2, 0.35, 0.5, 0.7: right commands that would be
   * sent at once, wrong ones that would be held for editing. */
  guint       right_sent[4], wrong_held[4];
} Set;

static gboolean verbose;

static const double thresholds[] = { 0.2, 0.35, 0.5, 0.7 };

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
report (const char *what,
        GArray     *array)
{
  gint64 *values = (gint64 *) array->data;
  guint n = array->len;
  double sum = 0;

  if (n == 0)
    return;
  qsort (values, n, sizeof (gint64), compare_gint64);
  for (guint i = 0; i < n; i++)
    sum += values[i];
  g_print ("  %-24s median %5.0f ms   mean %5.0f ms   p90 %5.0f ms   max %5.0f ms\n", what,
           values[n / 2] / 1000.0, sum / n / 1000.0, values[(n * 9) / 10] / 1000.0, values[n - 1] / 1000.0);
}

static void
score (Score      *s,
       const char *reference,
       const char *text)
{
  g_autofree char *normal = sj_test_voice_normalize (text != NULL ? text : "");
  guint ref_words = 0;
  guint e = sj_test_voice_word_errors (reference, normal, &ref_words);

  s->errors += e;
  s->words += ref_words;
  s->exact += e == 0;
  s->n++;
}

static void
recognized_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* The recogniser with one search alone, on captured audio. */
static char *
recognize_offline (SjVoiceRecognizer *recognizer,
                   GBytes            *audio)
{
  static GAsyncResult *result;
  g_autoptr(GError) error = NULL;
  char *text;

  gsize size = g_bytes_get_size (audio);
  /* 100 ms at a time, as the capture feeds it. */
  gsize chunk = SJ_VOICE_SAMPLE_RATE / 10 * sizeof (gint16);

  sj_voice_recognizer_begin (recognizer);
  for (gsize offset = 0; offset < size; offset += chunk)
    {
      g_autoptr(GBytes) part = g_bytes_new_from_bytes (audio, offset, MIN (chunk, size - offset));

      sj_voice_recognizer_feed (recognizer, part);
    }
  sj_voice_recognizer_end_async (recognizer, NULL, recognized_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  text = sj_voice_recognizer_end_finish (recognizer, result, &error);
  g_clear_object (&result);

  return text;
}

static GPtrArray *
read_commands (const char *path,
               guint       limit)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *commands = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (path, &contents, NULL, &error))
    g_error ("bench-voice: %s", error->message);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL && commands->len < limit; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (*line != '\0' && *line != '#')
        g_ptr_array_add (commands, g_strdup (line));
    }

  return commands;
}

/* @count lines of the corpus at random (a fixed seed): a development set
 * for choosing the recogniser's settings, drawn from the corpus, never
 * from the held-out commands. */
static GPtrArray *
sample_corpus (const char *path,
               guint       count)
{
  g_autoptr(GPtrArray) all = read_commands (path, G_MAXUINT);
  GPtrArray *commands = g_ptr_array_new_with_free_func (g_free);
  GRand *rand = g_rand_new_with_seed (2026);

  while (commands->len < count && all->len > 0)
    {
      guint i = g_rand_int_range (rand, 0, all->len);

      g_ptr_array_add (commands, g_strdup (all->pdata[i]));
      g_ptr_array_remove_index_fast (all, i);
    }
  g_rand_free (rand);

  return commands;
}

static void
print_load (const char *when)
{
  g_autofree char *loadavg = NULL;

  if (g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL))
    g_print ("load average %s: %s", when, loadavg);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  const char *held_out = NULL, *dev = NULL, *save = NULL, *replay = NULL;
  guint dev_count = 60, limit = G_MAXUINT, n_conditions = G_N_ELEMENTS (conditions);
  SjVoiceRecognizer *offline[G_N_ELEMENTS (mode_names)] = { NULL };
  g_autoptr(SjVoiceSession) session = NULL;
  Set sets[3] = { { .name = "tuned" }, { .name = "held-out" }, { .name = "development (corpus)" } };
  guint index = 0;
  gboolean live_only = FALSE, moonshine = FALSE, greedy = FALSE;

  for (int i = 1; i < argc; i++)
    {
      int value = i + 1 < argc ? atoi (argv[i + 1]) : 0;

      if (g_str_equal (argv[i], "--held-out") && i + 1 < argc)
        held_out = argv[++i];
      else if (g_str_equal (argv[i], "--dev") && i + 1 < argc)
        dev = argv[++i];
      else if (g_str_equal (argv[i], "--dev-count") && i + 1 < argc)
        dev_count = MAX (1, value), i++;
      else if (g_str_equal (argv[i], "--limit") && i + 1 < argc)
        limit = MAX (1, value), i++;
      else if (g_str_equal (argv[i], "--conditions") && i + 1 < argc)
        n_conditions = CLAMP (value, 1, (int) G_N_ELEMENTS (conditions)), i++;
      else if (g_str_equal (argv[i], "--save") && i + 1 < argc)
        save = argv[++i];
      else if (g_str_equal (argv[i], "--replay") && i + 1 < argc)
        replay = argv[++i];
      else if (g_str_equal (argv[i], "--engine") && i + 1 < argc)
        moonshine = g_str_equal (argv[++i], "moonshine");
      else if (g_str_equal (argv[i], "--greedy"))
        greedy = TRUE;
      else if (g_str_equal (argv[i], "--live-only"))
        live_only = TRUE;
      else if (g_str_equal (argv[i], "--verbose"))
        verbose = TRUE;
    }

  if (replay == NULL && !sj_test_voice_available ())
    {
      g_printerr ("bench-voice: needs tests/with-pulse.sh (bench/voice/run), espeak-ng and paplay\n");
      return 1;
    }

  sets[0].commands = g_ptr_array_new ();
  for (guint i = 0; i < SJ_TEST_VOICE_N_COMMANDS && i < limit; i++)
    g_ptr_array_add (sets[0].commands, (gpointer) sj_test_voice_commands[i]);
  sets[1].commands = held_out != NULL ? read_commands (held_out, limit) : g_ptr_array_new ();
  sets[2].commands = dev != NULL ? sample_corpus (dev, dev_count) : g_ptr_array_new ();
  for (guint s = 0; s < G_N_ELEMENTS (sets); s++)
    {
      sets[s].speech_end = g_array_new (FALSE, FALSE, sizeof (gint64));
      sets[s].release = g_array_new (FALSE, FALSE, sizeof (gint64));
    }

  print_load ("at start");
  dir = g_dir_make_tmp ("sj-bench-voice-XXXXXX", &error);
  g_assert_no_error (error);

  session = sj_voice_session_new ();
  if (moonshine)
    {
      g_print ("engine: Moonshine tiny%s (first column)\n", greedy ? ", greedy as shipped" : ", held to the jam's words and trigrams");
      mode_names[0] = greedy ? "Moonshine tiny, greedy" : "Moonshine tiny + jam words + trigram";
      sj_voice_session_set_engine (session, SJ_VOICE_ENGINE_MOONSHINE);
    }
  for (guint m = replay != NULL ? 0 : 1; m < (live_only ? 1 : G_N_ELEMENTS (mode_names)); m++)
    {
      GAsyncResult *result = NULL;

      offline[m] = sj_voice_recognizer_new (NULL);
      sj_voice_recognizer_set_mode (offline[m], m);
      if (m == 0 && moonshine)
        {
          sj_voice_recognizer_set_engine (offline[m], SJ_VOICE_ENGINE_MOONSHINE);
          sj_voice_recognizer_set_moonshine_greedy (offline[m], greedy);
        }
      sj_voice_recognizer_load_async (offline[m], NULL, recognized_cb, &result);
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      sj_voice_recognizer_load_finish (offline[m], result, &error);
      g_assert_no_error (error);
      if (m == 0 && moonshine && sj_voice_recognizer_get_engine (offline[m]) != SJ_VOICE_ENGINE_MOONSHINE)
        {
          g_printerr ("bench-voice: Moonshine could not be loaded: %s\n",
                      sj_voice_recognizer_get_fallback_reason (offline[m]));
          return 1;
        }
      g_object_unref (result);
    }

  for (guint s = 0; s < G_N_ELEMENTS (sets); s++)
    for (guint c = 0; c < n_conditions; c++)
      for (guint i = 0; i < sets[s].commands->len; i++)
        {
          const char *command = sets[s].commands->pdata[i];
          g_autofree char *raw = g_strdup_printf ("%s/%u-%u-%03u.raw", save != NULL ? save : replay, s, c, i);
          g_autoptr(GError) say_error = NULL;
          g_autoptr(GBytes) audio = NULL;
          g_autofree char *text = NULL;
          g_autofree char *normal = NULL;
          SjTestVoiceTiming timing = { 0 };
          double confidence;

          if (replay != NULL)
            {
              g_autofree char *data = NULL;
              gsize size = 0;

              if (!g_file_get_contents (raw, &data, &size, NULL))
                continue;
              audio = g_bytes_new_take (g_steal_pointer (&data), size);
              text = recognize_offline (offline[0], audio);
              confidence = text != NULL ? sj_voice_recognizer_get_confidence (offline[0]) : 0;
            }
          else
            {
              g_autofree char *wav = sj_test_voice_render_as (command, dir, index++, conditions[c].voice,
                                                              conditions[c].speed);

              text = sj_test_voice_say (session, wav, &timing, &say_error);
              g_unlink (wav);
              confidence = text != NULL ? sj_voice_session_get_confidence (session) : 0;
              audio = _sj_voice_session_get_audio (session);
              if (save != NULL)
                g_file_set_contents (raw, g_bytes_get_data (audio, NULL), g_bytes_get_size (audio), NULL);
            }
          score (&sets[s].score[0], command, text);
          g_array_append_val (sets[s].speech_end, timing.speech_end_to_text_us);
          g_array_append_val (sets[s].release, timing.release_to_text_us);
          normal = sj_test_voice_normalize (text != NULL ? text : "");
          for (guint t = 0; t < G_N_ELEMENTS (thresholds); t++)
            {
              if (sj_test_voice_word_errors (command, normal, NULL) == 0)
                sets[s].right_sent[t] += confidence >= thresholds[t];
              else
                sets[s].wrong_held[t] += confidence < thresholds[t];
            }
          if (sj_test_voice_word_errors (command, normal, NULL) == 0)
            {
              sets[s].conf_right_sum += confidence;
              sets[s].n_right++;
            }
          else
            {
              sets[s].conf_wrong_sum += confidence;
              sets[s].n_wrong++;
            }
          if (verbose || sj_test_voice_word_errors (command, normal, NULL) > 0)
            g_print ("  [%s %s %u] \"%s\" heard as \"%s\" (confidence %.2f)\n", sets[s].name, conditions[c].voice,
                     conditions[c].speed, command, normal, confidence);

          for (guint m = 1; m < (live_only ? 1 : G_N_ELEMENTS (mode_names)); m++)
            {
              g_autofree char *other = recognize_offline (offline[m], audio);

              score (&sets[s].score[m], command, other);
              if (verbose)
                g_print ("      %-36s \"%s\"\n", mode_names[m], other != NULL ? other : "");
            }
        }

  g_print ("\n");
  for (guint s = 0; s < G_N_ELEMENTS (sets); s++)
    {
      if (sets[s].commands->len == 0)
        continue;
      g_print ("%s set: %u commands x %u voices/speeds = %u utterances\n", sets[s].name, sets[s].commands->len,
               n_conditions, sets[s].score[0].n);
      for (guint m = 0; m < G_N_ELEMENTS (mode_names); m++)
        {
          Score *sc = &sets[s].score[m];

          g_print ("  %-36s WER %5.1f %% (%u/%u words)   commands word for word %5.1f %% (%u/%u)\n", mode_names[m],
                   100.0 * sc->errors / MAX (sc->words, 1), sc->errors, sc->words,
                   100.0 * sc->exact / MAX (sc->n, 1), sc->exact, sc->n);
        }
      g_print ("  mean confidence: %.2f when word for word (%u), %.2f otherwise (%u)\n",
               sets[s].conf_right_sum / MAX (sets[s].n_right, 1), sets[s].n_right,
               sets[s].conf_wrong_sum / MAX (sets[s].n_wrong, 1), sets[s].n_wrong);
      for (guint t = 0; t < G_N_ELEMENTS (thresholds); t++)
        g_print ("  confidence threshold %.2f: %u of %u right commands sent at once, %u of %u wrong ones held\n",
                 thresholds[t], sets[s].right_sent[t], sets[s].n_right, sets[s].wrong_held[t], sets[s].n_wrong);
      report ("end of speech -> text", sets[s].speech_end);
      report ("release -> text", sets[s].release);
    }
  print_load ("at end");

  for (guint m = 0; m < G_N_ELEMENTS (mode_names); m++)
    g_clear_object (&offline[m]);
  g_rmdir (dir);

  return 0;
}
