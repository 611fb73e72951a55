/* sj-knowledge-item.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "sj-knowledge.h"

G_BEGIN_DECLS

#define SJ_TYPE_KNOWLEDGE_ITEM (sj_knowledge_item_get_type ())

G_DECLARE_FINAL_TYPE (SjKnowledgeItem, sj_knowledge_item, SJ, KNOWLEDGE_ITEM, GObject)

SjKnowledgeItem    *sj_knowledge_item_new         (SjKnowledgeHitKind  kind,
                                                   guint               index,
                                                   const char         *matched);
SjKnowledgeHitKind  sj_knowledge_item_get_kind    (SjKnowledgeItem    *self);
guint               sj_knowledge_item_get_index   (SjKnowledgeItem    *self);
const char         *sj_knowledge_item_get_matched (SjKnowledgeItem    *self);

G_END_DECLS
