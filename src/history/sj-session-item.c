/* sj-session-item.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One row of the Sessions page: a chat session of the history. The rows
 * bind to the properties, so that renaming a session or switching to
 * another updates the row in place instead of rebuilding the list, which
 * would lose the keyboard focus.
 */

#include "config.h"

#include "sj-session-item.h"

struct _SjSessionItem
{
  GObject   parent_instance;

  gint64    id;
  char     *title;
  gint64    updated;
  gboolean  current;
  char     *usage;    /* what the session's answers cost, as a caption */
};

G_DEFINE_FINAL_TYPE (SjSessionItem, sj_session_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TITLE,
  PROP_UPDATED,
  PROP_CURRENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sj_session_item_finalize (GObject *object)
{
  SjSessionItem *self = (SjSessionItem *)object;

  g_clear_pointer (&self->title, g_free);

  g_free (self->usage);
  G_OBJECT_CLASS (sj_session_item_parent_class)->finalize (object);
}

static void
sj_session_item_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  SjSessionItem *self = SJ_SESSION_ITEM (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;

    case PROP_UPDATED:
      g_value_set_int64 (value, self->updated);
      break;

    case PROP_CURRENT:
      g_value_set_boolean (value, self->current);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_session_item_class_init (SjSessionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_session_item_finalize;
  object_class->get_property = sj_session_item_get_property;

  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UPDATED] =
    g_param_spec_int64 ("updated", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CURRENT] =
    g_param_spec_boolean ("current", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sj_session_item_init (SjSessionItem *self)
{
}

/**
 * sj_session_item_new:
 * @updated: when the session last changed, in microseconds since the epoch
 */
SjSessionItem *
sj_session_item_new (gint64      id,
                     const char *title,
                     gint64      updated)
{
  SjSessionItem *self = g_object_new (SJ_TYPE_SESSION_ITEM, NULL);

  self->id = id;
  self->title = g_strdup (title != NULL ? title : "");
  self->updated = updated;

  return self;
}

gint64
sj_session_item_get_id (SjSessionItem *self)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  return self->id;
}

const char *
sj_session_item_get_title (SjSessionItem *self)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  return self->title;
}

void
sj_session_item_set_title (SjSessionItem *self,
                           const char    *title)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  if (title == NULL)
    title = "";
  if (g_strcmp0 (self->title, title) == 0)
    return;

  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

gint64
sj_session_item_get_updated (SjSessionItem *self)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  return self->updated;
}

void
sj_session_item_set_updated (SjSessionItem *self,
                             gint64         updated)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  if (self->updated == updated)
    return;

  self->updated = updated;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_UPDATED]);
}

gboolean
sj_session_item_get_current (SjSessionItem *self)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  return self->current;
}

void
sj_session_item_set_current (SjSessionItem *self,
                             gboolean       current)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  current = !!current;
  if (self->current == current)
    return;

  self->current = current;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT]);
}

/* The session's tokens and cost, "1,234 tokens · $0.0021"; NULL when the
 * agent never answered in it. */
const char *
sj_session_item_get_usage (SjSessionItem *self)
{
  g_assert (SJ_IS_SESSION_ITEM (self));
  return self->usage;
}

void
sj_session_item_set_usage (SjSessionItem *self,
                           const char    *usage)
{
  g_assert (SJ_IS_SESSION_ITEM (self));

  g_free (self->usage);
  self->usage = g_strdup (usage);
}
