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

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *)a, *(const char * const *)b);
}

/* Every path under @root, hidden ones included, with each file's size. */
static void
list_into (GString    *out,
           const char *root,
           const char *prefix)
{
  g_autoptr(GDir) dir = g_dir_open (root, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (root, g_ptr_array_index (names, i), NULL);
      g_autofree char *rel = g_build_filename (prefix, g_ptr_array_index (names, i), NULL);
      GStatBuf st;

      g_assert_cmpint (g_lstat (path, &st), ==, 0);
      /* Sizes of folders and modes depend on the file system and umask. */
      g_string_append_printf (out, "%s %c %" G_GINT64_FORMAT "\n", rel,
                              S_ISDIR (st.st_mode) ? 'd' : S_ISREG (st.st_mode) ? 'f' : '?',
                              S_ISDIR (st.st_mode) ? (gint64)0 : (gint64)st.st_size);
      if (S_ISDIR (st.st_mode))
        list_into (out, path, rel);
    }
}

static char *
list_tree (const char *root)
{
  GString *out = g_string_new (NULL);

  list_into (out, root, "");
  return g_string_free (out, FALSE);
}

/* Making archives ----------------------------------------------------------- */

typedef struct
{
  const char *path;
  const char *data;      /* %NULL: a folder, or a link */
  gsize       size;      /* bytes of zeros when data is %NULL and this is not 0 */
  mode_t      type;      /* 0: a regular file, or a folder when path ends in / */
  const char *link;      /* the target of a symbolic or hard link */
} Entry;

static la_ssize_t
append_cb (struct archive *archive,
           void           *data,
           const void     *buffer,
           size_t          length)
{
  g_byte_array_append (data, buffer, length);
  return length;
}

static GByteArray *
make_zip (const Entry *entries,
          guint        n_entries)
{
  GByteArray *zip = g_byte_array_new ();
  struct archive *archive = archive_write_new ();
  struct archive_entry *entry = archive_entry_new ();

  g_assert_cmpint (archive_write_set_format_zip (archive), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_write_set_bytes_in_last_block (archive, 1), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_write_open (archive, zip, NULL, append_cb, NULL), ==, ARCHIVE_OK);
  for (guint i = 0; i < n_entries; i++)
    {
      const Entry *e = &entries[i];
      gboolean folder = g_str_has_suffix (e->path, "/");
      g_autofree guint8 *zeros = NULL;
      gsize size = e->data != NULL ? strlen (e->data) : e->size;

      archive_entry_clear (entry);
      archive_entry_set_pathname (entry, e->path);
      archive_entry_set_filetype (entry, e->type != 0 ? e->type : folder ? AE_IFDIR : AE_IFREG);
      archive_entry_set_perm (entry, folder ? 0755 : 0644);
      if (e->type == AE_IFLNK)
        archive_entry_set_symlink (entry, e->link);
      else if (e->link != NULL)
        archive_entry_set_hardlink (entry, e->link);
      else if (!folder)
        archive_entry_set_size (entry, size);
      g_assert_cmpint (archive_write_header (archive, entry), ==, ARCHIVE_OK);
      if (e->data != NULL)
        g_assert_cmpint (archive_write_data (archive, e->data, size), ==, size);
      else if (size > 0 && e->type == 0 && !folder)
        {
          zeros = g_malloc0 (size);
          g_assert_cmpint (archive_write_data (archive, zeros, size), ==, size);
        }
    }
  g_assert_cmpint (archive_write_close (archive), ==, ARCHIVE_OK);
  archive_entry_free (entry);
  archive_write_free (archive);

  return zip;
}

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
put_le32 (guint8  *at,
          guint32  value)
{
  at[0] = value & 0xff;
  at[1] = (value >> 8) & 0xff;
  at[2] = (value >> 16) & 0xff;
  at[3] = (value >> 24) & 0xff;
}

static guint32
get_le32 (const guint8 *at)
{
  return at[0] | at[1] << 8 | at[2] << 16 | (guint32)at[3] << 24;
}

/* Rewrites a field of every record with @signature whose field at @offset
 * is @from: the sizes in the headers, or a central record's file mode. */
static guint
patch_records (GByteArray *zip,
               const char *signature,
               gsize       offset,
               guint32     from,
               guint32     to)
{
  guint patched = 0;

  for (gsize i = 0; i + offset + 4 <= zip->len; i++)
    if (memcmp (zip->data + i, signature, 4) == 0 && get_le32 (zip->data + i + offset) == from)
      {
        put_le32 (zip->data + i + offset, to);
        patched++;
      }

  return patched;
}

/* Gives the central record of @name another Unix mode. */
static void
patch_mode (GByteArray *zip,
            const char *name,
            guint32     mode)
{
  gsize length = strlen (name);

  for (gsize i = 0; i + 46 + length <= zip->len; i++)
    if (memcmp (zip->data + i, "PK\1\2", 4) == 0 && memcmp (zip->data + i + 46, name, length) == 0)
      {
        put_le32 (zip->data + i + 38, mode << 16);
        return;
      }

  g_assert_not_reached ();
}

