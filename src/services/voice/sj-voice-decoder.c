/* sj-voice-decoder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The PocketSphinx decoder of the offline recogniser, set up for the jam:
 * the US English acoustic model and CMUdict, the words CMUdict lacks
 * (data/voice/jam-extra.dict), the grammar of jam commands
 * (data/voice/jam-commands.gram) as the search, and the general English
 * language model beside it as the fallback. Also the way back from the
 * dictionary's spelling to the musician's. Called on the recogniser's
 * worker thread only (sj-voice-recognizer.c).
 */

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "sj-bundled-data.h"
#include "sj-voice-decoder-private.h"
#include "sj-voice-error.h"

#define GRAMMAR_RESOURCE "/io/github/strudeljam/StrudelJam/voice/jam-commands.gram"
#define EXTRA_DICT_RESOURCE "/io/github/strudeljam/StrudelJam/voice/jam-extra.dict"

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

  /* The general model is optional: without it, speech outside the grammar
   * is simply not recognised. */
  if (g_file_test (lm, G_FILE_TEST_IS_REGULAR))
    ps_set_lm_file (ps, SJ_VOICE_LM_SEARCH, lm);

  ps_set_search (ps, SJ_VOICE_GRAMMAR_SEARCH);

  return ps;
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
