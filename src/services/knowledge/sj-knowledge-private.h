/* sj-knowledge-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-knowledge.h"

G_BEGIN_DECLS

/* What a query found, handed from the matcher to the answer writer. */
typedef struct
{
  const char         *query;      /* as asked, trimmed */
  SjKnowledgeQuery   *parsed;
  SjKnowledgeDomain   domain;     /* of the answer: auto means grouped */
  SjKnowledgeMode     mode;
  guint               limit;
  GArray             *reference;  /* of SjKnowledgeHit, ranked */
  GArray             *sounds;     /* of SjKnowledgeHit, ranked (sounds and banks) */
  guint               reference_total;
  guint               sounds_total;
  GPtrArray          *notes;
} SjKnowledgeResult;

JsonNode *_sj_knowledge_answer_success  (SjKnowledge             *self,
                                         const SjKnowledgeResult *result);
JsonNode *_sj_knowledge_answer_failure  (const char              *query,
                                         const char              *reason,
                                         const char              *answer,
                                         const char * const      *suggestions);
void      _sj_knowledge_sort_hits       (SjKnowledge             *self,
                                         GArray                  *hits);
GArray   *_sj_knowledge_match_reference (SjKnowledge             *self,
                                         GPtrArray               *terms);
GArray   *_sj_knowledge_match_sounds    (SjKnowledge             *self,
                                         GPtrArray               *terms,
                                         gboolean                 any_category,
                                         SjSoundCategory          category);
void      _sj_knowledge_add_suggestion  (GPtrArray               *suggestions,
                                         const char              *name,
                                         guint                    max);

G_END_DECLS
