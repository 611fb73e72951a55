/* sj-test-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Speech for the voice tests and the benchmark: espeak-ng says a jam
 * command into a WAV, paplay plays it into the test microphone (the null
 * sink SJ_TEST_PULSE_MIC of tests/with-pulse.sh, whose monitor is the
 * default source), and the word error rate compares what was recognised.
 */

#include "config.h"

#include "sj-test-voice.h"
#include "sj-voice-session.h"

const char * const sj_test_voice_commands[SJ_TEST_VOICE_N_COMMANDS] = {
  "add a hi hat",
  "more reverb",
  "add a kick drum",
  "remove the snare",
  "make it faster",
  "slow down a bit",
  "play a techno beat",
  "less delay",
  "make the bass deeper",
  "add some claps",
  "mute the drums",
  "set the tempo to one twenty",
  "make it groovier",
  "add a synth pad",
  "turn up the volume",
  "give me a house groove",
  "more swing",
  "add a bass line",
  "make it darker",
  "stop the music",
  "undo that",
  "add a cowbell",
  "less distortion",
  "play an ambient track",
  "bring in the piano",
  "make the drums punchier",
  "add jux rev",
  "switch to drum and bass",
  "a bit more filter",
  "make it louder",
};

/* Whether there is a test microphone and a voice to speak into it. */
gboolean
sj_test_voice_available (void)
{
  g_autofree char *espeak = g_find_program_in_path ("espeak-ng");
  g_autofree char *paplay = g_find_program_in_path ("paplay");

  return g_getenv ("SJ_TEST_PULSE_MIC") != NULL && espeak != NULL && paplay != NULL;
}

/* Returns the path of a WAV of @text said by espeak-ng, in @dir. */
char *
sj_test_voice_render (const char *text,
                      const char *dir,
                      guint       index)
{
  return sj_test_voice_render_as (text, dir, index, "en-us", 160);
}

/* Returns the path of a WAV of @text said by espeak-ng's @voice at @speed
 * words a minute, in @dir. */
char *
sj_test_voice_render_as (const char *text,
                         const char *dir,
                         guint       index,
                         const char *voice,
                         guint       speed)
{
  g_autofree char *name = g_strdup_printf ("command-%04u.wav", index);
  g_autofree char *speed_arg = g_strdup_printf ("%u", speed);
  char *path = g_build_filename (dir, name, NULL);
  const char *argv[] = { "espeak-ng", "-v", voice, "-s", speed_arg, "-w", path, text, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);

  return path;
}

static void
played_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_wait_check_finish (G_SUBPROCESS (object), result, &error);
  g_assert_no_error (error);
  *done = TRUE;
}

/* Plays @wav into the test microphone and returns once it is played out,
 * running the main loop meanwhile (the capture and recogniser work). */
void
sj_test_voice_play (const char *wav)
{
  g_autofree char *device = g_strdup_printf ("--device=%s", g_getenv ("SJ_TEST_PULSE_MIC"));
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "paplay", device, wav, NULL);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (process, NULL, played_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* Lower case, letters and digits, single spaces: "Add a hi-hat." is
 * "add a hi hat". */
char *
sj_test_voice_normalize (const char *text)
{
  GString *out = g_string_new (NULL);
  gboolean space = TRUE;

  for (const char *p = text; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isalnum (c) || c == '\'')
        {
          g_string_append_unichar (out, g_unichar_tolower (c));
          space = FALSE;
        }
      else if (!space)
        {
          g_string_append_c (out, ' ');
          space = TRUE;
        }
    }
  if (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);

  return g_string_free (out, FALSE);
}

/* The word-level edit distance (substitutions, insertions, deletions)
 * between the normalised texts; @n_words gets the reference's length. */
