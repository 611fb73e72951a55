/* sj-render-timeline.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Your jam as it happened" (issue 33 item 4): a session's code snapshots,
 * as the history store keeps them (oldest first, each with the cycle it
 * started playing at, or none), turned into one timeline the page renders
 * as a single pattern: an ordered list of (code, from-cycle).
 *
 * The rules, in the order the snapshots come:
 *
 *  - A change with a cycle starts at that cycle of its play, as the live
 *    quantized swap placed it. Whatever the timeline held at or after that
 *    cycle in the same play is dropped: it was replaced before it sounded
 *    (two changes at the same boundary, or several applied while stopped,
 *    which all land at cycle 0: only the last one plays).
 *
 *  - A change without a cycle (NULL in the store, or the -1 the apply
 *    pipeline gives the musician's own code it records just before an
 *    agent's change) was typed and played while nobody noted the cycle:
 *    with the music stopped, or by the musician's own Ctrl+Enter. It was in
 *    the editor no earlier than the change before it, and no later than the
 *    change after it, so it is placed at the first whole cycle after the
 *    previous change (cycle 0 when it is the first of its play): the
 *    earliest place that keeps the order and still lets the previous change
 *    sound for the rest of its cycle. When the next change with a cycle
 *    lands at or before that place, the rule above drops it: it never had a
 *    cycle of its own.
 *
 *  - A change that repeats the code just before it changes nothing and is
 *    left out (the earlier one keeps its place).
 *
 *  - A play restart: a cycle lower than the last one noted in the play
 *    (playback stopped and started again: cycles count from 0 again).
 *    Each play is a segment, and the segments follow one another in the
 *    render. A play ends `tail` cycles after its last change (how long the
 *    music went on after it is not recorded; at least one cycle between
 *    plays). A restarted play begins with the code the previous one ended
 *    with (the live page plays it again from cycle 0 until the next change
 *    lands), unless its first change is at cycle 0. A play whose first
 *    change has a cycle above 0 (the session began while the music played)
 *    is rendered from that change on: nothing before it is known.
 *
 *  - Each change keeps the cycle of its own play it started at (`origin`):
 *    the page shifts its pattern so that what sounds at `at` in the render
 *    is what sounded at `origin` live (`<a b>` alternations stay as heard).
 *
 *  - Limits: more than SJ_RENDER_TIMELINE_MAX_CHANGES snapshots
 *    (SJ_RENDER_ERROR_TOO_MANY_CHANGES) or more than SJ_RENDER_MAX_CYCLES
 *    cycles in all (SJ_RENDER_ERROR_TOO_LONG) are refused before anything
 *    is evaluated; a session with no snapshot is SJ_RENDER_ERROR_NO_CODE.
 *
 * Tempo is the page's to follow (render-timeline.mjs): cycles are the unit
 * here, and seconds follow the tempo each code sets.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-json.h"
#include "sj-render-timeline.h"

struct _SjRenderTimeline
{
  GPtrArray *changes;   /* SjRenderChange */
  guint      n_plays;
  double     end;
  int        tail;
};

static void
change_free (SjRenderChange *change)
{
  g_free (change->code);
  g_free (change);
}

static SjRenderChange *
change_new (const char *code,
            double      origin,
            gint64      snapshot_id)
{
  SjRenderChange *change = g_new0 (SjRenderChange, 1);

  change->code = g_strdup (code != NULL ? code : "");
  change->origin = origin;
  change->snapshot_id = snapshot_id;

  return change;
}

SjRenderTimeline *
sj_render_timeline_new (void)
{
  SjRenderTimeline *self = g_new0 (SjRenderTimeline, 1);

  self->changes = g_ptr_array_new_with_free_func ((GDestroyNotify)change_free);

  return self;
}

void
sj_render_timeline_free (SjRenderTimeline *self)
{
  if (self == NULL)
    return;

  g_ptr_array_unref (self->changes);
  g_free (self);
}

static SjRenderChange *
last_of (GPtrArray *play)
{
  return play->len > 0 ? g_ptr_array_index (play, play->len - 1) : NULL;
}

