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
 * The program is in four files: this one lists the kit and writes the
 * files; the voices are in sj-drum-synth-drums.c (bd sd cp rim lt mt ht)
 * and sj-drum-synth-metal.c (hh oh cr rd cb sh); the oscillators,
 * filters, envelopes and noise they are made of in sj-drum-synth-dsp.c.
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

#include "sj-drum-synth-private.h"

#define RESOURCE_PREFIX "/io/github/strudeljam/StrudelJam/kit"
#define XML_NAME        "sj-kit.gresource.xml"

/* ------------------------------------------------------------------ */
/* The kit                                                              */
/* ------------------------------------------------------------------ */

/* In the order of the manifest: the kit from the bottom up. */
static const SjSynthVoice *const voices[] = {
  &_sj_synth_voice_bd,
  &_sj_synth_voice_sd,
  &_sj_synth_voice_hh,
  &_sj_synth_voice_oh,
  &_sj_synth_voice_cp,
  &_sj_synth_voice_rim,
  &_sj_synth_voice_lt,
  &_sj_synth_voice_mt,
  &_sj_synth_voice_ht,
  &_sj_synth_voice_cr,
  &_sj_synth_voice_rd,
  &_sj_synth_voice_cb,
  &_sj_synth_voice_sh,
};

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
write_wav (const char          *path,
           const SjSynthBuffer *buffer)
{
  uint32_t data_size = (uint32_t) (buffer->len * 2);
  size_t size = 44 + data_size;
  uint8_t *bytes = _sj_synth_xcalloc (size, 1);
  FILE *file;

  memcpy (bytes, "RIFF", 4);
  put_u32 (bytes + 4, (uint32_t) (size - 8));
  memcpy (bytes + 8, "WAVEfmt ", 8);
  put_u32 (bytes + 16, 16);        /* fmt chunk size */
  put_u16 (bytes + 20, 1);         /* PCM */
  put_u16 (bytes + 22, 1);         /* mono */
  put_u32 (bytes + 24, SJ_SYNTH_RATE);
  put_u32 (bytes + 28, SJ_SYNTH_RATE * 2);  /* bytes per second */
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
  for (size_t v = 0; v < SJ_N_ELEMENTS (voices); v++)
    {
      fprintf (file, "    \"%s\": [", voices[v]->name);
      for (size_t n = 0; n < voices[v]->count; n++)
        fprintf (file, "%s\"%s/%zu.wav\"", n > 0 ? ", " : "", voices[v]->name, n);
      fprintf (file, "]%s\n", v + 1 < SJ_N_ELEMENTS (voices) ? "," : "");
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
  for (size_t v = 0; v < SJ_N_ELEMENTS (voices); v++)
    for (size_t n = 0; n < voices[v]->count; n++)
      fprintf (file, "    <file alias=\"%s/%zu.wav\">%s-%zu.wav</file>\n",
               voices[v]->name, n, voices[v]->name, n);
  fprintf (file, "  </gresource>\n</gresources>\n");
  close_text (file, path);
}

/* meson.build's outputs, VOICE:COUNT each, must be exactly the kit. */
static int
check_outputs (int   n_args,
               char *args[])
{
  int ok = (size_t) n_args == SJ_N_ELEMENTS (voices);

  for (int a = 0; a < n_args; a++)
    {
      const char *colon = strchr (args[a], ':');
      size_t len = colon != NULL ? (size_t) (colon - args[a]) : strlen (args[a]);
      int found = 0;

      for (size_t v = 0; v < SJ_N_ELEMENTS (voices); v++)
        {
          if (strlen (voices[v]->name) != len || strncmp (voices[v]->name, args[a], len) != 0)
            continue;
          found = colon != NULL && strtoul (colon + 1, NULL, 10) == voices[v]->count;
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
      for (size_t v = 0; v < SJ_N_ELEMENTS (voices); v++)
        fprintf (stderr, " %s:%zu", voices[v]->name, voices[v]->count);
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

  for (size_t v = 0; v < SJ_N_ELEMENTS (voices); v++)
    for (size_t n = 0; n < voices[v]->count; n++)
      {
        char path[4096];
        SjSynthRng rng;
        SjSynthBuffer buffer;

        _sj_synth_rng_init (&rng, voices[v]->name, n);
        buffer = voices[v]->render (n, &rng);
        _sj_synth_finish (&buffer);
        snprintf (path, sizeof path, "%s/%s-%zu.wav", outdir, voices[v]->name, n);
        write_wav (path, &buffer);
        free (buffer.data);
      }

  write_manifest (outdir);
  write_resources (outdir);
  return 0;
}