static void
assert_refused (Fixture             *fixture,
                GFile               *source,
                SjSkillArchiveError  code,
                const char          *says)
{
  g_autofree char *before = list_tree (fixture->user_root);
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

  after = list_tree (fixture->user_root);
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
  g_autoptr(GByteArray) zip = make_zip (entries, n_entries);
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

  /* Again: the musician must agree to replace their skill. */
  before = list_tree (fixture->user_root);
  again = sj_skill_archive_import (fixture->registry, zip, FALSE, NULL, &error);
  g_assert_null (again);
  g_assert_error (error, SJ_SKILL_ARCHIVE_ERROR, SJ_SKILL_ARCHIVE_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "jazz"));
  g_clear_error (&error);
  after = list_tree (fixture->user_root);
  g_assert_cmpstr (after, ==, before);

  again = sj_skill_archive_import (fixture->registry, zip, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (again);
  g_clear_pointer (&after, g_free);
  after = list_tree (fixture->user_root);
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
  };
  const Entry renamed[] = {
    { "good (1)/", NULL, 0, 0, NULL },
    { "good (1)/skill.json", good_json, 0, 0, NULL },
    { "good (1)/SKILL.md", good_markdown, 0, 0, NULL },
    { "__MACOSX/", NULL, 0, 0, NULL },
    { "__MACOSX/good (1)/._SKILL.md", "junk", 0, 0, NULL },
    { "good (1)/.DS_Store", "junk", 0, 0, NULL },
  };
  g_autoptr(GByteArray) zip1 = make_zip (top, G_N_ELEMENTS (top));
  g_autoptr(GByteArray) zip2 = make_zip (renamed, G_N_ELEMENTS (renamed));
  g_autoptr(GFile) file1 = save (fixture, "top.zip", zip1->data, zip1->len);
  g_autoptr(GFile) file2 = save (fixture, "renamed.zip", zip2->data, zip2->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autofree char *tree = NULL;
  g_autofree char *expected = NULL;

  skill = sj_skill_archive_import (fixture->registry, file1, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
  g_clear_object (&skill);

  skill = sj_skill_archive_import (fixture->registry, file2, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
  tree = list_tree (fixture->user_root);
  /* Only the skill's files, none of the junk. */
  expected = g_strdup_printf ("good d 0\ngood/SKILL.md f %zu\ngood/skill.json f %zu\n", strlen (good_markdown),
                              strlen (good_json));
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
  g_autoptr(GByteArray) zip = make_zip (device, G_N_ELEMENTS (device));
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autofree char *notes = g_build_filename (fixture->user_root, "good", "notes.txt", NULL);
  GStatBuf st;

  assert_zip_refused (fixture, symlink, G_N_ELEMENTS (symlink), SJ_SKILL_ARCHIVE_ERROR_SYMLINK,
                      "symbolic link (good/passwd)");

  /* A zip's central record carries a Unix mode: a character device. */
  patch_mode (zip, "good/device", 0020644);
  file = save (fixture, "device.zip", zip->data, zip->len);
  assert_refused (fixture, file, SJ_SKILL_ARCHIVE_ERROR_SPECIAL_FILE, "good/device");

  /* A zip cannot hold a hard link: what libarchive writes for one reads as
   * an empty file of its own, linked to nothing. */
  g_clear_pointer (&zip, g_byte_array_unref);
  g_clear_object (&file);
  zip = make_zip (hardlink, G_N_ELEMENTS (hardlink));
  file = save (fixture, "hardlink.zip", zip->data, zip->len);
  skill = sj_skill_archive_import (fixture->registry, file, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (notes, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_cmpint (st.st_nlink, ==, 1);
  g_assert_cmpint (st.st_size, ==, 0);
}

/* The size libarchive reads in the headers of @name. */
static gint64
claimed_size (GByteArray *zip,
              const char *name)
{
  struct archive *archive = archive_read_new ();
  struct archive_entry *entry;
  gint64 size = -1;

  archive_read_support_format_zip (archive);
  g_assert_cmpint (archive_read_open_memory (archive, zip->data, zip->len), ==, ARCHIVE_OK);
  while (archive_read_next_header (archive, &entry) == ARCHIVE_OK)
    if (g_str_equal (archive_entry_pathname (entry), name))
      size = archive_entry_size (entry);
  archive_read_free (archive);

  return size;
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
  g_autoptr(GByteArray) bomb = make_zip (big, G_N_ELEMENTS (big));
  g_autoptr(GFile) file = NULL;
  g_autofree guint8 *noise = g_malloc (2 * 1024 * 1024);
  g_autoptr(GByteArray) huge = NULL;
  Entry noisy[] = { GOOD_FILES, { "good/noise.bin", NULL, 0, 0, NULL } };

  assert_zip_refused (fixture, big, G_N_ELEMENTS (big), SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "(good/big.bin)");
  assert_zip_refused (fixture, total, G_N_ELEMENTS (total), SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "256 KiB");

  /* The bomb: 10 MB of zeros in 10 KB, its headers claiming 100 bytes.
   * The bytes that come out are counted, not the claim. */
  g_assert_cmpuint (patch_records (bomb, "PK\1\2", 24, 10 * 1024 * 1024, 100) +
                    patch_records (bomb, "PK\3\4", 22, 10 * 1024 * 1024, 100) +
                    patch_records (bomb, "PK\7\10", 12, 10 * 1024 * 1024, 100), >=, 1);
  g_assert_cmpuint (bomb->len, <, 64 * 1024);
  g_assert_cmpint (claimed_size (bomb, "good/big.bin"), ==, 100);
  file = save (fixture, "bomb.zip", bomb->data, bomb->len);
  assert_refused (fixture, file, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, "(good/big.bin)");

  /* An archive too large to be a skill is not even opened. */
  for (gsize i = 0; i < 2 * 1024 * 1024; i += 4)
    put_le32 (noise + i, g_random_int ());
  noisy[2].size = 2 * 1024 * 1024;
  huge = make_zip (noisy, 2);
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
  g_autoptr(GByteArray) tar = g_byte_array_new ();
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
  archive_write_open (archive, tar, NULL, append_cb, NULL);
  archive_write_close (archive);
  archive_write_free (archive);
  tar_file = save (fixture, "skill.tar", tar->data, tar->len);
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
#undef ADD

  return g_test_run ();
}
