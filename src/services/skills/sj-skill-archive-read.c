/* sj-skill-archive-read.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Reading a skill to import, from a .zip or a folder, into memory. An
 * archive comes from anywhere, so every entry is checked before a byte of
 * it is written anywhere: its path (no absolute path, no "..", no
 * backslash, one folder deep at most), its type (regular files and the
 * one top folder; no link, no device), the number of entries, and the
 * size of each file and of the whole, counted on the bytes actually
 * decompressed, never on what the header claims (a zip bomb's header
 * lies). A skill is at most 256 KiB, so holding it in memory is cheap and
 * lets the writing side (sj-skill-archive.c) work on checked data only.
 *
 * The junk macOS adds to the zips it makes (__MACOSX/, ._ files,
 * .DS_Store) is skipped rather than refused: a musician on a Mac would
 * otherwise never import a skill zipped in the Finder.
 */

#include "config.h"

#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n.h>

#include "sj-skill-archive-private.h"

/* Entries of any kind, junk included: an archive of thousands is refused
 * without reading them all. */
#define MAX_SEEN (4 * SJ_SKILL_ARCHIVE_MAX_ENTRIES)
#define CHUNK    (16 * 1024)

/* libarchive's reason, for the messages: English, sometimes ending in a
 * newline, sometimes missing. */
static char *
reason (struct archive *archive)
{
  const char *text = archive_error_string (archive);

  return g_strstrip (g_strdup (text != NULL ? text : _("unknown error")));
}

static void
file_free (gpointer data)
{
  SjSkillArchiveFile *file = data;

  g_free (file->name);
  g_bytes_unref (file->data);
  g_free (file);
}

SjSkillArchiveContents *
_sj_skill_archive_contents_new (gboolean is_zip)
{
  SjSkillArchiveContents *contents = g_new0 (SjSkillArchiveContents, 1);

  contents->files = g_ptr_array_new_with_free_func (file_free);
  contents->is_zip = is_zip;
  return contents;
}

void
_sj_skill_archive_contents_free (SjSkillArchiveContents *contents)
{
  if (contents == NULL)
    return;
  g_ptr_array_unref (contents->files);
  g_free (contents->folder);
  g_free (contents);
}

gboolean
_sj_skill_archive_refuse (GError             **error,
                          SjSkillArchiveError  code,
                          const char          *format,
                          ...)
{
  g_autofree char *why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);

  /* TRANSLATORS: why an import was refused, as in "The archive has a file
   * outside its folder (../evil): nothing was imported." */
  g_set_error (error, SJ_SKILL_ARCHIVE_ERROR, code, _("%s: nothing was imported."), why);
  return FALSE;
}

static gboolean
add_file (SjSkillArchiveContents  *contents,
          const char              *name,
          GBytes                  *data,
          GError                 **error)
{
  SjSkillArchiveFile *file;

  for (guint i = 0; i < contents->files->len; i++)
    if (g_str_equal (((SjSkillArchiveFile *)g_ptr_array_index (contents->files, i))->name, name))
      return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_DUPLICATE,
                                       _("The archive has “%s” twice"), name);
  if (contents->files->len >= SJ_SKILL_MAX_FILES)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_MANY_FILES,
                                     contents->is_zip ? _("The archive has more than %d files")
                                                      : _("The folder has more than %d files"),
                                     SJ_SKILL_MAX_FILES);

  file = g_new0 (SjSkillArchiveFile, 1);
  file->name = g_strdup (name);
  file->data = g_bytes_ref (data);
  g_ptr_array_add (contents->files, file);
  return TRUE;
}

/* The zip's entries ------------------------------------------------------- */

static gboolean
is_junk (char **parts)
{
  guint n = g_strv_length (parts);

  return g_str_equal (parts[0], "__MACOSX") || g_str_equal (parts[n - 1], ".DS_Store") ||
         g_str_has_prefix (parts[n - 1], "._");
}

/* Splits an entry's path into its parts, refusing any that could land
 * outside the folder it is extracted to. "./" is harmless and dropped. */