guint
sj_test_voice_word_errors (const char *reference,
                           const char *hypothesis,
                           guint      *n_words)
{
  g_autofree char *ref_text = sj_test_voice_normalize (reference);
  g_autofree char *hyp_text = sj_test_voice_normalize (hypothesis);
  g_auto(GStrv) ref = g_strsplit (ref_text, " ", -1);
  g_auto(GStrv) hyp = g_strsplit (hyp_text, " ", -1);
  guint n = *ref_text != '\0' ? g_strv_length (ref) : 0;
  guint m = *hyp_text != '\0' ? g_strv_length (hyp) : 0;
  g_autofree guint *row = g_new (guint, m + 1);
  guint result;

  for (guint j = 0; j <= m; j++)
    row[j] = j;
  for (guint i = 1; i <= n; i++)
    {
      guint diagonal = row[0];

      row[0] = i;
      for (guint j = 1; j <= m; j++)
        {
          guint above = row[j];
          guint cost = g_str_equal (ref[i - 1], hyp[j - 1]) ? 0 : 1;

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + cost);
          diagonal = above;
        }
    }
  result = row[m];

  if (n_words != NULL)
    *n_words = n;

  return result;
}

/* How long the microphone must hear silence for the speech to be over:
 * espeak-ng leaves silent gaps between words. */
#define END_SILENCE_US (250 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  double        level;
  guint         n_levels;
  guint         n_partials;
  gboolean      done;
  GAsyncResult *result;
} Say;

static void
say_level_cb (SjVoiceSession *session,
              double          level,
              Say            *say)
{
  say->level = level;
  say->n_levels++;
}

static void
say_partial_cb (SjVoiceSession *session,
                const char     *text,
                Say            *say)
{
  say->n_partials++;
}

static void
say_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Say *say = user_data;

  say->result = g_object_ref (result);
  say->done = TRUE;
}

static void
say_wait (Say *say)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!say->done)
    {
      g_main_context_iteration (NULL, TRUE);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    }
  say->done = FALSE;
}

static void
say_wait_level (Say *say)
{
  guint n_levels = say->n_levels;
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (say->n_levels == n_levels)
    {
      g_main_context_iteration (NULL, TRUE);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    }
}

/* Starts listening on @session, says @wav into the microphone once audio
 * flows (as one speaks once the button is down), waits until the
 * microphone has heard silence for 250 ms (the end of speech), stops (the
 * release of the button) and returns the text. @timing gets the time from
 * the release to the text, from the end of speech (the first silent 50 ms
 * after it) to the text, and the number of partial results. */
char *
sj_test_voice_say (SjVoiceSession      *session,
                   const char          *wav,
                   SjTestVoiceTiming   *timing,
                   GError             **error)
{
  g_autoptr(GError) start_error = NULL;
  Say say = { 0 };
  gulong level_handler = g_signal_connect (session, "level", G_CALLBACK (say_level_cb), &say);
  gulong partial_handler = g_signal_connect (session, "partial", G_CALLBACK (say_partial_cb), &say);
  gint64 silent_since = 0;
  gint64 released;
  char *text;

  sj_voice_session_start_async (session, NULL, say_done_cb, &say);
  say_wait (&say);
  sj_voice_session_start_finish (session, say.result, &start_error);
  g_clear_object (&say.result);
  g_assert_no_error (start_error);

  say_wait_level (&say);
  say.n_partials = 0;
  sj_test_voice_play (wav);

  for (;;)
    {
      say_wait_level (&say);
      if (say.level > 0.05)
        silent_since = 0;
      else if (silent_since == 0)
        silent_since = g_get_monotonic_time ();
      else if (g_get_monotonic_time () - silent_since >= END_SILENCE_US)
        break;
    }

  released = g_get_monotonic_time ();
  sj_voice_session_stop_async (session, NULL, say_done_cb, &say);
  say_wait (&say);
  text = sj_voice_session_stop_finish (session, say.result, error);
  g_clear_object (&say.result);

  if (timing != NULL)
    {
      gint64 now = g_get_monotonic_time ();

      timing->release_to_text_us = now - released;
      timing->speech_end_to_text_us = now - silent_since;
      timing->n_partials = say.n_partials;
    }

  g_signal_handler_disconnect (session, level_handler);
  g_signal_handler_disconnect (session, partial_handler);

  return text;
}
