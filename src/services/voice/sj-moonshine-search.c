/* sj-moonshine-search.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Moonshine engine's search (issue 30), bench/voice/moonshine/
 * moonshine.mjs's in C: the encoder once, then the decoder a token at a
 * time for a beam of readings at once, each with its own keys and values,
 * the encoder's shared; the words held to the jam domain model's trie and
 * scored by its trigrams as they end (sj-moonshine-lm.c).
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "sj-moonshine-engine-private.h"
#include "sj-voice-error.h"

/* The search. */

typedef struct
{
  double   ac;        /* the model's log probability of the tokens */
  double   lm;        /* the domain model's of the words (natural log) */
  guint    node;      /* in the trie */
  int      h2, h1;    /* the last two words */
  gboolean boundary;  /* after a punctuation mark */
  int      parent;    /* the reading it grew from, in the last step's batch */
  guint    n_tokens;
  guint    n_words;
  int      tokens[MAX_TOKENS];
  int      words[MAX_TOKENS];
} Reading;

typedef enum
{
  GROW_WORD,   /* a token further into the word */
  GROW_NEW,    /* the first token of a new word */
  GROW_PUNCT,  /* a punctuation mark after a word */
  GROW_EOS,    /* the end */
  GROW_FREE,   /* any token (greedy) */
} Grow;

typedef struct
{
  double lp;
  int    token;
  Grow   grow;
  guint  child;
} Option;

static const int punctuation[] = { 29889, 29892, 29973, 29991, 29901 };  /* . , ? ! : */

static double
score (const Reading            *r,
       const SjMoonshineOptions *options)
{
  return r->ac + options->lm_weight * r->lm;
}

static int
compare_options (gconstpointer a,
                 gconstpointer b)
{
  const Option *x = a, *y = b;

  return x->lp < y->lp ? 1 : x->lp > y->lp ? -1 : 0;
}

typedef struct
{
  const SjMoonshineOptions *options;
  gboolean                  per_token;
} Ranking;

static int
compare_readings (gconstpointer a,
                  gconstpointer b,
                  gpointer      data)
{
  const Reading *x = *(Reading *const *) a, *y = *(Reading *const *) b;
  const Ranking *ranking = data;
  double sx = score (x, ranking->options), sy = score (y, ranking->options);

  if (ranking->per_token)
    {
      sx /= MAX (x->n_tokens, 1);
      sy /= MAX (y->n_tokens, 1);
    }

  return sx < sy ? 1 : sx > sy ? -1 : 0;
}

/* One run's values, released together. */
typedef struct
{
  SjMoonshine *self;
  OrtValue    *values[4 * MAX_LAYERS + 3];
  guint        n;
} Values;

static void
values_clear (Values *values)
{
  for (guint i = 0; i < values->n; i++)
    RELEASE (values->self, SJ_ORT_RELEASE_VALUE, values->values[i]);
  values->n = 0;
}

static OrtValue *
tensor (SjMoonshine      *self,
        Values           *values,
        void             *data,
        gsize             size,
        const int64_t    *shape,
        gsize             n_dims,
        SjOrtElementType  type,
        GError          **error)
{
  static gint64 nothing;
  OrtValue *value = NULL;

  if (!ok (self, ORT (self, SJ_ORT_CREATE_TENSOR_WITH_DATA_AS_ORT_VALUE, SjOrtCreateTensorWithData) (
             self->memory, data != NULL ? data : &nothing, size, shape, n_dims, type, &value),
           SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error))
    return NULL;
  values->values[values->n++] = value;

  return value;
}

