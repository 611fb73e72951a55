/* sj-test-swap.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-test-app.h"

G_BEGIN_DECLS

/* Two patterns that cannot be mistaken for each other: different notes,
 * sounds and densities. Quiet and short, as nobody listens under Xvfb. */
typedef struct
{
  const char *note;
  guint       per_cycle;
  const char *code;
} SjTestSwapVoice;

extern const SjTestSwapVoice sj_test_swap_voice_a;
extern const SjTestSwapVoice sj_test_swap_voice_b;

typedef struct
{
  const char *state;   /* interned */
  double      cycle;
} SjTestSwapChange;

/* From cycle `at` on (the first segment: from the start of the recording),
 * `voice` plays at `cps`. */
typedef struct
{
  double                 at;
  const SjTestSwapVoice *voice;
  double                 cps;
} SjTestSwapSegment;

typedef struct
{
  guint  swaps;
  guint  events;
  guint  expected;
  guint  lost;
  guint  duplicated;
  guint  unexpected;
  guint  gaps;
  guint  stalled_boundaries; /* boundaries inside a span the scheduler skipped */
  guint  cut;               /* swaps whose boundary fell inside a span */
  gint64 late;              /* events the page scheduled after their time */
  double max_cycle_error;   /* first new onset - boundary, in cycles */
  double max_boundary_ms;   /* audio time of the first new onset vs the tempo map */
  double max_deviation_ms;  /* any event vs the tempo map */
  double sum_lead_s;        /* time from scheduling to the boundary */
} SjTestSwapFigures;

void        sj_test_swap_change_cb       (SjRepl                  *repl,
                                          const char              *state,
                                          double                   cycle,
                                          gpointer                 user_data);
guint       sj_test_swap_count_changes   (GArray                  *changes,
                                          const char              *state);
void        sj_test_swap_wait_for_change (GArray                  *changes,
                                          const char              *state,
                                          double                   cycle);
void        sj_test_swap_wait_for_cycle  (SjRepl                  *repl,
                                          double                   cycle);
void        sj_test_swap_start_playing   (SjRepl                  *repl,
                                          double                   cps,
                                          const SjTestSwapVoice   *voice);
void        sj_test_swap_stop_playing    (SjRepl                  *repl);
void        sj_test_swap_record_events   (SjRepl                  *repl,
                                          gboolean                 on);
JsonObject *sj_test_swap_take_recorded   (SjRepl                  *repl);
double      sj_test_swap_schedule        (SjRepl                  *repl,
                                          const char              *code,
                                          const char              *quantize,
                                          guint                    bars,
                                          guint                    bar_cycles,
                                          double                  *in_seconds,
                                          double                  *cps,
                                          double                  *cps_at_apply);
void        sj_test_swap_check_recording (JsonObject              *recording,
                                          GArray                  *segments,
                                          SjTestSwapFigures       *figures);
void        sj_test_swap_assert_exact    (const SjTestSwapFigures *figures);
gboolean    sj_test_swap_stalled         (const SjTestSwapFigures *figures);
void        sj_test_swap_run             (SjRepl                  *repl,
                                          double                   cps,
                                          guint                    n,
                                          gboolean                 tempo_changes,
                                          SjTestSwapFigures       *figures);

G_END_DECLS
