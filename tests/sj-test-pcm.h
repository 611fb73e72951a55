/* sj-test-pcm.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

double sj_test_pcm_rms_db   (const gint16 *samples,
                             gsize         count);
double sj_test_pcm_power_at (const gint16 *samples,
                             gsize         frames,
                             double        frequency,
                             guint         rate);
GBytes *sj_test_pcm_decode  (const char   *path,
                             guint        *rate);

G_END_DECLS