/* Lays the plays one after the other: a play runs from its first change
 * to `tail` cycles after its last. */
static void
lay_out (SjRenderTimeline *self,
         GPtrArray        *plays)
{
  double at = 0;

  for (guint p = 0; p < plays->len; p++)
    {
      GPtrArray *play = g_ptr_array_index (plays, p);
      gboolean last_play = p + 1 == plays->len;
      double start, end;

      if (play->len == 0)
        continue;
      start = ((SjRenderChange *)g_ptr_array_index (play, 0))->origin;
      end = last_of (play)->origin + (last_play ? self->tail : MAX (self->tail, 1));
      while (play->len > 0)
        {
          SjRenderChange *change = g_ptr_array_steal_index (play, 0);

          change->at = at + (change->origin - start);
          change->play = self->n_plays;
          g_ptr_array_add (self->changes, change);
        }
      self->n_plays++;
      at += end - start;
    }
  self->end = at;
}

/**
 * sj_render_timeline_build:
 * @snapshots: (element-type SjHistorySnapshot): a session's snapshots,
 *   oldest first (sj_history_store_list_snapshots ())
 * @tail: how many cycles a play goes on after its last change
 *
 * Returns: (transfer full): the timeline, or %NULL with @error set in
 *   %SJ_RENDER_ERROR
 */
SjRenderTimeline *
sj_render_timeline_build (GPtrArray  *snapshots,
                          int         tail,
                          GError    **error)
{
  g_autoptr(SjRenderTimeline) self = NULL;
  g_autoptr(GPtrArray) plays = NULL;
  GPtrArray *play = NULL;
  double last_known = -1;
  int cycles;

  g_return_val_if_fail (snapshots != NULL, NULL);

  if (tail < 0 || tail > SJ_RENDER_MAX_CYCLES)
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_CYCLES,
                   _("The cycles after the last change must be 0 to %d, not %d"), SJ_RENDER_MAX_CYCLES, tail);
      return NULL;
    }
  if (snapshots->len == 0)
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_NO_CODE,
                           _("This session has no code to render: nothing was played in it"));
      return NULL;
    }
  if (snapshots->len > SJ_RENDER_TIMELINE_MAX_CHANGES)
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_TOO_MANY_CHANGES,
                   _("This session has %u code changes; a jam may have at most %d to render"),
                   snapshots->len, SJ_RENDER_TIMELINE_MAX_CHANGES);
      return NULL;
    }

  self = sj_render_timeline_new ();
  self->tail = tail;
  plays = g_ptr_array_new_with_free_func ((GDestroyNotify)g_ptr_array_unref);

  for (guint i = 0; i < snapshots->len; i++)
    {
      const SjHistorySnapshot *snapshot = g_ptr_array_index (snapshots, i);
      gboolean known = isfinite (snapshot->cycle) && snapshot->cycle >= 0;
      double origin;
      SjRenderChange *last;

      if (play == NULL || (known && last_known >= 0 && snapshot->cycle < last_known))
        {
          SjRenderChange *ended = play != NULL ? last_of (play) : NULL;

          play = g_ptr_array_new_with_free_func ((GDestroyNotify)change_free);
          g_ptr_array_add (plays, play);
          last_known = -1;
          if (ended != NULL && snapshot->cycle > 0)
            g_ptr_array_add (play, change_new (ended->code, 0, ended->snapshot_id));
        }

      if (known)
        {
          origin = snapshot->cycle;
          last_known = origin;
          while (play->len > 0 && last_of (play)->origin >= origin)
            g_ptr_array_remove_index (play, play->len - 1);
        }
      else
        {
          last = last_of (play);
          origin = last != NULL ? floor (last->origin) + 1 : 0;
        }

      last = last_of (play);
      if (last != NULL && g_strcmp0 (last->code, snapshot->code) == 0)
        continue;
      g_ptr_array_add (play, change_new (snapshot->code, origin, snapshot->id));
    }

  lay_out (self, plays);

  cycles = sj_render_timeline_get_cycles (self);
  if (cycles > SJ_RENDER_MAX_CYCLES)
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_TOO_LONG,
                   _("This jam lasts %d cycles; a render may hold at most %d"), cycles, SJ_RENDER_MAX_CYCLES);
      return NULL;
    }

  return g_steal_pointer (&self);
}

