/* sj-drum-synth-dsp.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The building blocks the drum kit's voices are made of: sample buffers,
 * a reproducible noise generator, oscillators (sine, triangle, the
 * band-limited square and the 808's six-square "metal"), a state-variable
 * filter and an all-pass, envelopes and saturation, and the finish that
 * every rendered sample gets before it is written.  They know nothing of
 * any voice: the voices are rows of parameters in sj-drum-synth-drums.c and
 * sj-drum-synth-metal.c that pick and wire these blocks.
 *
 * Everything here is plain double arithmetic in a fixed order, so that the
 * kit comes out the same bit for bit on every build (see sj-drum-synth.c).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sj-drum-synth-private.h"

#define PEAK_DBFS       (-1.0)
#define FADE_SECONDS    0.005

/* ln (1000): decays are given as the time to fall by 60 dB, the way drum
 * machine manuals and ears measure them. */
#define LN_1000 6.907755278982137

/* ------------------------------------------------------------------ */
/* Buffers                                                              */
/* ------------------------------------------------------------------ */

void *
_sj_synth_xcalloc (size_t n,
                   size_t size)
{
  void *memory = calloc (n, size);

  if (memory == NULL)
    {
      fprintf (stderr, "sj-drum-synth: out of memory\n");
      exit (1);
    }
  return memory;
}

SjSynthBuffer
_sj_synth_buffer_new (double seconds)
{
  SjSynthBuffer buffer;

  buffer.len = (size_t) lround (seconds * SJ_SYNTH_RATE);
  buffer.data = _sj_synth_xcalloc (buffer.len, sizeof *buffer.data);
  return buffer;
}

double
_sj_synth_time_of (size_t i)
{
  return (double) i / SJ_SYNTH_RATE;
}

/* ------------------------------------------------------------------ */
/* Noise                                                                */
/* ------------------------------------------------------------------ */

/* SplitMix64: tiny, and the same sequence on every platform, which a
 * reproducible build needs (rand () is not).  The seed is an FNV-1a hash
 * of the voice's name, mixed with the variant. */
void
_sj_synth_rng_init (SjSynthRng *rng,
                    const char *voice,
                    size_t      variant)
{
  uint64_t hash = 14695981039346656037ULL; /* FNV-1a of the name */

  for (const char *c = voice; *c != '\0'; c++)
    hash = (hash ^ (unsigned char) *c) * 1099511628211ULL;
  rng->state = hash ^ ((uint64_t) (variant + 1) * 0x9E3779B97F4A7C15ULL);
}

static uint64_t
rng_next (SjSynthRng *rng)
{
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ULL);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
double
_sj_synth_rng_uniform (SjSynthRng *rng)
{
  return (double) (rng_next (rng) >> 11) / 9007199254740992.0;
}

/* White noise, uniform in [-1, 1). */
double
_sj_synth_noise (SjSynthRng *rng)
{
  return 2.0 * _sj_synth_rng_uniform (rng) - 1.0;
}

/* ------------------------------------------------------------------ */
/* Oscillators                                                          */
/* ------------------------------------------------------------------ */

/* Returns the phase of this sample and advances by one sample at @freq;
 * the frequency may change from sample to sample (pitch envelopes). */
static double
osc_tick (SjSynthOsc *osc,
          double      freq)
{
  double phase = osc->phase;

  osc->phase += freq / SJ_SYNTH_RATE;
  osc->phase -= floor (osc->phase);
  return phase;
}

double
_sj_synth_osc_sine (SjSynthOsc *osc,
                    double      freq)
{
  return sin (2.0 * M_PI * osc_tick (osc, freq));
}

/* Starts at 0 rising, like the sine, so that a drum starts without a step. */
double
_sj_synth_osc_triangle (SjSynthOsc *osc,
                        double      freq)
{
  double phase = osc_tick (osc, freq);

  if (phase < 0.25)
    return 4.0 * phase;
  if (phase < 0.75)
    return 2.0 - 4.0 * phase;
  return 4.0 * phase - 4.0;
}

