/* sj-knowledge-item.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SJ_TYPE_KNOWLEDGE_ITEM (sj_knowledge_item_get_type ())

G_DECLARE_FINAL_TYPE (SjKnowledgeItem, sj_knowledge_item, SJ, KNOWLEDGE_ITEM, GObject)

SjKnowledgeItem *sj_knowledge_item_new       (guint            index);
guint            sj_knowledge_item_get_index (SjKnowledgeItem *self);

G_END_DECLS
