/* sj-test-fidelity.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A live take against a render of the same code (issue 33 item 5), cycle
 * by cycle. Both are cut into 1 ms pieces: the peak of each (the envelope)
 * and its energy in three bands (under 300 Hz, 300 Hz to 3 kHz, 3 to 8 kHz:
 * two one-pole filters in a row at each edge, the same on both; nothing of
 * the top octave, where 44.1 and 48 kHz differ by design).
 *
 * The live take starts anywhere in the pattern: its envelope is laid on the
 * render's (rendered two cycles more than the pattern's period, the first
 * left out: nothing rings into it; a cycle of the take spans two of it) at
 * the offset where they match best, modulo the period. Then each whole cycle of the take is laid on its
 * cycle of the render again, within 30 ms: a cycle that matches only
 * elsewhere, or badly, holds a dropout or a late note (the page missed its
 * deadline) and is counted as broken, not compared (a take with a dropout
 * is no fidelity figure); so is one with a note more than 5 ms off its
 * place, as a hole in the output delays all that follows it (an error of
 * the render's, the same in every cycle, leaves no cycle intact). In the
 * intact cycles, each live onset is timed against the render's nearest one
 * under the take's one alignment, and the bands are summed over the same
 * cycles of both.
 */

#include "config.h"

#include <math.h>

#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include "sj-test-fidelity.h"
#include "sj-test-pcm.h"

#define EDGE_MS         300     /* the take's start and stop */
#define SEARCH_MS       30      /* a cycle laid again within this */
#define INTACT_SHIFT_MS 3       /* a cycle this far off its place is late */
#define INTACT_MATCH    0.97    /* a cycle that matches worse is broken */
#define ONSET_PAIR_MS   20      /* onsets this close are the same note */
#define LATE_MS         5       /* a note further off is late (or after a hole) */

void
sj_test_pcm_load (SjTestPcm  *pcm,
                  const char *path)
{
  guint rate = 0;
  gsize size;

  pcm->bytes = sj_test_pcm_decode (path, &rate);
  pcm->rate = rate;
  pcm->pcm = g_bytes_get_data (pcm->bytes, &size);
  pcm->frames = size / 4;
}

void
sj_test_pcm_clear (SjTestPcm *pcm)
{
  g_clear_pointer (&pcm->bytes, g_bytes_unref);
  pcm->pcm = NULL;
  pcm->frames = 0;
}

/* Per ms: the peak of both channels, and the energy in each band. */
typedef struct
{
  gsize   count;
  double *peak;
  double *band[3];      /* the sum of each sample's power, both channels' mean */
  double *frames;       /* samples in each piece (44 or 45 at 44.1 kHz) */
} Pieces;

static void
pieces_init (Pieces          *pieces,
             const SjTestPcm *pcm)
{
  const double edges[3] = { 300, 3000, 8000 };
  double a[3], y1[2][3] = { { 0 } }, y2[2][3] = { { 0 } };
  pieces->count = pcm->frames * 1000 / pcm->rate;
  pieces->peak = g_new0 (double, pieces->count);
  pieces->frames = g_new0 (double, pieces->count);
  for (guint b = 0; b < 3; b++)
    {
      pieces->band[b] = g_new0 (double, pieces->count);
      a[b] = exp (-2 * G_PI * edges[b] / pcm->rate);
    }

  for (gsize i = 0; i < pieces->count * pcm->rate / 1000; i++)
    {
      gsize k = i * 1000 / pcm->rate;

      pieces->frames[k]++;
      for (guint c = 0; c < 2; c++)
        {
          double x = pcm->pcm[2 * i + c] / 32768.0, low, mid, high;

          pieces->peak[k] = MAX (pieces->peak[k], fabs (x));
          for (guint e = 0; e < 3; e++)
            {
              y1[c][e] = (1 - a[e]) * x + a[e] * y1[c][e];
              y2[c][e] = (1 - a[e]) * y1[c][e] + a[e] * y2[c][e];
            }
          low = y2[c][0];
          mid = y2[c][1] - y2[c][0];
          high = y2[c][2] - y2[c][1];
          pieces->band[0][k] += low * low / 2;
          pieces->band[1][k] += mid * mid / 2;
          pieces->band[2][k] += high * high / 2;
        }
    }
}

static void
pieces_clear (Pieces *pieces)
{
  g_free (pieces->peak);
  g_free (pieces->frames);
  for (guint b = 0; b < 3; b++)
    g_free (pieces->band[b]);
}

/* Normalized correlation of @len pieces of @a from @at with @b from @bt. */
static double
match (const Pieces *a,
       gssize        at,
       const Pieces *b,
       gssize        bt,
       gsize         len)
{
  double ab = 0, aa = 0, bb = 0;

  if (at < 0 || bt < 0 || at + len > a->count || bt + len > b->count)
    return -1;
  for (gsize i = 0; i < len; i++)
    {
      ab += a->peak[at + i] * b->peak[bt + i];
      aa += a->peak[at + i] * a->peak[at + i];
      bb += b->peak[bt + i] * b->peak[bt + i];
    }

  return aa > 0 && bb > 0 ? ab / sqrt (aa * bb) : -1;
}

/* Onsets (ms): a piece whose peak is over 0.02 and 4 times the loudest of
 * the 3 to 15 ms before it, at least 100 ms after the last onset. */
