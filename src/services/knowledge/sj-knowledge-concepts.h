/* sj-knowledge-concepts.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Limits of the concept file: it is data, read with the same care as any. */
#define SJ_KNOWLEDGE_CONCEPTS_MAX_BYTES  (256 * 1024)
#define SJ_KNOWLEDGE_CONCEPTS_MAX_LINES  4000
#define SJ_KNOWLEDGE_CONCEPTS_MAX_WORDS  4    /* per phrase */
#define SJ_KNOWLEDGE_CONCEPTS_MAX_NAMES  8    /* per phrase */
#define SJ_KNOWLEDGE_CONCEPTS_MAX_NAME   64   /* bytes of a word or a name */

/* One line of knowledge/concepts.tsv: a phrase and the names it means. */
typedef struct
{
  const char  *phrase;     /* as written, lower case */
  const char  *key;        /* its words stemmed, joined by spaces */
  guint        n_words;
  gboolean     instead;    /* Strudel has no such thing: the names replace it */
  char       **names;      /* best first */
  guint        line;
} SjKnowledgeConcept;

/* Where a concept was found among the words of a query. */
typedef struct
{
  const SjKnowledgeConcept *concept;
  guint                     first;   /* word position */
  guint                     n_words;
} SjKnowledgeConceptMatch;

#define SJ_TYPE_KNOWLEDGE_CONCEPTS (sj_knowledge_concepts_get_type ())

G_DECLARE_FINAL_TYPE (SjKnowledgeConcepts, sj_knowledge_concepts, SJ, KNOWLEDGE_CONCEPTS, GObject)

SjKnowledgeConcepts      *sj_knowledge_concepts_new          (GBytes              *data,
                                                              GError             **error);
SjKnowledgeConcepts      *sj_knowledge_concepts_get_bundled  (void);
guint                     sj_knowledge_concepts_get_n        (SjKnowledgeConcepts *self);
const SjKnowledgeConcept *sj_knowledge_concepts_get          (SjKnowledgeConcepts *self,
                                                              guint                position);
const char * const       *sj_knowledge_concepts_get_internal (SjKnowledgeConcepts *self);
gboolean                  sj_knowledge_concepts_is_internal  (SjKnowledgeConcepts *self,
                                                              const char          *name);
const SjKnowledgeConcept *sj_knowledge_concepts_lookup       (SjKnowledgeConcepts *self,
                                                              const char          *phrase);
GArray                   *sj_knowledge_concepts_find         (SjKnowledgeConcepts *self,
                                                              GPtrArray           *words);
char                     *sj_knowledge_concepts_stem         (const char          *word);

G_END_DECLS
