/* test-skills-archive.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Skills as .zip files: an export imported back is the same skill, and
 * the system's zip and unzip agree with ours when they are installed; a
 * table of hostile archives (path traversal, absolute and nested names,
 * symbolic links, duplicates, encryption, unknown methods, zip bombs that
 * declare their size or lie about it, bad checksums, truncation, too many
 * or too large entries, not a zip at all, a valid archive of an invalid
 * skill) is each refused with a clear error, and nothing is written:
 * the user root is not even created.
 */

#include "config.h"

#include <string.h>

#include "sj-skill-private.h"
#include "sj-skill-registry.h"
#include "sj-test-files.h"

#define FIXTURES SJ_TEST_DATA "/skills"

typedef struct
{
  char            *dir;
  char            *user;
  SjSkillRegistry *registry;
  char            *json;       /* the dub fixture's files */
  char            *markdown;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("sj-skills-archive-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->user = g_build_filename (fixture->dir, "user", NULL);
  fixture->registry = sj_skill_registry_new_for_roots (NULL, fixture->user, NULL);
  g_file_get_contents (FIXTURES "/bundled/dub/skill.json", &fixture->json, NULL, &error);
  g_assert_no_error (error);
  g_file_get_contents (FIXTURES "/bundled/dub/SKILL.md", &fixture->markdown, NULL, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->registry);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->user);
  g_free (fixture->json);
  g_free (fixture->markdown);
}

