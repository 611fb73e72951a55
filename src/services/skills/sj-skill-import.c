/* sj-skill-import.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Importing a skill from a .zip file into the user skills (the writer,
 * for exporting one, is sj-skill-export.c). An archive from anyone
 * is hostile until proven otherwise, so the reader is small, strict and
 * bounded rather than general: the whole file (at most 512 KiB) is read
 * into memory, the central directory is the only index trusted, and
 * every entry is checked before a byte is inflated: a plain name one or
 * two levels deep under a single top folder (no "..", no absolute path,
 * no backslash, no duplicate), no symbolic link, no encryption, stored or
 * deflated only, sizes within the skill format's limits; inflating stops
 * at the declared size (a "zip bomb" that lies about it fails), and the
 * CRC must match. Only then are the files written, into a private
 * temporary folder, and that folder goes through the same loader and
 * installer as any other (sj_skill_registry_install_folder()): nothing
 * reaches the user skills unless all of it is a valid skill.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sj-skill-private.h"
#include "sj-skill-registry-private.h"

#define SIG_LOCAL   0x04034b50
#define SIG_CENTRAL 0x02014b50
#define SIG_END     0x06054b50
#define MAX_ENTRIES (SJ_SKILL_MAX_FILES + 4)
#define S_IFMT_MASK 0170000
#define S_IFLNK_BITS 0120000
#define S_IFDIR_BITS 0040000

static guint
get16 (const guint8 *p)
{
  return p[0] | (p[1] << 8);
}

static guint32
get32 (const guint8 *p)
{
  return p[0] | (p[1] << 8) | (p[2] << 16) | ((guint32) p[3] << 24);
}

static gboolean
bad (GError     **error,
     const char  *archive,
     const char  *format,
     ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad (GError     **error,
     const char  *archive,
     const char  *format,
     ...)
{
  g_autofree char *why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);

  /* TRANSLATORS: an archive that cannot be imported: “jazz.zip”: why */
  g_set_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_BAD_ARCHIVE, _("Archive “%s”: %s"), archive, why);
  return FALSE;
}

/* A name an entry may have: "top/", "top/file" or "file", plain. */
static gboolean
check_name (const char *name,
            gsize       length,
            char      **out_top,
            char      **out_file)
{
  g_auto(GStrv) parts = NULL;
  guint n;

  if (length == 0 || memchr (name, '\0', length) != NULL || !g_utf8_validate_len (name, length, NULL) ||
      name[0] == '/' || memchr (name, '\\', length) != NULL)
    return FALSE;

  {
    g_autofree char *copy = g_strndup (name, length);

    parts = g_strsplit (copy, "/", -1);
  }
  n = g_strv_length (parts);
  /* A trailing slash is a folder entry: its last part is empty. */
  if (n > 1 && *parts[n - 1] == '\0')
    {
      g_free (parts[n - 1]);
      parts[n - 1] = NULL;
      n--;
      if (n != 1)
        return FALSE;
    }
  if (n == 0 || n > 2)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (*parts[i] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], "..") || parts[i][0] == '.')
      return FALSE;

  *out_top = n == 2 || name[length - 1] == '/' ? g_strdup (parts[0]) : NULL;
  *out_file = n == 2 ? g_strdup (parts[1]) : name[length - 1] == '/' ? NULL : g_strdup (parts[0]);

  return TRUE;
}

static GBytes *
inflate_entry (const guint8  *data,
               gsize          size,
               gsize          declared)
{
  g_autoptr(GZlibDecompressor) decompressor = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_RAW);
  g_autofree guint8 *out = g_malloc (declared + 1);
  gsize in_done = 0, out_done = 0;

  for (;;)
    {
      gsize read = 0, written = 0;
      GConverterResult result;

      result = g_converter_convert (G_CONVERTER (decompressor), data + in_done, size - in_done,
                                    out + out_done, declared + 1 - out_done, G_CONVERTER_INPUT_AT_END,
                                    &read, &written, NULL);
      in_done += read;
      out_done += written;
      /* More than it said: a bomb, or a lie; either way, refused. */
      if (result == G_CONVERTER_ERROR || out_done > declared)
        return NULL;
      if (result == G_CONVERTER_FINISHED)
        break;
      if (read == 0 && written == 0)
        return NULL;
    }

  if (out_done != declared)
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&out), out_done);
}

