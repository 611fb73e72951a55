/* test-skill-archive-hostile.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Hostile archives, part of test-skill-archive: made with libarchive
 * (paths out of the folder, links, devices, a 10 MB file, a zip bomb whose
 * headers are patched to lie, a thousand entries, bad or deeply nested
 * JSON, missing files, not a zip at all, an empty file) or byte by byte
 * where no zip program would lie (encryption, an unknown method, a bad
 * CRC, sizes that disagree with the data, a file cut short), each refused
 * with its own error while the user root stays exactly as it was.
 */

#include "config.h"

#include <string.h>

#include <archive.h>
#include <glib/gstdio.h>

#include "test-skill-archive.h"

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
  file = save_file (fixture, "device.zip", zip->data, zip->len);
  assert_refused (fixture, file, SJ_SKILL_ARCHIVE_ERROR_SPECIAL_FILE, "good/device");

  /* A zip cannot hold a hard link: what libarchive writes for one reads as
   * an empty file of its own, linked to nothing. */
  g_clear_pointer (&zip, g_byte_array_unref);
  g_clear_object (&file);
  zip = sj_test_zip_write (hardlink, G_N_ELEMENTS (hardlink));
  file = save_file (fixture, "hardlink.zip", zip->data, zip->len);
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
  file = save_file (fixture, "bomb.zip", bomb->data, bomb->len);
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
  file = save_file (fixture, "huge.zip", huge->data, huge->len);
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
  g_autoptr(GFile) text = save_file (fixture, "notes.zip", "Not a zip at all, just text.\n", 29);
  g_autoptr(GFile) empty = save_file (fixture, "empty.zip", "", 0);
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
  tar_file = save_file (fixture, "skill.tar", tar, tar_length);
  assert_refused (fixture, tar_file, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE, "not a .zip archive");
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
  g_autoptr(GFile) not_zip = save_file (fixture, "not.zip", not_zip_text, sizeof not_zip_text - 1);
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

  file = save_file (fixture, "truthful.zip", g_bytes_get_data (whole, NULL), g_bytes_get_size (whole));
  skill = sj_skill_archive_import (fixture->registry, file, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_name (skill), ==, "good");
}


void
add_hostile_tests (void)
{
#define ADD(name, func) g_test_add ("/skill-archive/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("traversal", test_traversal);
  ADD ("links", test_links);
  ADD ("sizes", test_sizes);
  ADD ("counts", test_counts);
  ADD ("contents", test_contents);
  ADD ("lies", test_lies);
#undef ADD
}
