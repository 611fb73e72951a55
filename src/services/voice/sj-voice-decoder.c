/* sj-voice-decoder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The PocketSphinx decoder of the offline recogniser, set up for the jam:
 * the US English acoustic model and CMUdict, the words CMUdict lacks
 * (data/voice/jam-extra.dict), the grammar of jam commands
 * (data/voice/jam-commands.gram) as one search, the jam's domain language
 * model (data/voice/make-corpus.py, issue 30) as another, and the general
 * English language model beside them (the peer bench/voice measures).
 * Also one decoding of a whole utterance with its scores, and the way back
 * from the dictionary's spelling to the musician's. Called on the
 * recogniser's worker thread only (sj-voice-recognizer.c).
 */

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sj-bundled-data.h"
#include "sj-voice-decoder-private.h"
#include "sj-voice-error.h"

#define GRAMMAR_RESOURCE "/io/github/strudeljam/StrudelJam/voice/jam-commands.gram"
#define EXTRA_DICT_RESOURCE "/io/github/strudeljam/StrudelJam/voice/jam-extra.dict"
#define DOMAIN_LM_RESOURCE "/io/github/strudeljam/StrudelJam/voice/jam.lm"

/* The words CMUdict lacks ("synth", "groovier"), one "word PHONES" a line;
 * lines starting with # are comments. */
static gboolean
add_extra_words (ps_decoder_t  *ps,
                 GError       **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *text = NULL;

  sj_bundled_data_register ();
  bytes = g_resources_lookup_data (EXTRA_DICT_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return FALSE;

  text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      char *space;

      if (*line == '\0' || *line == '#')
        continue;
      space = strchr (line, ' ');
      if (space == NULL)
        continue;
      *space = '\0';
      /* -1 when the word is already there: a newer model has it. */
      ps_add_word (ps, line, g_strstrip (space + 1), lines[i + 1] == NULL);
    }

  return TRUE;
}

/* PocketSphinx reads a language model from a file only: the domain model
 * compiled into the binary goes through a private temporary file, removed
 * once read. */
#define DOMAIN_LW 6.5

static gboolean
add_domain_lm (ps_decoder_t  *ps,
               GError       **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *path = NULL;
  gboolean ok;
  int fd;

  bytes = g_resources_lookup_data (DOMAIN_LM_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return FALSE;

  fd = g_file_open_tmp ("sj-jam-XXXXXX.lm", &path, error);
  if (fd < 0)
    return FALSE;
  close (fd);
  if (!g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), error))
    {
      g_unlink (path);
      return FALSE;
    }
  {
    cmd_ln_t *config = ps_get_config (ps);
    double lw = cmd_ln_float32_r (config, "-lw");
    const char *env = g_getenv ("SJ_VOICE_DOMAIN_LW");

    /* A small vocabulary and sentences a jam uses: the domain model may
     * weigh more against the sound than the general one does. */
    cmd_ln_set_float32_r (config, "-lw", (env != NULL ? g_ascii_strtod (env, NULL) : DOMAIN_LW));
    ok = ps_set_lm_file (ps, SJ_VOICE_DOMAIN_SEARCH, path) == 0;
    cmd_ln_set_float32_r (config, "-lw", lw);
  }
  g_unlink (path);
  if (!ok)
    g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                 _("The jam language model does not fit the speech model"));

  return ok;
}

/* Returns: (transfer full): the decoder with the model in @model_dir, the
 * jam's words and grammar, and the general English model when installed,
 * searching the grammar; or %NULL with @error set. */
ps_decoder_t *
_sj_voice_decoder_load (const char  *model_dir,
                        GError     **error)
{
  g_autofree char *hmm = g_build_filename (model_dir, "en-us", "en-us", NULL);
  g_autofree char *dict = g_build_filename (model_dir, "en-us", "cmudict-en-us.dict", NULL);
  g_autofree char *lm = g_build_filename (model_dir, "en-us", "en-us.lm.bin", NULL);
  g_autofree char *grammar = NULL;
  g_autoptr(GBytes) grammar_bytes = NULL;
  ps_decoder_t *ps;
  cmd_ln_t *config;

  if (!g_file_test (hmm, G_FILE_TEST_IS_DIR) || !g_file_test (dict, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                   _("The offline speech model is not installed (looked in %s)"), model_dir);
      return NULL;
    }

  config = cmd_ln_init (NULL, ps_args (), TRUE,
                        "-hmm", hmm,
                        "-dict", dict,
                        "-logfn", "/dev/null",
                        /* A whisper of noise, so the digital silence of a
                         * muted or virtual input does not skew the
                         * normalisation of the cepstra. */
                        "-dither", "yes",
                        NULL);
  if (config == NULL || (ps = ps_init (config)) == NULL)
    {
      if (config != NULL)
        cmd_ln_free_r (config);
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                   _("The offline speech model in %s cannot be loaded"), model_dir);
      return NULL;
    }
  cmd_ln_free_r (config);

  if (!add_extra_words (ps, error))
    {
      ps_free (ps);
      return NULL;
    }

  grammar_bytes = g_resources_lookup_data (GRAMMAR_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (grammar_bytes == NULL)
    {
      ps_free (ps);
      return NULL;
    }
  grammar = g_strndup (g_bytes_get_data (grammar_bytes, NULL), g_bytes_get_size (grammar_bytes));
  if (ps_set_jsgf_string (ps, SJ_VOICE_GRAMMAR_SEARCH, grammar) != 0)
    {
      ps_free (ps);
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                   _("The grammar of jam commands does not fit the speech model"));
      return NULL;
    }

  if (!add_domain_lm (ps, error))
    {
      ps_free (ps);
      return NULL;
    }

  /* The general model is optional: without it, speech outside the grammar
   * is simply not recognised. */
  if (g_file_test (lm, G_FILE_TEST_IS_REGULAR))
    ps_set_lm_file (ps, SJ_VOICE_LM_SEARCH, lm);

  ps_set_search (ps, SJ_VOICE_GRAMMAR_SEARCH);

  return ps;
}