static char **
split_path (const char  *path,
            GError     **error)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) pieces = NULL;
  gsize length;

  if (path == NULL || *path == '\0')
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL, _("The archive has a file without a name"));
      return NULL;
    }
  length = strlen (path);
  if (!g_utf8_validate (path, length, NULL))
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL,
                                _("The archive has a file whose name is not readable text"));
      return NULL;
    }
  if (path[0] == '/' || strchr (path, '\\') != NULL || (g_ascii_isalpha (path[0]) && path[1] == ':'))
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL,
                                _("The archive has a file outside its folder (%s)"), path);
      return NULL;
    }

  pieces = g_strsplit (path, "/", -1);
  for (guint i = 0; pieces[i] != NULL; i++)
    {
      const char *piece = pieces[i];
      gboolean last = pieces[i + 1] == NULL;

      if (g_str_equal (piece, "..") || (*piece == '\0' && !last))
        {
          _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL,
                                    _("The archive has a file outside its folder (%s)"), path);
          return NULL;
        }
      for (const char *c = piece; *c != '\0'; c++)
        if ((guchar)*c < 0x20 || *c == 0x7f)
          {
            _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL,
                                      _("The archive has a file whose name has control characters"));
            return NULL;
          }
      if (*piece != '\0' && !g_str_equal (piece, "."))
        g_ptr_array_add (parts, g_strdup (piece));
    }
  if (parts->len == 0)
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL, _("The archive has a file without a name"));
      return NULL;
    }

  g_ptr_array_add (parts, NULL);
  return (char **)g_ptr_array_free (g_steal_pointer (&parts), FALSE);
}

/* The one top folder, or files at the top: never both, never two folders. */
static gboolean
place_entry (SjSkillArchiveContents  *contents,
             char                   **parts,
             gboolean                 is_dir,
             gboolean                *at_top,
             const char              *path,
             GError                 **error)
{
  guint n = g_strv_length (parts);
  gboolean top_file = !is_dir && n == 1;

  if ((is_dir && n > 1) || n > 2)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NESTED,
                                     _("The archive has a folder inside the skill’s folder (%s)"), path);

  if (top_file)
    *at_top = TRUE;
  else if (contents->folder == NULL)
    contents->folder = g_strdup (parts[0]);
  else if (!g_str_equal (contents->folder, parts[0]))
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NESTED,
                                     _("The archive has more than one folder (%s and %s)"), contents->folder, parts[0]);

  if (*at_top && contents->folder != NULL)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NESTED,
                                     _("The archive has files both in a folder and outside it (%s)"), path);
  return TRUE;
}

/* Reads an entry's data, counting what comes out of the decompressor. */
static GBytes *
read_data (struct archive          *archive,
           SjSkillArchiveContents  *contents,
           const char              *path,
           GCancellable            *cancellable,
           GError                 **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 buffer[CHUNK];

  for (;;)
    {
      la_ssize_t n = archive_read_data (archive, buffer, sizeof buffer);

      if (n == 0)
        break;
      /* A bad checksum, sizes that disagree with what comes out, an
       * unknown method: the file is refused, whatever the others hold. */
      if (n < 0)
        {
          g_autofree char *why = reason (archive);

          _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                                    _("The archive’s file %s cannot be unpacked (%s)"), path, why);
          return NULL;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      g_byte_array_append (data, buffer, n);
      contents->total += n;
      if (data->len > SJ_SKILL_ARCHIVE_MAX_FILE)
        {
          _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE,
                                    _("The archive has a file larger than %d KiB (%s)"),
                                    SJ_SKILL_ARCHIVE_MAX_FILE / 1024, path);
          return NULL;
        }
      if (contents->total > SJ_SKILL_ARCHIVE_MAX_TOTAL)
        {
          _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE,
                                    _("The archive holds more than %d KiB"), SJ_SKILL_ARCHIVE_MAX_TOTAL / 1024);
          return NULL;
        }
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

