/* sj-knowledge-item.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One row of the Reference and Sounds pages: a position in the reference
 * index (the Reference page) or the sounds index (the Sounds page). List
 * views need GObjects; the entries themselves stay in their indexes, so a
 * row costs a few bytes however long the entry is.
 */

#include "config.h"

#include "sj-knowledge-item.h"

struct _SjKnowledgeItem
{
  GObject parent_instance;

  guint   index;
};

G_DEFINE_FINAL_TYPE (SjKnowledgeItem, sj_knowledge_item, G_TYPE_OBJECT)

static void
sj_knowledge_item_class_init (SjKnowledgeItemClass *klass)
{
}

static void
sj_knowledge_item_init (SjKnowledgeItem *self)
{
}

/**
 * sj_knowledge_item_new:
 * @index: the position in the reference or the sounds index
 */
SjKnowledgeItem *
sj_knowledge_item_new (guint index)
{
  SjKnowledgeItem *self = g_object_new (SJ_TYPE_KNOWLEDGE_ITEM, NULL);

  self->index = index;

  return self;
}

guint
sj_knowledge_item_get_index (SjKnowledgeItem *self)
{
  g_assert (SJ_IS_KNOWLEDGE_ITEM (self));

  return self->index;
}
