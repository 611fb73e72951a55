/* sj-swap-result.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The most sound labels or failures a swap result keeps; the page's
 * answers have a few dozen at most. */
#define SJ_SWAP_RESULT_MAX_SOUNDS 1024

/* What the page did with new code (scheduleSwap() in app.mjs). */
typedef enum
{
  SJ_SWAP_SCHEDULED,               /* lands at apply_at_cycle */
  SJ_SWAP_APPLIED,                 /* played at once: the music was stopped */
  SJ_SWAP_ERROR,                   /* the code did not evaluate; nothing changed */
  SJ_SWAP_UNAVAILABLE,             /* a sound could not be loaded; nothing changed */
} SjSwapStatus;

/* A sound the page could not load, and why. */
typedef struct
{
  char *name;                      /* "piano:0" */
  char *reason;                    /* the page's words, or NULL */
} SjSwapFailure;

/* The page's answer to a swap, read and checked once where it comes from
 * the page (sj_swap_result_new_from_json()); the apply pipeline reads the
 * fields. */
typedef struct
{
  SjSwapStatus  status;
  double        apply_at_cycle;    /* scheduled or applied */
  double        in_seconds;
  double        cps;
  double        cps_at_apply;      /* NAN when the page did not say */
  char         *message;           /* error or unavailable; else NULL */

  /* What the page saw loading the change's sounds (preload.mjs) */
  gboolean      has_sounds;        /* whether the page said anything of them */
  GStrv         failed;            /* each once; never NULL */
  GStrv         late;              /* each once; never NULL */
  double        load_ms;           /* NAN when the page did not say */
  GPtrArray    *failures;          /* of SjSwapFailure */
} SjSwapResult;

SjSwapResult *sj_swap_result_new             (SjSwapStatus   status);
SjSwapResult *sj_swap_result_new_from_json   (JsonObject    *answer,
                                              GError       **error);
void          sj_swap_result_free            (SjSwapResult  *self);
const char   *sj_swap_result_get_reason      (const SjSwapResult *self,
                                              const char         *name);
const char   *sj_swap_status_to_string       (SjSwapStatus   status);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjSwapResult, sj_swap_result_free)

G_END_DECLS
