/* sj-knowledge.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-fuzzy.h"
#include "sj-knowledge-query.h"
#include "sj-reference-index.h"
#include "sj-remote-samples.h"
#include "sj-sound-cache.h"
#include "sj-sounds-index.h"

G_BEGIN_DECLS

#define SJ_KNOWLEDGE_DEFAULT_LIMIT 5
#define SJ_KNOWLEDGE_MAX_LIMIT     100

typedef enum
{
  SJ_KNOWLEDGE_HIT_FUNCTION,
  SJ_KNOWLEDGE_HIT_SOUND,
  SJ_KNOWLEDGE_HIT_BANK,
} SjKnowledgeHitKind;

/* One ranked result of a lookup. */
typedef struct
{
  SjKnowledgeHitKind  kind;
  guint               index;      /* entry, sound or bank position */
  SjMatchKind         match;
  guint               distance;   /* typos, or text position for SJ_MATCH_TEXT */
  guint               case_only : 1;  /* matched only when ignoring case */
  const char         *term;       /* the query term that matched (borrowed) */
  const char         *matched;    /* the name or synonym it matched (borrowed) */
  float               score;      /* BM25 relevance of the whole query (reference) */
  guint               in_phrase : 1;  /* a concept of the query names it too */
} SjKnowledgeHit;

#define SJ_TYPE_KNOWLEDGE (sj_knowledge_get_type ())

G_DECLARE_FINAL_TYPE (SjKnowledge, sj_knowledge, SJ, KNOWLEDGE, GObject)

SjKnowledge      *sj_knowledge_new               (SjReferenceIndex  *reference,
                                                  SjSoundsIndex     *sounds);
SjReferenceIndex *sj_knowledge_get_reference     (SjKnowledge       *self);
SjSoundsIndex    *sj_knowledge_get_sounds        (SjKnowledge       *self);
void              sj_knowledge_set_sound_cache   (SjKnowledge       *self,
                                                  SjSoundCache      *sound_cache);
SjSoundCache     *sj_knowledge_get_sound_cache   (SjKnowledge       *self);
void              sj_knowledge_set_remote_samples (SjKnowledge      *self,
                                                  SjRemoteSamples   *remote_samples);
SjRemoteSamples  *sj_knowledge_get_remote_samples (SjKnowledge      *self);
gboolean          sj_knowledge_get_sound_availability (SjKnowledge         *self,
                                                       const SjSound       *sound,
                                                       SjSoundAvailability *availability,
                                                       SjSoundFiles        *files);
JsonNode         *sj_knowledge_query             (SjKnowledge       *self,
                                                  const char        *query);
JsonNode         *sj_knowledge_query_json        (SjKnowledge       *self,
                                                  JsonNode          *input);
JsonNode         *sj_knowledge_query_full        (SjKnowledge       *self,
                                                  const char        *query,
                                                  SjKnowledgeDomain  domain,
                                                  SjKnowledgeMode    mode,
                                                  guint              limit);
GArray           *sj_knowledge_search_reference  (SjKnowledge       *self,
                                                  const char        *text,
                                                  gboolean           include_uncallable);
GArray           *sj_knowledge_search_sounds     (SjKnowledge       *self,
                                                  const char        *text,
                                                  SjSoundCategory    category);
char            **sj_knowledge_suggest           (SjKnowledge       *self,
                                                  const char        *term,
                                                  SjKnowledgeDomain  domain,
                                                  guint              max);

G_END_DECLS
