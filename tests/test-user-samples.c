/* test-user-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjUserSamples on real folders in a temporary directory: a folder with
 * good, bad and oddly named files (tests/sj-test-samples.c) gives the
 * sounds Strudel's folder import would, with the files that cannot play
 * listed by name; the page's requests are answered for listed files only;
 * links back up the tree, the limits, removing a folder and reading the
 * folders back from their URIs.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "sj-dry-run-private.h"
#include "sj-test-files.h"
#include "sj-test-samples.h"
#include "sj-user-samples-private.h"

typedef struct
{
  char          *tmp;
  char          *root;
  SjUserSamples *samples;
  guint          changed;
} Fixture;

static void
changed_cb (SjUserSamples *samples,
            Fixture       *fixture)
{
  fixture->changed++;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->root = sj_test_samples_make_folder (&fixture->tmp);
  fixture->samples = sj_user_samples_new ();
  g_signal_connect (fixture->samples, "changed", G_CALLBACK (changed_cb), fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->samples);
  sj_test_remove_tree (fixture->tmp);
  g_free (fixture->tmp);
  g_free (fixture->root);
}

static gboolean
deadline_cb (gpointer data)
{
  g_error ("Timed out waiting for %s", (const char *) data);
  return G_SOURCE_REMOVE;
}

/* Spins the main loop until no folder is being read. */
static void
wait_idle (SjUserSamples *samples)
{
  guint deadline = g_timeout_add_seconds (30, deadline_cb, (gpointer) "the scan");

  while (sj_user_samples_get_busy (samples))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (deadline);
}

static SjUserFolder *
add_and_wait (Fixture    *fixture,
              const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  SjUserFolder *folder = sj_user_samples_add_folder (fixture->samples, file, &error);

  g_assert_no_error (error);
  g_assert_nonnull (folder);
  wait_idle (fixture->samples);
  g_assert_cmpint (sj_user_folder_get_state (folder), ==, SJ_USER_FOLDER_READY);
  return folder;
}

static void
assert_files (const SjUserSound  *sound,
              const char * const *expected)
{
  g_assert_nonnull (sound);
  g_assert_cmpuint (sound->files->len, ==, g_strv_length ((char **) expected));
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (((SjUserSampleFile *) g_ptr_array_index (sound->files, i))->display, ==, expected[i]);
}

static const SjUserSampleProblem *
find_problem (SjUserFolder *folder,
              const char   *path)
{
  GPtrArray *problems = sj_user_folder_get_problems (folder);

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    if (g_str_equal (((SjUserSampleProblem *) g_ptr_array_index (problems, i))->path, path))
      return g_ptr_array_index (problems, i);
  return NULL;
}

/* Formats and names ------------------------------------------------------- */

