/* sj-moonshine-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Moonshine engine of the offline recogniser (issue 30): Moonshine
 * (English, MIT) run by onnxruntime, loaded at run time, with the words
 * held to the jam domain model's and its trigrams added at each word's end
 * (sj-moonshine.c), and the word model it searches with
 * (sj-moonshine-lm.c). For sj-voice-recognizer.c, its tests and
 * bench/voice only. Not thread-safe: one thread uses an engine at a time.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The files of a model folder: the two ONNX graphs, the tokenizer's pieces
 * (one a line, the line number is the token) and the jam words' tokens
 * ("word<TAB>token token ..." a line, for each spelling of a word). */
#define SJ_MOONSHINE_ENCODER "encoder_model.onnx"
#define SJ_MOONSHINE_DECODER "decoder_model_merged.onnx"
#define SJ_MOONSHINE_TOKENS "tokens.txt"
#define SJ_MOONSHINE_WORDS "words.tsv"

/* The longest utterance decoded, in seconds: the rest is cut. */
#define SJ_MOONSHINE_MAX_SECONDS 30

typedef struct _SjMoonshine SjMoonshine;
typedef struct _SjMoonshineLm SjMoonshineLm;

/* The search's settings; bench/moonshine.mjs's defaults. */
typedef struct
{
  gboolean greedy;       /* Moonshine's own reading, as it ships */
  double   lm_weight;    /* the domain model's weight (natural log) */
  guint    beam;
} SjMoonshineOptions;

void         _sj_moonshine_options_init (SjMoonshineOptions  *options);

SjMoonshine *_sj_moonshine_load         (const char          *library,
                                         const char          *model_dir,
                                         GError             **error);
char        *_sj_moonshine_transcribe   (SjMoonshine         *self,
                                         const gint16        *samples,
                                         gsize                n_samples,
                                         const SjMoonshineOptions *options,
                                         double              *confidence,
                                         GCancellable        *cancellable,
                                         GError             **error);
void         _sj_moonshine_free         (SjMoonshine         *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjMoonshine, _sj_moonshine_free)

/* The word model: the domain trigram model and a trie of its words' tokens. */
#define SJ_MOONSHINE_NO_WORD (-1)

typedef struct
{
  int    token;
  guint  child;
} SjMoonshineEdge;

typedef struct
{
  int              word;      /* the word ending here, or SJ_MOONSHINE_NO_WORD */
  guint            n_edges;
  SjMoonshineEdge *edges;
} SjMoonshineNode;

SjMoonshineLm   *_sj_moonshine_lm_new      (const char     *arpa,
                                            gsize           arpa_len,
                                            const char     *words_tsv,
                                            GError        **error);
void             _sj_moonshine_lm_free     (SjMoonshineLm  *lm);
/* The trie's root is node 0. */
const SjMoonshineNode *_sj_moonshine_lm_node (SjMoonshineLm *lm,
                                              guint          node);
/* log10 P(@w | @h2 @h1) with back-off; words by their numbers, the
 * sentence's start and end are _sj_moonshine_lm_bos/eos (). */
double           _sj_moonshine_lm_log10    (SjMoonshineLm  *lm,
                                            int             h2,
                                            int             h1,
                                            int             w);
int              _sj_moonshine_lm_bos      (SjMoonshineLm  *lm);
int              _sj_moonshine_lm_eos      (SjMoonshineLm  *lm);
const char      *_sj_moonshine_lm_word     (SjMoonshineLm  *lm,
                                            int             word);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjMoonshineLm, _sj_moonshine_lm_free)

G_END_DECLS