static float *
data_of (SjMoonshine *self,
         OrtValue    *value,
         int64_t     *dims,
         gsize        n_dims)
{
  OrtTensorTypeAndShapeInfo *info = NULL;
  void *data = NULL;

  if (dims != NULL)
    {
      OrtStatus *status = ORT (self, SJ_ORT_GET_TENSOR_TYPE_AND_SHAPE, SjOrtGetTensorTypeAndShape) (value, &info);

      if (status != NULL || ORT (self, SJ_ORT_GET_DIMENSIONS, SjOrtGetDimensions) (info, dims, n_dims) != NULL)
        memset (dims, 0, n_dims * sizeof (int64_t));
      RELEASE (self, SJ_ORT_RELEASE_STATUS, status);
      RELEASE (self, SJ_ORT_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, info);
    }
  if (ORT (self, SJ_ORT_GET_TENSOR_MUTABLE_DATA, SjOrtGetTensorMutableData) (value, &data) != NULL)
    return NULL;

  return data;
}

/* @n copies of @size floats. */
static float *
tile (const float *data,
      gsize        size,
      guint        n)
{
  float *out = g_new (float, size * n);

  for (guint i = 0; i < n; i++)
    memcpy (out + i * size, data, size * sizeof (float));

  return out;
}

static void
terminate_cb (GCancellable *cancellable,
              gpointer      data)
{
  gpointer *pair = data;
  SjMoonshine *self = pair[0];
  OrtStatus *status = ORT (self, SJ_ORT_RUN_OPTIONS_SET_TERMINATE, SjOrtRunOptionsSetTerminate) (pair[1]);

  RELEASE (self, SJ_ORT_RELEASE_STATUS, status);
}

static char *
pieces_to_text (SjMoonshine   *self,
                const Reading *r)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < r->n_tokens; i++)
    {
      const char *piece = (guint) r->tokens[i] < self->pieces->len ? self->pieces->pdata[r->tokens[i]] : "";
      guint byte;

      if (r->tokens[i] == EOS)
        break;
      if (strlen (piece) == 6 && sscanf (piece, "<0x%2X>", &byte) == 1)
        g_string_append_c (text, (char) byte);
      else if (*piece != '<')
        g_string_append (text, piece);
    }
  g_string_replace (text, "\xe2\x96\x81", " ", 0);  /* ▁ */

  return g_strstrip (g_string_free (text, FALSE));
}

/* Gives the options of growing @r by one token, best first, in @out. */
static void
grow_options (SjMoonshine              *self,
              const Reading            *r,
              const float              *logits,
              gint64                    n_vocab,
              const SjMoonshineOptions *options,
              GArray                   *out)
{
  const SjMoonshineNode *node = _sj_moonshine_lm_node (self->lm, r->node);
  const SjMoonshineNode *root = _sj_moonshine_lm_node (self->lm, 0);
  double max = -INFINITY, sum = 0.0, lse;

  for (gint64 v = 0; v < n_vocab; v++)
    max = MAX (max, logits[v]);
  for (gint64 v = 0; v < n_vocab; v++)
    sum += exp (logits[v] - max);
  lse = max + log (sum);

#define OFFER(tok, how, next) G_STMT_START { \
    Option option = { logits[(tok)] - lse, (tok), (how), (next) }; \
    if ((gint64) (tok) < n_vocab) g_array_append_val (out, option); \
  } G_STMT_END

  g_array_set_size (out, 0);
  if (options->greedy)
    {
      gint64 best = 0;

      for (gint64 v = 1; v < n_vocab; v++)
        if (logits[v] > logits[best])
          best = v;
      OFFER ((int) best, best == EOS ? GROW_EOS : GROW_FREE, 0);
      return;
    }

  for (guint e = 0; e < node->n_edges; e++)
    OFFER (node->edges[e].token, GROW_WORD, node->edges[e].child);
  if (node->word != SJ_MOONSHINE_NO_WORD || r->boundary)
    {
      if (r->node != 0)
        for (guint e = 0; e < root->n_edges; e++)
          OFFER (root->edges[e].token, GROW_NEW, root->edges[e].child);
      if (!r->boundary)
        for (guint p = 0; p < G_N_ELEMENTS (punctuation); p++)
          OFFER (punctuation[p], GROW_PUNCT, 0);
      if (r->n_words > 0)
        OFFER (EOS, GROW_EOS, 0);
    }
#undef OFFER
  g_array_sort (out, compare_options);
}

