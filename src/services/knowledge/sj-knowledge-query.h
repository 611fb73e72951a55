/* sj-knowledge-query.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "sj-sounds-index.h"

G_BEGIN_DECLS

typedef enum
{
  SJ_KNOWLEDGE_DOMAIN_AUTO,
  SJ_KNOWLEDGE_DOMAIN_REFERENCE,
  SJ_KNOWLEDGE_DOMAIN_SOUNDS,
} SjKnowledgeDomain;

typedef enum
{
  SJ_KNOWLEDGE_MODE_AUTO,
  SJ_KNOWLEDGE_MODE_SEARCH,
  SJ_KNOWLEDGE_MODE_DETAIL,
  SJ_KNOWLEDGE_MODE_LIST,
} SjKnowledgeMode;

/* Longest query read, in bytes, and most terms taken from it. */
#define SJ_KNOWLEDGE_MAX_QUERY 1024
#define SJ_KNOWLEDGE_MAX_TERMS 8
#define SJ_KNOWLEDGE_MAX_WORDS 24

/* What a free-form query asks, as far as words can tell. */
typedef struct
{
  SjKnowledgeDomain  domain;       /* hinted by the words, or forced */
  gboolean           domain_from_words; /* only hinted: a phrase may overrule it */
  SjKnowledgeMode    mode;
  gboolean           validity;     /* "is X valid", "symbol:X" */
  gboolean           has_category;
  SjSoundCategory    category;
  gboolean           offline;      /* "offline", "sounds:offline": what plays with no network */
  GPtrArray         *terms;        /* content words, original case */
  GPtrArray         *words;        /* every word in order, lower case: for phrases */
} SjKnowledgeQuery;

SjKnowledgeQuery *sj_knowledge_query_parse      (const char        *text,
                                                 SjKnowledgeDomain  domain,
                                                 SjKnowledgeMode    mode);
void              sj_knowledge_query_free       (SjKnowledgeQuery  *query);
const char       *sj_knowledge_domain_to_string (SjKnowledgeDomain  domain);
gboolean          sj_knowledge_domain_from_string (const char      *text,
                                                   SjKnowledgeDomain *domain);
const char       *sj_knowledge_mode_to_string   (SjKnowledgeMode    mode);
gboolean          sj_knowledge_mode_from_string (const char        *text,
                                                 SjKnowledgeMode   *mode);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjKnowledgeQuery, sj_knowledge_query_free)

G_END_DECLS