static gboolean
read_entry (struct archive          *archive,
            struct archive_entry    *entry,
            SjSkillArchiveContents  *contents,
            gboolean                *at_top,
            GCancellable            *cancellable,
            GError                 **error)
{
  const char *path = archive_entry_pathname_utf8 (entry);
  g_auto(GStrv) parts = NULL;
  g_autoptr(GBytes) data = NULL;
  mode_t type = archive_entry_filetype (entry);

  if (path == NULL)
    path = archive_entry_pathname (entry);
  if ((parts = split_path (path, error)) == NULL)
    return FALSE;

  if (archive_entry_hardlink (entry) != NULL)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_SYMLINK,
                                     _("The archive has a hard link (%s)"), path);
  if (type == AE_IFLNK)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_SYMLINK,
                                     _("The archive has a symbolic link (%s)"), path);
  if (type != AE_IFREG && type != AE_IFDIR)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_SPECIAL_FILE,
                                     _("The archive has something that is not a file nor a folder (%s)"), path);
  if (is_junk (parts))
    return TRUE;
  /* Checked before reading: libarchive would only ask for a password. */
  if (archive_entry_is_encrypted (entry))
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                                     _("The archive has an encrypted file (%s)"), path);
  if (!place_entry (contents, parts, type == AE_IFDIR, at_top, path, error))
    return FALSE;
  if (type == AE_IFDIR)
    return TRUE;

  /* The header's size is only a hint: a lie is caught while reading. */
  if (archive_entry_size_is_set (entry) && archive_entry_size (entry) > SJ_SKILL_ARCHIVE_MAX_FILE)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE,
                                     _("The archive has a file larger than %d KiB (%s)"),
                                     SJ_SKILL_ARCHIVE_MAX_FILE / 1024, path);
  if ((data = read_data (archive, contents, path, cancellable, error)) == NULL)
    return FALSE;

  return add_file (contents, parts[g_strv_length (parts) - 1], data, error);
}

/* The whole archive, read with a ceiling: a skill's zip is small. */
static GBytes *
load_zip (GFile         *zip,
          GCancellable  *cancellable,
          GError       **error)
{
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree guint8 *buffer = g_malloc (SJ_SKILL_ARCHIVE_MAX_ZIP + 1);
  gsize length = 0;

  stream = g_file_read (zip, cancellable, &local);
  if (stream == NULL ||
      !g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, SJ_SKILL_ARCHIVE_MAX_ZIP + 1, &length,
                                cancellable, &local))
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_FAILED, _("The file could not be read (%s)"),
                                  local->message);
      return NULL;
    }
  if (length == 0)
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_EMPTY, _("The file is empty"));
      return NULL;
    }
  if (length > SJ_SKILL_ARCHIVE_MAX_ZIP)
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, _("The archive is larger than %d KiB"),
                                SJ_SKILL_ARCHIVE_MAX_ZIP / 1024);
      return NULL;
    }

  return g_bytes_new_take (g_realloc (g_steal_pointer (&buffer), length), length);
}

/**
 * _sj_skill_archive_read_zip:
 *
 * Reads a skill's .zip into memory, checking every entry.
 *
 * Returns: the files, or %NULL with an #SjSkillArchiveError
 */