/* @r grown by @option; NULL when that ends it (then it is added to @done). */
static Reading *
grow (SjMoonshine              *self,
      const Reading            *r,
      int                       parent,
      const Option             *option,
      const SjMoonshineOptions *options,
      GPtrArray                *done)
{
  const SjMoonshineNode *node = _sj_moonshine_lm_node (self->lm, r->node);
  Reading *next = g_memdup2 (r, sizeof *r);

  next->ac += option->lp;
  next->node = option->child;
  next->boundary = FALSE;
  next->parent = parent;
  next->tokens[next->n_tokens++] = option->token;
  if (!options->greedy && option->grow != GROW_WORD && node->word != SJ_MOONSHINE_NO_WORD && r->node != 0)
    {
      next->lm += _sj_moonshine_lm_log10 (self->lm, r->h2, r->h1, node->word) * G_LN10;
      next->h2 = r->h1;
      next->h1 = node->word;
      next->words[next->n_words++] = node->word;
    }
  if (option->grow == GROW_PUNCT)
    {
      next->node = 0;
      next->boundary = TRUE;
    }
  if (option->grow == GROW_EOS)
    {
      if (!options->greedy)
        next->lm += _sj_moonshine_lm_log10 (self->lm, next->h2, next->h1, _sj_moonshine_lm_eos (self->lm)) * G_LN10;
      g_ptr_array_add (done, next);
      return NULL;
    }

  return next;
}

/**
 * _sj_moonshine_transcribe:
 * @samples: 16 kHz signed 16-bit mono; past SJ_MOONSHINE_MAX_SECONDS cut
 * @confidence: (out) (optional): how sure the reading is, 0 to 1: the
 *   model's mean probability of its tokens (their geometric mean)
 *
 * Returns: the words ("" for none), or %NULL with @error set (cancelled:
 *   %G_IO_ERROR_CANCELLED, even in the middle of a run of the model)
 */
