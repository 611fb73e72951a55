/* sj-reference-bm25.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-reference-index.h"

G_BEGIN_DECLS

typedef struct _SjReferenceBm25 SjReferenceBm25;

SjReferenceBm25 *sj_reference_bm25_new   (SjReferenceIndex *index);
void             sj_reference_bm25_free  (SjReferenceBm25  *self);
gboolean         sj_reference_bm25_score (SjReferenceBm25  *self,
                                          GPtrArray        *words,
                                          float            *scores);
double           sj_reference_bm25_idf   (SjReferenceBm25  *self,
                                          const char       *word);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjReferenceBm25, sj_reference_bm25_free)

G_END_DECLS
