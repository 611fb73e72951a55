/* sj-dry-run-result.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A sound name the code uses that is not known, with close real ones. */
typedef struct
{
  char  *name;
  char  *kind;         /* "function", "sound", …; NULL when not said */
  int    line;         /* 1-based; 0 when not known */
  int    column;
  GStrv  suggestions;  /* NULL when not said */
} SjDryRunUnknown;

/* A sample map the code loads: where from, the names it registers. */
typedef struct
{
  char  *source;
  char  *base;         /* NULL when not said */
  GStrv  names;        /* for a map; NULL otherwise */
} SjDryRunSamples;

/* A file of the sound library the code plays. */
typedef struct
{
  char *pack;
  char *path;
  char *sound;         /* NULL when not said */
} SjDryRunSampleUse;

typedef struct
{
  double cps;          /* NAN when the report had none */
  double cycle;
} SjDryRunTempo;

/**
 * SjDryRunResult:
 *
 * What a dry-run found (sj_dry_run_report()), read once where the helper's
 * JSON comes in, so that the apply pipeline reads fields.
 */
typedef struct
{
  gboolean   ok;
  char      *phase;            /* when not ok: "syntax", "runtime", …; NULL when not said */
  char      *message;          /* NULL when not said */
  int        line;             /* 1-based; 0 when not known */
  int        column;
  gint64     events;
  GStrv      sounds;           /* never NULL */
  GStrv      loading_sounds;   /* never NULL: from sample maps not fetched yet */
  GArray    *tempo;            /* of SjDryRunTempo */
  GPtrArray *samples;          /* of SjDryRunSamples */
  GPtrArray *sample_uses;      /* of SjDryRunSampleUse */
  GPtrArray *unknown_symbols;  /* of SjDryRunUnknown */
  GPtrArray *unknown_sounds;   /* of SjDryRunUnknown */
} SjDryRunResult;

/* At most this many entries of each list are read. */
#define SJ_DRY_RUN_RESULT_MAX_ITEMS 4096

SjDryRunResult *sj_dry_run_result_new_from_report (JsonObject           *report);
void            sj_dry_run_result_free            (SjDryRunResult       *result);
gboolean        sj_dry_run_result_lets_through    (const SjDryRunResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjDryRunResult, sj_dry_run_result_free)

G_END_DECLS