/* Decodes @n_samples of @samples (16 kHz mono) as one utterance with
 * @search and fills @hyp: the words, and how well they fit the sound.
 * Decoding it whole normalises the cepstra over all of it, which
 * recognises much better than the live decoding that gives the partial
 * words (which only knows the utterances before). With @n_best, the
 * next best distinct readings too (up to that many, from the lattice of
 * a language model's search). Returns %FALSE when the search does not
 * exist. */
gboolean
_sj_voice_decoder_decode (ps_decoder_t  *ps,
                          const char    *search,
                          const gint16  *samples,
                          gsize          n_samples,
                          guint          n_best,
                          SjVoiceHyp    *hyp)
{
  const char *text;
  ps_seg_t *seg;
  gint64 ascr_sum = 0;
  gint32 score = 0;
  double word_posterior_sum = 0;
  guint n_words = 0;

  memset (hyp, 0, sizeof *hyp);
  if (ps_set_search (ps, search) != 0)
    return FALSE;

  if (ps_start_utt (ps) != 0)
    return FALSE;
  ps_process_raw (ps, samples, n_samples, FALSE, TRUE);
  ps_end_utt (ps);

  text = ps_get_hyp (ps, &score);
  hyp->text = g_strdup (text != NULL ? text : "");
  hyp->n_frames = MAX (ps_get_n_frames (ps), 1);
  for (seg = ps_seg_iter (ps); seg != NULL; seg = ps_seg_next (seg))
    {
      gint32 ascr = 0, lscr = 0, lback = 0;
      gint32 prob = ps_seg_prob (seg, &ascr, &lscr, &lback);
      const char *word = ps_seg_word (seg);

      ascr_sum += ascr;
      /* Silences and noises are not words. */
      if (word != NULL && *word != '<' && *word != '[')
        {
          word_posterior_sum += logmath_exp (ps_get_logmath (ps), prob);
          n_words++;
        }
    }
  hyp->word_posterior = n_words > 0 ? word_posterior_sum / n_words : 0;
  hyp->acoustic = (double) ascr_sum / hyp->n_frames;
  hyp->path = (double) score / hyp->n_frames;
  hyp->posterior = logmath_exp (ps_get_logmath (ps), ps_get_prob (ps));

  if (n_best > 0)
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      ps_nbest_t *nbest = ps_nbest (ps);
      guint tries = 0;

      /* The same words come back with other timings: at most a few
       * paths more than the readings wanted. */
      while (nbest != NULL && g_hash_table_size (seen) < n_best && tries++ < n_best * 4)
        {
          const char *reading;

          nbest = ps_nbest_next (nbest);
          if (nbest == NULL)
            break;
          reading = ps_nbest_hyp (nbest, NULL);
          if (reading != NULL && g_hash_table_add (seen, g_strdup (reading)))
            g_strv_builder_add (builder, reading);
        }
      if (nbest != NULL)
        ps_nbest_free (nbest);
      hyp->nbest = g_strv_builder_end (builder);
    }

  return TRUE;
}

void
_sj_voice_hyp_clear (SjVoiceHyp *hyp)
{
  g_clear_pointer (&hyp->text, g_free);
  g_clear_pointer (&hyp->nbest, g_strfreev);
}

/* The dictionary spells a few words as one ("hihat", so that the
 * recogniser takes it as a whole); the musician reads them as written. */
/* Returns: (transfer full): @text (consumed) with the words spelled as
 * the musician reads them. */
char *
_sj_voice_spell_out (char *text)
{
  static const char * const words[][2] = {
    { "hihats", "hi-hats" },
    { "hihat", "hi-hat" },
  };
  g_auto(GStrv) parts = g_strsplit (text, " ", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    for (guint j = 0; j < G_N_ELEMENTS (words); j++)
      if (g_str_equal (parts[i], words[j][0]))
        {
          g_free (parts[i]);
          parts[i] = g_strdup (words[j][1]);
        }

  g_free (text);

  return g_strjoinv (" ", parts);
}
