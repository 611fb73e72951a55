/* sj-test-fidelity.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* 16-bit stereo samples of a file. */
typedef struct
{
  GBytes       *bytes;
  const gint16 *pcm;
  gsize         frames;
  guint         rate;
} SjTestPcm;

/* A live take against a render of the same code. */
typedef struct
{
  guint  cycles;        /* whole live cycles inside the take */
  guint  intact;        /* of which matched the render (compared) */
  guint  broken;        /* of which did not: a dropout or a late note */
  guint  onsets;        /* live onsets compared, in intact cycles */
  double worst_onset_ms;
  double live_db[3];    /* < 300 Hz, 300 Hz - 3 kHz, 3 - 8 kHz */
  double render_db[3];
} SjTestFidelity;

void     sj_test_pcm_load        (SjTestPcm      *pcm,
                                  const char     *path);
void     sj_test_pcm_clear       (SjTestPcm      *pcm);
gboolean sj_test_fidelity_compare (const SjTestPcm *live,
                                   const SjTestPcm *render,
                                   double           cps,
                                   guint            period,
                                   SjTestFidelity  *out);

G_END_DECLS