/* Writes the entries of @zip into @dir/<top or incoming>/, checking all. */
static char *
extract (const guint8  *zip,
         gsize          length,
         const char    *archive,
         const char    *dir,
         GError       **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) contents = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autofree char *top = NULL;
  g_autofree char *folder = NULL;
  gboolean has_top = FALSE, first = TRUE;
  gsize total = 0, central, central_size, end = 0;
  gboolean found = FALSE;
  guint n_entries;

  /* The end record is the last 22 bytes, before a comment of at most 64 KiB. */
  if (length >= 22)
    for (gsize i = length - 22 + 1; i-- > 0 && length - i <= 22 + 65535;)
      if (get32 (zip + i) == SIG_END)
        {
          end = i;
          found = TRUE;
          break;
        }
  if (!found)
    return bad (error, archive, _("not a .zip file")), NULL;

  n_entries = get16 (zip + end + 10);
  central_size = get32 (zip + end + 12);
  central = get32 (zip + end + 16);
  if (get16 (zip + end + 4) != 0 || get16 (zip + end + 6) != 0 || n_entries != get16 (zip + end + 8))
    return bad (error, archive, _("archives in several parts are not supported")), NULL;
  if (n_entries == 0 || n_entries > MAX_ENTRIES)
    return bad (error, archive, _("%u entries; a skill has 1 to %d files"), n_entries, SJ_SKILL_MAX_FILES), NULL;
  if (central > end || central_size > end - central)
    return bad (error, archive, _("damaged (the directory is outside the file)")), NULL;

  for (gsize p = central, i = 0; i < n_entries; i++)
    {
      g_autofree char *entry_top = NULL;
      g_autofree char *file = NULL;
      const guint8 *header = zip + p;
      guint flags, method, name_length, extra_length, comment_length, local_name, local_extra;
      guint32 crc, packed, size, mode, offset;
      const guint8 *body;
      g_autoptr(GBytes) data = NULL;

      if (p + 46 > central + central_size || get32 (header) != SIG_CENTRAL)
        return bad (error, archive, _("damaged (entry %u)"), (guint) i + 1), NULL;
      flags = get16 (header + 8);
      method = get16 (header + 10);
      crc = get32 (header + 16);
      packed = get32 (header + 20);
      size = get32 (header + 24);
      name_length = get16 (header + 28);
      extra_length = get16 (header + 30);
      comment_length = get16 (header + 32);
      mode = (get16 (header + 4) >> 8) == 3 ? get32 (header + 38) >> 16 : 0;
      offset = get32 (header + 42);
      if (p + 46 + name_length + extra_length + comment_length > central + central_size)
        return bad (error, archive, _("damaged (entry %u)"), (guint) i + 1), NULL;

      /* What macOS adds to the archives it makes is not the skill's. */
      if (name_length >= 9 && memcmp (header + 46, "__MACOSX/", 9) == 0)
        {
          p += 46 + name_length + extra_length + comment_length;
          continue;
        }

      if (!check_name ((const char *) header + 46, name_length, &entry_top, &file))
        {
          g_autofree char *shown = g_utf8_make_valid ((const char *) header + 46, MIN (name_length, 80));
          return bad (error, archive, _("the entry “%s” is not a plain file name in one folder"), shown), NULL;
        }
      p += 46 + name_length + extra_length + comment_length;

      /* One top folder for all, or none at all. */
      if (first)
        has_top = entry_top != NULL, top = g_strdup (entry_top);
      else if ((entry_top != NULL) != has_top || g_strcmp0 (entry_top, top) != 0)
        return bad (error, archive, _("the files must all be in one folder")), NULL;
      first = FALSE;

      if ((mode & S_IFMT_MASK) == S_IFLNK_BITS)
        return bad (error, archive, _("“%s” is a symbolic link"), file ? file : entry_top), NULL;
      if (file == NULL)
        continue;  /* the top folder's own entry */
      if ((mode & S_IFMT_MASK) == S_IFDIR_BITS)
        return bad (error, archive, _("“%s” is a folder; a skill has no sub-folders"), file), NULL;
      if (!g_hash_table_add (seen, g_strdup (file)))
        return bad (error, archive, _("“%s” is in it twice"), file), NULL;
      if (flags & 1)
        return bad (error, archive, _("“%s” is encrypted"), file), NULL;
      if (method != 0 && method != 8)
        return bad (error, archive, _("“%s” is compressed with an unsupported method (%u)"), file, method), NULL;
      if (size > SJ_SKILL_MAX_EXTRA || (total += size) > SJ_SKILL_MAX_FOLDER)
        return bad (error, archive, _("“%s” is too large for a skill"), file), NULL;

      if ((gsize) offset + 30 > central || get32 (zip + offset) != SIG_LOCAL)
        return bad (error, archive, _("damaged (“%s”)"), file), NULL;
      local_name = get16 (zip + offset + 26);
      local_extra = get16 (zip + offset + 28);
      if ((gsize) offset + 30 + local_name + local_extra + packed > central)
        return bad (error, archive, _("damaged (“%s”)"), file), NULL;
      body = zip + offset + 30 + local_name + local_extra;

      if (method == 0)
        data = packed == size ? g_bytes_new (body, size) : NULL;
      else
        data = inflate_entry (body, packed, size);
      if (data == NULL)
        return bad (error, archive, _("“%s” does not unpack to its size"), file), NULL;
      if (_sj_skill_crc32 (g_bytes_get_data (data, NULL), g_bytes_get_size (data)) != crc)
        return bad (error, archive, _("“%s” is damaged (its checksum differs)"), file), NULL;

      g_ptr_array_add (files, g_steal_pointer (&file));
      g_ptr_array_add (contents, g_steal_pointer (&data));
    }

  folder = g_build_filename (dir, has_top ? top : "incoming", NULL);
  if (g_mkdir (folder, 0700) != 0)
    return bad (error, archive, _("could not unpack it")), NULL;
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *path = g_build_filename (folder, g_ptr_array_index (files, i), NULL);
      GBytes *data = g_ptr_array_index (contents, i);

      if (!g_file_set_contents (path, g_bytes_get_data (data, NULL), g_bytes_get_size (data), error))
        return NULL;
    }

  return g_steal_pointer (&folder);
}