/**
 * sj_render_timeline_load:
 *
 * The timeline of session @session_id in @store.
 *
 * Returns: (transfer full): the timeline, or %NULL with @error set:
 *   %SJ_RENDER_ERROR_SESSION when there is no such session
 */
SjRenderTimeline *
sj_render_timeline_load (SjHistoryStore  *store,
                         gint64           session_id,
                         int              tail,
                         GError         **error)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  gboolean found = FALSE;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (store), NULL);

  if ((sessions = sj_history_store_list_sessions (store, error)) == NULL)
    return NULL;
  for (guint i = 0; i < sessions->len && !found; i++)
    found = ((SjHistorySession *)g_ptr_array_index (sessions, i))->id == session_id;
  if (!found)
    {
      g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT, session_id);

      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_SESSION,
                   /* TRANSLATORS: %s is a session's number */
                   _("There is no session %s in the history"), number);
      return NULL;
    }

  if ((snapshots = sj_history_store_list_snapshots (store, session_id, error)) == NULL)
    return NULL;

  return sj_render_timeline_build (snapshots, tail, error);
}

guint
sj_render_timeline_get_n_changes (SjRenderTimeline *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->changes->len;
}

const SjRenderChange *
sj_render_timeline_get_change (SjRenderTimeline *self,
                               guint             index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->changes->len, NULL);

  return g_ptr_array_index (self->changes, index);
}

guint
sj_render_timeline_get_n_plays (SjRenderTimeline *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_plays;
}

/* Returns: where the last play ends, in cycles from the render's start */
double
sj_render_timeline_get_end (SjRenderTimeline *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->end;
}

/* Returns: the whole cycles the render takes at one tempo (at least 1) */
int
sj_render_timeline_get_cycles (SjRenderTimeline *self)
{
  double cycles;

  g_return_val_if_fail (self != NULL, 0);

  cycles = ceil (self->end - 1e-9);

  return cycles < 1 ? 1 : cycles > G_MAXINT / 2 ? G_MAXINT / 2 : (int)cycles;
}

/* Returns: (transfer full): {"end": …, "changes": [{"code", "at", "origin",
 *   "play", "snapshot"}]}, what the page's renderCode takes as `timeline` */
char *
sj_render_timeline_to_json (SjRenderTimeline *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "end");
  json_builder_add_double_value (builder, self->end);
  json_builder_set_member_name (builder, "changes");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->changes->len; i++)
    {
      const SjRenderChange *change = g_ptr_array_index (self->changes, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "code");
      json_builder_add_string_value (builder, change->code);
      json_builder_set_member_name (builder, "at");
      json_builder_add_double_value (builder, change->at);
      json_builder_set_member_name (builder, "origin");
      json_builder_add_double_value (builder, change->origin);
      json_builder_set_member_name (builder, "play");
      json_builder_add_int_value (builder, change->play);
      json_builder_set_member_name (builder, "snapshot");
      json_builder_add_int_value (builder, change->snapshot_id);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);

  return sj_json_to_string (node, FALSE);
}

/* Returns: (transfer full): render options for the timeline, with no file
 *   yet: its last code as `code`, its cycles and tail */
SjRenderOptions *
sj_render_timeline_to_options (SjRenderTimeline *self)
{
  SjRenderOptions *options = sj_render_options_new ();

  g_return_val_if_fail (self != NULL, options);

  options->timeline = sj_render_timeline_to_json (self);
  options->cycles = sj_render_timeline_get_cycles (self);
  options->tail = self->tail;
  options->n_changes = self->changes->len;
  if (self->changes->len > 0)
    options->code = g_strdup (((SjRenderChange *)g_ptr_array_index (self->changes, self->changes->len - 1))->code);

  return options;
}
