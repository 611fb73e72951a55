/* sj-moonshine-lm.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What holds Moonshine to the jam (issue 30): the jam's domain trigram
 * model (data/voice/make-corpus.py's ARPA file, Kneser-Ney with back-off)
 * and a trie of the tokens of its words, each in the spellings the
 * tokenizer may give it ("reverb" and "Reverb"), from words.tsv
 * (data/voice/moonshine-words.mjs writes it at build time). The search in
 * sj-moonshine.c walks the trie token by token and scores each word with
 * the trigram model as it ends.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <glib/gi18n.h>

#include "sj-moonshine-private.h"
#include "sj-voice-error.h"

typedef struct
{
  float prob;     /* log10 */
  float backoff;  /* log10 */
} Entry;

struct _SjMoonshineLm
{
  GHashTable *word_ids;   /* word → number + 1 */
  GPtrArray  *words;      /* number → word */
  GHashTable *ngrams;     /* key() → Entry */
  GArray     *nodes;      /* SjMoonshineNode, the trie; 0 is the root */
  int         bos;
  int         eos;
};

#define WORD_BITS 20
#define NO_ID ((1 << WORD_BITS) - 1)

static gint64
key (int h2,
     int h1,
     int w)
{
  return ((gint64) (h2 & NO_ID) << (2 * WORD_BITS)) | ((gint64) (h1 & NO_ID) << WORD_BITS) | (w & NO_ID);
}

static int
word_id (SjMoonshineLm *lm,
         const char    *word)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (lm->word_ids, word)) - 1;
}

static int
add_word (SjMoonshineLm *lm,
          const char    *word)
{
  int id = word_id (lm, word);

  if (id >= 0)
    return id;
  id = lm->words->len;
  g_ptr_array_add (lm->words, g_strdup (word));
  g_hash_table_insert (lm->word_ids, lm->words->pdata[id], GINT_TO_POINTER (id + 1));

  return id;
}

static void
add_ngram (SjMoonshineLm *lm,
           gint64         k,
           float          prob,
           float          backoff)
{
  gint64 *stored = g_new (gint64, 1);
  Entry *entry = g_new (Entry, 1);

  *stored = k;
  entry->prob = prob;
  entry->backoff = backoff;
  g_hash_table_replace (lm->ngrams, stored, entry);
}

static gboolean
parse_arpa (SjMoonshineLm  *lm,
            const char     *arpa,
            gsize           arpa_len,
            GError        **error)
{
  g_autofree char *text = g_strndup (arpa, arpa_len);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  int order = 0;
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      g_auto(GStrv) fields = NULL;
      g_auto(GStrv) words = NULL;
      int ids[3] = { NO_ID, NO_ID, NO_ID };
      guint n_words;

      if (line[0] == '\\')
        {
          order = g_ascii_isdigit (line[1]) && g_str_has_prefix (line + 2, "-grams:") ? line[1] - '0' : 0;
          continue;
        }
      if (order == 0 || *line == '\0')
        continue;

      fields = g_strsplit (line, "\t", 3);
      if (g_strv_length (fields) < 2)
        continue;
      words = g_strsplit (fields[1], " ", 3);
      n_words = g_strv_length (words);
      if (n_words != (guint) order || order > 3)
        continue;
      for (guint w = 0; w < n_words; w++)
        ids[3 - n_words + w] = add_word (lm, words[w]);
      add_ngram (lm, key (ids[0], ids[1], ids[2]), g_ascii_strtod (fields[0], NULL),
                 fields[2] != NULL ? g_ascii_strtod (fields[2], NULL) : 0.0);
      n++;
    }

  if (n == 0 || word_id (lm, "<s>") < 0 || word_id (lm, "</s>") < 0)
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                   _("The jam's language model could not be read"));
      return FALSE;
    }
  lm->bos = word_id (lm, "<s>");
  lm->eos = word_id (lm, "</s>");

  return TRUE;
}

static guint
add_node (GArray *nodes)
{
  SjMoonshineNode node = { SJ_MOONSHINE_NO_WORD, 0, NULL };

  g_array_append_val (nodes, node);

  return nodes->len - 1;
}

