/* test-drum-kit.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The drum kit compiled in (src/services/sounds/kit): every voice Strudel's
 * basic drum names need, each sample a clean WAV (format, length, level,
 * no DC, no click at the end), variants that really differ, a spectrum
 * that fits the drum, and the same bytes when the synth runs again.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "sj-drum-kit-private.h"
#include "sj-test-files.h"

#define FULL_SCALE 32768.0

/* The voices the kit must have, with what each must sound like: at most
 * so long, and most of its energy in the band where that drum lives. */
typedef struct
{
  const char *voice;
  double      max_seconds;
  double      band_low;   /* Hz */
  double      band_high;  /* Hz */
  double      min_share;  /* of the energy in that band */
} Expected;

static const Expected expected[] = {
  { "bd",  1.0,     0.0,   200.0, 0.90 },
  { "sd",  0.5,   100.0, 20000.0, 0.95 },
  { "hh",  0.3,  5000.0, 22050.0, 0.95 },
  { "oh",  0.8,  5000.0, 22050.0, 0.95 },
  { "cp",  0.6,   400.0,  8000.0, 0.85 },
  { "rim", 0.3,   200.0,  8000.0, 0.90 },
  { "lt",  0.6,     0.0,   250.0, 0.90 },
  { "mt",  0.6,     0.0,   400.0, 0.90 },
  { "ht",  0.6,     0.0,   600.0, 0.90 },
  { "cr",  2.1,  3000.0, 22050.0, 0.90 },
  { "rd",  2.1,   500.0, 22050.0, 0.95 },
  { "cb",  0.6,   400.0,  4000.0, 0.90 },
  { "sh",  0.5,  2000.0, 22050.0, 0.95 },
};

#define MIN_SECONDS 0.05

typedef struct
{
  guint   rate;
  gsize   len;
  double *samples; /* in [-1, 1) */
} Wav;

static guint
le16 (const guint8 *at)
{
  return at[0] | (at[1] << 8);
}

static guint32
le32 (const guint8 *at)
{
  return le16 (at) | ((guint32) le16 (at + 2) << 16);
}

/* Parses a RIFF/WAVE file strictly: PCM, 16-bit, mono, every size
 * consistent with the file's. */
static void
wav_parse (GBytes *bytes,
           Wav    *wav)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  gboolean have_fmt = FALSE;
  gsize offset = 12;

  memset (wav, 0, sizeof *wav);
  g_assert_cmpuint (size, >=, 44);
  g_assert_cmpmem (data, 4, "RIFF", 4);
  g_assert_cmpuint (le32 (data + 4), ==, size - 8);
  g_assert_cmpmem (data + 8, 4, "WAVE", 4);

  while (offset + 8 <= size)
    {
      const guint8 *chunk = data + offset;
      guint32 chunk_size = le32 (chunk + 4);

      g_assert_cmpuint (offset + 8 + chunk_size, <=, size);
      if (memcmp (chunk, "fmt ", 4) == 0)
        {
          g_assert_cmpuint (chunk_size, >=, 16);
          g_assert_cmpuint (le16 (chunk + 8), ==, 1);   /* PCM */
          g_assert_cmpuint (le16 (chunk + 10), ==, 1);  /* mono */
          wav->rate = le32 (chunk + 12);
          g_assert_true (wav->rate == 44100 || wav->rate == 48000);
          g_assert_cmpuint (le32 (chunk + 16), ==, wav->rate * 2);
          g_assert_cmpuint (le16 (chunk + 20), ==, 2);
          g_assert_cmpuint (le16 (chunk + 22), ==, 16);
          have_fmt = TRUE;
        }
      else if (memcmp (chunk, "data", 4) == 0)
        {
          g_assert_true (have_fmt);
          g_assert_cmpuint (chunk_size % 2, ==, 0);
          /* The data is the file's last chunk, and fills it. */
          g_assert_cmpuint (offset + 8 + chunk_size, ==, size);
          wav->len = chunk_size / 2;
          wav->samples = g_new (double, wav->len);
          for (gsize i = 0; i < wav->len; i++)
            wav->samples[i] = (gint16) le16 (chunk + 8 + 2 * i) / FULL_SCALE;
          return;
        }
      offset += 8 + chunk_size + (chunk_size & 1);
    }
  g_assert_not_reached ();
}

static void
wav_clear (Wav *wav)
{
  g_clear_pointer (&wav->samples, g_free);
}

static Wav
load (const char *voice,
      guint       variant)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = sj_drum_kit_lookup (voice, variant, &error);
  Wav wav;

  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  wav_parse (bytes, &wav);
  return wav;
}