static void
test_sniff (void)
{
  static const struct {
    const char     *bytes;
    gsize           length;
    SjSampleFormat  format;
  } cases[] = {
    { "RIFF\x24\0\0\0WAVEfmt ", 16, SJ_SAMPLE_FORMAT_WAV },
    { "RIFF\x24\0\0\0AVI LIST", 16, SJ_SAMPLE_FORMAT_NONE },
    { "fLaC\x80\0\0\x22", 8, SJ_SAMPLE_FORMAT_FLAC },
    { "OggS\0\2", 6, SJ_SAMPLE_FORMAT_OGG },
    { "ID3\3\0\0\0\0", 8, SJ_SAMPLE_FORMAT_MP3 },
    { "\xff\xfb\x90\x64", 4, SJ_SAMPLE_FORMAT_MP3 },
    { "\xff\xf1\x50\x80", 4, SJ_SAMPLE_FORMAT_NONE },  /* ADTS AAC: layer 0 */
    { "\xff\xfb\xf0\x64", 4, SJ_SAMPLE_FORMAT_NONE },  /* a bit rate that does not exist */
    { "FORM\0\0\0\4AIFF", 12, SJ_SAMPLE_FORMAT_AIFF },
    { "\0\0\0\x20" "ftypM4A ", 12, SJ_SAMPLE_FORMAT_MP4 },
    { "RIFF", 4, SJ_SAMPLE_FORMAT_NONE },
    { "", 0, SJ_SAMPLE_FORMAT_NONE },
    { "kick on one\n", 12, SJ_SAMPLE_FORMAT_NONE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (sj_sample_format_sniff ((const guint8 *) cases[i].bytes, cases[i].length), ==, cases[i].format);

  g_assert_cmpint (sj_sample_format_from_name ("Kick.WAV"), ==, SJ_SAMPLE_FORMAT_WAV);
  g_assert_cmpint (sj_sample_format_from_name ("a.b.c.ogg"), ==, SJ_SAMPLE_FORMAT_OGG);
  g_assert_cmpint (sj_sample_format_from_name ("notes.txt"), ==, SJ_SAMPLE_FORMAT_NONE);
  g_assert_cmpint (sj_sample_format_from_name (".wav"), ==, SJ_SAMPLE_FORMAT_NONE);
  g_assert_cmpstr (sj_sample_format_get_content_type (SJ_SAMPLE_FORMAT_FLAC), ==, "audio/flac");
}

static void
test_names (void)
{
  g_autofree char *long_name = g_strnfill (SJ_USER_SAMPLES_MAX_NAME_BYTES + 1, 'x');
  static const struct {
    const char *folder;
    const char *sound;
    gboolean    writable;
  } cases[] = {
    { "kick", "kick", TRUE },
    { "Big Drums", "big_drums", TRUE },
    { "HATS \t  open", "hats_open", TRUE },
    { "Café", "café", TRUE },
    { "808 #2.5", "808_#2.5", TRUE },
    { "100% loops", "100%_loops", FALSE },
    { "a:b", "a:b", FALSE },
    { "ÄÖÜ", "äöü", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = sj_user_samples_sound_name (cases[i].folder);

      g_assert_cmpstr (name, ==, cases[i].sound);
      g_assert_cmpint (sj_user_samples_name_is_writable (name), ==, cases[i].writable);
    }

  g_assert_null (sj_user_samples_sound_name (""));
  g_assert_null (sj_user_samples_sound_name ("\xff\xfe"));
  g_assert_null (sj_user_samples_sound_name (long_name));
  g_assert_false (sj_user_samples_name_is_writable ("_"));
}

/* The folder -------------------------------------------------------------- */

/* Sub-folders are the sounds, their files sorted the variants; the files
 * directly in the folder make a sound named after it. */
static void
test_folder_sounds (Fixture       *fixture,
                    gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  static const char * const sounds[] = { "big_drums", "café", "deep", "hats", "jam_samples", "long", "shaker", NULL };
  GPtrArray *found = sj_user_folder_get_sounds (folder);

  g_assert_cmpstr (sj_user_folder_get_name (folder), ==, SJ_TEST_SAMPLES_ROOT);
  g_assert_cmpuint (strlen (sj_user_folder_get_id (folder)), ==, 12);
  g_assert_cmpuint (found->len, ==, g_strv_length ((char **) sounds));
  for (guint i = 0; sounds[i] != NULL; i++)
    g_assert_cmpstr (((SjUserSound *) g_ptr_array_index (found, i))->name, ==, sounds[i]);

  assert_files (sj_user_folder_lookup_sound (folder, "big_drums"), (const char *[]) {
    "Big Drums/100% snare.wav", "Big Drums/Kick 1.wav", "Big Drums/kick 2.WAV", "Big Drums/snare #1.wav", NULL });
  assert_files (sj_user_folder_lookup_sound (folder, "café"), (const char *[]) {
    "Café/a.b.c.ogg", "Café/ñ.flac", NULL });
  assert_files (sj_user_folder_lookup_sound (folder, "hats"), (const char *[]) {
    "HATS/closed.mp3", "HATS/nameless", "HATS/open.mp3", NULL });
  assert_files (sj_user_folder_lookup_sound (folder, "jam_samples"), (const char *[]) { "loop.wav", NULL });
  assert_files (sj_user_folder_lookup_sound (folder, "shaker"), (const char *[]) { "perc/shaker/s.wav", NULL });
  assert_files (sj_user_folder_lookup_sound (folder, "deep"), (const char *[]) { "perc/shaker/deep/x.wav", NULL });

  /* What plays is what the bytes say; hidden files are left out. */
  g_assert_cmpint (((SjUserSampleFile *) g_ptr_array_index (sj_user_folder_lookup_sound (folder, "hats")->files, 1))->format,
                   ==, SJ_SAMPLE_FORMAT_WAV);
  g_assert_null (find_problem (folder, ".DS_Store"));
  g_assert_cmpuint (sj_user_folder_get_n_files (folder), ==, 13);
  g_assert_true (sj_user_folder_lookup_sound (folder, "big_drums")->writable);
  g_assert_false (sj_user_folder_lookup_sound (folder, "big_drums")->replaces);
}

/* Numbered files are in the order of their numbers, as the website sorts
 * them (localeCompare with numeric: true): kick 2 before kick 10. */
static void
test_numbered (Fixture       *fixture,
               gconstpointer  data)
{
  static const char * const names[] = { "kick 10.wav", "kick 2.wav", "Kick 1.wav", "kick 1b.wav", "kick 002.wav",
                                        NULL };
  g_autofree char *numbered = g_build_filename (fixture->tmp, "Numbered", NULL);
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (400);
  SjUserFolder *folder;

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *relative = g_build_filename ("Kicks", names[i], NULL);

      sj_test_samples_write (numbered, relative, g_bytes_get_data (wav, NULL), g_bytes_get_size (wav));
    }
  folder = add_and_wait (fixture, numbered);
  assert_files (sj_user_folder_lookup_sound (folder, "kicks"), (const char *[]) {
    "Kicks/Kick 1.wav", "Kicks/kick 1b.wav", "Kicks/kick 002.wav", "Kicks/kick 2.wav", "Kicks/kick 10.wav", NULL });
}

/* Each file that does not play is named, with why. */
static void
test_folder_problems (Fixture       *fixture,
                      gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  g_autofree char *long_dir = g_strnfill (SJ_TEST_SAMPLES_LONG_DIR_LENGTH, 'l');
  g_autofree char *message = sj_user_folder_describe_problems (folder, 3);
  g_autofree char *all = sj_user_folder_describe_problems (folder, 10);
  const SjUserSampleProblem *problem;
  g_autofree char *why = NULL;

  g_assert_cmpuint (sj_user_folder_get_n_problems (folder), ==, 5);
  g_assert_cmpint (find_problem (folder, "notes.txt")->kind, ==, SJ_USER_SAMPLE_PROBLEM_NOT_AUDIO);
  problem = find_problem (folder, "Big Drums/broken.wav");
  g_assert_cmpint (problem->kind, ==, SJ_USER_SAMPLE_PROBLEM_NOT_FORMAT);
  why = sj_user_sample_problem_describe (problem);
  g_assert_cmpstr (why, ==, "not a WAV file");
  g_assert_cmpint (find_problem (folder, "Big Drums/silence.wav")->kind, ==, SJ_USER_SAMPLE_PROBLEM_EMPTY);
  g_assert_cmpint (find_problem (folder, "HATS/piano.aiff")->kind, ==, SJ_USER_SAMPLE_PROBLEM_UNSUPPORTED);
  g_assert_cmpint (find_problem (folder, long_dir)->kind, ==, SJ_USER_SAMPLE_PROBLEM_BAD_NAME);

  g_assert_cmpstr (message, ==, "5 files cannot be played: Big Drums/broken.wav (not a WAV file), "
                                "Big Drums/silence.wav (empty), HATS/piano.aiff (AIFF does not play here: "
                                "use WAV, FLAC, Ogg or MP3), …");
  /* All of them, a long name shortened in its middle. */
  g_assert_true (g_str_has_suffix (all, ", notes.txt (not audio)"));
  g_assert_nonnull (strstr (all, ", llllllllllllllllllllllll…lllllllllllllllllllllll (the folder’s name"));
}

/* The map the page registers: one pack per folder, paths percent-encoded
 * so that "#", "%" and spaces reach the scheme intact. */
static void
test_packs (Fixture       *fixture,
            gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  g_autoptr(JsonNode) packs = sj_user_samples_dup_packs (fixture->samples);
  JsonArray *array = json_node_get_array (packs);
  JsonObject *pack, *map;
  JsonArray *drums;

  g_assert_cmpuint (json_array_get_length (array), ==, 1);
  pack = json_array_get_object_element (array, 0);
  g_assert_cmpstr (json_object_get_string_member (pack, "id"), ==, sj_user_folder_get_id (folder));
  map = json_object_get_object_member (pack, "map");
  g_assert_cmpuint (json_object_get_size (map), ==, 7);
  drums = json_object_get_array_member (map, "big_drums");
  g_assert_cmpstr (json_array_get_string_element (drums, 0), ==, "Big%20Drums/100%25%20snare.wav");
  g_assert_cmpstr (json_array_get_string_element (drums, 3), ==, "Big%20Drums/snare%20%231.wav");
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (map, "café"), 1), ==,
                   "Caf%C3%A9/%C3%B1.flac");
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GBytes *
load (SjUserSamples  *samples,
      const char     *path,
      const char    **content_type,
      GError        **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_user_samples_load_async (samples, path, NULL, load_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return sj_user_samples_load_finish (samples, result, content_type, error);
}

/* The page gets a listed file as it asks for it; nothing else. */
static void
test_load (Fixture       *fixture,
           gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  const char *id = sj_user_folder_get_id (folder);
  g_autofree char *snare = g_strdup_printf ("%s/Big%%20Drums/snare%%20%%231.wav", id);
  g_autofree char *flac = g_strdup_printf ("%s/Caf%%C3%%A9/%%C3%%B1.flac", id);
  const char *refused[] = { "notes.txt", "Big%20Drums/broken.wav", "../Jam%20Samples/loop.wav",
                            "%2E%2E/Jam%20Samples/loop.wav", ".hidden/ghost.wav", "loop.wav%00.txt", "" };
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (800);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *content_type = NULL;

  bytes = load (fixture->samples, snare, &content_type, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (bytes, wav));
  g_assert_cmpstr (content_type, ==, "audio/wav");
  g_clear_pointer (&bytes, g_bytes_unref);

  bytes = load (fixture->samples, flac, &content_type, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (content_type, ==, "audio/flac");
  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_cmpuint (_sj_user_samples_get_n_loads (fixture->samples), ==, 2);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s", id, refused[i]);

      bytes = load (fixture->samples, path, NULL, &error);
      g_assert_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_FOUND);
      g_assert_null (bytes);
      g_clear_error (&error);
    }
  bytes = load (fixture->samples, "000000000000/loop.wav", NULL, &error);
  g_assert_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_cmpuint (_sj_user_samples_get_n_loads (fixture->samples), ==, 2);

  /* A file that stopped being audio since the scan is not served as audio. */
  {
    g_autofree char *path = g_build_filename (fixture->root, "loop.wav", NULL);
    g_autofree char *loop = g_strdup_printf ("%s/loop.wav", id);

    g_file_set_contents (path, "changed", -1, &error);
    g_assert_no_error (error);
    bytes = load (fixture->samples, loop, NULL, &error);
    g_assert_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_CHANGED);
    g_clear_error (&error);
  }
}

