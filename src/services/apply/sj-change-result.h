/* sj-change-result.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  SJ_CHANGE_STATUS_SCHEDULED,  /* lands at apply_at_cycle */
  SJ_CHANGE_STATUS_APPLIED,    /* landed at once: the music was stopped */
  SJ_CHANGE_STATUS_REJECTED,   /* nothing changed */
} SjChangeStatus;

/* Where the pipeline stopped a rejected change. */
typedef enum
{
  SJ_CHANGE_PHASE_NONE,        /* not rejected */
  SJ_CHANGE_PHASE_INPUT,       /* the change itself is wrong */
  SJ_CHANGE_PHASE_STALE,       /* written against other code */
  SJ_CHANGE_PHASE_SYNTAX,      /* the dry-run's phases… */
  SJ_CHANGE_PHASE_COMPILE,
  SJ_CHANGE_PHASE_RUNTIME,
  SJ_CHANGE_PHASE_TIMEOUT,
  SJ_CHANGE_PHASE_SOUNDS,      /* …then the sounds check */
  SJ_CHANGE_PHASE_SCHEDULE,    /* the page could not take it */
} SjChangePhase;

/* Why, in the contract's stable machine-readable words (its "code"). */
typedef enum
{
  SJ_CHANGE_REJECTION_NONE,
  SJ_CHANGE_REJECTION_INVALID_INPUT,
  SJ_CHANGE_REJECTION_CODE_TOO_LARGE,
  SJ_CHANGE_REJECTION_SEARCH_NOT_FOUND,
  SJ_CHANGE_REJECTION_SEARCH_AMBIGUOUS,
  SJ_CHANGE_REJECTION_NO_CHANGE,
  SJ_CHANGE_REJECTION_NOTHING_TO_UNDO,
  SJ_CHANGE_REJECTION_STALE_BASE_HASH,
  SJ_CHANGE_REJECTION_DRY_RUN_FAILED,
  SJ_CHANGE_REJECTION_DRY_RUN_UNAVAILABLE,
  SJ_CHANGE_REJECTION_UNKNOWN_SOUNDS,
  SJ_CHANGE_REJECTION_LIVE_EVALUATION_FAILED,
  SJ_CHANGE_REJECTION_PAGE_UNAVAILABLE,
  SJ_CHANGE_REJECTION_SOUND_UNAVAILABLE,
} SjChangeRejection;

/* One problem with a rejected change. */
typedef struct
{
  char *message;
  char *field;                 /* the input field at fault, or NULL */
  int   line;                  /* in the new code, 1-based; 0 when unknown */
  int   column;                /* 1-based; 0 when unknown */
} SjChangeDiagnostic;

/* A name the code uses that does not exist: a function or method, or a
 * sound, with real names close to it. */
typedef struct
{
  char  *name;
  char  *kind;                 /* "global" or "method" for symbols; NULL for sounds */
  int    line;                 /* 1-based; 0 when unknown (always for sounds) */
  int    column;
  GStrv  suggestions;          /* from the knowledge indexes, never invented */
  char  *reason;               /* an unavailable sound: why it cannot be had, or NULL */
} SjChangeUnknownName;

/* A tempo change the new code makes. */
typedef struct
{
  double cps;                  /* NAN when the code gave no number */
  double cycle;                /* where an event's cps control sets it; NAN for setcps()/setcpm() */
} SjChangeTempo;

/* Samples the new code asks for. */
typedef struct
{
  char  *source;               /* "map" for a map in the code, else the pack's name or URL */
  GStrv  names;                /* a map's sound names, else NULL */
  char  *base;                 /* a map's base URL, or NULL */
} SjChangeSamples;

/* What the dry-run saw of a change that goes ahead. */
typedef struct
{
  gint64     events;
  GStrv      sounds;             /* every sound it plays, sorted */
  GArray    *tempo;              /* of SjChangeTempo */
  GPtrArray *samples;            /* of SjChangeSamples */
  GStrv      loading_sounds;     /* not registered yet: a sample map the code loads from the
                                  * network (not fetched yet) may register them */
} SjChangeDryRun;

/* The sample files a change plays ("bd:3", "piano (C4)"), as they were had
 * before it landed (sj-change-sounds.c). */
typedef struct
{
  GStrv   ready;               /* in the sound cache: nothing to wait for */
  GStrv   loading;             /* downloaded first; the change landed once they were loaded */
  GStrv   kit;                 /* cannot be had: the built-in drum kit's voice plays */
  GStrv   failed;              /* the page could not load them: silent until they can be */
  GStrv   late;                /* still loading when the page stopped waiting: they start on arrival */
  double  load_ms;             /* how long the page waited for them; NAN when it did not say */
} SjChangeSounds;

/* What a change came to: apply_strudel_change, an undo, a replacement.
 * Only the apply pipeline fills the fields; everyone else reads them. A
 * new field goes here, in the finalizer, and (if the model should see it)
 * in sj_change_result_to_json(): the JSON is made only where the result
 * goes to the model. */
typedef struct
{
  SjChangeStatus      status;

  /* Scheduled or applied */
  double              apply_at_cycle;
  double              apply_in_seconds;
  char               *new_hash;           /* the SHA-256 of the new code */
  SjChangeDryRun      dry_run;
  SjChangeSounds      sounds;

  /* Rejected */
  SjChangePhase       phase;
  SjChangeRejection   rejection;
  GPtrArray          *diagnostics;        /* of SjChangeDiagnostic, at least one */
  GPtrArray          *unknown_symbols;    /* of SjChangeUnknownName */
  GPtrArray          *unknown_sounds;     /* of SjChangeUnknownName */
  GPtrArray          *unavailable_sounds; /* of SjChangeUnknownName: files that cannot be had now,
                                           * their suggestions the sounds that can */
  char               *latest_code;        /* stale: what the editor holds now, or NULL */
  char               *latest_hash;        /* stale: its hash, or NULL */

  /*< private >*/
  gatomicrefcount     ref_count;
} SjChangeResult;

#define SJ_TYPE_CHANGE_RESULT (sj_change_result_get_type ())

GType                sj_change_result_get_type       (void) G_GNUC_CONST;
SjChangeResult      *sj_change_result_new_landing    (SjChangeStatus        status,
                                                      double                cycle,
                                                      double                in_seconds,
                                                      const char           *new_hash);
SjChangeResult      *sj_change_result_new_rejected   (SjChangePhase         phase,
                                                      SjChangeRejection     rejection,
                                                      const char           *message,
                                                      const char           *field);
SjChangeResult      *sj_change_result_ref            (SjChangeResult       *self);
void                 sj_change_result_unref          (SjChangeResult       *self);
const char          *sj_change_result_get_message    (const SjChangeResult *self);
JsonObject          *sj_change_result_to_json        (const SjChangeResult *self);

const char          *sj_change_status_to_string      (SjChangeStatus        status);
const char          *sj_change_phase_to_string       (SjChangePhase         phase);
SjChangePhase        sj_change_phase_from_string     (const char           *phase);
const char          *sj_change_rejection_to_string   (SjChangeRejection     rejection);

SjChangeUnknownName *sj_change_unknown_name_new      (const char           *name,
                                                      const char           *kind,
                                                      int                   line,
                                                      int                   column,
                                                      const char * const   *suggestions);
void                 sj_change_unknown_name_free     (SjChangeUnknownName  *unknown);
SjChangeSamples     *sj_change_samples_new           (const char           *source,
                                                      const char * const   *names,
                                                      const char           *base);
void                 sj_change_samples_free          (SjChangeSamples      *samples);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjChangeResult, sj_change_result_unref)

G_END_DECLS