/* The polyBLEP correction of a unit step at phase 0. */
static double
poly_blep (double phase,
           double step)
{
  if (phase < step)
    {
      phase /= step;
      return phase + phase - phase * phase - 1.0;
    }
  if (phase > 1.0 - step)
    {
      phase = (phase - 1.0) / step;
      return phase * phase + phase + phase + 1.0;
    }
  return 0.0;
}

/* A band-limited square.  The 808's metallic voices are six squares
 * through high band-passes: naive squares would fold their upper
 * harmonics back as whistles right where those filters listen. */
double
_sj_synth_osc_square (SjSynthOsc *osc,
                      double      freq)
{
  double step = freq / SJ_SYNTH_RATE;
  double phase = osc_tick (osc, freq);
  double half = phase + 0.5;
  double value = phase < 0.5 ? 1.0 : -1.0;

  half -= floor (half);
  return value + poly_blep (phase, step) - poly_blep (half, step);
}

/* The 808's six square oscillators (hats and cymbal; the cowbell taps two
 * of them, 540 and 800 Hz), at the frequencies usually given for the
 * circuit.  Their inharmonic sum is the "metal". */
static const double metal_freqs[6] = { 205.3, 304.4, 369.6, 522.7, 540.0, 800.0 };

void
_sj_synth_metal_init (SjSynthMetal *metal,
                      double        tune)
{
  memset (metal, 0, sizeof *metal);
  metal->tune = tune;
  /* Free-running oscillators are never in phase; starting them all at 0
   * would make the first millisecond a loud, identical spike. */
  for (size_t i = 0; i < SJ_N_ELEMENTS (metal->osc); i++)
    metal->osc[i].phase = (double) i / SJ_N_ELEMENTS (metal->osc);
}

double
_sj_synth_metal_tick (SjSynthMetal *metal)
{
  double sum = 0.0;

  for (size_t i = 0; i < SJ_N_ELEMENTS (metal->osc); i++)
    sum += _sj_synth_osc_square (&metal->osc[i], metal_freqs[i] * metal->tune);
  return sum / SJ_N_ELEMENTS (metal->osc);
}

/* ------------------------------------------------------------------ */
/* Filters                                                              */
/* ------------------------------------------------------------------ */

/* A state-variable filter in the topology-preserving form (Zavalishin,
 * Simper): stable at any frequency and Q, with low, band and high outputs
 * at once, so one helper serves every filter of the kit. */
typedef struct
{
  double low, band, high;
} SvfOut;

void
_sj_synth_svf_init (SjSynthSvf *svf,
                    double      freq,
                    double      q)
{
  double g = tan (M_PI * fmin (freq, 0.49 * SJ_SYNTH_RATE) / SJ_SYNTH_RATE);

  svf->k = 1.0 / q;
  svf->a1 = 1.0 / (1.0 + g * (g + svf->k));
  svf->a2 = g * svf->a1;
  svf->a3 = g * svf->a2;
  svf->ic1 = svf->ic2 = 0.0;
}

static SvfOut
svf_tick (SjSynthSvf *svf,
          double      x)
{
  double v3 = x - svf->ic2;
  double v1 = svf->a1 * svf->ic1 + svf->a2 * v3;
  double v2 = svf->ic2 + svf->a2 * svf->ic1 + svf->a3 * v3;
  SvfOut out;

  svf->ic1 = 2.0 * v1 - svf->ic1;
  svf->ic2 = 2.0 * v2 - svf->ic2;
  out.low = v2;
  out.band = v1;
  out.high = x - svf->k * v1 - v2;
  return out;
}

double
_sj_synth_svf_lowpass (SjSynthSvf *svf,
                       double      x)
{
  return svf_tick (svf, x).low;
}

/* Scaled to unity gain at the centre, so a Q change keeps the level. */
double
_sj_synth_svf_bandpass (SjSynthSvf *svf,
                        double      x)
{
  return svf->k * svf_tick (svf, x).band;
}

double
_sj_synth_svf_highpass (SjSynthSvf *svf,
                        double      x)
{
  return svf_tick (svf, x).high;
}

/* A Schroeder all-pass: smears a sound in time without colouring it, the
 * cheapest room there is (the clap's tail). */
