/* sj-drum-synth-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the files of sj-drum-synth share: the building blocks of
 * sj-drum-synth-dsp.c (buffers, noise, oscillators, filters, envelopes)
 * that the voices of sj-drum-synth-drums.c and sj-drum-synth-metal.c are
 * made of, and the voices that sj-drum-synth.c renders and writes.
 *
 * The synth is a plain C build tool without GLib (it runs on the build
 * machine, also when cross-compiling), so its helpers are plain C too;
 * they carry the _sj_synth_ prefix of a private header all the same.
 */

#pragma once

#include <stddef.h>
#include <stdint.h>

#define SJ_SYNTH_RATE 44100

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define SJ_N_ELEMENTS(array) (sizeof (array) / sizeof ((array)[0]))

/* Buffers ------------------------------------------------------------ */

typedef struct
{
  double *data;
  size_t  len;
} SjSynthBuffer;

void          *_sj_synth_xcalloc        (size_t          n,
                                         size_t          size);
SjSynthBuffer  _sj_synth_buffer_new     (double          seconds);
double         _sj_synth_time_of        (size_t          i);
void           _sj_synth_finish         (SjSynthBuffer  *buffer);

/* Noise -------------------------------------------------------------- */

/* The noise generator, seeded by a voice's name and variant. */
typedef struct
{
  uint64_t state;
} SjSynthRng;

void           _sj_synth_rng_init       (SjSynthRng     *rng,
                                         const char     *voice,
                                         size_t          variant);
double         _sj_synth_rng_uniform    (SjSynthRng     *rng);
double         _sj_synth_noise          (SjSynthRng     *rng);

/* Oscillators -------------------------------------------------------- */

typedef struct
{
  double phase; /* in cycles, [0, 1) */
} SjSynthOsc;

/* The 808's six square oscillators. */
typedef struct
{
  SjSynthOsc osc[6];
  double     tune;
} SjSynthMetal;

double         _sj_synth_osc_sine       (SjSynthOsc     *osc,
                                         double          freq);
double         _sj_synth_osc_triangle   (SjSynthOsc     *osc,
                                         double          freq);
double         _sj_synth_osc_square     (SjSynthOsc     *osc,
                                         double          freq);
void           _sj_synth_metal_init     (SjSynthMetal   *metal,
                                         double          tune);
double         _sj_synth_metal_tick     (SjSynthMetal   *metal);

/* Filters ------------------------------------------------------------ */

/* A state-variable filter with low, band and high outputs. */
typedef struct
{
  double a1, a2, a3, k;
  double ic1, ic2;
} SjSynthSvf;

/* A Schroeder all-pass. */
typedef struct
{
  double *line;
  size_t  len;
  size_t  pos;
  double  gain;
} SjSynthAllpass;

void           _sj_synth_svf_init       (SjSynthSvf     *svf,
                                         double          freq,
                                         double          q);
double         _sj_synth_svf_lowpass    (SjSynthSvf     *svf,
                                         double          x);
double         _sj_synth_svf_bandpass   (SjSynthSvf     *svf,
                                         double          x);
double         _sj_synth_svf_highpass   (SjSynthSvf     *svf,
                                         double          x);
void           _sj_synth_allpass_init   (SjSynthAllpass *allpass,
                                         double          seconds,
                                         double          gain);
double         _sj_synth_allpass_tick   (SjSynthAllpass *allpass,
                                         double          x);
void           _sj_synth_allpass_clear  (SjSynthAllpass *allpass);

/* Envelopes and shaping ---------------------------------------------- */

double         _sj_synth_env_decay      (double          t,
                                         double          t60);
double         _sj_synth_env_attack     (double          t,
                                         double          attack);
double         _sj_synth_env_hold_decay (double          t,
                                         double          hold,
                                         double          t60);
double         _sj_synth_saturate       (double          x,
                                         double          drive);
double         _sj_synth_pitch_drop     (double          t,
                                         double          freq,
                                         double          sweep,
                                         double          time);

/* Voices ------------------------------------------------------------- */

/* A voice of the kit: its name in Strudel, its number of variants and
 * the function that renders variant N. */
typedef struct
{
  const char     *name;
  size_t          count;
  SjSynthBuffer (*render) (size_t      variant,
                           SjSynthRng *rng);
} SjSynthVoice;

/* sj-drum-synth-drums.c */
extern const SjSynthVoice _sj_synth_voice_bd;
extern const SjSynthVoice _sj_synth_voice_sd;
extern const SjSynthVoice _sj_synth_voice_cp;
extern const SjSynthVoice _sj_synth_voice_rim;
extern const SjSynthVoice _sj_synth_voice_lt;
extern const SjSynthVoice _sj_synth_voice_mt;
extern const SjSynthVoice _sj_synth_voice_ht;

/* sj-drum-synth-metal.c */
extern const SjSynthVoice _sj_synth_voice_hh;
extern const SjSynthVoice _sj_synth_voice_oh;
extern const SjSynthVoice _sj_synth_voice_cr;
extern const SjSynthVoice _sj_synth_voice_rd;
extern const SjSynthVoice _sj_synth_voice_cb;
extern const SjSynthVoice _sj_synth_voice_sh;