static double
seconds_of (const Wav *wav)
{
  return (double) wav->len / wav->rate;
}

/* An in-place radix-2 FFT, enough for a few dozen short samples. */
static void
fft (double *re,
     double *im,
     gsize   n)
{
  for (gsize i = 1, j = 0; i < n; i++)
    {
      gsize bit = n >> 1;

      for (; j & bit; bit >>= 1)
        j ^= bit;
      j ^= bit;
      if (i < j)
        {
          double t = re[i];

          re[i] = re[j];
          re[j] = t;
          t = im[i];
          im[i] = im[j];
          im[j] = t;
        }
    }
  for (gsize len = 2; len <= n; len <<= 1)
    {
      double angle = -2.0 * G_PI / len;

      for (gsize i = 0; i < n; i += len)
        for (gsize k = 0; k < len / 2; k++)
          {
            double wr = cos (angle * k), wi = sin (angle * k);
            double *ar = &re[i + k], *ai = &im[i + k];
            double *br = &re[i + k + len / 2], *bi = &im[i + k + len / 2];
            double vr = *br * wr - *bi * wi, vi = *br * wi + *bi * wr;

            *br = *ar - vr;
            *bi = *ai - vi;
            *ar += vr;
            *ai += vi;
          }
    }
}

typedef struct
{
  double share;     /* of the energy between low and high */
  double centroid;  /* Hz */
} Spectrum;

/* The power spectrum of the whole sample, zero-padded. */
static Spectrum
spectrum_of (const Wav *wav,
             double     low,
             double     high)
{
  gsize n = 1;
  g_autofree double *re = NULL;
  g_autofree double *im = NULL;
  double total = 0.0, in_band = 0.0, moment = 0.0;
  Spectrum result;

  while (n < wav->len)
    n <<= 1;
  re = g_new0 (double, n);
  im = g_new0 (double, n);
  memcpy (re, wav->samples, wav->len * sizeof (double));
  fft (re, im, n);
  for (gsize k = 1; k < n / 2; k++)
    {
      double freq = (double) k * wav->rate / n;
      double power = re[k] * re[k] + im[k] * im[k];

      total += power;
      moment += freq * power;
      if (freq >= low && freq < high)
        in_band += power;
    }
  result.share = in_band / total;
  result.centroid = moment / total;
  return result;
}

static double
db (double value)
{
  return 20.0 * log10 (fmax (value, 1e-12));
}

static void
test_voices (void)
{
  const char * const *voices = _sj_drum_kit_list_voices ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  g_assert_nonnull (voices);
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_true (g_strv_contains (voices, expected[i].voice));
      g_assert_cmpuint (_sj_drum_kit_count (expected[i].voice), >=, 2);
    }
  /* The basics come first, in the manifest's order. */
  g_assert_cmpstr (voices[0], ==, "bd");
  g_assert_cmpstr (voices[1], ==, "sd");
  g_assert_cmpstr (voices[2], ==, "hh");
  for (gsize i = 0; voices[i] != NULL; i++)
    g_assert_cmpuint (_sj_drum_kit_count (voices[i]), >=, 1);

  g_assert_cmpuint (_sj_drum_kit_count ("nope"), ==, 0);
  bytes = sj_drum_kit_lookup ("nope", 0, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (bytes);
}

/* A variant wraps around the count, both ways, as Strudel's n does. */
static void
test_wrap (void)
{
  guint count = _sj_drum_kit_count ("bd");
  g_autoptr(GBytes) first = sj_drum_kit_lookup ("bd", 0, NULL);
  g_autoptr(GBytes) last = sj_drum_kit_lookup ("bd", count - 1, NULL);
  g_autoptr(GBytes) after = sj_drum_kit_lookup ("bd", count, NULL);
  g_autoptr(GBytes) far = sj_drum_kit_lookup ("bd", 7 * count, NULL);
  g_autoptr(GBytes) minus = sj_drum_kit_lookup ("bd", -1, NULL);
  g_autoptr(GBytes) lowest = sj_drum_kit_lookup ("bd", G_MININT, NULL);
  g_autoptr(GBytes) second = sj_drum_kit_lookup ("bd", 1, NULL);

  g_assert_true (g_bytes_equal (after, first));
  g_assert_true (g_bytes_equal (far, first));
  g_assert_true (g_bytes_equal (minus, last));
  g_assert_nonnull (lowest);
  g_assert_false (g_bytes_equal (second, first));
}

/* The files are in the resource by path too, for serving them to the
 * page, and the manifest says where they come from. */