/* A link back up the tree is read once; links to files are followed. */
static void
test_symlink_loop (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *loop = g_build_filename (fixture->root, "perc", "shaker", "again", NULL);
  g_autofree char *link = g_build_filename (fixture->root, "Big Drums", "linked.wav", NULL);
  g_autofree char *target = g_build_filename (fixture->root, "loop.wav", NULL);
  g_autofree char *fifo = g_build_filename (fixture->root, "pipe.wav", NULL);
  SjUserFolder *folder;

  g_assert_cmpint (symlink ("../..", loop), ==, 0);
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  folder = add_and_wait (fixture, fixture->root);
  g_assert_cmpint (find_problem (folder, "perc/shaker/again")->kind, ==, SJ_USER_SAMPLE_PROBLEM_LOOP);
  g_assert_cmpint (find_problem (folder, "pipe.wav")->kind, ==, SJ_USER_SAMPLE_PROBLEM_NOT_AUDIO);
  g_assert_cmpuint (sj_user_folder_lookup_sound (folder, "big_drums")->files->len, ==, 5);
  g_assert_cmpuint (sj_user_folder_get_n_files (folder), ==, 14);
}

/* Depth, number of files, size: a folder beyond them says so. */
static void
test_limits (Fixture       *fixture,
             gconstpointer  data)
{
  SjUserSamplesLimits limits = { 1, 1000, 1000, 1000 * 1000 };
  SjUserFolder *folder;

  _sj_user_samples_set_limits (fixture->samples, &limits);
  folder = add_and_wait (fixture, fixture->root);
  g_assert_cmpint (find_problem (folder, "perc/shaker")->kind, ==, SJ_USER_SAMPLE_PROBLEM_TOO_DEEP);
  g_assert_null (sj_user_folder_lookup_sound (folder, "shaker"));
  g_assert_nonnull (sj_user_folder_lookup_sound (folder, "big_drums"));

  limits = (SjUserSamplesLimits) { 8, 1000, 1000, 100 };
  _sj_user_samples_set_limits (fixture->samples, &limits);
  folder = add_and_wait (fixture, fixture->root);
  g_assert_cmpint (find_problem (folder, "loop.wav")->kind, ==, SJ_USER_SAMPLE_PROBLEM_TOO_LARGE);
  g_assert_cmpint (find_problem (folder, "Café/ñ.flac") != NULL, ==, FALSE);

  limits = (SjUserSamplesLimits) { 8, 1000, 3, 1000 * 1000 };
  _sj_user_samples_set_limits (fixture->samples, &limits);
  folder = add_and_wait (fixture, fixture->root);
  g_assert_cmpuint (sj_user_folder_get_n_files (folder), ==, 3);
  g_assert_cmpint (find_problem (folder, "Big Drums/snare #1.wav")->kind, ==, SJ_USER_SAMPLE_PROBLEM_TOO_MANY);
  g_assert_null (sj_user_folder_lookup_sound (folder, "café"));

  limits = (SjUserSamplesLimits) { 8, 4, 1000, 1000 * 1000 };
  _sj_user_samples_set_limits (fixture->samples, &limits);
  folder = add_and_wait (fixture, fixture->root);
  g_assert_cmpuint (sj_user_folder_get_n_problems (folder), >=, 1);
  g_assert_cmpuint (sj_user_folder_get_n_files (folder), <, 4);
}

