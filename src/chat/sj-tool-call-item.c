/* sj-tool-call-item.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One row of the Tool Logs page: a finished tool call, copied out of the
 * history, and whether its row is expanded. List views recycle their rows
 * as they scroll, so the expanded state lives here, where a row built
 * again for the same call finds it.
 */

#include "config.h"

#include "sj-tool-call-item.h"

struct _SjToolCallItem
{
  GObject            parent_instance;

  SjHistoryToolCall  call;
  gboolean           expanded;
  char              *origin;   /* the MCP client that made the call, or NULL */
};

G_DEFINE_FINAL_TYPE (SjToolCallItem, sj_tool_call_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_EXPANDED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sj_tool_call_item_finalize (GObject *object)
{
  SjToolCallItem *self = (SjToolCallItem *)object;

  g_clear_pointer (&self->call.name, g_free);
  g_clear_pointer (&self->call.arguments, g_free);
  g_clear_pointer (&self->call.result, g_free);
  g_clear_pointer (&self->origin, g_free);

  G_OBJECT_CLASS (sj_tool_call_item_parent_class)->finalize (object);
}

static void
sj_tool_call_item_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  SjToolCallItem *self = SJ_TOOL_CALL_ITEM (object);

  switch (prop_id)
    {
    case PROP_EXPANDED:
      g_value_set_boolean (value, self->expanded);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_tool_call_item_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  SjToolCallItem *self = SJ_TOOL_CALL_ITEM (object);

  switch (prop_id)
    {
    case PROP_EXPANDED:
      sj_tool_call_item_set_expanded (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_tool_call_item_class_init (SjToolCallItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_tool_call_item_finalize;
  object_class->get_property = sj_tool_call_item_get_property;
  object_class->set_property = sj_tool_call_item_set_property;

  properties[PROP_EXPANDED] =
    g_param_spec_boolean ("expanded", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sj_tool_call_item_init (SjToolCallItem *self)
{
}

/**
 * sj_tool_call_item_new:
 * @call: a finished call; the item keeps a copy
 */
SjToolCallItem *
sj_tool_call_item_new (const SjHistoryToolCall *call)
{
  SjToolCallItem *self;

  g_return_val_if_fail (call != NULL, NULL);

  self = g_object_new (SJ_TYPE_TOOL_CALL_ITEM, NULL);
  self->call = *call;
  self->call.name = g_strdup (call->name);
  self->call.arguments = g_strdup (call->arguments);
  self->call.result = g_strdup (call->result);

  return self;
}

/* Returns: (transfer none): the call, as long as the item lives. */
const SjHistoryToolCall *
sj_tool_call_item_get_call (SjToolCallItem *self)
{
  g_assert (SJ_IS_TOOL_CALL_ITEM (self));

  return &self->call;
}

gboolean
sj_tool_call_item_get_expanded (SjToolCallItem *self)
{
  g_assert (SJ_IS_TOOL_CALL_ITEM (self));

  return self->expanded;
}

void
sj_tool_call_item_set_expanded (SjToolCallItem *self,
                                gboolean        expanded)
{
  g_assert (SJ_IS_TOOL_CALL_ITEM (self));

  expanded = !!expanded;
  if (self->expanded == expanded)
    return;

  self->expanded = expanded;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPANDED]);
}

/**
 * sj_tool_call_item_set_origin:
 * @origin: (nullable): the MCP client that made the call (issue 34), or
 *   %NULL for the agent's own
 */
void
sj_tool_call_item_set_origin (SjToolCallItem *self,
                              const char     *origin)
{
  g_return_if_fail (SJ_IS_TOOL_CALL_ITEM (self));

  g_free (self->origin);
  self->origin = g_strdup (origin);
}

const char *
sj_tool_call_item_get_origin (SjToolCallItem *self)
{
  g_return_val_if_fail (SJ_IS_TOOL_CALL_ITEM (self), NULL);

  return self->origin;
}
