/* sj-drum-synth.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The app's own drum kit, synthesized at build time, so that
 * s("bd*4, [~ sd]*2, hh*8") plays on a machine that has never been online.
 * Every voice is a simple model of a classic analog drum machine circuit
 * (TR-808, TR-909, CR-78): sines with a pitch envelope for the kicks and
 * toms, pinged resonators for the bodies, filtered noise for the snares,
 * claps and shakers, and the 808's six square oscillators for the hats,
 * the cymbals and the cowbell.  A voice is one function; its variants are
 * rows of parameters next to it.
 *
 * Usage: sj-drum-synth OUTDIR [VOICE:COUNT...]
 *
 * Writes into OUTDIR, for variant N of each voice, VOICE-N.wav (16-bit PCM,
 * mono, 44.1 kHz, peak at -1 dBFS, no DC, faded out), then kit.json (the
 * manifest, in Strudel's sample-map form, with the paths the files have in
 * the resource: VOICE/N.wav) and sj-kit.gresource.xml, which gives every
 * file that path under /io/github/strudeljam/StrudelJam/kit/.  The files
 * are flat because a meson output cannot be in a subfolder; the resource's
 * aliases put them in one folder per voice.
 *
 * meson.build has to name every output in advance, so it passes its list
 * as VOICE:COUNT arguments, and the synth refuses to run when that list is
 * not exactly the voices and variant counts below: the two cannot drift
 * apart silently.
 *
 * The output is the same on every run: the noise comes from a generator
 * seeded by the voice's name and variant, and nothing reads the time or
 * the environment.  (Bit for bit with the same C library: another libm
 * may round the last bit of a sin () or exp () differently.)
 */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE            44100
#define PEAK_DBFS       (-1.0)
#define FADE_SECONDS    0.005
#define RESOURCE_PREFIX "/io/github/strudeljam/StrudelJam/kit"
#define XML_NAME        "sj-kit.gresource.xml"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ln (1000): decays are given as the time to fall by 60 dB, the way drum
 * machine manuals and ears measure them. */
#define LN_1000 6.907755278982137

#define N_ELEMENTS(array) (sizeof (array) / sizeof ((array)[0]))

/* ------------------------------------------------------------------ */
/* Buffers                                                              */
/* ------------------------------------------------------------------ */

typedef struct
{
  double *data;
  size_t  len;
} Buffer;

static void *
xcalloc (size_t n,
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

static Buffer
buffer_new (double seconds)
{
  Buffer buffer;

  buffer.len = (size_t) lround (seconds * RATE);
  buffer.data = xcalloc (buffer.len, sizeof *buffer.data);
  return buffer;
}

static double
time_of (size_t i)
{
  return (double) i / RATE;
}

/* ------------------------------------------------------------------ */
/* Noise                                                                */
/* ------------------------------------------------------------------ */

/* SplitMix64: tiny, and the same sequence on every platform, which a
 * reproducible build needs (rand () is not). */
typedef struct
{
  uint64_t state;
} Rng;

static void
rng_init (Rng        *rng,
          const char *voice,
          size_t      variant)
{
  uint64_t hash = 14695981039346656037ULL; /* FNV-1a of the name */

  for (const char *c = voice; *c != '\0'; c++)
    hash = (hash ^ (unsigned char) *c) * 1099511628211ULL;
  rng->state = hash ^ ((uint64_t) (variant + 1) * 0x9E3779B97F4A7C15ULL);
}

static uint64_t
rng_next (Rng *rng)
{
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ULL);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rng_uniform (Rng *rng)
{
  return (double) (rng_next (rng) >> 11) / 9007199254740992.0;
}

/* White noise, uniform in [-1, 1). */
static double
noise (Rng *rng)
{
  return 2.0 * rng_uniform (rng) - 1.0;
}

/* ------------------------------------------------------------------ */
/* Oscillators                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  double phase; /* in cycles, [0, 1) */
} Osc;

/* Returns the phase of this sample and advances by one sample at @freq;
 * the frequency may change from sample to sample (pitch envelopes). */
static double
osc_tick (Osc    *osc,
          double  freq)
{
  double phase = osc->phase;

  osc->phase += freq / RATE;
  osc->phase -= floor (osc->phase);
  return phase;
}

static double
osc_sine (Osc    *osc,
          double  freq)
{
  return sin (2.0 * M_PI * osc_tick (osc, freq));
}