/* Removing a folder takes its sounds and its files away. */
static void
test_remove (Fixture       *fixture,
             gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  g_autofree char *id = g_strdup (sj_user_folder_get_id (folder));
  g_autofree char *path = g_strdup_printf ("%s/loop.wav", id);
  g_autoptr(JsonNode) packs = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  guint changed = fixture->changed;

  g_assert_true (sj_user_samples_remove_folder (fixture->samples, id));
  g_assert_cmpuint (fixture->changed, ==, changed + 1);
  g_assert_false (sj_user_samples_remove_folder (fixture->samples, id));
  g_assert_cmpuint (sj_user_samples_get_n_folders (fixture->samples), ==, 0);
  packs = sj_user_samples_dup_packs (fixture->samples);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (packs)), ==, 0);

  bytes = load (fixture->samples, path, NULL, &error);
  g_assert_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_FOUND);

  /* Removed while it is being read: the scan's end changes nothing. */
  {
    g_autoptr(GFile) file = g_file_new_for_path (fixture->root);

    folder = sj_user_samples_add_folder (fixture->samples, file, NULL);
    g_assert_true (sj_user_samples_remove_folder (fixture->samples, sj_user_folder_get_id (folder)));
    changed = fixture->changed;
    wait_idle (fixture->samples);
    g_assert_cmpuint (fixture->changed, ==, changed);
  }
}