static gboolean
build_trie (SjMoonshineLm  *lm,
            const char     *words_tsv,
            GError        **error)
{
  g_auto(GStrv) lines = g_strsplit (words_tsv, "\n", -1);
  /* (node, token) → child while building; then each node's edges. */
  g_autoptr(GHashTable) children = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GPtrArray) edges = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  guint n_words = 0;

  lm->nodes = g_array_new (FALSE, FALSE, sizeof (SjMoonshineNode));
  add_node (lm->nodes);
  g_ptr_array_add (edges, g_array_new (FALSE, FALSE, sizeof (SjMoonshineEdge)));

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], "\t", 2);
      g_auto(GStrv) tokens = NULL;
      int word;
      guint node = 0;

      if (g_strv_length (fields) != 2 || (word = word_id (lm, fields[0])) < 0 || word == lm->bos || word == lm->eos)
        continue;
      tokens = g_strsplit (g_strstrip (fields[1]), " ", -1);
      for (guint t = 0; tokens[t] != NULL; t++)
        {
          int token = atoi (tokens[t]);
          gint64 edge_key = ((gint64) node << 32) | (guint) token;
          gpointer child;

          if (token <= 0)
            break;
          if (g_hash_table_lookup_extended (children, &edge_key, NULL, &child))
            node = GPOINTER_TO_UINT (child);
          else
            {
              SjMoonshineEdge edge = { token, add_node (lm->nodes) };

              g_ptr_array_add (edges, g_array_new (FALSE, FALSE, sizeof (SjMoonshineEdge)));
              g_array_append_val (g_ptr_array_index (edges, node), edge);
              g_hash_table_insert (children, g_memdup2 (&edge_key, sizeof edge_key), GUINT_TO_POINTER (edge.child));
              node = edge.child;
            }
        }
      if (node != 0)
        {
          g_array_index (lm->nodes, SjMoonshineNode, node).word = word;
          n_words++;
        }
    }

  if (n_words == 0)
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                   _("The Moonshine model's word list is empty or does not match the jam's language model"));
      return FALSE;
    }

  for (guint i = 0; i < lm->nodes->len; i++)
    {
      SjMoonshineNode *node = &g_array_index (lm->nodes, SjMoonshineNode, i);
      GArray *list = g_ptr_array_index (edges, i);

      node->n_edges = list->len;
      node->edges = (SjMoonshineEdge *) g_array_free (g_array_ref (list), FALSE);
    }

  return TRUE;
}

/**
 * _sj_moonshine_lm_new:
 * @arpa: the domain model, ARPA text (trigrams at most)
 * @words_tsv: the words' tokens, "word<TAB>token token ..." a line
 */
SjMoonshineLm *
_sj_moonshine_lm_new (const char  *arpa,
                      gsize        arpa_len,
                      const char  *words_tsv,
                      GError     **error)
{
  g_autoptr(SjMoonshineLm) lm = g_new0 (SjMoonshineLm, 1);

  lm->word_ids = g_hash_table_new (g_str_hash, g_str_equal);
  lm->words = g_ptr_array_new_with_free_func (g_free);
  lm->ngrams = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

  if (!parse_arpa (lm, arpa, arpa_len, error) || !build_trie (lm, words_tsv, error))
    return NULL;

  return g_steal_pointer (&lm);
}

void
_sj_moonshine_lm_free (SjMoonshineLm *lm)
{
  if (lm->nodes != NULL)
    {
      for (guint i = 0; i < lm->nodes->len; i++)
        g_free (g_array_index (lm->nodes, SjMoonshineNode, i).edges);
      g_array_unref (lm->nodes);
    }
  g_clear_pointer (&lm->ngrams, g_hash_table_unref);
  g_clear_pointer (&lm->word_ids, g_hash_table_unref);
  g_clear_pointer (&lm->words, g_ptr_array_unref);
  g_free (lm);
}

const SjMoonshineNode *
_sj_moonshine_lm_node (SjMoonshineLm *lm,
                       guint          node)
{
  return &g_array_index (lm->nodes, SjMoonshineNode, node);
}

static const Entry *
lookup (SjMoonshineLm *lm,
        int            h2,
        int            h1,
        int            w)
{
  gint64 k = key (h2, h1, w);

  return g_hash_table_lookup (lm->ngrams, &k);
}

double
_sj_moonshine_lm_log10 (SjMoonshineLm *lm,
                        int            h2,
                        int            h1,
                        int            w)
{
  const Entry *entry;
  double backoff = 0.0;

  if ((entry = lookup (lm, h2, h1, w)) != NULL)
    return entry->prob;
  if ((entry = lookup (lm, NO_ID, h2, h1)) != NULL)
    backoff = entry->backoff;
  if ((entry = lookup (lm, NO_ID, h1, w)) != NULL)
    return backoff + entry->prob;
  if ((entry = lookup (lm, NO_ID, NO_ID, h1)) != NULL)
    backoff += entry->backoff;
  entry = lookup (lm, NO_ID, NO_ID, w);

  return backoff + (entry != NULL ? entry->prob : -7.0);
}

int
_sj_moonshine_lm_bos (SjMoonshineLm *lm)
{
  return lm->bos;
}

int
_sj_moonshine_lm_eos (SjMoonshineLm *lm)
{
  return lm->eos;
}

const char *
_sj_moonshine_lm_word (SjMoonshineLm *lm,
                       int            word)
{
  return word >= 0 && (guint) word < lm->words->len ? lm->words->pdata[word] : "";
}