static GFile *
write_zip (Fixture          *fixture,
           const char       *name,
           const SjZipEntry *entries,
           guint             n_entries)
{
  g_autoptr(GBytes) zip = _sj_skill_zip_build (entries, n_entries);
  g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, g_bytes_get_data (zip, NULL), g_bytes_get_size (zip), &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

#define ENTRY(n, d) { (n), (d), strlen (d), TRUE, 0, 0, 0, -1, -1 }

static void
test_round_trip (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(SjSkillRegistry) bundled = sj_skill_registry_new_for_roots (FIXTURES "/bundled", NULL, NULL);
  SjSkill *jazz = sj_skill_registry_lookup (bundled, "jazz");
  g_autofree char *path = g_build_filename (fixture->dir, "jazz.zip", NULL);
  g_autoptr(GFile) zip = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *unzip = g_find_program_in_path ("unzip");
  SjSkill *imported;

  g_assert_true (sj_skill_export_zip (jazz, zip, NULL, &error));
  g_assert_no_error (error);

  imported = sj_skill_registry_import_zip (fixture->registry, zip, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sj_skill_get_origin (imported), ==, SJ_SKILL_ORIGIN_USER);
  g_assert_cmpstr (sj_skill_get_rules (imported), ==, sj_skill_get_rules (jazz));
  g_assert_cmpstr (sj_skill_get_markdown (imported), ==, sj_skill_get_markdown (jazz));
  g_assert_cmpuint (sj_skill_get_templates (imported)->len, ==, 2);
  g_assert_cmpuint (sj_skill_get_patterns (imported)->len, ==, 1);

  /* Again only when replacing. */
  g_assert_null (sj_skill_registry_import_zip (fixture->registry, zip, FALSE, NULL, &error));
  g_assert_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_nonnull (sj_skill_registry_import_zip (fixture->registry, zip, TRUE, NULL, &error));
  g_assert_no_error (error);

  /* The system's unzip reads our archives. */
  if (unzip != NULL)
    {
      const char *argv[] = { unzip, "-tq", path, NULL };
      int status = -1;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                    NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  else
    g_test_message ("No unzip: the cross-check is skipped");
}

/* Ours reads what the system's zip writes. */
static void
test_system_zip (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *zip_program = g_find_program_in_path ("zip");
  g_autofree char *path = g_build_filename (fixture->dir, "dub.zip", NULL);
  g_autoptr(GFile) zip = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *argv[] = { NULL, "-qr", path, "dub", NULL };
  int status = -1;
  SjSkill *skill;

  if (zip_program == NULL)
    {
      g_test_skip ("No zip program");
      return;
    }
  argv[0] = zip_program;
  g_spawn_sync (FIXTURES "/bundled", (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  skill = sj_skill_registry_import_zip (fixture->registry, zip, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "dub");
}

static void
test_no_top_folder (Fixture       *fixture,
                    gconstpointer  data)
{
  SjZipEntry entries[] = {
    ENTRY ("skill.json", fixture->json),
    ENTRY ("SKILL.md", fixture->markdown),
    ENTRY ("__MACOSX/._SKILL.md", "finder"),
  };
  g_autoptr(GFile) zip = write_zip (fixture, "flat.zip", entries, G_N_ELEMENTS (entries));
  g_autoptr(GError) error = NULL;
  SjSkill *skill = sj_skill_registry_import_zip (fixture->registry, zip, FALSE, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "dub");
}

typedef enum
{
  HOSTILE_TRAVERSAL,
  HOSTILE_ABSOLUTE,
  HOSTILE_BACKSLASH,
  HOSTILE_NESTED,
  HOSTILE_TWO_FOLDERS,
  HOSTILE_MIXED,
  HOSTILE_SYMLINK,
  HOSTILE_FOLDER_ENTRY,
  HOSTILE_HIDDEN,
  HOSTILE_DUPLICATE,
  HOSTILE_ENCRYPTED,
  HOSTILE_METHOD,
  HOSTILE_DECLARED_BOMB,
  HOSTILE_LYING_BOMB,
  HOSTILE_STORED_LIE,
  HOSTILE_CRC,
  HOSTILE_TOO_MANY,
  HOSTILE_TRUNCATED,
  HOSTILE_NOT_ZIP,
  HOSTILE_HUGE,
  HOSTILE_INVALID_SKILL,
  N_HOSTILE
} Hostile;

static const struct
{
  const char *name;
  int         code;
  const char *words;
} hostile[N_HOSTILE] = {
  [HOSTILE_TRAVERSAL] = { "traversal", SJ_SKILL_ERROR_BAD_ARCHIVE, "not a plain file name" },
  [HOSTILE_ABSOLUTE] = { "absolute", SJ_SKILL_ERROR_BAD_ARCHIVE, "not a plain file name" },
  [HOSTILE_BACKSLASH] = { "backslash", SJ_SKILL_ERROR_BAD_ARCHIVE, "not a plain file name" },
  [HOSTILE_NESTED] = { "nested", SJ_SKILL_ERROR_BAD_ARCHIVE, "not a plain file name" },
  [HOSTILE_TWO_FOLDERS] = { "two-folders", SJ_SKILL_ERROR_BAD_ARCHIVE, "one folder" },
  [HOSTILE_MIXED] = { "mixed", SJ_SKILL_ERROR_BAD_ARCHIVE, "one folder" },
  [HOSTILE_SYMLINK] = { "symlink", SJ_SKILL_ERROR_BAD_ARCHIVE, "symbolic link" },
  [HOSTILE_FOLDER_ENTRY] = { "folder-entry", SJ_SKILL_ERROR_BAD_ARCHIVE, "sub-folders" },
  [HOSTILE_HIDDEN] = { "hidden", SJ_SKILL_ERROR_BAD_ARCHIVE, "not a plain file name" },
  [HOSTILE_DUPLICATE] = { "duplicate", SJ_SKILL_ERROR_BAD_ARCHIVE, "twice" },
  [HOSTILE_ENCRYPTED] = { "encrypted", SJ_SKILL_ERROR_BAD_ARCHIVE, "encrypted" },
  [HOSTILE_METHOD] = { "method", SJ_SKILL_ERROR_BAD_ARCHIVE, "unsupported method" },
  [HOSTILE_DECLARED_BOMB] = { "declared-bomb", SJ_SKILL_ERROR_BAD_ARCHIVE, "too large" },
  [HOSTILE_LYING_BOMB] = { "lying-bomb", SJ_SKILL_ERROR_BAD_ARCHIVE, "does not unpack to its size" },
  [HOSTILE_STORED_LIE] = { "stored-lie", SJ_SKILL_ERROR_BAD_ARCHIVE, "does not unpack to its size" },
  [HOSTILE_CRC] = { "crc", SJ_SKILL_ERROR_BAD_ARCHIVE, "checksum" },
  [HOSTILE_TOO_MANY] = { "too-many", SJ_SKILL_ERROR_BAD_ARCHIVE, "entries" },
  [HOSTILE_TRUNCATED] = { "truncated", SJ_SKILL_ERROR_BAD_ARCHIVE, "zip" },
  [HOSTILE_NOT_ZIP] = { "not-zip", SJ_SKILL_ERROR_BAD_ARCHIVE, "not a .zip file" },
  [HOSTILE_HUGE] = { "huge", SJ_SKILL_ERROR_BAD_ARCHIVE, "larger than" },
  [HOSTILE_INVALID_SKILL] = { "invalid-skill", SJ_SKILL_ERROR_UNKNOWN_KEY, "bpm" },
};

static GFile *
hostile_zip (Fixture *fixture,
             Hostile  which)
{
  g_autofree char *name = g_strdup_printf ("%s.zip", hostile[which].name);
  SjZipEntry entries[48] = { ENTRY ("dub/skill.json", fixture->json), ENTRY ("dub/SKILL.md", fixture->markdown) };
  g_autofree char *zeros = g_malloc0 (1024 * 1024);
  g_autofree char *typo = NULL;
  char names[48][16];
  guint n = 2;

  switch (which)
    {
    case HOSTILE_TRAVERSAL:
      entries[1].name = "../dub/SKILL.md";
      break;
    case HOSTILE_ABSOLUTE:
      entries[1].name = "/tmp/dub/SKILL.md";
      break;
    case HOSTILE_BACKSLASH:
      entries[1].name = "dub\\..\\SKILL.md";
      break;
    case HOSTILE_NESTED:
      entries[n++] = (SjZipEntry) ENTRY ("dub/more/notes.txt", "x");
      break;
    case HOSTILE_TWO_FOLDERS:
      entries[1].name = "jazz/SKILL.md";
      break;
    case HOSTILE_MIXED:
      entries[1].name = "SKILL.md";
      break;
    case HOSTILE_SYMLINK:
      entries[n++] = (SjZipEntry) { "dub/notes.txt", "/etc/passwd", 11, FALSE, 0120777, 0, 0, -1, -1 };
      break;
    case HOSTILE_FOLDER_ENTRY:
      entries[n++] = (SjZipEntry) { "dub/more", "", 0, FALSE, 0040755, 0, 0, -1, -1 };
      break;
    case HOSTILE_HIDDEN:
      entries[n++] = (SjZipEntry) ENTRY ("dub/.profile", "x");
      break;
    case HOSTILE_DUPLICATE:
      entries[n++] = (SjZipEntry) ENTRY ("dub/SKILL.md", "# Other\n\n## Rules\n\n- x\n");
      break;
    case HOSTILE_ENCRYPTED:
      entries[1].flags = 1;
      break;
    case HOSTILE_METHOD:
      entries[1].deflate = FALSE;
      entries[1].method = 12;
      break;
    case HOSTILE_DECLARED_BOMB:
      entries[n++] = (SjZipEntry) { "dub/notes.txt", zeros, 1024 * 1024, TRUE, 0, 0, 0, -1, -1 };
      break;
    case HOSTILE_LYING_BOMB:
      entries[n++] = (SjZipEntry) { "dub/notes.txt", zeros, 1024 * 1024, TRUE, 0, 0, 0, 100, -1 };
      break;
    case HOSTILE_STORED_LIE:
      entries[n++] = (SjZipEntry) { "dub/notes.txt", "twenty bytes of text", 20, FALSE, 0, 0, 0, 10, -1 };
      break;
    case HOSTILE_CRC:
      entries[1].crc = 1234;
      break;
    case HOSTILE_TOO_MANY:
      for (; n < 40; n++)
        {
          g_snprintf (names[n], sizeof names[n], "dub/f%u.txt", n);
          entries[n] = (SjZipEntry) ENTRY (names[n], "x");
        }
      break;
    case HOSTILE_INVALID_SKILL:
      typo = g_strdup ("{\"name\": \"dub\", \"title\": \"Dub\", \"description\": \"D.\", \"version\": \"1.0.0\","
                       " \"triggers\": [\"dub\"], \"bpm\": 70}");
      entries[0] = (SjZipEntry) ENTRY ("dub/skill.json", typo);
      break;
    case HOSTILE_TRUNCATED:
    case HOSTILE_NOT_ZIP:
    case HOSTILE_HUGE:
    case N_HOSTILE:
    default:
      break;
    }

  if (which == HOSTILE_TRUNCATED || which == HOSTILE_NOT_ZIP || which == HOSTILE_HUGE)
    {
      g_autoptr(GBytes) zip = _sj_skill_zip_build (entries, n);
      g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
      g_autoptr(GError) error = NULL;
      gsize size = g_bytes_get_size (zip);

      if (which == HOSTILE_TRUNCATED)
        g_file_set_contents (path, g_bytes_get_data (zip, NULL), size / 2, &error);
      else if (which == HOSTILE_NOT_ZIP)
        g_file_set_contents (path, "PK\3\4 but nothing of a zip after that", -1, &error);
      else
        g_file_set_contents (path, zeros, SJ_SKILL_MAX_ARCHIVE + 1, &error);
      g_assert_no_error (error);
      return g_file_new_for_path (path);
    }

  return write_zip (fixture, name, entries, n);
}

static void
test_hostile (Fixture       *fixture,
              gconstpointer  data)
{
  for (Hostile which = 0; which < N_HOSTILE; which++)
    {
      g_autoptr(GFile) zip = hostile_zip (fixture, which);
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", hostile[which].name);
      g_assert_null (sj_skill_registry_import_zip (fixture->registry, zip, FALSE, NULL, &error));
      g_assert_error (error, SJ_SKILL_ERROR, hostile[which].code);
      if (strstr (error->message, hostile[which].words) == NULL)
        g_error ("%s: “%s” does not say “%s”", hostile[which].name, error->message, hostile[which].words);
      /* Nothing written: not even the user root. */
      g_assert_false (g_file_test (fixture->user, G_FILE_TEST_EXISTS));
      g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (fixture->registry)), ==, 0);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/skills-archive/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("round-trip", test_round_trip);
  ADD ("system-zip", test_system_zip);
  ADD ("no-top-folder", test_no_top_folder);
  ADD ("hostile", test_hostile);

#undef ADD

  return g_test_run ();
}
