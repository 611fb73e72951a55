/* test-skill-archive.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Importing and exporting skills without a display: a bundled skill
 * exported and imported again is the same skill, now the user's; and
 * hostile archives, made here with libarchive (paths out of the folder,
 * links, devices, a 10 MB file, a zip bomb whose header lies, a thousand
 * entries, bad or deeply nested JSON, missing files, not a zip at all,
 * an empty file), are each refused with their own error while the user
 * root stays exactly as it was, listed before and after. A folder is
 * imported with the same checks.
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gstdio.h>

#include "sj-skill-archive.h"
#include "sj-skill-registry.h"
#include "sj-test-files.h"
#include "sj-test-zip.h"

#define FIXTURES SJ_TEST_DATA "/skills"

static const char good_json[] =
  "{\"name\": \"good\", \"title\": \"Good\", \"description\": \"A good skill.\", \"version\": \"1.0.0\","
  " \"tags\": [\"genre\"], \"triggers\": [\"good\"], \"priority\": 50}";
static const char good_markdown[] = "# Good\n\n## Rules\n\n- Be good.\n\n## Examples\n\nNone.\n";

typedef struct
{
  char            *dir;
  char            *user_root;
  SjSkillRegistry *registry;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("sj-skill-archive-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->user_root = g_build_filename (fixture->dir, "user", NULL);
  g_assert_cmpint (g_mkdir (fixture->user_root, 0755), ==, 0);
  fixture->registry = sj_skill_registry_new_for_roots (FIXTURES "/bundled", fixture->user_root, NULL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->registry);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->user_root);
  g_free (fixture->dir);
}

/* Making archives ----------------------------------------------------------- */

typedef SjTestArchiveEntry Entry;

static GFile *
save (Fixture    *fixture,
      const char *name,
      const void *data,
      gsize       length)
{
  g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, length, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static void
assert_refused (Fixture             *fixture,
                GFile               *source,
                SjSkillArchiveError  code,
                const char          *says)
{
  g_autofree char *before = sj_test_list_tree (fixture->user_root);
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  guint n_skills = g_list_model_get_n_items (G_LIST_MODEL (fixture->registry));

  skill = sj_skill_archive_import (fixture->registry, source, FALSE, NULL, &error);
  g_assert_null (skill);
  g_assert_error (error, SJ_SKILL_ARCHIVE_ERROR, (int)code);
  if (g_test_verbose ())
    g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, says));
  g_assert_true (g_str_has_suffix (error->message, "othing was imported."));

  after = sj_test_list_tree (fixture->user_root);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (fixture->registry)), ==, n_skills);
}

static void
assert_zip_refused (Fixture             *fixture,
                    const Entry         *entries,
                    guint                n_entries,
                    SjSkillArchiveError  code,
                    const char          *says)
{
  g_autoptr(GByteArray) zip = sj_test_zip_write (entries, n_entries);
  g_autoptr(GFile) file = save (fixture, "hostile.zip", zip->data, zip->len);

  assert_refused (fixture, file, code, says);
}

#define GOOD_FILES \
  { "good/skill.json", good_json, 0, 0, NULL }, \
  { "good/SKILL.md", good_markdown, 0, 0, NULL }

/* Tests ----------------------------------------------------------------- */