static void
test_resource (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) manifest = NULL;
  g_autoptr(GBytes) wav = NULL;
  g_autoptr(GBytes) same = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *bd;

  sj_drum_kit_register ();
  sj_drum_kit_register ();
  manifest = g_resources_lookup_data (SJ_DRUM_KIT_RESOURCE_PATH "kit.json", G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_data (parser, g_bytes_get_data (manifest, NULL), g_bytes_get_size (manifest), &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "source"), ==, "synthesized by sj-drum-synth");
  bd = json_object_get_array_member (json_object_get_object_member (root, "voices"), "bd");
  g_assert_cmpuint (json_array_get_length (bd), ==, _sj_drum_kit_count ("bd"));
  g_assert_cmpstr (json_array_get_string_element (bd, 0), ==, "bd/0.wav");
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (root, "voices")), ==,
                    g_strv_length ((char **) _sj_drum_kit_list_voices ()));

  wav = g_resources_lookup_data (SJ_DRUM_KIT_RESOURCE_PATH "bd/1.wav", G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  g_assert_no_error (error);
  same = sj_drum_kit_lookup ("bd", 1, NULL);
  g_assert_true (g_bytes_equal (wav, same));
}

/* Every sample: a WAV of sensible length at about -1 dBFS, sounding from
 * the start, centred on zero, and ending in silence without a click. */
static void
test_samples (void)
{
  const char * const *voices = _sj_drum_kit_list_voices ();
  gsize total = 0;

  for (gsize v = 0; voices[v] != NULL; v++)
    {
      double max_seconds = 0.6;

      for (gsize e = 0; e < G_N_ELEMENTS (expected); e++)
        if (g_str_equal (expected[e].voice, voices[v]))
          max_seconds = expected[e].max_seconds;

      for (guint n = 0; n < _sj_drum_kit_count (voices[v]); n++)
        {
          g_autoptr(GBytes) bytes = sj_drum_kit_lookup (voices[v], n, NULL);
          Wav wav = load (voices[v], n);
          gsize first = MIN (wav.len, wav.rate / 10);
          gsize end = wav.rate / 1000;
          double peak = 0.0, sum = 0.0, energy = 0.0, tail = 0.0;

          for (gsize i = 0; i < wav.len; i++)
            {
              peak = fmax (peak, fabs (wav.samples[i]));
              sum += wav.samples[i];
            }
          for (gsize i = 0; i < first; i++)
            energy += wav.samples[i] * wav.samples[i];
          for (gsize i = wav.len - end; i < wav.len; i++)
            tail = fmax (tail, fabs (wav.samples[i]));

          g_test_message ("%s/%u: %.3f s, %zu bytes, peak %.2f dBFS, RMS of the first 100 ms %.1f dBFS, "
                          "mean %.2e, last ms peak %.1f dBFS",
                          voices[v], n, seconds_of (&wav), g_bytes_get_size (bytes), db (peak),
                          db (sqrt (energy / first)), sum / wav.len, db (tail));
          total += g_bytes_get_size (bytes);

          g_assert_cmpfloat (seconds_of (&wav), >=, MIN_SECONDS);
          g_assert_cmpfloat (seconds_of (&wav), <=, max_seconds);
          g_assert_cmpfloat (db (peak), >=, -3.0);
          g_assert_cmpfloat (db (peak), <, 0.0);
          g_assert_cmpfloat (db (sqrt (energy / first)), >, -35.0);
          g_assert_cmpfloat (fabs (sum / wav.len), <, 1e-3);
          /* The last millisecond is below -60 dBFS, the very last sample
           * at zero. */
          g_assert_cmpfloat (db (tail), <, -60.0);
          g_assert_cmpfloat (fabs (wav.samples[wav.len - 1]), <=, 2.0 / FULL_SCALE);
          wav_clear (&wav);
        }
    }
  g_test_message ("the kit: %zu bytes", total);
}

/* Each drum's energy is where that drum lives: a kick below 200 Hz, a hat
 * above 5 kHz, and so on (the table at the top). */
static void
test_spectrum (void)
{
  for (gsize e = 0; e < G_N_ELEMENTS (expected); e++)
    for (guint n = 0; n < _sj_drum_kit_count (expected[e].voice); n++)
      {
        Wav wav = load (expected[e].voice, n);
        Spectrum spectrum = spectrum_of (&wav, expected[e].band_low, expected[e].band_high);

        g_test_message ("%s/%u: %.0f%% of the energy in %.0f-%.0f Hz, centroid %.0f Hz",
                        expected[e].voice, n, 100.0 * spectrum.share, expected[e].band_low,
                        expected[e].band_high, spectrum.centroid);
        g_assert_cmpfloat (spectrum.share, >=, expected[e].min_share);
        wav_clear (&wav);
      }
}

