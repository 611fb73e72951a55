/* sj-test-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A folder of samples as people have them, generated rather than checked
 * in: good files of every format that plays (a real WAV; FLAC, Ogg and MP3
 * by their headers), bad ones (a text named .wav, an empty file, notes, an
 * AIFF), and odd names (spaces, "#", "%", accents, capitals, dots, a very
 * long file name, a folder name too long for a sound, folders inside
 * folders, hidden files). The unit test and the integration test read the
 * same one.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "sj-test-samples.h"

/* A WAV header for @data_size bytes of 8 kHz, mono, 16-bit PCM. */
static guint8 *
wav_new (guint32 data_size)
{
  guint8 *wav = g_malloc0 (44 + data_size);
  guint32 value;

  memcpy (wav, "RIFF", 4);
  value = GUINT32_TO_LE (36 + data_size);
  memcpy (wav + 4, &value, 4);
  memcpy (wav + 8, "WAVEfmt ", 8);
  value = GUINT32_TO_LE (16);
  memcpy (wav + 16, &value, 4);
  wav[20] = 1; wav[22] = 1;                                 /* PCM, mono */
  value = GUINT32_TO_LE (8000);
  memcpy (wav + 24, &value, 4);
  value = GUINT32_TO_LE (16000);
  memcpy (wav + 28, &value, 4);
  wav[32] = 2; wav[34] = 16;
  memcpy (wav + 36, "data", 4);
  value = GUINT32_TO_LE (data_size);
  memcpy (wav + 40, &value, 4);

  return wav;
}

/* A short, valid WAV: 8 kHz, mono, 16 bit, a square wave. */
GBytes *
sj_test_samples_make_wav (guint frames)
{
  guint32 data_size = frames * 2;
  guint8 *wav = wav_new (data_size);

  for (guint32 i = 0; i < frames; i++)
    {
      gint16 sample = GINT16_TO_LE ((gint16) (8000 * ((i / 10) % 2 ? 1 : -1)));

      memcpy (wav + 44 + i * 2, &sample, 2);
    }

  return g_bytes_new_take (wav, 44 + data_size);
}

/* A WAV of @size bytes (the header at least) whose samples depend on @seed:
 * each file of a test is told apart by its bytes. */
GBytes *
sj_test_samples_make_wav_seeded (const char *seed,
                                 gsize       size)
{
  guint32 hash = g_str_hash (seed);
  guint32 data_size = size > 44 ? size - 44 : 0;
  guint8 *wav = wav_new (data_size);

  for (guint32 i = 0; i < data_size; i++)
    wav[44 + i] = (guint8) ((hash >> (i % 24)) + i);

  return g_bytes_new_take (wav, 44 + data_size);
}

/* Writes @relative under @dir, making its folders. */
void
sj_test_samples_write (const char    *dir,
                       const char    *relative,
                       gconstpointer  data,
                       gsize          length)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, data, length, &error);
  g_assert_no_error (error);
}

static void
write_wav (const char *dir,
           const char *relative)
{
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (800);

  sj_test_samples_write (dir, relative, g_bytes_get_data (wav, NULL), g_bytes_get_size (wav));
}

/**
 * sj_test_samples_make_folder:
 * @tmp_dir: (out): the temporary directory to remove afterwards
 *
 * Returns: (transfer full): the path of SJ_TEST_SAMPLES_ROOT
 */
char *
sj_test_samples_make_folder (char **tmp_dir)
{
  /* A FLAC stream's marker and STREAMINFO block, an Ogg page, an ID3 tag,
   * a bare MPEG frame, an AIFF form. */
  static const guint8 flac[] = { 'f', 'L', 'a', 'C', 0x80, 0, 0, 34, 0x10, 0, 0x10, 0, 0, 0, 0, 0, 0, 0,
                                 0x0a, 0xc4, 0x40, 0xf0, 0, 0, 0, 0 };
  static const guint8 ogg[] = { 'O', 'g', 'g', 'S', 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4 };
  static const guint8 id3[] = { 'I', 'D', '3', 3, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64 };
  static const guint8 frame[] = { 0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0, 0, 0, 0, 0 };
  static const guint8 aiff[] = { 'F', 'O', 'R', 'M', 0, 0, 0, 4, 'A', 'I', 'F', 'F' };
  static const char text[] = "This is not a WAV file, only its name says so.\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *long_dir = g_strnfill (SJ_TEST_SAMPLES_LONG_DIR_LENGTH, 'l');
  g_autofree char *long_file = g_strnfill (SJ_TEST_SAMPLES_LONG_FILE_LENGTH - 4, 'f');
  g_autofree char *long_dir_file = NULL;
  g_autofree char *long_file_path = NULL;
  g_autofree char *root = NULL;
  char *tmp;

  tmp = g_dir_make_tmp ("sj-samples-XXXXXX", &error);
  g_assert_no_error (error);
  root = g_build_filename (tmp, SJ_TEST_SAMPLES_ROOT, NULL);

  /* Directly in the folder: its own sound, and notes. */
  write_wav (root, "loop.wav");
  sj_test_samples_write (root, "notes.txt", "kick on one\n", 12);
  sj_test_samples_write (root, ".DS_Store", "hidden", 6);
  write_wav (root, ".hidden/ghost.wav");

  /* Spaces, capitals, "#" and "%" in names; a text named .wav, an empty file. */
  write_wav (root, "Big Drums/Kick 1.wav");
  write_wav (root, "Big Drums/kick 2.WAV");
  write_wav (root, "Big Drums/snare #1.wav");
  write_wav (root, "Big Drums/100% snare.wav");
  sj_test_samples_write (root, "Big Drums/broken.wav", text, strlen (text));
  sj_test_samples_write (root, "Big Drums/silence.wav", "", 0);

  /* Accents, dots, the other formats by their first bytes. */
  sj_test_samples_write (root, "Café/ñ.flac", flac, sizeof flac);
  sj_test_samples_write (root, "Café/a.b.c.ogg", ogg, sizeof ogg);
  sj_test_samples_write (root, "HATS/open.mp3", id3, sizeof id3);
  sj_test_samples_write (root, "HATS/closed.mp3", frame, sizeof frame);
  write_wav (root, "HATS/nameless");
  sj_test_samples_write (root, "HATS/piano.aiff", aiff, sizeof aiff);

  /* Folders in folders: each file's sound is its own folder's. */
  write_wav (root, "perc/shaker/s.wav");
  write_wav (root, "perc/shaker/deep/x.wav");

  /* A very long file name plays; a folder name too long for a sound not. */
  long_file_path = g_strdup_printf ("long/%s.wav", long_file);
  write_wav (root, long_file_path);
  long_dir_file = g_strdup_printf ("%s/y.wav", long_dir);
  write_wav (root, long_dir_file);

  *tmp_dir = tmp;
  return g_steal_pointer (&root);
}
