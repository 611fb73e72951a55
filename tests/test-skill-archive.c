/* test-skill-archive.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Importing and exporting skills without a display: a bundled skill
 * exported and imported again is the same skill, now the user's; the
 * shapes other programs give a zip (no top folder, a renamed one, macOS's
 * junk) import; the system's zip and unzip agree with ours when
 * installed; a folder is imported with the same checks. The hostile
 * archives are in test-skill-archive-hostile.c.
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <glib/gstdio.h>

#include "test-skill-archive.h"

const char good_json[] =
  "{\"name\": \"good\", \"title\": \"Good\", \"description\": \"A good skill.\", \"version\": \"1.0.0\","
  " \"tags\": [\"genre\"], \"triggers\": [\"good\"], \"priority\": 50}";
const char good_markdown[] = "# Good\n\n## Rules\n\n- Be good.\n\n## Examples\n\nNone.\n";

void
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

void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->registry);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->user_root);
  g_free (fixture->dir);
}

/* Refusals, and the user root the same after ------------------------------ */

GFile *
save_file (Fixture    *fixture,
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

void
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

void
assert_zip_refused (Fixture             *fixture,
                    const Entry         *entries,
                    guint                n_entries,
                    SjSkillArchiveError  code,
                    const char          *says)
{
  g_autoptr(GByteArray) zip = sj_test_zip_write (entries, n_entries);
  g_autoptr(GFile) file = save_file (fixture, "hostile.zip", zip->data, zip->len);

  assert_refused (fixture, file, code, says);
}

void
assert_built_refused (Fixture              *fixture,
                      const SjTestZipEntry *entries,
                      guint                 n_entries,
                      gsize                 cut,
                      SjSkillArchiveError   code,
                      const char           *says)
{
  g_autoptr(GBytes) zip = sj_test_zip_build (entries, n_entries);
  gsize length = cut > 0 ? cut : g_bytes_get_size (zip);
  g_autoptr(GFile) file = save_file (fixture, "crafted.zip", g_bytes_get_data (zip, NULL), length);

  assert_refused (fixture, file, code, says);
}

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
  g_autoptr(GFile) file1 = save_file (fixture, "top.zip", zip1->data, zip1->len);
  g_autoptr(GFile) file2 = save_file (fixture, "renamed.zip", zip2->data, zip2->len);
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
  ADD ("system-zip", test_system_zip);
  ADD ("folder", test_folder);
#undef ADD
  add_hostile_tests ();

  return g_test_run ();
}
