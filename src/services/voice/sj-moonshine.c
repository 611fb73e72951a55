/* sj-moonshine.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Moonshine engine of the offline recogniser (issue 30). Moonshine
 * (Useful Sensors, English, MIT) takes the raw 16 kHz audio into its
 * encoder; its decoder then writes the text token by token, keeping its
 * own keys and values between steps. Both are ONNX graphs run by
 * onnxruntime, which is loaded here at run time (GModule, OrtGetApiBase) so
 * that the app still runs, with PocketSphinx, where it is not installed.
 *
 * The search is bench/voice/moonshine/moonshine.mjs's, where it was first
 * measured: a beam of readings whose words are held to the jam domain
 * model's (a trie of their tokens, sj-moonshine-lm.c), scored by the model's
 * log probabilities plus the domain trigram model's, weighted, at each
 * word's end; finished readings ranked by their score per token. Or greedy,
 * as Moonshine ships. One thread for onnxruntime: the music plays on the
 * same two cores.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>
#include <gmodule.h>

#include "sj-bundled-data.h"
#include "sj-moonshine-engine-private.h"
#include "sj-voice-error.h"

/* Turns a failed call's status into @error (and frees it); TRUE when the
 * call went well. */
#undef ok

gboolean
_sj_moonshine_ok (SjMoonshine  *self,
    OrtStatus    *status,
    int           code,
    const char   *what,
    GError      **error)
{
  if (status == NULL)
    return TRUE;
  g_set_error (error, SJ_VOICE_ERROR, code, "%s: %s", what, ORT (self, SJ_ORT_GET_ERROR_MESSAGE, SjOrtGetErrorMessage) (status));
  ORT (self, SJ_ORT_RELEASE_STATUS, SjOrtRelease) (status);

  return FALSE;
}

#define ok _sj_moonshine_ok

void
_sj_moonshine_options_init (SjMoonshineOptions *options)
{
  options->greedy = FALSE;
  options->lm_weight = 0.5;
  options->beam = 8;
}