/* Starts at 0 rising, like the sine, so that a drum starts without a step. */
static double
osc_triangle (Osc    *osc,
              double  freq)
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
static double
osc_square (Osc    *osc,
            double  freq)
{
  double step = freq / RATE;
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

typedef struct
{
  Osc    osc[6];
  double tune;
} Metal;

static void
metal_init (Metal  *metal,
            double  tune)
{
  memset (metal, 0, sizeof *metal);
  metal->tune = tune;
  /* Free-running oscillators are never in phase; starting them all at 0
   * would make the first millisecond a loud, identical spike. */
  for (size_t i = 0; i < N_ELEMENTS (metal->osc); i++)
    metal->osc[i].phase = (double) i / N_ELEMENTS (metal->osc);
}

static double
metal_tick (Metal *metal)
{
  double sum = 0.0;

  for (size_t i = 0; i < N_ELEMENTS (metal->osc); i++)
    sum += osc_square (&metal->osc[i], metal_freqs[i] * metal->tune);
  return sum / N_ELEMENTS (metal->osc);
}

/* ------------------------------------------------------------------ */
/* Filters                                                              */
/* ------------------------------------------------------------------ */

/* A state-variable filter in the topology-preserving form (Zavalishin,
 * Simper): stable at any frequency and Q, with low, band and high outputs
 * at once, so one helper serves every filter of the kit. */
typedef struct
{
  double a1, a2, a3, k;
  double ic1, ic2;
} Svf;

typedef struct
{
  double low, band, high;
} SvfOut;

static void
svf_init (Svf    *svf,
          double  freq,
          double  q)
{
  double g = tan (M_PI * fmin (freq, 0.49 * RATE) / RATE);

  svf->k = 1.0 / q;
  svf->a1 = 1.0 / (1.0 + g * (g + svf->k));
  svf->a2 = g * svf->a1;
  svf->a3 = g * svf->a2;
  svf->ic1 = svf->ic2 = 0.0;
}

static SvfOut
svf_tick (Svf    *svf,
          double  x)
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

static double
svf_lowpass (Svf    *svf,
             double  x)
{
  return svf_tick (svf, x).low;
}

/* Scaled to unity gain at the centre, so a Q change keeps the level. */
static double
svf_bandpass (Svf    *svf,
              double  x)
{
  return svf->k * svf_tick (svf, x).band;
}

static double
svf_highpass (Svf    *svf,
              double  x)
{
  return svf_tick (svf, x).high;
}

/* A Schroeder all-pass: smears a sound in time without colouring it, the
 * cheapest room there is (the clap's tail). */
typedef struct
{
  double *line;
  size_t  len;
  size_t  pos;
  double  gain;
} Allpass;

static void
allpass_init (Allpass *allpass,
              double   seconds,
              double   gain)
{
  allpass->len = (size_t) lround (seconds * RATE);
  allpass->line = xcalloc (allpass->len, sizeof *allpass->line);
  allpass->pos = 0;
  allpass->gain = gain;
}

static double
allpass_tick (Allpass *allpass,
              double   x)
{
  double delayed = allpass->line[allpass->pos];
  double w = x + allpass->gain * delayed;

  allpass->line[allpass->pos] = w;
  allpass->pos = (allpass->pos + 1) % allpass->len;
  return delayed - allpass->gain * w;
}

static void
allpass_clear (Allpass *allpass)
{
  free (allpass->line);
  allpass->line = NULL;
}

/* ------------------------------------------------------------------ */
/* Envelopes and shaping                                                */
/* ------------------------------------------------------------------ */

/* 1 at t = 0, -60 dB at @t60. */
static double
env_decay (double t,
           double t60)
{
  return t < 0.0 ? 0.0 : exp (-LN_1000 * t / t60);
}

/* A linear rise over @attack, then 1: even a drum's attack takes a little
 * time, and a zero-time step would click at the start. */
static double
env_attack (double t,
            double attack)
{
  if (t < 0.0)
    return 0.0;
  return attack <= 0.0 || t >= attack ? 1.0 : t / attack;
}

/* 1 for @hold, then down to -60 dB @t60 later. */
static double
env_hold_decay (double t,
                double hold,
                double t60)
{
  return t < hold ? 1.0 : env_decay (t - hold, t60);
}

/* Soft clipping, normalised so that full scale stays full scale: the
 * drive of a transistor VCA, which rounds and fattens a drum. */
static double
saturate (double x,
          double drive)
{
  return drive <= 0.0 ? x : tanh (drive * x) / tanh (drive);
}


/* A pitch that starts at @sweep times @freq and settles at @freq with the
 * time constant @time: the 808's pinged bridged-T drifting down, the 909's
 * swept oscillator. */
static double
pitch_drop (double t,
            double freq,
            double sweep,
            double time)
{
  return freq * (1.0 + (sweep - 1.0) * exp (-t / time));
}

/* ------------------------------------------------------------------ */
/* bd: bass drum                                                        */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double freq;        /* Hz, where the pitch settles */
  double sweep;       /* the start pitch, as a multiple of freq */
  double sweep_time;  /* s, time constant of the pitch drop */
  double hold;        /* s at full level before the decay */
  double decay;       /* s to -60 dB */
  double click;       /* level of the beater click */
  double click_tone;  /* Hz, low-pass of the click */
  double drive;       /* saturation, 0 for clean */
} Kick;

