/* sj-knowledge-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The insides of SjKnowledge, shared by sj-knowledge.c (the queries),
 * sj-knowledge-match.c (matching and ranking), sj-knowledge-answer.c (the
 * JSON) and sj-knowledge-availability.c (how each sound would play).
 */

#pragma once

#include "sj-knowledge-concepts.h"
#include "sj-knowledge.h"
#include "sj-reference-bm25.h"

G_BEGIN_DECLS

/* What is known about one sound of the index, for the offline listing. */
typedef struct _SjKnowledgeSoundInfo SjKnowledgeSoundInfo;

struct _SjKnowledge
{
  GObject               parent_instance;

  SjReferenceIndex     *reference;
  SjSoundsIndex        *sounds;

  /* sj-knowledge-match.c: the concept vocabulary and the BM25 index of the
   * reference, built on first use. */
  SjKnowledgeConcepts  *concepts;
  SjReferenceBm25      *bm25;
  GHashTable           *entry_positions;     /* entry name → position + 1 */

  /* sj-knowledge-availability.c: all of it computed on demand, dropped
   * when the cache or the index says something changed. */
  SjSoundCache         *sound_cache;
  SjRemoteSamples      *remote_samples;      /* the maps the code fetched, or NULL */
  GHashTable           *availability;        /* sound name → SjKnowledgeAvailability */
  gboolean              availability_online; /* sj_sound_cache_get_online() when it was filled */
  GHashTable           *cached_sounds;       /* SjLibrarySound set: a file in the cache; or NULL */
  SjKnowledgeSoundInfo *sound_info;          /* per index position, or NULL */
};

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
  gboolean            offline;    /* the listing of what plays with no network */
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
                                         SjKnowledgeQuery        *query,
                                         GArray                  *concepts,
                                         gboolean                 include_uncallable);
GArray   *_sj_knowledge_match_sounds    (SjKnowledge             *self,
                                         SjKnowledgeQuery        *query,
                                         GArray                  *concepts,
                                         gboolean                 any_category,
                                         SjSoundCategory          category);
GArray   *_sj_knowledge_find_concepts   (SjKnowledge             *self,
                                         SjKnowledgeQuery        *query);
void      _sj_knowledge_match_dispose   (SjKnowledge             *self);
SjKnowledgeConcepts *_sj_knowledge_get_concepts (SjKnowledge     *self);
SjReferenceBm25     *_sj_knowledge_get_bm25     (SjKnowledge     *self);
gboolean  _sj_knowledge_better          (const SjKnowledgeHit    *a,
                                         const SjKnowledgeHit    *b);
void      _sj_knowledge_offer           (GArray                  *hits,
                                         guint                   *slots,
                                         const SjKnowledgeHit    *hit);
guint     _sj_knowledge_concept_rank    (const SjKnowledgeConcept *concept,
                                         guint                    n);
gboolean  _sj_knowledge_is_common_word  (SjKnowledge             *self,
                                         const char              *term);
gboolean  _sj_knowledge_is_known_word   (SjKnowledge             *self,
                                         const char              *term);
gboolean  _sj_knowledge_has_phrase      (GArray                  *concepts);
void      _sj_knowledge_after_phrases   (GArray                  *hits);
void      _sj_knowledge_offer_again     (SjKnowledgeHit          *existing,
                                         const SjKnowledgeHit    *hit);
gboolean  _sj_knowledge_covered         (SjKnowledgeQuery        *query,
                                         GArray                  *concepts,
                                         const char              *term);
void      _sj_knowledge_add_suggestion  (GPtrArray               *suggestions,
                                         const char              *name,
                                         guint                    max);

/* sj-knowledge.c */
void      _sj_knowledge_emit_availability_changed (SjKnowledge   *self);

/* sj-knowledge-availability.c */
void      _sj_knowledge_availability_dispose      (SjKnowledge   *self);
void      _sj_knowledge_forget_index              (SjKnowledge   *self);
gboolean  _sj_knowledge_get_offline               (SjKnowledge   *self,
                                                   guint          position,
                                                   SjSoundAvailability *offline);
GArray   *_sj_knowledge_list_offline              (SjKnowledge   *self,
                                                   gboolean       any_category,
                                                   SjSoundCategory category);
void      _sj_knowledge_keep_offline              (SjKnowledge   *self,
                                                   GArray        *hits);

G_END_DECLS