char *
_sj_moonshine_transcribe (SjMoonshine               *self,
                          const gint16              *samples,
                          gsize                      n_samples,
                          const SjMoonshineOptions  *options,
                          double                    *confidence,
                          GCancellable              *cancellable,
                          GError                   **error)
{
  gsize n_audio = MIN (n_samples, (gsize) SJ_MOONSHINE_MAX_SECONDS * 16000);
  guint max_tokens = MIN (n_audio * 6 / 16000 + 4, MAX_TOKENS);
  guint n_kv = 2 * self->n_layers, beam = options->greedy ? 1 : MAX (options->beam, 1);
  g_autofree float *audio = g_new (float, MAX (n_audio, 1));
  g_autoptr(GPtrArray) readings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) done = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) grown = g_array_new (FALSE, FALSE, sizeof (Option));
  float *kv[2 * MAX_LAYERS] = { NULL }, *cross[2 * MAX_LAYERS] = { NULL };
  g_autofree float *hidden = NULL;
  int64_t hidden_dims[3] = { 0 }, cross_dims[4] = { 0 };
  OrtRunOptions *run = NULL;
  gpointer pair[2] = { self, NULL };
  Values values = { self, { NULL }, 0 };
  gulong handler = 0;
  gboolean failed = FALSE;
  Reading *first;
  Ranking ranking = { options, TRUE };
  char *text = NULL;

  if (!ok (self, ORT (self, SJ_ORT_CREATE_RUN_OPTIONS, SjOrtCreateRunOptions) (&run),
           SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error))
    return NULL;
  pair[1] = run;
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (terminate_cb), pair, NULL);

  /* The encoder, once. */
  for (gsize i = 0; i < n_audio; i++)
    audio[i] = samples[i] / 32768.0f;
  {
    int64_t shape[2] = { 1, n_audio };
    const char *in_name = "input_values", *out_name = "last_hidden_state";
    OrtValue *in = tensor (self, &values, audio, n_audio * sizeof (float), shape, 2, SJ_ORT_FLOAT, error);
    OrtValue *out = NULL;

    failed = in == NULL
             || !ok (self, ORT (self, SJ_ORT_RUN, SjOrtRun) (self->encoder, run, &in_name, (const OrtValue *const *) &in, 1,
                                                              &out_name, 1, &out),
                     SJ_VOICE_ERROR_MODEL_INVALID, _("The Moonshine encoder failed"), error);
    if (!failed)
      {
        float *data = data_of (self, out, hidden_dims, 3);

        hidden = data != NULL ? g_memdup2 (data, hidden_dims[0] * hidden_dims[1] * hidden_dims[2] * sizeof (float)) : NULL;
        RELEASE (self, SJ_ORT_RELEASE_VALUE, out);
        failed = hidden == NULL;
        if (failed)
          g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_INVALID, _("The Moonshine encoder failed"));
      }
    values_clear (&values);
  }

  first = g_new0 (Reading, 1);
  first->h2 = first->h1 = _sj_moonshine_lm_bos (self->lm);
  g_ptr_array_add (readings, first);

  for (guint t = 0; !failed && t < max_tokens && readings->len > 0; t++)
    {
      guint n = readings->len, n_out = t == 0 ? 1 + 2 * n_kv : 1 + n_kv;
      gsize hidden_size = hidden_dims[1] * hidden_dims[2];
      gsize kv_size = self->n_heads * t * self->head_dim;
      gsize cross_size = self->n_heads * cross_dims[2] * self->head_dim;
      g_autofree gint64 *ids = g_new (gint64, n);
      g_autofree float *hidden_n = tile (hidden, hidden_size, n);
      g_autoptr(GPtrArray) cross_n = g_ptr_array_new_with_free_func (g_free);
      gboolean use_cache = t > 0;
      OrtValue *inputs[4 * MAX_LAYERS + 3];
      OrtValue *outputs[4 * MAX_LAYERS + 1] = { NULL };
      int64_t ids_shape[2] = { n, 1 }, hidden_shape[3] = { n, hidden_dims[1], hidden_dims[2] }, one = 1;
      int64_t empty_shape[4] = { 0, self->n_heads, 1, self->head_dim };
      int64_t kv_shape[4] = { n, self->n_heads, t, self->head_dim };
      int64_t cross_shape[4] = { n, self->n_heads, cross_dims[2], self->head_dim };
      int64_t logits_dims[3] = { 0 };
      const float *logits;
      g_autoptr(GPtrArray) next = g_ptr_array_new_with_free_func (g_free);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          failed = TRUE;
          break;
        }

      for (guint j = 0; j < n; j++)
        {
          const Reading *r = readings->pdata[j];

          ids[j] = r->n_tokens > 0 ? r->tokens[r->n_tokens - 1] : BOS;
        }
      inputs[0] = tensor (self, &values, ids, n * sizeof (gint64), ids_shape, 2, SJ_ORT_INT64, error);
      inputs[1] = tensor (self, &values, hidden_n, n * hidden_size * sizeof (float), hidden_shape, 3, SJ_ORT_FLOAT, error);
      inputs[2] = tensor (self, &values, &use_cache, 1, &one, 1, SJ_ORT_BOOL, error);
      for (guint i = 0; i < n_kv; i++)
        {
          inputs[3 + i] = t == 0 ? tensor (self, &values, NULL, 0, empty_shape, 4, SJ_ORT_FLOAT, error)
                                 : tensor (self, &values, kv[i], n * kv_size * sizeof (float), kv_shape, 4, SJ_ORT_FLOAT, error);
          if (t > 0)
            g_ptr_array_add (cross_n, tile (cross[i], cross_size, n));
          inputs[3 + n_kv + i] = t == 0 ? tensor (self, &values, NULL, 0, empty_shape, 4, SJ_ORT_FLOAT, error)
                                        : tensor (self, &values, cross_n->pdata[i], n * cross_size * sizeof (float),
                                                  cross_shape, 4, SJ_ORT_FLOAT, error);
        }
      for (guint i = 0; i < 3 + 2 * n_kv; i++)
        failed = failed || inputs[i] == NULL;

      failed = failed
               || !ok (self, ORT (self, SJ_ORT_RUN, SjOrtRun) (self->decoder, run,
                                                                (const char *const *) self->input_names->pdata,
                                                                (const OrtValue *const *) inputs, 3 + 2 * n_kv,
                                                                (const char *const *) self->output_names->pdata, n_out,
                                                                outputs),
                       SJ_VOICE_ERROR_MODEL_INVALID, _("The Moonshine decoder failed"), error);
      values_clear (&values);
      if (failed || (logits = data_of (self, outputs[0], logits_dims, 3)) == NULL)
        {
          failed = TRUE;
          if (error != NULL && *error == NULL)
            g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_INVALID, _("The Moonshine decoder failed"));
        }

      if (!failed && t == 0)
        for (guint i = 0; i < n_kv; i++)
          {
            float *data = data_of (self, outputs[1 + n_kv + i], cross_dims, 4);

            cross[i] = g_memdup2 (data, self->n_heads * cross_dims[2] * self->head_dim * sizeof (float));
          }

      for (guint j = 0; !failed && j < n; j++)
        {
          grow_options (self, readings->pdata[j], logits + j * logits_dims[2], logits_dims[2], options, grown);
          for (guint o = 0; o < MIN (grown->len, beam + 2); o++)
            {
              Reading *r = grow (self, readings->pdata[j], j, &g_array_index (grown, Option, o), options, done);

              if (r != NULL)
                g_ptr_array_add (next, r);
            }
        }
      ranking.per_token = FALSE;
      g_ptr_array_sort_with_data (next, compare_readings, &ranking);
      if (next->len > beam)
        g_ptr_array_set_size (next, beam);

      /* Each reading's keys and values, from the one it grew from. */
      for (guint i = 0; !failed && i < n_kv; i++)
        {
          const float *present = data_of (self, outputs[1 + i], NULL, 0);
          gsize size = self->n_heads * (t + 1) * self->head_dim;

          g_free (kv[i]);
          kv[i] = g_new (float, MAX (next->len, 1) * size);
          for (guint j = 0; j < next->len; j++)
            memcpy (kv[i] + j * size, present + ((Reading *) next->pdata[j])->parent * size, size * sizeof (float));
        }
      for (guint i = 0; i < n_out; i++)
        RELEASE (self, SJ_ORT_RELEASE_VALUE, outputs[i]);

      g_ptr_array_unref (readings);
      readings = g_steal_pointer (&next);
      if (done->len >= beam)
        break;
    }

  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  for (guint i = 0; i < n_kv; i++)
    {
      g_free (kv[i]);
      g_free (cross[i]);
    }
  RELEASE (self, SJ_ORT_RELEASE_RUN_OPTIONS, run);

  if (failed)
    {
      if (g_cancellable_is_cancelled (cancellable) && error != NULL && (*error == NULL || (*error)->domain != G_IO_ERROR))
        {
          g_clear_error (error);
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The decoding was cancelled"));
        }
      return NULL;
    }

  /* Unnormalised, a wider beam finds short texts that stop early ("give"
   * for "give the snare some room"): finished texts are ranked by their
   * score per token. */
  {
    GPtrArray *all = done->len > 0 ? done : readings;
    const Reading *best;

    if (all->len == 0)
      {
        if (confidence != NULL)
          *confidence = 0.0;
        return g_strdup ("");
      }
    ranking.per_token = TRUE;
    g_ptr_array_sort_with_data (all, compare_readings, &ranking);
    best = all->pdata[0];
    if (confidence != NULL)
      *confidence = exp (best->ac / MAX (best->n_tokens, 1));
    if (options->greedy)
      text = pieces_to_text (self, best);
    else
      {
        GString *words = g_string_new (NULL);

        for (guint w = 0; w < best->n_words; w++)
          g_string_append_printf (words, "%s%s", w > 0 ? " " : "", _sj_moonshine_lm_word (self->lm, best->words[w]));
        text = g_string_free (words, FALSE);
      }
  }

  return text;
}