static char *
read_text (GFile      *folder,
           const char *name)
{
  g_autoptr(GFile) file = g_file_get_child (folder, name);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_load_contents (file, NULL, &text, NULL, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static void
test_round_trip (Fixture       *fixture,
                 gconstpointer  data)
{
  /* Kept: an import loads the registry's skills again. */
  g_autoptr(SjSkill) jazz = g_object_ref (sj_skill_registry_lookup (fixture->registry, "jazz"));
  g_autofree char *path = g_build_filename (fixture->dir, "jazz.zip", NULL);
  g_autoptr(GFile) zip = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) imported = NULL;
  g_autoptr(SjSkill) again = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  GAsyncResult *result = NULL;
  struct archive *archive;
  struct archive_entry *entry;
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  g_assert_nonnull (jazz);
  g_assert_cmpint (sj_skill_get_origin (jazz), ==, SJ_SKILL_ORIGIN_BUNDLED);

  /* Exported in a thread, as the page does. */
  sj_skill_archive_export_async (jazz, zip, NULL, sj_test_store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (sj_skill_archive_export_finish (jazz, result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  /* One top folder named after the skill. */
  archive = archive_read_new ();
  archive_read_support_format_zip (archive);
  g_assert_cmpint (archive_read_open_filename (archive, path, 16384), ==, ARCHIVE_OK);
  while (archive_read_next_header (archive, &entry) == ARCHIVE_OK)
    g_ptr_array_add (paths, g_strdup (archive_entry_pathname (entry)));
  archive_read_free (archive);
  g_assert_cmpuint (paths->len, >=, 3);
  g_assert_cmpstr (g_ptr_array_index (paths, 0), ==, "jazz/");
  g_assert_true (g_ptr_array_find_with_equal_func (paths, "jazz/skill.json", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (paths, "jazz/SKILL.md", g_str_equal, NULL));

  /* Imported in a thread: now the user's, overriding the bundled one. */
  sj_skill_archive_import_async (fixture->registry, zip, FALSE, NULL, sj_test_store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  imported = sj_skill_archive_import_finish (fixture->registry, result, &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_nonnull (imported);
  g_assert_cmpstr (sj_skill_get_name (imported), ==, "jazz");
  g_assert_cmpint (sj_skill_get_origin (imported), ==, SJ_SKILL_ORIGIN_USER);
  g_assert_true (sj_skill_get_overrides (imported));
  g_assert_true (sj_skill_registry_lookup (fixture->registry, "jazz") == imported);
  markdown = read_text (sj_skill_get_folder (jazz), "SKILL.md");
  copied = read_text (sj_skill_get_folder (imported), "SKILL.md");
  g_assert_cmpstr (copied, ==, markdown);
  g_assert_cmpstr (sj_skill_get_rules (imported), ==, sj_skill_get_rules (jazz));
  g_assert_cmpuint (sj_skill_get_templates (jazz)->len, >, 0);
  g_assert_cmpuint (sj_skill_get_templates (imported)->len, ==, sj_skill_get_templates (jazz)->len);
  g_assert_cmpuint (sj_skill_get_patterns (jazz)->len, >, 0);
  g_assert_cmpuint (sj_skill_get_patterns (imported)->len, ==, sj_skill_get_patterns (jazz)->len);

  /* Again: the musician must agree to replace their skill. */
  before = sj_test_list_tree (fixture->user_root);
  again = sj_skill_archive_import (fixture->registry, zip, FALSE, NULL, &error);
  g_assert_null (again);
  g_assert_error (error, SJ_SKILL_ARCHIVE_ERROR, SJ_SKILL_ARCHIVE_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "jazz"));
  g_clear_error (&error);
  after = sj_test_list_tree (fixture->user_root);
  g_assert_cmpstr (after, ==, before);

  again = sj_skill_archive_import (fixture->registry, zip, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (again);
  g_clear_pointer (&after, g_free);
  after = sj_test_list_tree (fixture->user_root);
  g_assert_cmpstr (after, ==, before);
}

/* A zip without a top folder, or with one of another name (a browser's
 * "good (1)"), imports under the name in skill.json; the junk macOS adds
 * is skipped. */
static void
test_good_shapes (Fixture       *fixture,
                  gconstpointer  data)
{
  const Entry top[] = {
    { "skill.json", good_json, 0, 0, NULL },
    { "SKILL.md", good_markdown, 0, 0, NULL },
    { "__MACOSX/._SKILL.md", "junk", 0, 0, NULL },
  };
  const Entry renamed[] = {
    { "good (1)/", NULL, 0, 0, NULL },
    { "good (1)/skill.json", good_json, 0, 0, NULL },
    { "good (1)/SKILL.md", good_markdown, 0, 0, NULL },
    { "__MACOSX/", NULL, 0, 0, NULL },
    { "__MACOSX/good (1)/._SKILL.md", "junk", 0, 0, NULL },
    { "good (1)/.DS_Store", "junk", 0, 0, NULL },
  };
  g_autoptr(GByteArray) zip1 = sj_test_zip_write (top, G_N_ELEMENTS (top));
  g_autoptr(GByteArray) zip2 = sj_test_zip_write (renamed, G_N_ELEMENTS (renamed));
  g_autoptr(GFile) file1 = save (fixture, "top.zip", zip1->data, zip1->len);
  g_autoptr(GFile) file2 = save (fixture, "renamed.zip", zip2->data, zip2->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autofree char *tree = NULL;
  /* Only the skill's files, none of the junk. */
  g_autofree char *expected = g_strdup_printf ("good d 0\ngood/SKILL.md f %zu\ngood/skill.json f %zu\n",
                                               strlen (good_markdown), strlen (good_json));

  skill = sj_skill_archive_import (fixture->registry, file1, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
  g_clear_object (&skill);
  tree = sj_test_list_tree (fixture->user_root);
  g_assert_cmpstr (tree, ==, expected);
  g_clear_pointer (&tree, g_free);

  skill = sj_skill_archive_import (fixture->registry, file2, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
  tree = sj_test_list_tree (fixture->user_root);
  g_assert_cmpstr (tree, ==, expected);
}

static void
test_traversal (Fixture       *fixture,
                gconstpointer  data)
{
  const Entry up[] = { GOOD_FILES, { "../x", "evil", 0, 0, NULL } };
  const Entry deep[] = { GOOD_FILES, { "good/../../evil", "evil", 0, 0, NULL } };
  const Entry absolute[] = { { "/tmp/evil/skill.json", good_json, 0, 0, NULL } };
  const Entry backslash[] = { GOOD_FILES, { "good\\..\\evil", "evil", 0, 0, NULL } };
  const Entry drive[] = { GOOD_FILES, { "C:/evil", "evil", 0, 0, NULL } };

  assert_zip_refused (fixture, up, G_N_ELEMENTS (up), SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL,
                      "The archive has a file outside its folder (../x)");
  assert_zip_refused (fixture, deep, G_N_ELEMENTS (deep), SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL, "(good/../../evil)");
  assert_zip_refused (fixture, absolute, G_N_ELEMENTS (absolute), SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL, "/tmp/evil");
  assert_zip_refused (fixture, backslash, G_N_ELEMENTS (backslash), SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL, "evil");
  assert_zip_refused (fixture, drive, G_N_ELEMENTS (drive), SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL, "C:/evil");
}

static void
test_links (Fixture       *fixture,
            gconstpointer  data)
{
  const Entry symlink[] = { GOOD_FILES, { "good/passwd", NULL, 0, AE_IFLNK, "/etc/passwd" } };
  const Entry hardlink[] = { GOOD_FILES, { "good/notes.txt", NULL, 0, 0, "good/SKILL.md" } };
  const Entry device[] = { GOOD_FILES, { "good/device", "x", 0, 0, NULL } };
  g_autoptr(GByteArray) zip = sj_test_zip_write (device, G_N_ELEMENTS (device));
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autofree char *notes = g_build_filename (fixture->user_root, "good", "notes.txt", NULL);
  GStatBuf st;

  assert_zip_refused (fixture, symlink, G_N_ELEMENTS (symlink), SJ_SKILL_ARCHIVE_ERROR_SYMLINK,
                      "symbolic link (good/passwd)");

  /* A zip's central record carries a Unix mode: a character device. */
  sj_test_zip_patch_mode (zip, "good/device", 0020644);
  file = save (fixture, "device.zip", zip->data, zip->len);
  assert_refused (fixture, file, SJ_SKILL_ARCHIVE_ERROR_SPECIAL_FILE, "good/device");

  /* A zip cannot hold a hard link: what libarchive writes for one reads as
   * an empty file of its own, linked to nothing. */
  g_clear_pointer (&zip, g_byte_array_unref);
  g_clear_object (&file);
  zip = sj_test_zip_write (hardlink, G_N_ELEMENTS (hardlink));
  file = save (fixture, "hardlink.zip", zip->data, zip->len);
  skill = sj_skill_archive_import (fixture->registry, file, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (notes, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_cmpint (st.st_nlink, ==, 1);
  g_assert_cmpint (st.st_size, ==, 0);
}

static void
test_sizes (Fixture       *fixture,
            gconstpointer  data)
{
  const Entry big[] = { GOOD_FILES, { "good/big.bin", NULL, 10 * 1024 * 1024, 0, NULL } };
  const Entry total[] = {
    GOOD_FILES,
    { "good/1.bin", NULL, 60 * 1024, 0, NULL }, { "good/2.bin", NULL, 60 * 1024, 0, NULL },
    { "good/3.bin", NULL, 60 * 1024, 0, NULL }, { "good/4.bin", NULL, 60 * 1024, 0, NULL },
    { "good/5.bin", NULL, 60 * 1024, 0, NULL },
  };
  g_autoptr(GByteArray) bomb = sj_test_zip_write (big, G_N_ELEMENTS (big));
  g_autoptr(GFile) file = NULL;
  g_autofree guint8 *noise = g_malloc (2 * 1024 * 1024);
  g_autoptr(GByteArray) huge = NULL;
  Entry noisy[] = { GOOD_FILES, { "good/noise.bin", NULL, 0, 0, NULL } };

  assert_zip_refused (fixture, big, G_N_ELEMENTS (big), SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "(good/big.bin)");
  assert_zip_refused (fixture, total, G_N_ELEMENTS (total), SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "256 KiB");

  /* The bomb: 10 MB of zeros in 10 KB, its headers claiming 100 bytes.
   * The bytes that come out are counted, not the claim. */
  g_assert_cmpuint (sj_test_zip_patch (bomb, "PK\1\2", 24, 10 * 1024 * 1024, 100) +
                    sj_test_zip_patch (bomb, "PK\3\4", 22, 10 * 1024 * 1024, 100) +
                    sj_test_zip_patch (bomb, "PK\7\10", 12, 10 * 1024 * 1024, 100), >=, 1);
  g_assert_cmpuint (bomb->len, <, 64 * 1024);
  g_assert_cmpint (sj_test_zip_claimed_size (bomb, "good/big.bin"), ==, 100);
  file = save (fixture, "bomb.zip", bomb->data, bomb->len);
  assert_refused (fixture, file, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "(good/big.bin)");

  /* An archive too large to be a skill is not even opened. */
  for (gsize i = 0; i < 2 * 1024 * 1024; i += 4)
    {
      guint32 r = g_random_int ();

      memcpy (noise + i, &r, 4);
    }
  noisy[2].size = 2 * 1024 * 1024;
  huge = sj_test_zip_write (noisy, 2);
  g_byte_array_append (huge, noise, 2 * 1024 * 1024);
  g_clear_object (&file);
  file = save (fixture, "huge.zip", huge->data, huge->len);
  assert_refused (fixture, file, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "larger than 1024 KiB");
}

static void
test_counts (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GArray) many = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) seventeen = g_array_new (FALSE, TRUE, sizeof (Entry));
  const Entry good[] = { GOOD_FILES };
  const Entry duplicate[] = { GOOD_FILES, { "good/SKILL.md", good_markdown, 0, 0, NULL } };
  const Entry nested[] = { GOOD_FILES, { "good/more/x.txt", "x", 0, 0, NULL } };
  const Entry sub_folder[] = { GOOD_FILES, { "good/more/", NULL, 0, 0, NULL } };
  const Entry two[] = { GOOD_FILES, { "other/x.txt", "x", 0, 0, NULL } };
  const Entry mixed[] = { GOOD_FILES, { "x.txt", "x", 0, 0, NULL } };

  for (guint i = 0; i < 1000; i++)
    {
      char *name = g_strdup_printf ("good/%u.txt", i);
      Entry entry = { name, "x", 0, 0, NULL };

      g_ptr_array_add (names, name);
      g_array_append_val (many, entry);
      if (i < 15)
        g_array_append_val (seventeen, entry);
    }
  g_array_append_vals (seventeen, good, 2);

  assert_zip_refused (fixture, (Entry *)many->data, many->len, SJ_SKILL_ARCHIVE_ERROR_TOO_MANY_FILES,
                      "more than 16 files");
  assert_zip_refused (fixture, (Entry *)seventeen->data, seventeen->len, SJ_SKILL_ARCHIVE_ERROR_TOO_MANY_FILES,
                      "more than 16 files");
  assert_zip_refused (fixture, duplicate, G_N_ELEMENTS (duplicate), SJ_SKILL_ARCHIVE_ERROR_DUPLICATE, "SKILL.md");
  assert_zip_refused (fixture, nested, G_N_ELEMENTS (nested), SJ_SKILL_ARCHIVE_ERROR_NESTED, "good/more/x.txt");
  assert_zip_refused (fixture, sub_folder, G_N_ELEMENTS (sub_folder), SJ_SKILL_ARCHIVE_ERROR_NESTED, "(good/more/)");
  assert_zip_refused (fixture, two, G_N_ELEMENTS (two), SJ_SKILL_ARCHIVE_ERROR_NESTED, "good and other");
  assert_zip_refused (fixture, mixed, G_N_ELEMENTS (mixed), SJ_SKILL_ARCHIVE_ERROR_NESTED, "x.txt");
}

static void
test_contents (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GString) deep = g_string_new ("{\"name\": \"good\", \"x\": ");
  const Entry bad_json[] = {
    { "good/skill.json", "{\"name\": \"good\", \"title\": ", 0, 0, NULL },
    { "good/SKILL.md", good_markdown, 0, 0, NULL },
  };
  const Entry unknown[] = {
    { "good/skill.json", "{\"name\": \"good\", \"titel\": \"Good\"}", 0, 0, NULL },
    { "good/SKILL.md", good_markdown, 0, 0, NULL },
  };
  const Entry no_markdown[] = { { "good/skill.json", good_json, 0, 0, NULL } };
  const Entry no_json[] = { { "good/SKILL.md", good_markdown, 0, 0, NULL } };
  const Entry folders_only[] = { { "good/", NULL, 0, 0, NULL } };
  Entry nested[] = { { "good/skill.json", NULL, 0, 0, NULL }, { "good/SKILL.md", good_markdown, 0, 0, NULL } };
  g_autoptr(GFile) text = save (fixture, "notes.zip", "Not a zip at all, just text.\n", 29);
  g_autoptr(GFile) empty = save (fixture, "empty.zip", "", 0);
  g_autofree guint8 *tar = g_malloc0 (16 * 1024);
  size_t tar_length = 0;
  g_autoptr(GFile) tar_file = NULL;
  struct archive *archive = archive_write_new ();

  for (guint i = 0; i < 5000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  nested[0].data = deep->str;

  assert_zip_refused (fixture, bad_json, G_N_ELEMENTS (bad_json), SJ_SKILL_ARCHIVE_ERROR_BAD_JSON, "skill.json");
  assert_zip_refused (fixture, nested, G_N_ELEMENTS (nested), SJ_SKILL_ARCHIVE_ERROR_BAD_JSON, "nested");
  assert_zip_refused (fixture, unknown, G_N_ELEMENTS (unknown), SJ_SKILL_ARCHIVE_ERROR_INVALID_SKILL, "titel");
  assert_zip_refused (fixture, no_markdown, G_N_ELEMENTS (no_markdown), SJ_SKILL_ARCHIVE_ERROR_MISSING_SKILL_MD,
                      "no SKILL.md");
  assert_zip_refused (fixture, no_json, G_N_ELEMENTS (no_json), SJ_SKILL_ARCHIVE_ERROR_MISSING_SKILL_JSON,
                      "no skill.json");
  assert_zip_refused (fixture, folders_only, G_N_ELEMENTS (folders_only), SJ_SKILL_ARCHIVE_ERROR_EMPTY, "no files");
  assert_refused (fixture, text, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE, "not a .zip archive");
  assert_refused (fixture, empty, SJ_SKILL_ARCHIVE_ERROR_EMPTY, "empty");

  /* Another kind of archive is not taken for a zip. */
  archive_write_set_format_pax_restricted (archive);
  archive_write_open_memory (archive, tar, 16 * 1024, &tar_length);
  archive_write_close (archive);
  archive_write_free (archive);
  tar_file = save (fixture, "skill.tar", tar, tar_length);
  assert_refused (fixture, tar_file, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE, "not a .zip archive");
}

static char *
make_folder (Fixture    *fixture,
             const char *name)
{
  char *dir = g_build_filename (fixture->dir, name, NULL);
  g_autofree char *json = g_build_filename (dir, "skill.json", NULL);
  g_autofree char *markdown = g_build_filename (dir, "SKILL.md", NULL);

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (json, good_json, -1, NULL));
  g_assert_true (g_file_set_contents (markdown, good_markdown, -1, NULL));
  return dir;
}

static void
test_folder (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *linked = make_folder (fixture, "linked");
  g_autofree char *nested = make_folder (fixture, "nested");
  g_autofree char *good = make_folder (fixture, "my-good-skill");
  g_autofree char *link = g_build_filename (linked, "passwd", NULL);
  g_autofree char *sub = g_build_filename (nested, "more", NULL);
  g_autoptr(GFile) linked_file = g_file_new_for_path (linked);
  g_autoptr(GFile) nested_file = g_file_new_for_path (nested);
  g_autoptr(GFile) good_file = g_file_new_for_path (good);
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_assert_cmpint (symlink ("/etc/passwd", link), ==, 0);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  assert_refused (fixture, linked_file, SJ_SKILL_ARCHIVE_ERROR_SYMLINK, "The folder has a symbolic link (passwd)");
  assert_refused (fixture, nested_file, SJ_SKILL_ARCHIVE_ERROR_NESTED, "(more)");

  /* Cancelled: nothing either. */
  g_cancellable_cancel (cancellable);
  skill = sj_skill_archive_import (fixture->registry, good_file, FALSE, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_null (sj_skill_registry_lookup (fixture->registry, "good"));

  /* The folder's name does not matter: skill.json names the skill. */
  skill = sj_skill_archive_import (fixture->registry, good_file, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
  g_assert_cmpint (sj_skill_get_origin (skill), ==, SJ_SKILL_ORIGIN_USER);
  g_assert_false (sj_skill_get_overrides (skill));
}


static void
assert_built_refused (Fixture              *fixture,
                      const SjTestZipEntry *entries,
                      guint                 n_entries,
                      gsize                 cut,
                      SjSkillArchiveError   code,
                      const char           *says)
{
  g_autoptr(GBytes) zip = sj_test_zip_build (entries, n_entries);
  gsize length = cut > 0 ? cut : g_bytes_get_size (zip);
  g_autoptr(GFile) file = save (fixture, "crafted.zip", g_bytes_get_data (zip, NULL), length);

  assert_refused (fixture, file, code, says);
}

/* Zips no zip program writes, made byte by byte, each lying in a field a
 * reader could trust: each is refused with its own message, nothing
 * written. Told the truth, the same entries import. */
static void
test_lies (Fixture       *fixture,
           gconstpointer  data)
{
  static const char not_zip_text[] = "PK\3\4 but nothing of a zip after that";
  g_autofree char *zeros = g_malloc0 (1024 * 1024);
  SjTestZipEntry entries[] = {
    SJ_TEST_ZIP_FILE ("good/skill.json", good_json, TRUE),
    SJ_TEST_ZIP_FILE ("good/SKILL.md", good_markdown, TRUE),
    SJ_TEST_ZIP_FILE ("good/notes.txt", "twenty bytes of text", FALSE),
  };
  const SjTestZipEntry truthful[G_N_ELEMENTS (entries)] = { entries[0], entries[1], entries[2] };
  const SjTestZipEntry bomb = { "good/notes.txt", zeros, 1024 * 1024, TRUE, 0, 0, 0, 100, -1 };
  g_autoptr(GBytes) whole = sj_test_zip_build (truthful, G_N_ELEMENTS (truthful));
  g_autoptr(GFile) not_zip = save (fixture, "not.zip", not_zip_text, sizeof not_zip_text - 1);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;

  /* Encrypted (the old PKWARE kind, flag bit 0). */
  entries[1].flags = 1;
  assert_built_refused (fixture, entries, 3, 0, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                        "an encrypted file (good/SKILL.md)");
  entries[1] = truthful[1];

  /* Method 19, IBM's LZ77, which no reader here knows. */
  entries[1].deflate = FALSE;
  entries[1].method = 19;
  assert_built_refused (fixture, entries, 3, 0, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                        "file good/SKILL.md cannot be unpacked (Unsupported ZIP compression method");
  entries[1] = truthful[1];

  entries[1].crc = 1234;
  assert_built_refused (fixture, entries, 3, 0, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                        "file good/SKILL.md cannot be unpacked (ZIP bad CRC");
  entries[1] = truthful[1];

  /* A stored file of 20 bytes whose headers say 10. */
  entries[2].declared_size = 10;
  assert_built_refused (fixture, entries, 3, 0, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                        "file good/notes.txt cannot be unpacked");
  entries[2] = truthful[2];

  /* A bomb: 1 MiB of zeros in 1 KiB, its headers saying 100 bytes, with
   * no data descriptor to correct them. What comes out is counted. */
  entries[2] = bomb;
  assert_built_refused (fixture, entries, 3, 0, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE,
                        "larger than 64 KiB (good/notes.txt)");
  entries[2] = truthful[2];

  assert_refused (fixture, not_zip, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE, "not a .zip archive");

  /* Cut anywhere, even right after its last file: without the central
   * directory at its end, a zip is not taken for whole. */
  for (gsize cut = 1; cut < g_bytes_get_size (whole); cut++)
    assert_built_refused (fixture, truthful, 3, cut, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE, "not a whole one");

  file = save (fixture, "truthful.zip", g_bytes_get_data (whole, NULL), g_bytes_get_size (whole));
  skill = sj_skill_archive_import (fixture->registry, file, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
}

/* The system's programs, each when installed: its unzip finds nothing
 * wrong with an exported skill, and a folder its zip packs imports. */
static void
test_system_zip (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *unzip = g_find_program_in_path ("unzip");
  g_autofree char *zip = g_find_program_in_path ("zip");
  g_autofree char *exported = g_build_filename (fixture->dir, "jazz.zip", NULL);
  g_autofree char *packed = g_build_filename (fixture->dir, "dub.zip", NULL);
  g_autoptr(GFile) exported_file = g_file_new_for_path (exported);
  g_autoptr(GFile) packed_file = g_file_new_for_path (packed);
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  int status = -1;

  if (unzip == NULL && zip == NULL)
    {
      g_test_skip ("Neither zip nor unzip is installed");
      return;
    }

  if (unzip != NULL)
    {
      const char *argv[] = { unzip, "-tq", exported, NULL };

      g_assert_true (sj_skill_archive_export (sj_skill_registry_lookup (fixture->registry, "jazz"), exported_file,
                                              NULL, &error));
      g_assert_no_error (error);
      g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                    NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  else
    g_test_message ("No unzip: exports are not checked by it");

  if (zip != NULL)
    {
      const char *argv[] = { zip, "-qr", packed, "dub", NULL };

      g_spawn_sync (FIXTURES "/bundled", (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                    &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      skill = sj_skill_archive_import (fixture->registry, packed_file, FALSE, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (sj_skill_get_name (skill), ==, "dub");
      g_assert_cmpint (sj_skill_get_origin (skill), ==, SJ_SKILL_ORIGIN_USER);
    }
  else
    g_test_message ("No zip: importing what it packs is not checked");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) g_test_add ("/skill-archive/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("round-trip", test_round_trip);
  ADD ("good-shapes", test_good_shapes);
  ADD ("traversal", test_traversal);
  ADD ("links", test_links);
  ADD ("sizes", test_sizes);
  ADD ("counts", test_counts);
  ADD ("contents", test_contents);
  ADD ("folder", test_folder);
  ADD ("lies", test_lies);
  ADD ("system-zip", test_system_zip);
#undef ADD

  return g_test_run ();
}
