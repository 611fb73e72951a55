/* sj-levels.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the app hears of its own output (issue 29): the page measures
 * superdough's master output on the audio thread and reports, four times a
 * second, the level of the last moment and the figures of each cycle that
 * finished (data/web/src/levels.mjs; sj-page-message.c checks them). This
 * service keeps the last SJ_LEVELS_RING cycles in a ring, so that its
 * memory never grows, and sums them up for the agent's listen tool and for
 * checking that a landed change was heard (sj-change-verify.c). It knows
 * nothing of the page: the window hands it the reports.
 */

#include "config.h"

#include <math.h>

#include "sj-levels.h"

/* A clip stays shown this long, so that one full-scale sample is seen. */
#define CLIP_HOLD_US (2 * G_USEC_PER_SEC)
/* The page reports four times a second while it sounds, and a few times
 * more once it went quiet: past this, nobody is measuring. */
#define MEASURING_US (3 * G_USEC_PER_SEC)

struct _SjLevels
{
  GObject        parent_instance;

  SjCycleLevels  ring[SJ_LEVELS_RING];
  guint          head;      /* where the next cycle goes */
  guint          n_cycles;
  double         rms_db;
  double         peak_db;
  gint64         clip_until;
  gint64         last_report;
};

G_DEFINE_FINAL_TYPE (SjLevels, sj_levels, G_TYPE_OBJECT)

