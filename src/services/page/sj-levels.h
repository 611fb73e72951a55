/* sj-levels.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* What one `levels` page message may hold (data/web/src/levels.mjs). */
#define SJ_LEVELS_MAX_LAYERS        8
#define SJ_LEVELS_MAX_CYCLES        8
#define SJ_LEVELS_MAX_MESSAGE_BYTES (16 * 1024)
/* How many cycles the service keeps, and listen may ask for. */
#define SJ_LEVELS_RING              64
#define SJ_LEVELS_MAX_LISTEN        16
/* The page's floor, and what counts as no sound at all. */
#define SJ_LEVELS_FLOOR_DB          (-120.0)
#define SJ_LEVELS_SILENT_DB         (-60.0)

typedef struct
{
  int    orbit;
  double rms_db;
  double peak_db;
  guint  clipped;
} SjLayerLevels;

/* The figures of one whole cycle of the master output. */
typedef struct
{
  double        cycle;      /* its number: the scheduler's cycle it began at */
  double        cps;
  double        rms_db;
  double        peak_db;
  double        low_db;     /* below 250 Hz */
  double        mid_db;
  double        high_db;    /* above 4 kHz */
  guint         clipped;    /* full-scale samples */
  guint         onsets;
  guint         n_layers;
  SjLayerLevels layers[SJ_LEVELS_MAX_LAYERS];
} SjCycleLevels;

/* One validated `levels` message: the last quarter second, and the cycles
 * that finished meanwhile. */
typedef struct
{
  double        rms_db;
  double        peak_db;
  guint         clipped;
  guint         n_cycles;
  SjCycleLevels cycles[SJ_LEVELS_MAX_CYCLES];
} SjLevelReport;

#define SJ_TYPE_LEVELS (sj_levels_get_type ())

G_DECLARE_FINAL_TYPE (SjLevels, sj_levels, SJ, LEVELS, GObject)

SjLevels            *sj_levels_new              (void);
void                 sj_levels_add_report       (SjLevels            *self,
                                                 const SjLevelReport *report);
void                 sj_levels_clear            (SjLevels            *self);
guint                sj_levels_get_n_cycles     (SjLevels            *self);
const SjCycleLevels *sj_levels_get_cycle        (SjLevels            *self,
                                                 double               cycle);
const SjCycleLevels *sj_levels_get_latest       (SjLevels            *self);
double               sj_levels_get_rms_db       (SjLevels            *self);
double               sj_levels_get_peak_db      (SjLevels            *self);
gboolean             sj_levels_get_clipping     (SjLevels            *self);
gboolean             sj_levels_is_measuring     (SjLevels            *self);
JsonObject          *sj_levels_listen           (SjLevels            *self,
                                                 guint                cycles);
gboolean             sj_levels_is_silent        (const SjCycleLevels *cycle);

G_END_DECLS
