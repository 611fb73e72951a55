/* sj-timeline.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The code timeline: every change that was applied (by the user, the
 * agent or an undo), oldest first, so that undo can go back through the
 * same quantized path.  It lives in memory; the history store persists it.
 */

#include "config.h"

#include "sj-change.h"
#include "sj-timeline.h"

struct _SjTimeline
{
  GObject    parent_instance;

  GPtrArray *snapshots;   /* of SjSnapshot */
  guint      cursor;      /* the snapshot playing now */
};

G_DEFINE_FINAL_TYPE (SjTimeline, sj_timeline, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
snapshot_free (gpointer data)
{
  SjSnapshot *snapshot = data;

  g_free (snapshot->code);
  g_free (snapshot->hash);
  g_free (snapshot->source);
  g_free (snapshot);
}

static void
sj_timeline_finalize (GObject *object)
{
  SjTimeline *self = (SjTimeline *)object;

  g_clear_pointer (&self->snapshots, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_timeline_parent_class)->finalize (object);
}

static void
sj_timeline_class_init (SjTimelineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_timeline_finalize;

  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_timeline_init (SjTimeline *self)
{
  self->snapshots = g_ptr_array_new_with_free_func (snapshot_free);
}

SjTimeline *
sj_timeline_new (void)
{
  return g_object_new (SJ_TYPE_TIMELINE, NULL);
}

/**
 * sj_timeline_push:
 *
 * Records @code as applied and makes it the current snapshot.  Pushing
 * the code that is already current does nothing; the oldest snapshots go
 * beyond %SJ_TIMELINE_MAX.  History is never truncated: after undoing, a
 * new change is appended, and undoing it leads back to the code it
 * replaced.
 */
void
sj_timeline_push (SjTimeline *self,
                  const char *code,
                  double      cycle,
                  const char *source)
{
  g_autofree char *hash = sj_code_hash (code);
  SjSnapshot *snapshot;

  g_assert (SJ_IS_TIMELINE (self));

  if (self->snapshots->len > 0 &&
      g_str_equal (((SjSnapshot *)g_ptr_array_index (self->snapshots, self->cursor))->hash, hash))
    return;

  snapshot = g_new0 (SjSnapshot, 1);
  snapshot->code = g_strdup (code);
  snapshot->hash = g_steal_pointer (&hash);
  snapshot->cycle = cycle;
  snapshot->source = g_strdup (source);
  snapshot->time = g_get_real_time ();
  snapshot->parent = self->snapshots->len > 0 ? (int)self->cursor : -1;
  g_ptr_array_add (self->snapshots, snapshot);

  /* Dropping the oldest shifts every position by one. */
  if (self->snapshots->len > SJ_TIMELINE_MAX)
    {
      g_ptr_array_remove_index (self->snapshots, 0);
      for (guint i = 0; i < self->snapshots->len; i++)
        {
          SjSnapshot *each = g_ptr_array_index (self->snapshots, i);

          each->parent = each->parent > 0 ? each->parent - 1 : -1;
        }
    }
  self->cursor = self->snapshots->len - 1;

  g_signal_emit (self, signals[CHANGED], 0);
}

guint
sj_timeline_get_n_items (SjTimeline *self)
{
  g_assert (SJ_IS_TIMELINE (self));

  return self->snapshots->len;
}

const SjSnapshot *
sj_timeline_get (SjTimeline *self,
                 guint       position)
{
  g_assert (SJ_IS_TIMELINE (self));
  g_return_val_if_fail (position < self->snapshots->len, NULL);

  return g_ptr_array_index (self->snapshots, position);
}

/**
 * sj_timeline_get_undo_target:
 *
 * Returns: (nullable): the snapshot the current one replaced, which undo
 *   goes back to; %NULL at the start of the timeline
 */
const SjSnapshot *
sj_timeline_get_undo_target (SjTimeline *self)
{
  const SjSnapshot *current;

  g_assert (SJ_IS_TIMELINE (self));

  if (self->snapshots->len == 0)
    return NULL;
  current = g_ptr_array_index (self->snapshots, self->cursor);
  return current->parent >= 0 ? g_ptr_array_index (self->snapshots, current->parent) : NULL;
}

/**
 * sj_timeline_step_back:
 *
 * Makes the undo target current, once its code was applied.
 */
void
sj_timeline_step_back (SjTimeline *self)
{
  const SjSnapshot *current;

  g_assert (SJ_IS_TIMELINE (self));
  g_return_if_fail (self->snapshots->len > 0);

  current = g_ptr_array_index (self->snapshots, self->cursor);
  g_return_if_fail (current->parent >= 0);

  self->cursor = current->parent;
  g_signal_emit (self, signals[CHANGED], 0);
}

/**
 * sj_timeline_forget:
 * @cycle: the boundary of a change that never played
 *
 * A change pushed when it was scheduled for @cycle was canceled before its
 * boundary: the timeline goes back to what it was, as if it had never
 * been pushed (the newest snapshot only: a snapshot something else was
 * built on stays).
 *
 * Returns: whether a snapshot was forgotten
 */
gboolean
sj_timeline_forget (SjTimeline *self,
                    double      cycle)
{
  const SjSnapshot *current;

  g_assert (SJ_IS_TIMELINE (self));

  if (self->snapshots->len == 0 || self->cursor != self->snapshots->len - 1)
    return FALSE;
  current = g_ptr_array_index (self->snapshots, self->cursor);
  if (current->cycle != cycle || current->parent < 0)
    return FALSE;

  self->cursor = current->parent;
  g_ptr_array_remove_index (self->snapshots, self->snapshots->len - 1);
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}