enum {
  CHANGED,
  CYCLE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
sj_levels_class_init (SjLevelsClass *klass)
{
  /**
   * SjLevels::changed:
   *
   * A report came: the level of the last moment changed.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * SjLevels::cycle:
   * @cycle: the number of the cycle just measured
   *
   * A whole cycle was measured (sj_levels_get_cycle() has its figures).
   */
  signals[CYCLE] =
    g_signal_new ("cycle", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
}

static void
sj_levels_init (SjLevels *self)
{
  self->rms_db = SJ_LEVELS_FLOOR_DB;
  self->peak_db = SJ_LEVELS_FLOOR_DB;
}

SjLevels *
sj_levels_new (void)
{
  return g_object_new (SJ_TYPE_LEVELS, NULL);
}

/* The @i-th cycle from the latest (0 is the latest), @i < n_cycles. */
static const SjCycleLevels *
ring_at (SjLevels *self,
         guint     i)
{
  return &self->ring[(self->head + SJ_LEVELS_RING - 1 - i) % SJ_LEVELS_RING];
}

static const SjCycleLevels *
nth_latest (SjLevels *self,
            guint     i)
{
  if (i >= self->n_cycles)
    return NULL;

  return ring_at (self, i);
}

/**
 * sj_levels_clear:
 *
 * Forgets every cycle: the music stopped, or the page was reloaded.
 */
void
sj_levels_clear (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  self->head = 0;
  self->n_cycles = 0;
}

void
sj_levels_add_report (SjLevels            *self,
                      const SjLevelReport *report)
{
  gint64 now = g_get_monotonic_time ();

  g_assert (SJ_IS_LEVELS (self));
  g_return_if_fail (report != NULL);

  self->last_report = now;
  self->rms_db = report->rms_db;
  self->peak_db = report->peak_db;
  if (report->clipped > 0)
    self->clip_until = now + CLIP_HOLD_US;

  for (guint i = 0; i < MIN (report->n_cycles, SJ_LEVELS_MAX_CYCLES); i++)
    {
      const SjCycleLevels *cycle = &report->cycles[i];
      const SjCycleLevels *latest = nth_latest (self, 0);

      if (cycle->clipped > 0)
        self->clip_until = now + CLIP_HOLD_US;

      /* Cycle numbers only grow while the music plays: one that does not
       * is a new start, and what was measured before is another music. */
      if (latest != NULL && cycle->cycle <= latest->cycle)
        sj_levels_clear (self);

      self->ring[self->head] = *cycle;
      self->ring[self->head].n_layers = MIN (cycle->n_layers, SJ_LEVELS_MAX_LAYERS);
      self->head = (self->head + 1) % SJ_LEVELS_RING;
      self->n_cycles = MIN (self->n_cycles + 1, SJ_LEVELS_RING);
      g_signal_emit (self, signals[CYCLE], 0, cycle->cycle);
    }

  g_signal_emit (self, signals[CHANGED], 0);
}

guint
sj_levels_get_n_cycles (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  return self->n_cycles;
}

/* Returns: (nullable): the figures of @cycle, if it is still in the ring */
const SjCycleLevels *
sj_levels_get_cycle (SjLevels *self,
                     double    cycle)
{
  g_assert (SJ_IS_LEVELS (self));

  for (guint i = 0; i < self->n_cycles; i++)
    {
      const SjCycleLevels *levels = ring_at (self, i);

      if (levels->cycle == floor (cycle))
        return levels;
    }

  return NULL;
}

/* Returns: (nullable): the last cycle measured */
const SjCycleLevels *
sj_levels_get_latest (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  return nth_latest (self, 0);
}

double
sj_levels_get_rms_db (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  return self->rms_db;
}

double
sj_levels_get_peak_db (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  return self->peak_db;
}

/* Whether a full-scale sample was played in the last two seconds. */
gboolean
sj_levels_get_clipping (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  return g_get_monotonic_time () < self->clip_until;
}

/* Whether the page reported lately: without it (the analysis is off, the
 * page has no audio), nothing can be heard, silence included. */
gboolean
sj_levels_is_measuring (SjLevels *self)
{
  g_assert (SJ_IS_LEVELS (self));

  return self->last_report != 0 && g_get_monotonic_time () - self->last_report < MEASURING_US;
}

gboolean
sj_levels_is_silent (const SjCycleLevels *cycle)
{
  return cycle->rms_db < SJ_LEVELS_SILENT_DB;
}

/* Power means: the level of several cycles is that of their energy. */
static double
to_power (double db)
{
  return db <= SJ_LEVELS_FLOOR_DB ? 0 : pow (10, db / 10);
}

static double
to_db (double power)
{
  return power > 0 ? MAX (SJ_LEVELS_FLOOR_DB, 10 * log10 (power)) : SJ_LEVELS_FLOOR_DB;
}

static double
round1 (double x)
{
  return round (x * 10) / 10;
}

typedef struct
{
  int    orbit;
  double power;
  double peak_db;
  guint  clipped;
  guint  n;
} LayerSum;

/**
 * sj_levels_listen:
 * @cycles: how many of the last cycles to sum up (1 to SJ_LEVELS_MAX_LISTEN)
 *
 * What the agent's listen tool answers: `{rmsDb, peakDb, bands: {low,
 * mid, high}, onsetsPerCycle, clipping, clippedSamples, silent, layers:
 * [{orbit, rmsDb, peakDb, clipped}], cycles: {from, to, measured},
 * perCycle: [{cycle, rmsDb, peakDb, onsets}]}`, in dBFS; or `{status:
 * "no-data", message}` when no whole cycle was measured.
 *
 * Returns: (transfer full): the summary
 */
JsonObject *
sj_levels_listen (SjLevels *self,
                  guint     cycles)
{
  JsonObject *answer = json_object_new ();
  JsonObject *bands;
  JsonObject *range;
  JsonArray *layers;
  JsonArray *per_cycle;
  LayerSum sums[SJ_LEVELS_MAX_LAYERS] = { 0 };
  guint n_sums = 0;
  double power = 0, low = 0, mid = 0, high = 0, peak = SJ_LEVELS_FLOOR_DB;
  guint64 clipped = 0, onsets = 0;
  guint n;

  g_assert (SJ_IS_LEVELS (self));

  n = MIN (CLAMP (cycles, 1, SJ_LEVELS_MAX_LISTEN), self->n_cycles);
  if (n == 0)
    {
      json_object_set_string_member (answer, "status", "no-data");
      json_object_set_string_member (answer, "message",
                                     "Nothing was measured yet: the music is stopped, or has not played a whole cycle since it started.");
      return answer;
    }

  per_cycle = json_array_new ();
  for (guint i = n; i > 0; i--)
    {
      const SjCycleLevels *c = ring_at (self, i - 1);
      JsonObject *one = json_object_new ();

      power += to_power (c->rms_db);
      low += to_power (c->low_db);
      mid += to_power (c->mid_db);
      high += to_power (c->high_db);
      peak = MAX (peak, c->peak_db);
      clipped += c->clipped;
      onsets += c->onsets;

      for (guint l = 0; l < c->n_layers; l++)
        {
          const SjLayerLevels *layer = &c->layers[l];
          guint k;

          for (k = 0; k < n_sums && sums[k].orbit != layer->orbit; k++)
            ;
          if (k == n_sums)
            {
              if (n_sums == SJ_LEVELS_MAX_LAYERS)
                continue;
              sums[n_sums++] = (LayerSum) { layer->orbit, 0, SJ_LEVELS_FLOOR_DB, 0, 0 };
            }
          sums[k].power += to_power (layer->rms_db);
          sums[k].peak_db = MAX (sums[k].peak_db, layer->peak_db);
          sums[k].clipped += layer->clipped;
          sums[k].n++;
        }

      json_object_set_double_member (one, "cycle", c->cycle);
      json_object_set_double_member (one, "rmsDb", round1 (c->rms_db));
      json_object_set_double_member (one, "peakDb", round1 (c->peak_db));
      json_object_set_int_member (one, "onsets", c->onsets);
      json_array_add_object_element (per_cycle, one);
    }

  json_object_set_double_member (answer, "rmsDb", round1 (to_db (power / n)));
  json_object_set_double_member (answer, "peakDb", round1 (peak));
  bands = json_object_new ();
  json_object_set_double_member (bands, "low", round1 (to_db (low / n)));
  json_object_set_double_member (bands, "mid", round1 (to_db (mid / n)));
  json_object_set_double_member (bands, "high", round1 (to_db (high / n)));
  json_object_set_object_member (answer, "bands", bands);
  json_object_set_double_member (answer, "onsetsPerCycle", round1 ((double) onsets / n));
  json_object_set_boolean_member (answer, "clipping", clipped > 0);
  json_object_set_int_member (answer, "clippedSamples", clipped);
  json_object_set_boolean_member (answer, "silent", to_db (power / n) < SJ_LEVELS_SILENT_DB);

  layers = json_array_new ();
  for (guint k = 0; k < n_sums; k++)
    {
      JsonObject *layer = json_object_new ();

      json_object_set_int_member (layer, "orbit", sums[k].orbit);
      json_object_set_double_member (layer, "rmsDb", round1 (to_db (sums[k].power / sums[k].n)));
      json_object_set_double_member (layer, "peakDb", round1 (sums[k].peak_db));
      json_object_set_int_member (layer, "clipped", sums[k].clipped);
      json_array_add_object_element (layers, layer);
    }
  json_object_set_array_member (answer, "layers", layers);

  range = json_object_new ();
  json_object_set_double_member (range, "from", ring_at (self, n - 1)->cycle);
  json_object_set_double_member (range, "to", ring_at (self, 0)->cycle);
  json_object_set_int_member (range, "measured", n);
  json_object_set_object_member (answer, "cycles", range);
  json_object_set_array_member (answer, "perCycle", per_cycle);

  return answer;
}
