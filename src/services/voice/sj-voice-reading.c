/* sj-voice-reading.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * PocketSphinx's reading of an utterance (issue 30): the searches the
 * recogniser's mode asks for (the command grammar, the jam's domain model,
 * general English) and, in the jam mode, the choice between the grammar's
 * words and the domain model's, with how sure it is. Run on the
 * recogniser's worker thread (sj-voice-recognizer.c).
 */

#include "config.h"

#include <stdlib.h>

#include "sj-voice-decoder-private.h"

static void
decode_utterance (ps_decoder_t *ps,
                  const char   *search,
                  const gint16 *samples,
                  gsize         n_samples,
                  guint         n_best,
                  SjVoiceHyp   *hyp)
{
  if (!_sj_voice_decoder_decode (ps, search, samples, n_samples, n_best, hyp))
    hyp->text = g_strdup ("");
  ps_set_search (ps, SJ_VOICE_GRAMMAR_SEARCH);
}

static gboolean
is_blank (const char *text)
{
  return text == NULL || *text == '\0';
}

/* How many of the domain model's best readings the grammar's must be
 * among to be taken: the grammar only holds sentences a jam uses, so
 * when the domain model also finds its words likely, they are the better
 * guess; when it does not, the musician said something the grammar
 * cannot hold, and the grammar's words are only its nearest sentence.
 * (Their scores cannot be compared directly: each search scores its
 * paths against the best in its own beam, with its own language
 * weights.) Chosen with bench/voice on the tuned commands and a
 * development set drawn from the corpus. */
#define DOMAIN_N_BEST 10

/* Or how far the two readings must agree, word for word, for the
 * grammar's to be taken (agreement()). */
#define GRAMMAR_AGREEMENT 0.5

/* How much two readings agree, 0 to 1: one less the word edit distance
 * over the longer one's length. */
static double
agreement (const char *a,
           const char *b)
{
  g_auto(GStrv) x = g_strsplit (a, " ", -1);
  g_auto(GStrv) y = g_strsplit (b, " ", -1);
  guint n = g_strv_length (x), m = g_strv_length (y);
  g_autofree guint *row = g_new (guint, m + 1);

  for (guint j = 0; j <= m; j++)
    row[j] = j;
  for (guint i = 1; i <= n; i++)
    {
      guint diagonal = row[0];

      row[0] = i;
      for (guint j = 1; j <= m; j++)
        {
          guint above = row[j];

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + (g_str_equal (x[i - 1], y[j - 1]) ? 0 : 1));
          diagonal = above;
        }
    }

  return 1.0 - (double) row[m] / MAX (MAX (n, m), 1);
}

/* Returns the text of @grammar or @domain, and in @confidence how sure the
 * choice is, 0 to 1: high when both searches agree (two different models
 * hearing the same words), the mean posterior probability of the domain
 * model's words (from its lattice) when they are taken, and in between
 * when the grammar's words are taken over a differing reading. */
static char *
choose_hyp (SjVoiceHyp *grammar,
            SjVoiceHyp *domain,
            double     *confidence)
{
  guint n_best = 0;
  gboolean take_grammar;

  if (is_blank (grammar->text) || is_blank (domain->text) || g_str_equal (grammar->text, domain->text))
    {
      take_grammar = !is_blank (grammar->text);
      *confidence = g_strcmp0 (grammar->text, domain->text) == 0 ? 1.0 - (1.0 - domain->word_posterior) * 0.25
                                                                 : take_grammar ? 0.5 : domain->word_posterior;
    }
  else
    {
      guint limit = DOMAIN_N_BEST;
      const char *env = g_getenv ("SJ_VOICE_N_BEST");

      if (env != NULL)
        limit = atoi (env);
      const char *agree_env = g_getenv ("SJ_VOICE_AGREE");
      double agree = agreement (grammar->text, domain->text);

      /* Mostly the same words: the grammar's are the domain model's
       * reading put right. */
      take_grammar = agree >= (agree_env != NULL ? g_ascii_strtod (agree_env, NULL) : GRAMMAR_AGREEMENT);
      for (n_best = 0; !take_grammar && domain->nbest != NULL && domain->nbest[n_best] != NULL && n_best < limit; n_best++)
        if (g_str_equal (domain->nbest[n_best], grammar->text))
          {
            take_grammar = TRUE;
            break;
          }
      *confidence = take_grammar ? 0.5 : domain->word_posterior;
    }

  g_debug ("Voice: grammar \"%s\" (path %.0f), domain \"%s\" (path %.0f, posterior %.3f), %d frames: %s (%u)",
           grammar->text, grammar->path, domain->text, domain->path, domain->posterior, domain->n_frames,
           take_grammar ? "grammar" : "domain", n_best);

  return g_strdup (take_grammar ? grammar->text : domain->text);
}

/**
 * _sj_voice_hear:
 * @ps: the PocketSphinx decoder, its searches loaded
 * @mode: what gives the final text
 * @samples: the utterance, 16 kHz mono
 * @confidence: (out): how sure the reading is, 0 to 1
 *
 * Runs the searches @mode asks for on the utterance and chooses a reading.
 *
 * Returns: (transfer full): the words, "" for none
 */
char *
_sj_voice_hear (ps_decoder_t *ps,
                SjVoiceMode   mode,
                const gint16 *samples,
                gsize         n_samples,
                double       *confidence)
{
  SjVoiceHyp grammar = { 0 }, domain = { 0 }, english = { 0 };
  char *text;

  *confidence = 1.0;
  switch (mode)
    {
    case SJ_VOICE_MODE_JAM:
      decode_utterance (ps, SJ_VOICE_GRAMMAR_SEARCH, samples, n_samples, 0, &grammar);
      decode_utterance (ps, SJ_VOICE_DOMAIN_SEARCH, samples, n_samples, DOMAIN_N_BEST, &domain);
      text = choose_hyp (&grammar, &domain, confidence);
      break;

    case SJ_VOICE_MODE_GRAMMAR:
      decode_utterance (ps, SJ_VOICE_GRAMMAR_SEARCH, samples, n_samples, 0, &grammar);
      if (is_blank (grammar.text))
        {
          /* Speech the grammar cannot cover. */
          decode_utterance (ps, SJ_VOICE_LM_SEARCH, samples, n_samples, 0, &english);
          text = g_strdup (english.text);
          *confidence = english.word_posterior;
        }
      else
        {
          text = g_strdup (grammar.text);
          *confidence = grammar.word_posterior;
        }
      break;

    case SJ_VOICE_MODE_DOMAIN:
      decode_utterance (ps, SJ_VOICE_DOMAIN_SEARCH, samples, n_samples, 0, &domain);
      text = g_strdup (domain.text);
      *confidence = domain.word_posterior;
      break;

    case SJ_VOICE_MODE_ENGLISH:
    default:
      decode_utterance (ps, SJ_VOICE_LM_SEARCH, samples, n_samples, 0, &english);
      text = g_strdup (english.text);
      *confidence = english.word_posterior;
      break;
    }
  _sj_voice_hyp_clear (&grammar);
  _sj_voice_hyp_clear (&domain);
  _sj_voice_hyp_clear (&english);

  return text;
}