static GArray *
onsets (const Pieces *pieces)
{
  GArray *times = g_array_new (FALSE, FALSE, sizeof (gsize));
  gssize last = -1000;

  for (gsize k = 15; k < pieces->count; k++)
    {
      double before = 0;

      for (gsize j = k - 15; j <= k - 3; j++)
        before = MAX (before, pieces->peak[j]);
      if (pieces->peak[k] > 0.02 && pieces->peak[k] > 4 * before && (gssize)k - last >= 100)
        {
          g_array_append_val (times, k);
          last = k;
        }
    }

  return times;
}

/* Returns: whether any cycle could be compared. */
gboolean
sj_test_fidelity_compare (const SjTestPcm *live,
                          const SjTestPcm *render,
                          double           cps,
                          guint            period,
                          SjTestFidelity  *out)
{
  Pieces l, r;
  double cycle = 1000 / cps, span = period * cycle, best = -2, sums[2][3] = { { 0 } }, frames[2] = { 0 };
  gsize offset = 0, from = EDGE_MS, len;
  g_autoptr(GArray) live_onsets = NULL;
  g_autoptr(GArray) render_onsets = NULL;

  memset (out, 0, sizeof *out);
  pieces_init (&l, live);
  pieces_init (&r, render);
  g_assert_cmpfloat (r.count, >=, (period + 2) * cycle - 1);
  g_assert_cmpuint (l.count, >, 2 * EDGE_MS + cycle);
  len = l.count - 2 * EDGE_MS;

  /* The take on the render, modulo the period: live ms t is render ms
   * cycle + (t + offset) mod span. The take may be longer than the period,
   * so it is laid on in pieces of one cycle. */
  for (gsize o = 0; o < (gsize)span; o++)
    {
      double sum = 0;
      guint n = 0;

      for (gsize t = from; t + (gsize)cycle <= from + len; t += (gsize)cycle, n++)
        sum += match (&l, t, &r, (gssize)(cycle + fmod (t + o, span)), (gsize)cycle);
      if (n > 0 && sum / n > best)
        {
          best = sum / n;
          offset = o;
        }
    }

  live_onsets = onsets (&l);
  render_onsets = onsets (&r);

  /* Each whole cycle of the take. */
  for (double start = fmod (cycle - fmod (offset, cycle), cycle); start + cycle <= l.count - EDGE_MS; start += cycle)
    {
      gssize at = (gssize)round (start), there, shift = 0;
      double here = -2, worst;
      guint matched;

      if (start < EDGE_MS)
        continue;
      out->cycles++;
      there = (gssize)round (cycle + fmod (start + offset, span));
      for (gssize d = -SEARCH_MS; d <= SEARCH_MS; d++)
        {
          double m = match (&l, at, &r, there + d, (gsize)cycle);

          if (m > here)
            {
              here = m;
              shift = d;
            }
        }
      /* Each live onset of the cycle against the render's nearest, under
       * the take's one alignment. */
      worst = 0;
      matched = 0;
      for (guint i = 0; i < live_onsets->len; i++)
        {
          gsize t = g_array_index (live_onsets, gsize, i);
          double nearest = INFINITY;

          if (t < (gsize)at || t >= (gsize)(at + cycle))
            continue;
          for (guint j = 0; j < render_onsets->len; j++)
            {
              double d = (double)g_array_index (render_onsets, gsize, j) - (there + (double)(t - at));

              if (fabs (d) < fabs (nearest))
                nearest = d;
            }
          if (fabs (nearest) <= ONSET_PAIR_MS)
            {
              matched++;
              worst = MAX (worst, fabs (nearest));
            }
        }
      /* A hole in the output delays all that follows it: a note more than
       * 5 ms off in a cycle that otherwise matches is one. */
      if (ABS (shift) > INTACT_SHIFT_MS || here < INTACT_MATCH || worst > LATE_MS)
        {
          out->broken++;
          g_test_message ("fidelity: the live cycle at %.3f s is broken (it matches %.3f, %+d ms off its place, "
                          "a note %.0f ms off)", start / 1000, here, (int)shift, worst);
          continue;
        }
      out->intact++;
      out->onsets += matched;
      out->worst_onset_ms = MAX (out->worst_onset_ms, worst);
      if (g_getenv ("SJ_TEST_FIDELITY_ANALYSE") != NULL)
        g_test_message ("fidelity: the live cycle at %.3f s matches %.3f, %+d ms", start / 1000, here, (int)shift);
      for (gsize i = 0; i < (gsize)cycle && there + i < r.count; i++)
        {
          frames[0] += l.frames[at + i];
          frames[1] += r.frames[there + i];
          for (guint b = 0; b < 3; b++)
            {
              sums[0][b] += l.band[b][at + i];
              sums[1][b] += r.band[b][there + i];
            }
        }
    }

  for (guint b = 0; b < 3; b++)
    {
      out->live_db[b] = 10 * log10 (MAX (sums[0][b], 1e-30) / MAX (frames[0], 1));
      out->render_db[b] = 10 * log10 (MAX (sums[1][b], 1e-30) / MAX (frames[1], 1));
    }
  g_test_message ("fidelity: the take laid on the render at %zu ms (match %.3f); %u whole cycles, %u intact, %u broken; "
                  "%u onsets, the worst %.0f ms off; bands live %.2f / %.2f / %.2f dB, render %.2f / %.2f / %.2f dB",
                  offset, best, out->cycles, out->intact, out->broken, out->onsets, out->worst_onset_ms,
                  out->live_db[0], out->live_db[1], out->live_db[2],
                  out->render_db[0], out->render_db[1], out->render_db[2]);

  pieces_clear (&l);
  pieces_clear (&r);

  return out->intact > 0;
}