/* Reading a folder again finds files added and taken away outside the
 * app; a folder deleted from the disk loses its sounds and says why. */
static void
test_rescan (Fixture       *fixture,
             gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  g_autofree char *id = g_strdup (sj_user_folder_get_id (folder));
  g_autofree char *gone_path = g_strdup_printf ("%s/loop.wav", id);
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (400);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) packs = NULL;
  g_autofree char *loop = g_build_filename (fixture->root, "loop.wav", NULL);
  guint n_files = sj_user_folder_get_n_files (folder);
  guint changed;

  g_assert_false (sj_user_samples_rescan_folder (fixture->samples, "no-such-folder"));

  sj_test_samples_write (fixture->root, "New Sound/one.wav", g_bytes_get_data (wav, NULL), g_bytes_get_size (wav));
  g_assert_cmpint (g_unlink (loop), ==, 0);
  changed = fixture->changed;
  g_assert_true (sj_user_samples_rescan_folder (fixture->samples, id));
  g_assert_cmpuint (fixture->changed, ==, changed + 1);
  g_assert_cmpint (sj_user_folder_get_state (folder), ==, SJ_USER_FOLDER_SCANNING);
  /* What the last scan found is served until the new one is done. */
  g_assert_nonnull (sj_user_folder_lookup_sound (folder, "jam_samples"));
  wait_idle (fixture->samples);
  g_assert_cmpuint (fixture->changed, ==, changed + 2);
  g_assert_cmpint (sj_user_folder_get_state (folder), ==, SJ_USER_FOLDER_READY);
  g_assert_cmpuint (sj_user_folder_get_n_files (folder), ==, n_files);
  g_assert_nonnull (sj_user_folder_lookup_sound (folder, "new_sound"));
  g_assert_null (sj_user_folder_lookup_sound (folder, "jam_samples"));
  bytes = load (fixture->samples, gone_path, NULL, &error);
  g_assert_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* The whole folder is deleted: it stays listed, failed, with no sound. */
  sj_test_remove_tree (fixture->root);
  g_assert_true (sj_user_samples_rescan_folder (fixture->samples, id));
  wait_idle (fixture->samples);
  g_assert_cmpint (sj_user_folder_get_state (folder), ==, SJ_USER_FOLDER_FAILED);
  g_assert_error (sj_user_folder_get_error (folder), SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_IO);
  g_assert_null (sj_user_folder_get_sounds (folder));
  g_assert_null (sj_user_folder_lookup_sound (folder, "big_drums"));
  g_assert_null (sj_user_folder_describe_problems (folder, 3));
  packs = sj_user_samples_dup_packs (fixture->samples);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (packs)), ==, 0);
  g_assert_cmpuint (sj_user_samples_get_n_folders (fixture->samples), ==, 1);
}

