/* sj-knowledge-base-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests and the knowledge benchmark reach: a base read from a
 * directory of notes, and the notes of each category as text.
 */

#pragma once

#include "sj-knowledge-base.h"

G_BEGIN_DECLS

SjKnowledgeBase    *_sj_knowledge_base_new_from_directory (GFile           *directory,
                                                           GError         **error);
const char * const *_sj_knowledge_base_get_categories     (void);
const char         *_sj_knowledge_base_get_text           (SjKnowledgeBase *self,
                                                           const char      *category);

G_END_DECLS
