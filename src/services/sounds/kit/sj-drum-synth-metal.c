/* sj-drum-synth-metal.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The kit's high end: the closed and open hi-hats, the crash and ride
 * cymbals, the cowbell and the shaker.  Most are the 808's six square
 * oscillators (the "metal" of sj-drum-synth-dsp.c) through high
 * band-passes; the ride adds a struck plate's inharmonic ping, and the
 * shaker is noise shaped by random bead hits.  A voice is one function;
 * its variants are rows of parameters next to it.  The drums are in
 * sj-drum-synth-drums.c.
 */

#include <math.h>

#include "sj-drum-synth-private.h"

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

static SjSynthBuffer
render_hat (const Hat  *hat,
            SjSynthRng *rng)
{
  SjSynthBuffer out = _sj_synth_buffer_new (hat->seconds);
  SjSynthMetal metal;
  SjSynthSvf band, high[2];

  _sj_synth_metal_init (&metal, hat->tune);
  _sj_synth_svf_init (&band, hat->band, hat->band_q);
  /* Two stages with the Q of a fourth-order Butterworth: steep enough
   * that the squares' low fundamentals vanish, and no resonant peak. */
  _sj_synth_svf_init (&high[0], hat->high, 0.541);
  _sj_synth_svf_init (&high[1], hat->high, 1.307);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double x = hat->metal * _sj_synth_metal_tick (&metal) + hat->noise * _sj_synth_noise (rng);

      x = _sj_synth_svf_bandpass (&band, x);
      x = _sj_synth_svf_highpass (&high[1], _sj_synth_svf_highpass (&high[0], x));
      out.data[i] = x * _sj_synth_env_attack (t, 0.0003) * _sj_synth_env_decay (t, hat->decay);
    }
  return out;
}

static SjSynthBuffer
render_hh (size_t      variant,
           SjSynthRng *rng)
{
  return render_hat (&closed_hats[variant], rng);
}

const SjSynthVoice _sj_synth_voice_hh = { "hh", SJ_N_ELEMENTS (closed_hats), render_hh };

static SjSynthBuffer
render_oh (size_t      variant,
           SjSynthRng *rng)
{
  return render_hat (&open_hats[variant], rng);
}

const SjSynthVoice _sj_synth_voice_oh = { "oh", SJ_N_ELEMENTS (open_hats), render_oh };

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

static SjSynthBuffer
render_cr (size_t      variant,
           SjSynthRng *rng)
{
  const Cymbal *cymbal = &crashes[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (cymbal->seconds);
  SjSynthMetal metal, fifth;
  SjSynthSvf low, band, high;

  _sj_synth_metal_init (&metal, cymbal->tune);
  _sj_synth_metal_init (&fifth, cymbal->tune * 1.498);
  _sj_synth_svf_init (&low, cymbal->low_band, 1.5);
  _sj_synth_svf_init (&band, cymbal->high_band, 1.0);
  _sj_synth_svf_init (&high, 5000.0, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double x = _sj_synth_metal_tick (&metal) + cymbal->dense * _sj_synth_metal_tick (&fifth)
                 + cymbal->noise * _sj_synth_noise (rng);
      double lows = cymbal->low_level * _sj_synth_svf_bandpass (&low, x) * _sj_synth_env_decay (t, cymbal->low_decay);
      double highs = _sj_synth_svf_highpass (&high, _sj_synth_svf_bandpass (&band, x))
                     * _sj_synth_env_decay (t, cymbal->high_decay);

      out.data[i] = (lows + highs) * _sj_synth_env_attack (t, cymbal->attack);
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_cr = { "cr", SJ_N_ELEMENTS (crashes), render_cr };

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

static SjSynthBuffer
render_rd (size_t      variant,
           SjSynthRng *rng)
{
  const Ride *ride = &rides[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (ride->seconds);
  SjSynthMetal metal;
  SjSynthSvf band, high;

  _sj_synth_metal_init (&metal, ride->wash_tune);
  _sj_synth_svf_init (&band, ride->band, 1.0);
  _sj_synth_svf_init (&high, 4000.0, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double ping = 0.0;
      double wash = _sj_synth_metal_tick (&metal) + 0.3 * _sj_synth_noise (rng);

      for (size_t k = 0; k < SJ_N_ELEMENTS (ping_ratios); k++)
        {
          double freq = ride->ping * ping_ratios[k];

          ping += sin (2.0 * M_PI * freq * t) * _sj_synth_env_decay (t, ride->ping_decay / (1.0 + 0.3 * k))
                  / (1.0 + 0.4 * k);
        }
      wash = _sj_synth_svf_highpass (&high, _sj_synth_svf_bandpass (&band, wash))
             * _sj_synth_env_decay (t, ride->wash_decay);
      out.data[i] = (ride->ping_level * ping / SJ_N_ELEMENTS (ping_ratios) + ride->wash * wash)
                    * _sj_synth_env_attack (t, 0.001);
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_rd = { "rd", SJ_N_ELEMENTS (rides), render_rd };

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

static SjSynthBuffer
render_cb (size_t      variant,
           SjSynthRng *rng)
{
  const Cowbell *bell = &cowbells[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (bell->seconds);
  /* Apart in phase, so that both edges do not land on the first sample. */
  SjSynthOsc osc[2] = { { 0.0 }, { 0.25 } };
  SjSynthSvf band;

  (void) rng;
  _sj_synth_svf_init (&band, bell->band, bell->band_q);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double x = _sj_synth_osc_square (&osc[0], bell->freq[0]) + _sj_synth_osc_square (&osc[1], bell->freq[1]);
      double env = bell->fast_level * _sj_synth_env_decay (t, bell->fast_decay)
                   + (1.0 - bell->fast_level) * _sj_synth_env_decay (t, bell->slow_decay);

      out.data[i] = _sj_synth_svf_bandpass (&band, x) * env * _sj_synth_env_attack (t, 0.0005);
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_cb = { "cb", SJ_N_ELEMENTS (cowbells), render_cb };

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

static SjSynthBuffer
render_sh (size_t      variant,
           SjSynthRng *rng)
{
  const Shaker *shaker = &shakers[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (shaker->seconds);
  /* Each bead's hit fades within a millisecond or so. */
  double bead_fall = exp (-1.0 / (0.0008 * SJ_SYNTH_RATE));
  double bead = 0.0;
  SjSynthSvf band, high;

  _sj_synth_svf_init (&band, shaker->band, shaker->band_q);
  _sj_synth_svf_init (&high, 3000.0, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double env, x;

      if (_sj_synth_rng_uniform (rng) < shaker->beads / SJ_SYNTH_RATE)
        bead += 0.5 + 0.5 * _sj_synth_rng_uniform (rng);
      bead *= bead_fall;
      /* A smooth swell while the beads fly, then they settle. */
      if (t < shaker->attack)
        env = pow (sin (0.5 * M_PI * t / shaker->attack), 2.0);
      else
        env = _sj_synth_env_decay (t - shaker->attack, shaker->decay);
      x = _sj_synth_noise (rng) * ((1.0 - shaker->grain) + shaker->grain * fmin (bead, 1.5));
      out.data[i] = _sj_synth_svf_highpass (&high, _sj_synth_svf_bandpass (&band, x)) * env;
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_sh = { "sh", SJ_N_ELEMENTS (shakers), render_sh };