static gboolean
open_session (SjMoonshine  *self,
              const char   *path,
              OrtSession  **out,
              GError      **error)
{
  OrtSessionOptions *options = NULL;
  gboolean done;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING, _("The Moonshine model is not installed (%s)"), path);
      return FALSE;
    }
  done = ok (self, ORT (self, SJ_ORT_CREATE_SESSION_OPTIONS, SjOrtCreateSessionOptions) (&options),
             SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
         && ok (self, ORT (self, SJ_ORT_SET_INTRA_OP_NUM_THREADS, SjOrtSetOptionsInt) (options, 1),
                SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
         && ok (self, ORT (self, SJ_ORT_SET_INTER_OP_NUM_THREADS, SjOrtSetOptionsInt) (options, 1),
                SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
         && ok (self, ORT (self, SJ_ORT_SET_GRAPH_OPTIMIZATION_LEVEL, SjOrtSetOptionsInt) (options, SJ_ORT_ENABLE_ALL),
                SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
         && ok (self, ORT (self, SJ_ORT_CREATE_SESSION, SjOrtCreateSession) (self->env, path, options, out),
                SJ_VOICE_ERROR_MODEL_INVALID, _("The Moonshine model could not be read"), error);
  RELEASE (self, SJ_ORT_RELEASE_SESSION_OPTIONS, options);

  return done;
}

/* The decoder's layers, heads and their size, from its inputs' shapes. */
static gboolean
read_decoder_shape (SjMoonshine  *self,
                    GError      **error)
{
  OrtAllocator *allocator = NULL;
  size_t n_inputs = 0;

  if (!ok (self, ORT (self, SJ_ORT_GET_ALLOCATOR_WITH_DEFAULT_OPTIONS, SjOrtGetAllocatorWithDefaultOptions) (&allocator),
           SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
      || !ok (self, ORT (self, SJ_ORT_SESSION_GET_INPUT_COUNT, SjOrtSessionGetInputCount) (self->decoder, &n_inputs),
              SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error))
    return FALSE;

  for (size_t i = 0; i < n_inputs; i++)
    {
      char *name = NULL;
      guint layer;
      char kind[8];

      if (!ok (self, ORT (self, SJ_ORT_SESSION_GET_INPUT_NAME, SjOrtSessionGetInputName) (self->decoder, i, allocator, &name),
               SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error))
        return FALSE;
      if (sscanf (name, "past_key_values.%u.decoder.%7s", &layer, kind) == 2 && g_str_equal (kind, "key"))
        {
          self->n_layers = MAX (self->n_layers, layer + 1);
          if (layer == 0)
            {
              OrtTypeInfo *type = NULL;
              const OrtTensorTypeAndShapeInfo *info = NULL;
              int64_t dims[4] = { 0 };
              size_t n_dims = 0;

              if (ok (self, ORT (self, SJ_ORT_SESSION_GET_INPUT_TYPE_INFO, SjOrtSessionGetInputTypeInfo) (self->decoder, i, &type),
                      SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", NULL)
                  && ok (self, ORT (self, SJ_ORT_CAST_TYPE_INFO_TO_TENSOR_INFO, SjOrtCastTypeInfoToTensorInfo) (type, &info),
                         SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", NULL)
                  && ok (self, ORT (self, SJ_ORT_GET_DIMENSIONS_COUNT, SjOrtGetDimensionsCount) (info, &n_dims),
                         SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", NULL)
                  && n_dims == 4
                  && ok (self, ORT (self, SJ_ORT_GET_DIMENSIONS, SjOrtGetDimensions) (info, dims, 4),
                         SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", NULL))
                {
                  self->n_heads = dims[1];
                  self->head_dim = dims[3];
                }
              RELEASE (self, SJ_ORT_RELEASE_TYPE_INFO, type);
            }
        }
      ORT (self, SJ_ORT_ALLOCATOR_FREE, SjOrtAllocatorFree) (allocator, name);
    }

  if (self->n_layers == 0 || self->n_layers > MAX_LAYERS || self->n_heads <= 0 || self->head_dim <= 0)
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_INVALID,
                   _("The Moonshine decoder is not one this version knows"));
      return FALSE;
    }

  self->input_names = g_ptr_array_new_with_free_func (g_free);
  self->output_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->input_names, g_strdup ("input_ids"));
  g_ptr_array_add (self->input_names, g_strdup ("encoder_hidden_states"));
  g_ptr_array_add (self->input_names, g_strdup ("use_cache_branch"));
  g_ptr_array_add (self->output_names, g_strdup ("logits"));
  for (const char *const *part = (const char *const[]) { "decoder", "encoder", NULL }; *part != NULL; part++)
    for (guint l = 0; l < self->n_layers; l++)
      for (const char *const *kind = (const char *const[]) { "key", "value", NULL }; *kind != NULL; kind++)
        {
          g_ptr_array_add (self->input_names, g_strdup_printf ("past_key_values.%u.%s.%s", l, *part, *kind));
          g_ptr_array_add (self->output_names, g_strdup_printf ("present.%u.%s.%s", l, *part, *kind));
        }

  return TRUE;
}

static gboolean
read_tokens (SjMoonshine  *self,
             const char   *model_dir,
             GError      **error)
{
  g_autofree char *tokens_path = g_build_filename (model_dir, SJ_MOONSHINE_TOKENS, NULL);
  g_autofree char *words_path = g_build_filename (model_dir, SJ_MOONSHINE_WORDS, NULL);
  g_autofree char *tokens = NULL;
  g_autofree char *words = NULL;
  g_autoptr(GBytes) arpa = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (tokens_path, &tokens, NULL, NULL) || !g_file_get_contents (words_path, &words, NULL, NULL))
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING,
                   _("The Moonshine model's tokens are not installed (%s)"), model_dir);
      return FALSE;
    }
  lines = g_strsplit (tokens, "\n", -1);
  self->pieces = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; lines[i] != NULL; i++)
    g_ptr_array_add (self->pieces, g_steal_pointer (&lines[i]));

  sj_bundled_data_register ();
  arpa = g_resources_lookup_data ("/io/github/strudeljam/StrudelJam/voice/jam.lm", G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (arpa == NULL)
    return FALSE;
  self->lm = _sj_moonshine_lm_new (g_bytes_get_data (arpa, NULL), g_bytes_get_size (arpa), words, error);

  return self->lm != NULL;
}

/**
 * _sj_moonshine_load:
 * @library: onnxruntime's library (a path, or a name the loader finds)
 * @model_dir: the folder of the model's files (SJ_MOONSHINE_ENCODER ...)
 *
 * Fails with %SJ_VOICE_ERROR_MODEL_MISSING when onnxruntime or a file of the
 * model is not there, %SJ_VOICE_ERROR_MODEL_INVALID when one cannot be read.
 */
SjMoonshine *
_sj_moonshine_load (const char  *library,
                    const char  *model_dir,
                    GError     **error)
{
  g_autoptr(SjMoonshine) self = g_new0 (SjMoonshine, 1);
  g_autofree char *encoder = g_build_filename (model_dir, SJ_MOONSHINE_ENCODER, NULL);
  g_autofree char *decoder = g_build_filename (model_dir, SJ_MOONSHINE_DECODER, NULL);
  SjOrtGetApiBaseFunc get_api_base = NULL;
  GModule *module;

  /* Kept once opened: onnxruntime does not like to be unloaded. */
  module = g_module_open (library, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (module == NULL || !g_module_symbol (module, "OrtGetApiBase", (gpointer *) &get_api_base)
      || (self->api = get_api_base ()->GetApi (SJ_ORT_API_VERSION)) == NULL)
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING, _("onnxruntime could not be loaded (%s)"),
                   module == NULL ? g_module_error () : library);
      if (module != NULL)
        g_module_close (module);
      return NULL;
    }
  g_module_make_resident (module);

  if (!ok (self, ORT (self, SJ_ORT_CREATE_ENV, SjOrtCreateEnv) (SJ_ORT_LOGGING_LEVEL_ERROR, "strudel-jam", &self->env),
           SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
      || !ok (self, ORT (self, SJ_ORT_CREATE_CPU_MEMORY_INFO, SjOrtCreateCpuMemoryInfo) (SJ_ORT_DEVICE_ALLOCATOR,
                                                                                         SJ_ORT_MEM_TYPE_DEFAULT,
                                                                                         &self->memory),
              SJ_VOICE_ERROR_MODEL_INVALID, "onnxruntime", error)
      || !read_tokens (self, model_dir, error)
      || !open_session (self, encoder, &self->encoder, error)
      || !open_session (self, decoder, &self->decoder, error)
      || !read_decoder_shape (self, error))
    return NULL;

  return g_steal_pointer (&self);
}

void
_sj_moonshine_free (SjMoonshine *self)
{
  if (self->api != NULL)
    {
      RELEASE (self, SJ_ORT_RELEASE_SESSION, self->decoder);
      RELEASE (self, SJ_ORT_RELEASE_SESSION, self->encoder);
      RELEASE (self, SJ_ORT_RELEASE_MEMORY_INFO, self->memory);
      RELEASE (self, SJ_ORT_RELEASE_ENV, self->env);
    }
  g_clear_pointer (&self->lm, _sj_moonshine_lm_free);
  g_clear_pointer (&self->pieces, g_ptr_array_unref);
  g_clear_pointer (&self->input_names, g_ptr_array_unref);
  g_clear_pointer (&self->output_names, g_ptr_array_unref);
  g_free (self);
}
