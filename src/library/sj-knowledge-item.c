/* sj-knowledge-item.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One row of the Reference and Sounds pages: a position in the reference or
 * sounds index and, for a search result, the name or synonym that matched.
 * List views need GObjects; the entries themselves stay in their indexes,
 * so a row costs a few bytes however long the entry is.
 */

#include "config.h"

#include "sj-knowledge-item.h"

struct _SjKnowledgeItem
{
  GObject             parent_instance;

  SjKnowledgeHitKind  kind;
  guint               index;
  char               *matched;
};

G_DEFINE_FINAL_TYPE (SjKnowledgeItem, sj_knowledge_item, G_TYPE_OBJECT)

static void
sj_knowledge_item_finalize (GObject *object)
{
  SjKnowledgeItem *self = (SjKnowledgeItem *)object;

  g_clear_pointer (&self->matched, g_free);

  G_OBJECT_CLASS (sj_knowledge_item_parent_class)->finalize (object);
}

static void
sj_knowledge_item_class_init (SjKnowledgeItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_knowledge_item_finalize;
}

static void
sj_knowledge_item_init (SjKnowledgeItem *self)
{
}

/**
 * sj_knowledge_item_new:
 * @index: the position in the reference (functions) or the sounds index
 *   (sounds, banks)
 * @matched: (nullable): the name or synonym a search matched
 */
SjKnowledgeItem *
sj_knowledge_item_new (SjKnowledgeHitKind  kind,
                       guint               index,
                       const char         *matched)
{
  SjKnowledgeItem *self = g_object_new (SJ_TYPE_KNOWLEDGE_ITEM, NULL);

  self->kind = kind;
  self->index = index;
  self->matched = g_strdup (matched);

  return self;
}

SjKnowledgeHitKind
sj_knowledge_item_get_kind (SjKnowledgeItem *self)
{
  g_assert (SJ_IS_KNOWLEDGE_ITEM (self));

  return self->kind;
}

guint
sj_knowledge_item_get_index (SjKnowledgeItem *self)
{
  g_assert (SJ_IS_KNOWLEDGE_ITEM (self));

  return self->index;
}

const char *
sj_knowledge_item_get_matched (SjKnowledgeItem *self)
{
  g_assert (SJ_IS_KNOWLEDGE_ITEM (self));

  return self->matched;
}