/* The variants of a voice are audibly different: in length, in
 * brightness, or in waveform. */
static void
test_variants_differ (void)
{
  const char * const *voices = _sj_drum_kit_list_voices ();

  for (gsize v = 0; voices[v] != NULL; v++)
    {
      guint count = _sj_drum_kit_count (voices[v]);

      for (guint a = 0; a < count; a++)
        for (guint b = a + 1; b < count; b++)
          {
            Wav one = load (voices[v], a), other = load (voices[v], b);
            double centroid_one = spectrum_of (&one, 0, 0).centroid;
            double centroid_other = spectrum_of (&other, 0, 0).centroid;
            double length = fabs (seconds_of (&one) / seconds_of (&other) - 1.0);
            double brightness = fabs (centroid_one / centroid_other - 1.0);
            double dot = 0.0, norm_one = 0.0, norm_other = 0.0, correlation;

            for (gsize i = 0; i < MIN (one.len, other.len); i++)
              {
                dot += one.samples[i] * other.samples[i];
                norm_one += one.samples[i] * one.samples[i];
                norm_other += other.samples[i] * other.samples[i];
              }
            correlation = dot / sqrt (norm_one * norm_other);

            g_test_message ("%s/%u vs %u: length %+.0f%%, centroid %+.0f%%, correlation %.2f", voices[v], a, b,
                            100.0 * length, 100.0 * brightness, correlation);
            g_assert_true (length > 0.1 || brightness > 0.1 || fabs (correlation) < 0.5);
            wav_clear (&one);
            wav_clear (&other);
          }
    }
}

static gboolean
run_synth (const char  *outdir,
           const char  *extra,
           char       **errors)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { SJ_DRUM_SYNTH, outdir, extra, NULL };
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, errors, &status, &error));
  g_assert_no_error (error);
  return g_spawn_check_wait_status (status, NULL);
}

/* A second run of the synth writes the very bytes the build compiled in:
 * the kit is reproducible. */
static void
test_deterministic (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *outdir = g_dir_make_tmp ("sj-drum-kit-XXXXXX", &error);
  g_autofree char *errors = NULL;
  g_autofree char *manifest_path = NULL;
  g_autofree char *manifest = NULL;
  g_autoptr(GBytes) compiled = NULL;
  const char * const *voices = _sj_drum_kit_list_voices ();
  gsize len;

  g_assert_no_error (error);
  g_assert_true (run_synth (outdir, NULL, NULL));

  for (gsize v = 0; voices[v] != NULL; v++)
    for (guint n = 0; n < _sj_drum_kit_count (voices[v]); n++)
      {
        g_autofree char *name = g_strdup_printf ("%s-%u.wav", voices[v], n);
        g_autofree char *path = g_build_filename (outdir, name, NULL);
        g_autofree char *contents = NULL;
        g_autoptr(GBytes) built = sj_drum_kit_lookup (voices[v], n, NULL);

        g_assert_true (g_file_get_contents (path, &contents, &len, &error));
        g_assert_no_error (error);
        g_assert_cmpmem (contents, len, g_bytes_get_data (built, NULL), g_bytes_get_size (built));
      }

  manifest_path = g_build_filename (outdir, "kit.json", NULL);
  g_assert_true (g_file_get_contents (manifest_path, &manifest, &len, &error));
  compiled = g_resources_lookup_data (SJ_DRUM_KIT_RESOURCE_PATH "kit.json", G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_assert_cmpmem (manifest, len, g_bytes_get_data (compiled, NULL), g_bytes_get_size (compiled));

  /* meson.build's list of outputs must match the kit, or the build fails
   * instead of shipping a kit with holes. */
  g_assert_false (run_synth (outdir, "bd:1", &errors));
  g_assert_nonnull (strstr (errors, "update kit_voices in meson.build"));

  sj_test_remove_tree (outdir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/drum-kit/voices", test_voices);
  g_test_add_func ("/drum-kit/wrap", test_wrap);
  g_test_add_func ("/drum-kit/resource", test_resource);
  g_test_add_func ("/drum-kit/samples", test_samples);
  g_test_add_func ("/drum-kit/spectrum", test_spectrum);
  g_test_add_func ("/drum-kit/variants-differ", test_variants_differ);
  g_test_add_func ("/drum-kit/deterministic", test_deterministic);

  return g_test_run ();
}