static const Kick kicks[] = {
  /* 808: a long, round boom with a gentle drop and a soft click. */
  { 0.90, 49.0, 2.0, 0.020, 0.000, 0.85, 0.20, 2500.0, 0.8 },
  /* 909: punchy, swept down from ~250 Hz, held a moment, a bright click
   * and more drive. */
  { 0.45, 54.0, 4.6, 0.011, 0.030, 0.36, 0.50, 7000.0, 2.2 },
  /* CR-78: short, higher and clean, a tapped resonator. */
  { 0.30, 68.0, 1.3, 0.008, 0.000, 0.22, 0.10, 1800.0, 0.0 },
};

static Buffer
render_bd (size_t  variant,
           Rng    *rng)
{
  const Kick *kick = &kicks[variant];
  Buffer out = buffer_new (kick->seconds);
  Osc osc = { 0 };
  Svf click_filter;

  svf_init (&click_filter, kick->click_tone, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double freq = pitch_drop (t, kick->freq, kick->sweep, kick->sweep_time);
      double body = osc_sine (&osc, freq) * env_hold_decay (t, kick->hold, kick->decay);
      double click = svf_lowpass (&click_filter, noise (rng)) * env_decay (t, 0.006);

      out.data[i] = saturate (body + kick->click * click, kick->drive);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* sd: snare drum                                                       */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double freq[2];      /* Hz, the two body oscillators (the drum's modes) */
  double level[2];
  double decay[2];     /* s to -60 dB */
  double sweep;        /* start pitch as a multiple of freq, 1 for none */
  double snappy;       /* level of the noise, the snares */
  double snappy_high;  /* Hz, high-pass of the noise */
  double snappy_low;   /* Hz, low-pass of the noise */
  double snappy_decay; /* s to -60 dB */
  double drive;
} Snare;

static const Snare snares[] = {
  /* 808: bodies at 238 and 476 Hz, a crisp snappy above 1.5 kHz. */
  { 0.35, { 238.0, 476.0 }, { 1.0, 0.55 }, { 0.20, 0.12 }, 1.00, 0.75, 1500.0, 9000.0, 0.24, 0.5 },
  /* 909: lower, swept bodies and a loud, bright, longer snappy. */
  { 0.40, { 185.0, 330.0 }, { 1.0, 0.60 }, { 0.16, 0.10 }, 1.35, 1.10, 900.0, 12000.0, 0.32, 1.2 },
  /* Tight: tuned high, short bodies, a short snappy. */
  { 0.22, { 290.0, 560.0 }, { 1.0, 0.50 }, { 0.10, 0.07 }, 1.10, 0.70, 2500.0, 10000.0, 0.13, 0.3 },
};

static Buffer
render_sd (size_t  variant,
           Rng    *rng)
{
  const Snare *snare = &snares[variant];
  Buffer out = buffer_new (snare->seconds);
  Osc body[2] = { { 0 }, { 0 } };
  Svf high, low;

  svf_init (&high, snare->snappy_high, 0.7);
  svf_init (&low, snare->snappy_low, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double x = 0.0;
      double snappy;

      for (size_t j = 0; j < 2; j++)
        {
          double freq = pitch_drop (t, snare->freq[j], snare->sweep, 0.012);

          x += snare->level[j] * osc_sine (&body[j], freq) * env_decay (t, snare->decay[j]);
        }
      snappy = svf_lowpass (&low, svf_highpass (&high, noise (rng)));
      x += snare->snappy * snappy * env_attack (t, 0.0005) * env_decay (t, snare->snappy_decay);
      out.data[i] = saturate (x, snare->drive);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* hh, oh: closed and open hi-hats                                      */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double tune;    /* × the 808's oscillator frequencies */
  double metal;   /* level of the six squares */
  double noise;   /* level of white noise */
  double band;    /* Hz, band-pass centre */
  double band_q;
  double high;    /* Hz, four-pole high-pass */
  double decay;   /* s to -60 dB */
} Hat;

static const Hat closed_hats[] = {
  /* 808: the six squares in a high band, short and tight. */
  { 0.12, 1.00, 1.0, 0.15, 10000.0, 0.9, 7000.0, 0.070 },
  /* 909-like: noisier, tuned higher, crisper. */
  { 0.10, 1.37, 0.6, 0.80, 11500.0, 0.8, 8000.0, 0.050 },
  /* CR-78: a tick of filtered noise. */
  { 0.07, 1.00, 0.0, 1.00, 9000.0, 1.2, 6500.0, 0.035 },
};

static const Hat open_hats[] = {
  /* 808 */
  { 0.55, 1.00, 1.0, 0.15, 10000.0, 0.9, 7000.0, 0.50 },
  /* 909-like */
  { 0.65, 1.37, 0.6, 0.80, 11500.0, 0.8, 8000.0, 0.62 },
  /* Half-open and tuned low: a shorter, darker sizzle. */
  { 0.32, 0.82, 1.0, 0.30, 8000.0, 1.0, 6000.0, 0.28 },
};

static Buffer
render_hat (const Hat *hat,
            Rng       *rng)
{
  Buffer out = buffer_new (hat->seconds);
  Metal metal;
  Svf band, high[2];

  metal_init (&metal, hat->tune);
  svf_init (&band, hat->band, hat->band_q);
  /* Two stages with the Q of a fourth-order Butterworth: steep enough
   * that the squares' low fundamentals vanish, and no resonant peak. */
  svf_init (&high[0], hat->high, 0.541);
  svf_init (&high[1], hat->high, 1.307);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double x = hat->metal * metal_tick (&metal) + hat->noise * noise (rng);

      x = svf_bandpass (&band, x);
      x = svf_highpass (&high[1], svf_highpass (&high[0], x));
      out.data[i] = x * env_attack (t, 0.0003) * env_decay (t, hat->decay);
    }
  return out;
}

static Buffer
render_hh (size_t  variant,
           Rng    *rng)
{
  return render_hat (&closed_hats[variant], rng);
}

static Buffer
render_oh (size_t  variant,
           Rng    *rng)
{
  return render_hat (&open_hats[variant], rng);
}

/* ------------------------------------------------------------------ */
/* cp: hand clap                                                        */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  int    bursts;       /* the hands of the crowd */
  double spacing;      /* s between bursts */
  double burst_decay;  /* s to -60 dB of each burst */
  double band;         /* Hz, band-pass centre */
  double band_q;
  double tail;         /* level of the tail after the last burst */
  double tail_decay;   /* s to -60 dB */
  double room;         /* share of the diffused copy */
} Clap;

