/* sj-moonshine-engine-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Moonshine engine's insides, shared by its loading (sj-moonshine.c)
 * and its search (sj-moonshine-search.c).
 */

#pragma once

#include "sj-moonshine-private.h"
#include "sj-ort-private.h"

G_BEGIN_DECLS

#define BOS 1
#define EOS 2
#define MAX_TOKENS (SJ_MOONSHINE_MAX_SECONDS * 6 + 4)
#define MAX_LAYERS 16

struct _SjMoonshine
{
  const void    *api;
  OrtEnv        *env;
  OrtSession    *encoder;
  OrtSession    *decoder;
  OrtMemoryInfo *memory;
  SjMoonshineLm *lm;
  GPtrArray     *pieces;   /* token → its text */
  guint          n_layers;
  gint64         n_heads;
  gint64         head_dim;
  /* The decoder's inputs and outputs, by name: the first three, then
   * each layer's decoder key and value, then its encoder key and value. */
  GPtrArray     *input_names;
  GPtrArray     *output_names;
};

#define ORT(self, place, type) SJ_ORT ((self)->api, place, type)
#define RELEASE(self, place, object) G_STMT_START { if ((object) != NULL) ORT (self, place, SjOrtRelease) (object); } G_STMT_END

gboolean _sj_moonshine_ok (SjMoonshine  *self,
                           OrtStatus    *status,
                           int           code,
                           const char   *what,
                           GError      **error);

#define ok _sj_moonshine_ok

G_END_DECLS