/* The folders come back from their URIs (the setting) with the same ids;
 * a folder that is gone says so. */
static void
test_uris (Fixture       *fixture,
           gconstpointer  data)
{
  SjUserFolder *folder = add_and_wait (fixture, fixture->root);
  g_autofree char *gone = g_build_filename (fixture->tmp, "gone", NULL);
  g_autoptr(GFile) gone_file = g_file_new_for_path (gone);
  g_autofree char *gone_uri = g_file_get_uri (gone_file);
  g_auto(GStrv) uris = sj_user_samples_dup_folder_uris (fixture->samples);
  g_autoptr(SjUserSamples) again = sj_user_samples_new ();
  const char *both[] = { uris[0], gone_uri, uris[0], NULL };
  g_auto(GStrv) read_back = NULL;

  g_assert_cmpuint (g_strv_length (uris), ==, 1);
  g_assert_true (g_str_has_prefix (uris[0], "file:///"));

  g_object_set (again, "folders", both, NULL);
  g_object_get (again, "folders", &read_back, NULL);
  g_assert_cmpuint (g_strv_length (read_back), ==, 2);
  wait_idle (again);
  g_assert_cmpstr (sj_user_folder_get_id (sj_user_samples_get_folder (again, 0)), ==, sj_user_folder_get_id (folder));
  g_assert_cmpuint (sj_user_folder_get_n_files (sj_user_samples_get_folder (again, 0)), ==, 13);
  g_assert_cmpint (sj_user_folder_get_state (sj_user_samples_get_folder (again, 1)), ==, SJ_USER_FOLDER_FAILED);
  g_assert_error (sj_user_folder_get_error (sj_user_samples_get_folder (again, 1)),
                  SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_IO);

  /* Setting the same list again keeps the folders as they are. */
  folder = sj_user_samples_get_folder (again, 0);
  sj_user_samples_set_folder_uris (again, (const char * const *) read_back);
  g_assert_true (sj_user_samples_get_folder (again, 0) == folder);
  g_assert_false (sj_user_samples_get_busy (again));

  sj_user_samples_set_folder_uris (again, NULL);
  g_assert_cmpuint (sj_user_samples_get_n_folders (again), ==, 0);
}