void
_sj_synth_allpass_init (SjSynthAllpass *allpass,
                        double          seconds,
                        double          gain)
{
  allpass->len = (size_t) lround (seconds * SJ_SYNTH_RATE);
  allpass->line = _sj_synth_xcalloc (allpass->len, sizeof *allpass->line);
  allpass->pos = 0;
  allpass->gain = gain;
}

double
_sj_synth_allpass_tick (SjSynthAllpass *allpass,
                        double          x)
{
  double delayed = allpass->line[allpass->pos];
  double w = x + allpass->gain * delayed;

  allpass->line[allpass->pos] = w;
  allpass->pos = (allpass->pos + 1) % allpass->len;
  return delayed - allpass->gain * w;
}

void
_sj_synth_allpass_clear (SjSynthAllpass *allpass)
{
  free (allpass->line);
  allpass->line = NULL;
}

/* ------------------------------------------------------------------ */
/* Envelopes and shaping                                                */
/* ------------------------------------------------------------------ */

/* 1 at t = 0, -60 dB at @t60. */
double
_sj_synth_env_decay (double t,
                     double t60)
{
  return t < 0.0 ? 0.0 : exp (-LN_1000 * t / t60);
}

/* A linear rise over @attack, then 1: even a drum's attack takes a little
 * time, and a zero-time step would click at the start. */
double
_sj_synth_env_attack (double t,
                      double attack)
{
  if (t < 0.0)
    return 0.0;
  return attack <= 0.0 || t >= attack ? 1.0 : t / attack;
}

/* 1 for @hold, then down to -60 dB @t60 later. */
double
_sj_synth_env_hold_decay (double t,
                          double hold,
                          double t60)
{
  return t < hold ? 1.0 : _sj_synth_env_decay (t - hold, t60);
}

/* Soft clipping, normalised so that full scale stays full scale: the
 * drive of a transistor VCA, which rounds and fattens a drum. */
double
_sj_synth_saturate (double x,
                    double drive)
{
  return drive <= 0.0 ? x : tanh (drive * x) / tanh (drive);
}

/* A pitch that starts at @sweep times @freq and settles at @freq with the
 * time constant @time: the 808's pinged bridged-T drifting down, the 909's
 * swept oscillator. */
double
_sj_synth_pitch_drop (double t,
                      double freq,
                      double sweep,
                      double time)
{
  return freq * (1.0 + (sweep - 1.0) * exp (-t / time));
}

/* ------------------------------------------------------------------ */
/* Finishing                                                            */
/* ------------------------------------------------------------------ */

/* DC removal, the fade-out and the normalisation every sample gets. */
void
_sj_synth_finish (SjSynthBuffer *buffer)
{
  double pole = exp (-2.0 * M_PI * 10.0 / SJ_SYNTH_RATE);
  size_t fade = (size_t) lround (FADE_SECONDS * SJ_SYNTH_RATE);
  double x1 = 0.0, y1 = 0.0, peak = 0.0, gain;

  /* A one-pole high-pass at 10 Hz, below every voice's lowest partial: a
   * kick's first half cycle outweighs the decaying rest, and saturation
   * and noise leave offsets of their own. */
  for (size_t i = 0; i < buffer->len; i++)
    {
      double y = buffer->data[i] - x1 + pole * y1;

      x1 = buffer->data[i];
      y1 = y;
      buffer->data[i] = y;
    }

  /* Each sample ends near -60 dB by design; a raised-cosine fade over the
   * last 5 ms takes it to zero without a click. */
  for (size_t k = 0; k < fade && k < buffer->len; k++)
    buffer->data[buffer->len - 1 - k] *= 0.5 * (1.0 - cos (M_PI * k / fade));

  for (size_t i = 0; i < buffer->len; i++)
    peak = fmax (peak, fabs (buffer->data[i]));
  gain = peak > 0.0 ? pow (10.0, PEAK_DBFS / 20.0) / peak : 0.0;
  for (size_t i = 0; i < buffer->len; i++)
    buffer->data[i] *= gain;
}