/* The private unpacking folder: two levels, regular files only. */
static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_remove (child);
    }
  g_rmdir (path);
}

/* Without a top folder, the folder is named after skill.json's "name". */
static char *
name_folder (const char  *folder,
             const char  *dir,
             GError     **error)
{
  g_autofree char *json_path = g_build_filename (folder, "skill.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *renamed = NULL;
  JsonNode *root;
  const char *name;

  if (!g_file_get_contents (json_path, &text, NULL, NULL) ||
      !_sj_skill_check_depth (text, strlen (text), SJ_SKILL_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, text, -1, NULL) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      (name = json_object_get_string_member_with_default (json_node_get_object (root), "name", NULL)) == NULL ||
      !sj_skill_is_valid_name (name))
    return g_strdup (folder);  /* the loader says what is wrong */

  renamed = g_build_filename (dir, name, NULL);
  if (g_rename (folder, renamed) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not unpack the skill"));
      return NULL;
    }

  return g_steal_pointer (&renamed);
}

/**
 * sj_skill_registry_import_zip:
 * @zip: a .zip holding one skill
 * @replace: whether a user skill of the same name may be replaced
 *
 * Checks the archive, unpacks it privately, validates the skill and only
 * then installs it among the user skills (see the file's comment).
 *
 * Returns: (transfer none): the imported skill, or %NULL with an error
 *   (%SJ_SKILL_ERROR_BAD_ARCHIVE for the archive itself, the loader's for
 *   the skill); nothing is written then
 */
SjSkill *
sj_skill_registry_import_zip (SjSkillRegistry  *self,
                              GFile            *zip,
                              gboolean          replace,
                              GCancellable     *cancellable,
                              GError          **error)
{
  g_autofree char *archive = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFile) source = NULL;
  SjSkill *skill = NULL;
  gsize length = 0;

  g_assert (SJ_IS_SKILL_REGISTRY (self));
  g_return_val_if_fail (G_IS_FILE (zip), NULL);

  archive = g_file_get_basename (zip);
  info = g_file_query_info (zip, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (info == NULL)
    return NULL;
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR || g_file_info_get_size (info) > SJ_SKILL_MAX_ARCHIVE)
    {
      bad (error, archive, _("larger than %d KiB, or not a file"), SJ_SKILL_MAX_ARCHIVE / 1024);
      return NULL;
    }
  if (!g_file_load_contents (zip, cancellable, &contents, &length, NULL, error))
    return NULL;
  if (length > SJ_SKILL_MAX_ARCHIVE)
    {
      bad (error, archive, _("larger than %d KiB, or not a file"), SJ_SKILL_MAX_ARCHIVE / 1024);
      return NULL;
    }

  dir = g_dir_make_tmp ("sj-skill-import-XXXXXX", error);
  if (dir == NULL)
    return NULL;

  folder = extract ((const guint8 *) contents, length, archive, dir, error);
  if (folder != NULL && g_str_has_suffix (folder, G_DIR_SEPARATOR_S "incoming"))
    {
      g_autofree char *named = name_folder (folder, dir, error);

      g_free (folder);
      folder = g_steal_pointer (&named);
    }

  if (folder != NULL)
    {
      source = g_file_new_for_path (folder);
      skill = sj_skill_registry_install_folder (self, source, replace, cancellable, error);
    }

  remove_tree (dir);
  return skill;
}