/* The dry-run's use of a sound, or NULL. */
static JsonObject *
find_use (JsonObject *answer,
          const char *sound)
{
  JsonArray *uses;

  if (!json_object_get_boolean_member_with_default (answer, "ok", FALSE) ||
      !json_object_has_member (answer, "sampleUses"))
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), answer);
      g_autofree char *text = json_to_string (node, FALSE);

      g_error ("The dry-run gave no sound uses: %s", text);
    }
  uses = json_object_get_array_member (answer, "sampleUses");
  for (guint i = 0; i < json_array_get_length (uses); i++)
    {
      JsonObject *use = json_array_get_object_element (uses, i);

      if (g_str_equal (json_object_get_string_member (use, "sound"), sound))
        return use;
    }
  return NULL;
}

static JsonObject *
dry_run (SjDryRun   *runner,
         const char *code)
{
  g_autoptr(GError) error = NULL;
  JsonObject *answer = sj_dry_run_run_sync (runner, code, 1, 20000, SJ_DRY_RUN_FLAGS_NONE, NULL, &error);

  g_assert_no_error (error);
  return answer;
}

static void
set_packs (SjDryRun      *runner,
           SjUserSamples *samples)
{
  g_autoptr(JsonNode) packs = sj_user_samples_dup_packs (samples);

  sj_dry_run_set_user_samples (runner, packs);
}

/* The dry-run helper registers the folders as the page does: their sounds
 * play their own files, a name of the library is replaced, a new engine
 * keeps them, and a removed folder's sounds are gone. */