SjSkillArchiveContents *
_sj_skill_archive_read_zip (GFile         *zip,
                            GCancellable  *cancellable,
                            GError       **error)
{
  g_autoptr(SjSkillArchiveContents) contents = _sj_skill_archive_contents_new (TRUE);
  g_autoptr(GBytes) bytes = NULL;
  struct archive *archive;
  gboolean at_top = FALSE, ok = TRUE;
  guint seen = 0;

  if ((bytes = load_zip (zip, cancellable, error)) == NULL)
    return NULL;

  /* The central directory is the index, as for every zip program: read
   * from the start instead, a zip cut short after its last file would
   * pass for whole, and entries the directory leaves out would count. */
  archive = archive_read_new ();
  archive_read_support_format_zip_seekable (archive);
  if (archive_read_open_memory (archive, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)) != ARCHIVE_OK)
    {
      g_autofree char *why = reason (archive);

      ok = _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                                     _("The file is not a .zip archive, or not a whole one (%s)"), why);
    }

  while (ok)
    {
      struct archive_entry *entry = NULL;
      int status = archive_read_next_header (archive, &entry);

      if (status == ARCHIVE_EOF)
        break;
      if (status != ARCHIVE_OK && status != ARCHIVE_WARN)
        {
          g_autofree char *why = reason (archive);

          ok = _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                                         seen == 0 ? _("The file is not a .zip archive (%s)")
                                                   : _("The archive is damaged (%s)"),
                                         why);
          break;
        }
      if (++seen > MAX_SEEN)
        {
          ok = _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_MANY_FILES,
                                         _("The archive has more than %d files"), SJ_SKILL_MAX_FILES);
          break;
        }
      ok = !g_cancellable_set_error_if_cancelled (cancellable, error) &&
           read_entry (archive, entry, contents, &at_top, cancellable, error);
    }
  archive_read_free (archive);

  if (ok && contents->files->len == 0)
    ok = _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_EMPTY, _("The archive has no files"));

  return ok ? g_steal_pointer (&contents) : NULL;
}

/* A folder ---------------------------------------------------------------- */

/* A folder's entry: a regular file of a skill's size, not followed. */
static gboolean
check_child (GFileInfo  *info,
             GError    **error)
{
  const char *name = g_file_info_get_name (info);
  GFileType type = g_file_info_get_file_type (info);

  if (g_file_info_get_is_symlink (info) || type == G_FILE_TYPE_SYMBOLIC_LINK)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_SYMLINK,
                                     _("The folder has a symbolic link (%s)"), name);
  if (type == G_FILE_TYPE_DIRECTORY)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NESTED,
                                     _("The folder has a folder inside it (%s)"), name);
  if (type != G_FILE_TYPE_REGULAR)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_SPECIAL_FILE,
                                     _("The folder has something that is not a file (%s)"), name);
  if (g_file_info_get_size (info) > SJ_SKILL_ARCHIVE_MAX_FILE)
    return _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE,
                                     _("The folder has a file larger than %d KiB (%s)"),
                                     SJ_SKILL_ARCHIVE_MAX_FILE / 1024, name);

  return TRUE;
}

/**
 * _sj_skill_archive_read_folder:
 *
 * Reads a skill's folder into memory with the archive's checks: regular
 * files only, no link followed, within the counts and sizes.
 *
 * Returns: the files, or %NULL with an #SjSkillArchiveError
 */
SjSkillArchiveContents *
_sj_skill_archive_read_folder (GFile         *folder,
                               GCancellable  *cancellable,
                               GError       **error)
{
  g_autoptr(SjSkillArchiveContents) contents = _sj_skill_archive_contents_new (FALSE);
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) local = NULL;

  contents->folder = g_file_get_basename (folder);
  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                        G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, &local);
  if (children == NULL)
    goto failed;

  for (;;)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;
      const char *name;
      g_autoptr(GBytes) data = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, cancellable, &local))
        goto failed;
      if (info == NULL)
        break;

      name = g_file_info_get_name (info);
      if (g_str_equal (name, ".DS_Store"))
        continue;
      if (!check_child (info, error))
        return NULL;

      /* Sized again once read, in case the file grew in between. */
      if ((data = g_file_load_bytes (child, cancellable, NULL, &local)) == NULL)
        goto failed;
      contents->total += g_bytes_get_size (data);
      if (g_bytes_get_size (data) > SJ_SKILL_ARCHIVE_MAX_FILE || contents->total > SJ_SKILL_ARCHIVE_MAX_TOTAL)
        {
          _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE, _("The folder holds more than %d KiB"),
                                    SJ_SKILL_ARCHIVE_MAX_TOTAL / 1024);
          return NULL;
        }
      if (!add_file (contents, name, data, error))
        return NULL;
    }

  if (contents->files->len == 0)
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_EMPTY, _("The folder is empty"));
      return NULL;
    }
  return g_steal_pointer (&contents);

failed:
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, g_steal_pointer (&local));
  else
    _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_FAILED, _("The folder could not be read (%s)"),
                              local->message);
  return NULL;
}