static const Clap claps[] = {
  /* 808: four bursts 10 ms apart around 1.1 kHz and a noisy tail. */
  { 0.40, 4, 0.010, 0.030, 1100.0, 1.4, 0.55, 0.30, 0.30 },
  /* 909: three tighter, brighter bursts and a shorter tail. */
  { 0.30, 3, 0.008, 0.022, 1500.0, 1.0, 0.45, 0.22, 0.20 },
  /* Roomy: five looser, lower bursts and a long diffused tail. */
  { 0.50, 5, 0.013, 0.035, 900.0, 1.2, 0.60, 0.42, 0.55 },
};

/* Mutually prime delays, so that the echoes never line up into a pitch. */
static const double room_delays[3] = { 0.0113, 0.0171, 0.0237 };

static Buffer
render_cp (size_t  variant,
           Rng    *rng)
{
  const Clap *clap = &claps[variant];
  Buffer out = buffer_new (clap->seconds);
  double tail_start = (clap->bursts - 1) * clap->spacing;
  Allpass room[N_ELEMENTS (room_delays)];
  Svf band, high;

  svf_init (&band, clap->band, clap->band_q);
  svf_init (&high, 300.0, 0.7);
  for (size_t j = 0; j < N_ELEMENTS (room); j++)
    allpass_init (&room[j], room_delays[j], 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double env = 0.0;
      double x, wet;

      /* Each burst rises at once and falls fast (the 808's sawtooth
       * envelope); the next one starts before it has gone. */
      for (int b = 0; b < clap->bursts; b++)
        {
          double start = b * clap->spacing;

          env = fmax (env, env_attack (t - start, 0.0005) * env_decay (t - start, clap->burst_decay));
        }
      env += clap->tail * env_attack (t - tail_start, 0.004) * env_decay (t - tail_start, clap->tail_decay);
      x = svf_highpass (&high, svf_bandpass (&band, noise (rng))) * env;
      wet = x;
      for (size_t j = 0; j < N_ELEMENTS (room); j++)
        wet = allpass_tick (&room[j], wet);
      out.data[i] = (1.0 - clap->room) * x + clap->room * wet;
    }
  for (size_t j = 0; j < N_ELEMENTS (room); j++)
    allpass_clear (&room[j]);
  return out;
}

/* ------------------------------------------------------------------ */
/* rim: rim shot                                                        */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double freq[2];     /* Hz, the pinged resonators */
  double level[2];
  double decay[2];    /* s to -60 dB */
  double click;       /* level of the stick's click */
  double click_high;  /* Hz, high-pass of the click */
  double drive;
} Rim;

static const Rim rims[] = {
  /* 808: resonators at 455 Hz and 1.67 kHz, pinged hard and clipped. */
  { 0.10, { 455.0, 1667.0 }, { 0.7, 1.0 }, { 0.045, 0.030 }, 0.5, 4000.0, 3.0 },
  /* 909: higher, cleaner, with a sharper click. */
  { 0.09, { 540.0, 2150.0 }, { 0.5, 1.0 }, { 0.035, 0.025 }, 0.9, 6000.0, 1.2 },
  /* Side stick: a woody body and a longer knock. */
  { 0.15, { 380.0, 1100.0 }, { 1.0, 0.6 }, { 0.090, 0.050 }, 0.6, 2000.0, 0.8 },
};