static void
test_dry_run (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *mine = g_build_filename (fixture->tmp, "Mine", NULL);
  g_autoptr(SjDryRun) runner = sj_dry_run_new ();
  g_autoptr(GBytes) wav = sj_test_samples_make_wav (80);
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *kick = NULL;
  g_autofree char *one = NULL;
  SjUserFolder *folder, *bd_folder;
  JsonObject *use;

  sj_test_samples_write (mine, "bd/one.wav", g_bytes_get_data (wav, NULL), g_bytes_get_size (wav));
  folder = add_and_wait (fixture, fixture->root);
  bd_folder = add_and_wait (fixture, mine);
  g_assert_true (sj_user_folder_lookup_sound (bd_folder, "bd")->replaces);
  kick = g_strdup_printf ("%s/Big%%20Drums/Kick%%201.wav", sj_user_folder_get_id (folder));
  one = g_strdup_printf ("%s/bd/one.wav", sj_user_folder_get_id (bd_folder));
  set_packs (runner, fixture->samples);

  answer = dry_run (runner, "s(\"big_drums:1 bd café\")");
  use = find_use (answer, "big_drums");
  g_assert_cmpstr (json_object_get_string_member (use, "pack"), ==, SJ_USER_SAMPLES_PACK);
  g_assert_cmpstr (json_object_get_string_member (use, "path"), ==, kick);
  use = find_use (answer, "bd");
  g_assert_cmpstr (json_object_get_string_member (use, "path"), ==, one);
  g_assert_nonnull (find_use (answer, "café"));
  g_clear_pointer (&answer, json_object_unref);

  /* Code that changes the runtime gets the helper a new engine. */
  answer = dry_run (runner, "globalThis.leaked = 1\ns(\"bd\")");
  g_clear_pointer (&answer, json_object_unref);
  answer = dry_run (runner, "s(\"bd\")");
  g_assert_cmpstr (json_object_get_string_member (find_use (answer, "bd"), "path"), ==, one);
  g_clear_pointer (&answer, json_object_unref);

  /* Removed: the library's bd is back, and nothing else is registered. */
  g_assert_true (sj_user_samples_remove_folder (fixture->samples, sj_user_folder_get_id (bd_folder)));
  set_packs (runner, fixture->samples);
  answer = dry_run (runner, "s(\"bd big_drums\")");
  g_assert_cmpstr (json_object_get_string_member (find_use (answer, "bd"), "pack"), !=, SJ_USER_SAMPLES_PACK);
  g_assert_nonnull (find_use (answer, "big_drums"));
  g_clear_pointer (&answer, json_object_unref);

  sj_dry_run_set_user_samples (runner, NULL);
  answer = dry_run (runner, "s(\"bd big_drums\")");
  g_assert_null (find_use (answer, "big_drums"));
  g_assert_nonnull (find_use (answer, "bd"));
  g_assert_cmpuint (_sj_dry_run_get_n_starts (runner), ==, 1);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/user-samples/sniff", test_sniff);
  g_test_add_func ("/user-samples/names", test_names);
  g_test_add ("/user-samples/folder-sounds", Fixture, NULL, fixture_set_up, test_folder_sounds, fixture_tear_down);
  g_test_add ("/user-samples/numbered", Fixture, NULL, fixture_set_up, test_numbered, fixture_tear_down);
  g_test_add ("/user-samples/folder-problems", Fixture, NULL, fixture_set_up, test_folder_problems, fixture_tear_down);
  g_test_add ("/user-samples/packs", Fixture, NULL, fixture_set_up, test_packs, fixture_tear_down);
  g_test_add ("/user-samples/load", Fixture, NULL, fixture_set_up, test_load, fixture_tear_down);
  g_test_add ("/user-samples/symlink-loop", Fixture, NULL, fixture_set_up, test_symlink_loop, fixture_tear_down);
  g_test_add ("/user-samples/limits", Fixture, NULL, fixture_set_up, test_limits, fixture_tear_down);
  g_test_add ("/user-samples/remove", Fixture, NULL, fixture_set_up, test_remove, fixture_tear_down);
  g_test_add ("/user-samples/rescan", Fixture, NULL, fixture_set_up, test_rescan, fixture_tear_down);
  g_test_add ("/user-samples/uris", Fixture, NULL, fixture_set_up, test_uris, fixture_tear_down);
  g_test_add ("/user-samples/dry-run", Fixture, NULL, fixture_set_up, test_dry_run, fixture_tear_down);

  return g_test_run ();
}
