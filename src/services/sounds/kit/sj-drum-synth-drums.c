/* sj-drum-synth-drums.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The kit's drums: the bass drum, the snare, the clap, the rim shot and
 * the three toms.  Each is a model of a classic analog circuit (TR-808,
 * TR-909, CR-78): sines with a pitch envelope for the kick and the toms,
 * pinged resonators for the bodies, filtered noise for the snares and the
 * clap.  A voice is one function; its variants are rows of parameters
 * next to it, in the order of their variant numbers (bd:0 is the 808's).
 * The building blocks are in sj-drum-synth-dsp.c; the hats, cymbals,
 * cowbell and shaker in sj-drum-synth-metal.c.
 */

#include <math.h>

#include "sj-drum-synth-private.h"

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

static SjSynthBuffer
render_bd (size_t      variant,
           SjSynthRng *rng)
{
  const Kick *kick = &kicks[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (kick->seconds);
  SjSynthOsc osc = { 0 };
  SjSynthSvf click_filter;

  _sj_synth_svf_init (&click_filter, kick->click_tone, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double freq = _sj_synth_pitch_drop (t, kick->freq, kick->sweep, kick->sweep_time);
      double body = _sj_synth_osc_sine (&osc, freq) * _sj_synth_env_hold_decay (t, kick->hold, kick->decay);
      double click = _sj_synth_svf_lowpass (&click_filter, _sj_synth_noise (rng)) * _sj_synth_env_decay (t, 0.006);

      out.data[i] = _sj_synth_saturate (body + kick->click * click, kick->drive);
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_bd = { "bd", SJ_N_ELEMENTS (kicks), render_bd };

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

static SjSynthBuffer
render_sd (size_t      variant,
           SjSynthRng *rng)
{
  const Snare *snare = &snares[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (snare->seconds);
  SjSynthOsc body[2] = { { 0 }, { 0 } };
  SjSynthSvf high, low;

  _sj_synth_svf_init (&high, snare->snappy_high, 0.7);
  _sj_synth_svf_init (&low, snare->snappy_low, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double x = 0.0;
      double snappy;

      for (size_t j = 0; j < 2; j++)
        {
          double freq = _sj_synth_pitch_drop (t, snare->freq[j], snare->sweep, 0.012);

          x += snare->level[j] * _sj_synth_osc_sine (&body[j], freq) * _sj_synth_env_decay (t, snare->decay[j]);
        }
      snappy = _sj_synth_svf_lowpass (&low, _sj_synth_svf_highpass (&high, _sj_synth_noise (rng)));
      x += snare->snappy * snappy * _sj_synth_env_attack (t, 0.0005) * _sj_synth_env_decay (t, snare->snappy_decay);
      out.data[i] = _sj_synth_saturate (x, snare->drive);
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_sd = { "sd", SJ_N_ELEMENTS (snares), render_sd };

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

static SjSynthBuffer
render_cp (size_t      variant,
           SjSynthRng *rng)
{
  const Clap *clap = &claps[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (clap->seconds);
  double tail_start = (clap->bursts - 1) * clap->spacing;
  SjSynthAllpass room[SJ_N_ELEMENTS (room_delays)];
  SjSynthSvf band, high;

  _sj_synth_svf_init (&band, clap->band, clap->band_q);
  _sj_synth_svf_init (&high, 300.0, 0.7);
  for (size_t j = 0; j < SJ_N_ELEMENTS (room); j++)
    _sj_synth_allpass_init (&room[j], room_delays[j], 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double env = 0.0;
      double x, wet;

      /* Each burst rises at once and falls fast (the 808's sawtooth
       * envelope); the next one starts before it has gone. */
      for (int b = 0; b < clap->bursts; b++)
        {
          double start = b * clap->spacing;

          env = fmax (env, _sj_synth_env_attack (t - start, 0.0005)
                           * _sj_synth_env_decay (t - start, clap->burst_decay));
        }
      env += clap->tail * _sj_synth_env_attack (t - tail_start, 0.004)
             * _sj_synth_env_decay (t - tail_start, clap->tail_decay);
      x = _sj_synth_svf_highpass (&high, _sj_synth_svf_bandpass (&band, _sj_synth_noise (rng))) * env;
      wet = x;
      for (size_t j = 0; j < SJ_N_ELEMENTS (room); j++)
        wet = _sj_synth_allpass_tick (&room[j], wet);
      out.data[i] = (1.0 - clap->room) * x + clap->room * wet;
    }
  for (size_t j = 0; j < SJ_N_ELEMENTS (room); j++)
    _sj_synth_allpass_clear (&room[j]);
  return out;
}

const SjSynthVoice _sj_synth_voice_cp = { "cp", SJ_N_ELEMENTS (claps), render_cp };

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

static SjSynthBuffer
render_rim (size_t      variant,
            SjSynthRng *rng)
{
  const Rim *rim = &rims[variant];
  SjSynthBuffer out = _sj_synth_buffer_new (rim->seconds);
  SjSynthSvf high;

  _sj_synth_svf_init (&high, rim->click_high, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double x = rim->click * _sj_synth_svf_highpass (&high, _sj_synth_noise (rng)) * _sj_synth_env_decay (t, 0.004);

      /* A resonator pinged by a pulse rings as a decaying sine. */
      for (size_t j = 0; j < 2; j++)
        x += rim->level[j] * sin (2.0 * M_PI * rim->freq[j] * t) * _sj_synth_env_decay (t, rim->decay[j]);
      out.data[i] = _sj_synth_saturate (x, rim->drive);
    }
  return out;
}

const SjSynthVoice _sj_synth_voice_rim = { "rim", SJ_N_ELEMENTS (rims), render_rim };

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

static SjSynthBuffer
render_tom (double      pitch,
            size_t      variant,
            SjSynthRng *rng)
{
  const Tom *tom = &toms[variant];
  /* A smaller drum rings shorter; the sample ends where it is down by
   * 60 dB. */
  double decay = tom->decay * sqrt (TOM_LOW / pitch);
  double freq = pitch * tom->tune;
  SjSynthBuffer out = _sj_synth_buffer_new (decay);
  SjSynthOsc sine = { 0 }, triangle = { 0 };
  SjSynthSvf tone;

  _sj_synth_svf_init (&tone, tom->noise_tone, 0.7);
  for (size_t i = 0; i < out.len; i++)
    {
      double t = _sj_synth_time_of (i);
      double f = _sj_synth_pitch_drop (t, freq, tom->sweep, tom->sweep_time);
      double body = (1.0 - tom->triangle) * _sj_synth_osc_sine (&sine, f)
                    + tom->triangle * _sj_synth_osc_triangle (&triangle, f);
      double skin = _sj_synth_svf_lowpass (&tone, _sj_synth_noise (rng)) * _sj_synth_env_decay (t, 0.05);

      out.data[i] = body * _sj_synth_env_decay (t, decay) + tom->noise * skin;
    }
  return out;
}

static SjSynthBuffer
render_lt (size_t      variant,
           SjSynthRng *rng)
{
  return render_tom (TOM_LOW, variant, rng);
}

const SjSynthVoice _sj_synth_voice_lt = { "lt", SJ_N_ELEMENTS (toms), render_lt };

static SjSynthBuffer
render_mt (size_t      variant,
           SjSynthRng *rng)
{
  return render_tom (TOM_MID, variant, rng);
}

const SjSynthVoice _sj_synth_voice_mt = { "mt", SJ_N_ELEMENTS (toms), render_mt };

static SjSynthBuffer
render_ht (size_t      variant,
           SjSynthRng *rng)
{
  return render_tom (TOM_HIGH, variant, rng);
}

const SjSynthVoice _sj_synth_voice_ht = { "ht", SJ_N_ELEMENTS (toms), render_ht };
