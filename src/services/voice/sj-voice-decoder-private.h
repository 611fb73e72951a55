/* sj-voice-decoder-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The offline recogniser's decoder, set up for the jam (sj-voice-decoder.c),
 * for sj-voice-recognizer.c only.
 */

#pragma once

#include <glib.h>
#include <pocketsphinx.h>

#include "sj-voice-recognizer.h"

G_BEGIN_DECLS

/* The searches of the decoder: the grammar of jam commands, the jam's
 * domain language model, and the general English model (the peer). */
#define SJ_VOICE_GRAMMAR_SEARCH "jam"
#define SJ_VOICE_DOMAIN_SEARCH "domain"
#define SJ_VOICE_LM_SEARCH "english"

/* One search's reading of an utterance. */
typedef struct
{
  char   *text;       /* the words, "" for none */
  int     n_frames;
  double  acoustic;   /* the words' acoustic score per frame (log, higher fits better) */
  double  path;       /* the search's whole path score per frame (acoustic and language) */
  double  posterior;  /* the whole reading's posterior probability, 0 to 1 */
  double  word_posterior;  /* its words' mean posterior probability, 0 to 1 */
  char  **nbest;      /* the next best distinct readings (a language model's search), or NULL */
} SjVoiceHyp;

ps_decoder_t *_sj_voice_decoder_load   (const char    *model_dir,
                                        GError       **error);
gboolean      _sj_voice_decoder_decode (ps_decoder_t  *ps,
                                        const char    *search,
                                        const gint16  *samples,
                                        gsize          n_samples,
                                        guint          n_best,
                                        SjVoiceHyp    *hyp);
void          _sj_voice_hyp_clear      (SjVoiceHyp    *hyp);
char         *_sj_voice_spell_out      (char          *text);
char         *_sj_voice_hear           (ps_decoder_t  *ps,
                                        SjVoiceMode    mode,
                                        const gint16  *samples,
                                        gsize          n_samples,
                                        double        *confidence);

G_END_DECLS