static Buffer
render_rim (size_t  variant,
            Rng    *rng)
{
  const Rim *rim = &rims[variant];
  Buffer out = buffer_new (rim->seconds);
  Svf high;

  svf_init (&high, rim->click_high, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double x = rim->click * svf_highpass (&high, noise (rng)) * env_decay (t, 0.004);

      /* A resonator pinged by a pulse rings as a decaying sine. */
      for (size_t j = 0; j < 2; j++)
        x += rim->level[j] * sin (2.0 * M_PI * rim->freq[j] * t) * env_decay (t, rim->decay[j]);
      out.data[i] = saturate (x, rim->drive);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* lt, mt, ht: toms                                                     */
/* ------------------------------------------------------------------ */

typedef struct
{
  double tune;        /* × the drum's pitch */
  double sweep;       /* start pitch, as a multiple of the pitch */
  double sweep_time;  /* s, time constant of the drop */
  double triangle;    /* share of triangle in the body, 0 for a sine */
  double decay;       /* s to -60 dB, for the low tom */
  double noise;       /* level of the skin noise */
  double noise_tone;  /* Hz, low-pass of the noise */
} Tom;

static const Tom toms[] = {
  /* 808: a sine, a slow gentle drop and a breath of noise. */
  { 1.00, 1.12, 0.060, 0.00, 0.45, 0.08, 2500.0 },
  /* 909: part triangle, a steeper drop and a stick click. */
  { 1.08, 1.50, 0.030, 0.35, 0.36, 0.25, 5000.0 },
  /* Disco: a Syndrum-like sine swooping down from twice its pitch. */
  { 1.20, 2.00, 0.090, 0.00, 0.30, 0.00, 1000.0 },
};

#define TOM_LOW 90.0
#define TOM_MID 130.0
#define TOM_HIGH 185.0

static Buffer
render_tom (double  pitch,
            size_t  variant,
            Rng    *rng)
{
  const Tom *tom = &toms[variant];
  /* A smaller drum rings shorter; the sample ends where it is down by
   * 60 dB. */
  double decay = tom->decay * sqrt (TOM_LOW / pitch);
  double freq = pitch * tom->tune;
  Buffer out = buffer_new (decay);
  Osc sine = { 0 }, triangle = { 0 };
  Svf tone;

  svf_init (&tone, tom->noise_tone, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double f = pitch_drop (t, freq, tom->sweep, tom->sweep_time);
      double body = (1.0 - tom->triangle) * osc_sine (&sine, f) + tom->triangle * osc_triangle (&triangle, f);
      double skin = svf_lowpass (&tone, noise (rng)) * env_decay (t, 0.05);

      out.data[i] = body * env_decay (t, decay) + tom->noise * skin;
    }
  return out;
}

static Buffer
render_lt (size_t  variant,
           Rng    *rng)
{
  return render_tom (TOM_LOW, variant, rng);
}

static Buffer
render_mt (size_t  variant,
           Rng    *rng)
{
  return render_tom (TOM_MID, variant, rng);
}

static Buffer
render_ht (size_t  variant,
           Rng    *rng)
{
  return render_tom (TOM_HIGH, variant, rng);
}

/* ------------------------------------------------------------------ */
/* cr: crash cymbal                                                     */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double tune;        /* × the 808's oscillator frequencies */
  double dense;       /* level of a second bank a fifth up: more partials */
  double noise;
  double low_band;    /* Hz: the 808's cymbal splits the metal into a low
                       * band that dies quickly ... */
  double low_level;
  double low_decay;
  double high_band;   /* ... and a high band that rings on */
  double high_decay;
  double attack;      /* s */
} Cymbal;

static const Cymbal crashes[] = {
  /* 808: the six squares in a short 3.4 kHz band and a long 7.1 kHz one. */
  { 2.00, 1.00, 0.0, 0.20, 3440.0, 0.50, 0.45, 7100.0, 1.90, 0.002 },
  /* 909-like: denser, noisier and brighter, shorter. */
  { 1.70, 1.13, 0.8, 0.70, 4200.0, 0.35, 0.35, 8500.0, 1.60, 0.004 },
};

static Buffer
render_cr (size_t  variant,
           Rng    *rng)
{
  const Cymbal *cymbal = &crashes[variant];
  Buffer out = buffer_new (cymbal->seconds);
  Metal metal, fifth;
  Svf low, band, high;

  metal_init (&metal, cymbal->tune);
  metal_init (&fifth, cymbal->tune * 1.498);
  svf_init (&low, cymbal->low_band, 1.5);
  svf_init (&band, cymbal->high_band, 1.0);
  svf_init (&high, 5000.0, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double x = metal_tick (&metal) + cymbal->dense * metal_tick (&fifth) + cymbal->noise * noise (rng);
      double lows = cymbal->low_level * svf_bandpass (&low, x) * env_decay (t, cymbal->low_decay);
      double highs = svf_highpass (&high, svf_bandpass (&band, x)) * env_decay (t, cymbal->high_decay);

      out.data[i] = (lows + highs) * env_attack (t, cymbal->attack);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* rd: ride cymbal                                                      */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double ping;        /* Hz, the lowest partial of the stick's ping */
  double ping_level;
  double ping_decay;  /* s to -60 dB of that partial; higher ones die sooner */
  double wash;        /* level of the metal in the high band */
  double wash_tune;
  double wash_decay;  /* s to -60 dB */
  double band;        /* Hz, centre of the wash */
} Ride;

/* The modes of a struck plate are inharmonic: that is what makes a bell
 * sound like metal rather than like a note. */
static const double ping_ratios[] = { 1.000, 1.483, 1.932, 2.546, 2.630, 3.897, 4.362, 5.734 };

static const Ride rides[] = {
  /* Ride: a high ping over a long wash. */
  { 1.60, 1400.0, 0.50, 0.90, 1.00, 1.21, 1.60, 7500.0 },
  /* Ride bell: a loud, lower bell and little wash. */
  { 1.30, 740.0, 1.00, 1.20, 0.35, 1.21, 1.00, 6500.0 },
};

static Buffer
render_rd (size_t  variant,
           Rng    *rng)
{
  const Ride *ride = &rides[variant];
  Buffer out = buffer_new (ride->seconds);
  Metal metal;
  Svf band, high;

  metal_init (&metal, ride->wash_tune);
  svf_init (&band, ride->band, 1.0);
  svf_init (&high, 4000.0, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double ping = 0.0;
      double wash = metal_tick (&metal) + 0.3 * noise (rng);

      for (size_t k = 0; k < N_ELEMENTS (ping_ratios); k++)
        {
          double freq = ride->ping * ping_ratios[k];

          ping += sin (2.0 * M_PI * freq * t) * env_decay (t, ride->ping_decay / (1.0 + 0.3 * k)) / (1.0 + 0.4 * k);
        }
      wash = svf_highpass (&high, svf_bandpass (&band, wash)) * env_decay (t, ride->wash_decay);
      out.data[i] = (ride->ping_level * ping / N_ELEMENTS (ping_ratios) + ride->wash * wash) * env_attack (t, 0.001);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* cb: cowbell                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double freq[2];     /* Hz, the two squares */
  double band;        /* Hz, band-pass centre */
  double band_q;
  double fast_level;  /* the 808's envelope: a fast fall ... */
  double fast_decay;  /* s to -60 dB */
  double slow_decay;  /* ... into a slower tail */
} Cowbell;

static const Cowbell cowbells[] = {
  /* 808: squares at 540 and 800 Hz through a fairly sharp band-pass
   * peaking near 850 Hz (Werner, Abel and Smith's model of the circuit);
   * a clunk that halves within ~50 ms, then a ring of half a second. */
  { 0.45, { 540.0, 800.0 }, 850.0, 1.8, 0.55, 0.10, 0.45 },
  /* Higher, brighter and shorter: a smaller bell. */
  { 0.25, { 815.0, 1190.0 }, 1400.0, 1.4, 0.65, 0.06, 0.25 },
};

static Buffer
render_cb (size_t  variant,
           Rng    *rng)
{
  const Cowbell *bell = &cowbells[variant];
  Buffer out = buffer_new (bell->seconds);
  /* Apart in phase, so that both edges do not land on the first sample. */
  Osc osc[2] = { { 0.0 }, { 0.25 } };
  Svf band;

  (void) rng;
  svf_init (&band, bell->band, bell->band_q);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double x = osc_square (&osc[0], bell->freq[0]) + osc_square (&osc[1], bell->freq[1]);
      double env = bell->fast_level * env_decay (t, bell->fast_decay)
                   + (1.0 - bell->fast_level) * env_decay (t, bell->slow_decay);

      out.data[i] = svf_bandpass (&band, x) * env * env_attack (t, 0.0005);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* sh: shaker                                                           */
/* ------------------------------------------------------------------ */

typedef struct
{
  double seconds;
  double band;    /* Hz, band-pass centre */
  double band_q;
  double attack;  /* s: the beads are thrown ... */
  double decay;   /* s to -60 dB: ... and settle */
  double beads;   /* collisions per second */
  double grain;   /* 0 for a smooth hiss, 1 for separate bead hits */
} Shaker;

static const Shaker shakers[] = {
  /* A short forward shake. */
  { 0.16, 6500.0, 1.4, 0.015, 0.13, 3000.0, 0.5 },
  /* A long, slow shake, lower. */
  { 0.32, 5000.0, 1.2, 0.070, 0.22, 1800.0, 0.7 },
  /* Cabasa: bright and quick. */
  { 0.10, 9000.0, 1.8, 0.004, 0.08, 5000.0, 0.3 },
};

static Buffer
render_sh (size_t  variant,
           Rng    *rng)
{
  const Shaker *shaker = &shakers[variant];
  Buffer out = buffer_new (shaker->seconds);
  /* Each bead's hit fades within a millisecond or so. */
  double bead_fall = exp (-1.0 / (0.0008 * RATE));
  double bead = 0.0;
  Svf band, high;

  svf_init (&band, shaker->band, shaker->band_q);
  svf_init (&high, 3000.0, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = time_of (i);
      double env, x;

      if (rng_uniform (rng) < shaker->beads / RATE)
        bead += 0.5 + 0.5 * rng_uniform (rng);
      bead *= bead_fall;
      /* A smooth swell while the beads fly, then they settle. */
      if (t < shaker->attack)
        env = pow (sin (0.5 * M_PI * t / shaker->attack), 2.0);
      else
        env = env_decay (t - shaker->attack, shaker->decay);
      x = noise (rng) * ((1.0 - shaker->grain) + shaker->grain * fmin (bead, 1.5));
      out.data[i] = svf_highpass (&high, svf_bandpass (&band, x)) * env;
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* The kit                                                              */
/* ------------------------------------------------------------------ */

typedef struct
{
  const char *name;
  size_t      count;
  Buffer    (*render) (size_t  variant,
                       Rng    *rng);
} Voice;

/* In the order of the manifest: the kit from the bottom up. */
static const Voice voices[] = {
  { "bd",  N_ELEMENTS (kicks),       render_bd },
  { "sd",  N_ELEMENTS (snares),      render_sd },
  { "hh",  N_ELEMENTS (closed_hats), render_hh },
  { "oh",  N_ELEMENTS (open_hats),   render_oh },
  { "cp",  N_ELEMENTS (claps),       render_cp },
  { "rim", N_ELEMENTS (rims),        render_rim },
  { "lt",  N_ELEMENTS (toms),        render_lt },
  { "mt",  N_ELEMENTS (toms),        render_mt },
  { "ht",  N_ELEMENTS (toms),        render_ht },
  { "cr",  N_ELEMENTS (crashes),     render_cr },
  { "rd",  N_ELEMENTS (rides),       render_rd },
  { "cb",  N_ELEMENTS (cowbells),    render_cb },
  { "sh",  N_ELEMENTS (shakers),     render_sh },
};

/* DC removal, the fade-out and the normalisation every sample gets. */
static void
finish (Buffer *buffer)
{
  double pole = exp (-2.0 * M_PI * 10.0 / RATE);
  size_t fade = (size_t) lround (FADE_SECONDS * RATE);
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

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

static void
die (const char *what,
     const char *path)
{
  fprintf (stderr, "sj-drum-synth: %s %s: %s\n", what, path, strerror (errno));
  exit (1);
}

static void
put_u16 (uint8_t  *at,
         uint32_t  value)
{
  at[0] = value & 0xff;
  at[1] = (value >> 8) & 0xff;
}

static void
put_u32 (uint8_t  *at,
         uint32_t  value)
{
  put_u16 (at, value & 0xffff);
  put_u16 (at + 2, value >> 16);
}

/* A canonical 44-byte header and the samples, little-endian whatever the
 * build machine is. */
static void
write_wav (const char   *path,
           const Buffer *buffer)
{
  uint32_t data_size = (uint32_t) (buffer->len * 2);
  size_t size = 44 + data_size;
  uint8_t *bytes = xcalloc (size, 1);
  FILE *file;

  memcpy (bytes, "RIFF", 4);
  put_u32 (bytes + 4, (uint32_t) (size - 8));
  memcpy (bytes + 8, "WAVEfmt ", 8);
  put_u32 (bytes + 16, 16);        /* fmt chunk size */
  put_u16 (bytes + 20, 1);         /* PCM */
  put_u16 (bytes + 22, 1);         /* mono */
  put_u32 (bytes + 24, RATE);
  put_u32 (bytes + 28, RATE * 2);  /* bytes per second */
  put_u16 (bytes + 32, 2);         /* bytes per frame */
  put_u16 (bytes + 34, 16);        /* bits per sample */
  memcpy (bytes + 36, "data", 4);
  put_u32 (bytes + 40, data_size);
  for (size_t i = 0; i < buffer->len; i++)
    {
      long value = lrint (buffer->data[i] * 32767.0);

      value = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
      put_u16 (bytes + 44 + 2 * i, (uint32_t) (uint16_t) (int16_t) value);
    }

  file = fopen (path, "wb");
  if (file == NULL)
    die ("cannot create", path);
  if (fwrite (bytes, 1, size, file) != size)
    die ("cannot write", path);
  if (fclose (file) != 0)
    die ("cannot write", path);
  free (bytes);
}

static FILE *
open_text (const char *outdir,
           const char *name,
           char       *path,
           size_t      path_size)
{
  FILE *file;

  snprintf (path, path_size, "%s/%s", outdir, name);
  file = fopen (path, "w");
  if (file == NULL)
    die ("cannot create", path);
  return file;
}

static void
close_text (FILE       *file,
            const char *path)
{
  if (ferror (file) || fclose (file) != 0)
    die ("cannot write", path);
}

/* kit.json, in Strudel's sample-map form: the voices and their files, as
 * paths relative to the kit's folder in the resource. */
static void
write_manifest (const char *outdir)
{
  char path[4096];
  FILE *file = open_text (outdir, "kit.json", path, sizeof path);

  fprintf (file, "{\n  \"voices\": {\n");
  for (size_t v = 0; v < N_ELEMENTS (voices); v++)
    {
      fprintf (file, "    \"%s\": [", voices[v].name);
      for (size_t n = 0; n < voices[v].count; n++)
        fprintf (file, "%s\"%s/%zu.wav\"", n > 0 ? ", " : "", voices[v].name, n);
      fprintf (file, "]%s\n", v + 1 < N_ELEMENTS (voices) ? "," : "");
    }
  fprintf (file, "  },\n  \"source\": \"synthesized by sj-drum-synth\"\n}\n");
  close_text (file, path);
}

/* The GResource description: the flat files of the build folder, each
 * aliased to its voice's folder.  Not compressed: WAVs barely shrink, and
 * uncompressed resources are handed out without a copy. */
static void
write_resources (const char *outdir)
{
  char path[4096];
  FILE *file = open_text (outdir, XML_NAME, path, sizeof path);

  fprintf (file,
           "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<!-- Generated by sj-drum-synth: the drum kit compiled into the app. -->\n"
           "<gresources>\n"
           "  <gresource prefix=\"%s\">\n"
           "    <file>kit.json</file>\n",
           RESOURCE_PREFIX);
  for (size_t v = 0; v < N_ELEMENTS (voices); v++)
    for (size_t n = 0; n < voices[v].count; n++)
      fprintf (file, "    <file alias=\"%s/%zu.wav\">%s-%zu.wav</file>\n",
               voices[v].name, n, voices[v].name, n);
  fprintf (file, "  </gresource>\n</gresources>\n");
  close_text (file, path);
}

/* meson.build's outputs, VOICE:COUNT each, must be exactly the kit. */
static int
check_outputs (int   n_args,
               char *args[])
{
  int ok = (size_t) n_args == N_ELEMENTS (voices);

  for (int a = 0; a < n_args; a++)
    {
      const char *colon = strchr (args[a], ':');
      size_t len = colon != NULL ? (size_t) (colon - args[a]) : strlen (args[a]);
      int found = 0;

      for (size_t v = 0; v < N_ELEMENTS (voices); v++)
        {
          if (strlen (voices[v].name) != len || strncmp (voices[v].name, args[a], len) != 0)
            continue;
          found = colon != NULL && strtoul (colon + 1, NULL, 10) == voices[v].count;
          /* A voice named twice would hide one that is missing. */
          for (int b = 0; b < a; b++)
            if (strncmp (args[b], args[a], len + 1) == 0)
              found = 0;
        }
      if (!found)
        {
          fprintf (stderr, "sj-drum-synth: \"%s\" is not in the kit\n", args[a]);
          ok = 0;
        }
    }
  if (!ok)
    {
      fprintf (stderr, "sj-drum-synth: the kit is");
      for (size_t v = 0; v < N_ELEMENTS (voices); v++)
        fprintf (stderr, " %s:%zu", voices[v].name, voices[v].count);
      fprintf (stderr, "; update kit_voices in meson.build to match\n");
    }
  return ok;
}

int
main (int   argc,
      char *argv[])
{
  const char *outdir;

  if (argc < 2)
    {
      fprintf (stderr, "Usage: sj-drum-synth OUTDIR [VOICE:COUNT...]\n");
      return 2;
    }
  outdir = argv[1];
  if (argc > 2 && !check_outputs (argc - 2, argv + 2))
    return 1;

  for (size_t v = 0; v < N_ELEMENTS (voices); v++)
    for (size_t n = 0; n < voices[v].count; n++)
      {
        char path[4096];
        Rng rng;
        Buffer buffer;

        rng_init (&rng, voices[v].name, n);
        buffer = voices[v].render (n, &rng);
        finish (&buffer);
        snprintf (path, sizeof path, "%s/%s-%zu.wav", outdir, voices[v].name, n);
        write_wav (path, &buffer);
        free (buffer.data);
      }

  write_manifest (outdir);
  write_resources (outdir);
  return 0;
}
