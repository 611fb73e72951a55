/* sj-skill-archive.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Importing a skill from a .zip or a folder, and exporting one to a .zip.
 *
 * An import goes in three steps, and nothing reaches the musician's skills
 * before the last: the source is read into memory with every entry checked
 * (sj-skill-archive-read.c); the files are written into a private
 * temporary folder named after the skill and validated there with the
 * loader every skill goes through; only a valid skill is then handed to
 * sj_skill_registry_install_folder(), which copies it next to the user
 * skills and renames it into place, and refuses to replace a skill of the
 * same name unless the caller says the musician agreed. The first two
 * steps run in a thread; the last touches the registry, so it runs where
 * the caller is.
 *
 * An export writes the skill's folder as `<name>/` in a .zip, built in
 * memory (a skill is small) and then written through GIO, so that a file
 * the portal hands out works as well as a local path.
 */

#include "config.h"

#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sj-skill-archive-private.h"
#include "sj-skill-private.h"

G_DEFINE_QUARK (sj-skill-archive-error-quark, sj_skill_archive_error)

/* Importing ----------------------------------------------------------------- */

static gboolean
has_file (SjSkillArchiveContents *contents,
          const char             *name)
{
  for (guint i = 0; i < contents->files->len; i++)
    if (g_str_equal (((SjSkillArchiveFile *)g_ptr_array_index (contents->files, i))->name, name))
      return TRUE;

  return FALSE;
}

static GBytes *
get_file (SjSkillArchiveContents *contents,
          const char             *name)
{
  for (guint i = 0; i < contents->files->len; i++)
    {
      SjSkillArchiveFile *file = g_ptr_array_index (contents->files, i);

      if (g_str_equal (file->name, name))
        return file->data;
    }

  return NULL;
}

/* The name skill.json gives, when it can be read: the skill is written
 * into a folder of that name, whatever its folder in the archive, so that
 * "techno (1).zip" from a browser imports as techno. Otherwise the folder's
 * or the file's name, and the loader says what is wrong. */
static char *
choose_name (SjSkillArchiveContents *contents,
             GFile                  *source)
{
  GBytes *json = get_file (contents, "skill.json");
  g_autofree char *base = g_file_get_basename (source);

  if (json != NULL && g_bytes_get_size (json) <= SJ_SKILL_MAX_JSON)
    {
      gsize length = 0;
      const char *text = g_bytes_get_data (json, &length);
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (g_utf8_validate_len (text, length, NULL) && _sj_skill_check_depth (text, length, SJ_SKILL_MAX_DEPTH) &&
          json_parser_load_from_data (parser, text, length, NULL) &&
          JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          JsonObject *object = json_node_get_object (json_parser_get_root (parser));
          JsonNode *name = json_object_get_member (object, "name");

          if (name != NULL && JSON_NODE_HOLDS_VALUE (name) && json_node_get_value_type (name) == G_TYPE_STRING &&
              sj_skill_is_valid_name (json_node_get_string (name)))
            return g_strdup (json_node_get_string (name));
        }
    }

  if (contents->folder != NULL && sj_skill_is_valid_name (contents->folder))
    return g_strdup (contents->folder);
  if (base != NULL && g_str_has_suffix (base, ".zip"))
    base[strlen (base) - 4] = '\0';
  if (base != NULL && sj_skill_is_valid_name (base))
    return g_steal_pointer (&base);

  return g_strdup ("skill");
}

/* Removes the temporary folder an import wrote: flat, as skills are. */
static void
remove_staging (const char *tmp)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (tmp == NULL || (dir = g_dir_open (tmp, 0, NULL)) == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *folder = g_build_filename (tmp, name, NULL);
      g_autoptr(GDir) files = g_dir_open (folder, 0, NULL);
      const char *file;

      while (files != NULL && (file = g_dir_read_name (files)) != NULL)
        {
          g_autofree char *path = g_build_filename (folder, file, NULL);

          g_remove (path);
        }
      g_rmdir (folder);
    }
  g_rmdir (tmp);
}

/* The loader's refusal, in the archive's domain. */
static void
refuse_invalid (GError **error,
                GError  *invalid)
{
  SjSkillArchiveError code = SJ_SKILL_ARCHIVE_ERROR_INVALID_SKILL;

  if (g_error_matches (invalid, SJ_SKILL_ERROR, SJ_SKILL_ERROR_INVALID_JSON))
    code = SJ_SKILL_ARCHIVE_ERROR_BAD_JSON;
  else if (g_error_matches (invalid, SJ_SKILL_ERROR, SJ_SKILL_ERROR_TOO_LARGE))
    code = SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE;

  /* TRANSLATORS: the skill format's rule an import broke, as the skill
   * loader words it, then that nothing was imported */
  g_set_error (error, SJ_SKILL_ARCHIVE_ERROR, code, _("%s. Nothing was imported."), invalid->message);
}

/* Reads @source, writes it into a private folder and validates it there.
 * Returns the skill's folder; *tmp is what to remove afterwards. */
static GFile *
stage (GFile         *source,
       char         **tmp,
       GCancellable  *cancellable,
       GError       **error)
{
  g_autoptr(SjSkillArchiveContents) contents = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autofree char *name = NULL;
  g_autofree char *folder_path = NULL;
  GFileType type;

  *tmp = NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  type = g_file_query_file_type (source, G_FILE_QUERY_INFO_NONE, cancellable);
  if (type == G_FILE_TYPE_DIRECTORY)
    contents = _sj_skill_archive_read_folder (source, cancellable, error);
  else if (type == G_FILE_TYPE_REGULAR)
    contents = _sj_skill_archive_read_zip (source, cancellable, error);
  else if (type == G_FILE_TYPE_UNKNOWN)
    _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_FAILED, _("The file could not be found"));
  else
    _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,
                              _("This is neither a .zip archive nor a folder"));
  if (contents == NULL)
    return NULL;

  if (!has_file (contents, "skill.json"))
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_MISSING_SKILL_JSON, _("The skill has no skill.json"));
      return NULL;
    }
  if (!has_file (contents, "SKILL.md"))
    {
      _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_MISSING_SKILL_MD, _("The skill has no SKILL.md"));
      return NULL;
    }

  name = choose_name (contents, source);
  *tmp = g_dir_make_tmp ("sj-skill-import-XXXXXX", &local);
  if (*tmp == NULL)
    goto failed;
  folder_path = g_build_filename (*tmp, name, NULL);
  if (g_mkdir (folder_path, 0700) != 0)
    {
      g_set_error (&local, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not create “%s”"), folder_path);
      goto failed;
    }
  for (guint i = 0; i < contents->files->len; i++)
    {
      SjSkillArchiveFile *file = g_ptr_array_index (contents->files, i);
      g_autofree char *path = g_build_filename (folder_path, file->name, NULL);
      gsize length = 0;
      const char *data = g_bytes_get_data (file->data, &length);

      if (!g_file_set_contents_full (path, data != NULL ? data : "", length, G_FILE_SET_CONTENTS_NONE, 0644, &local))
        goto failed;
    }

  folder = g_file_new_for_path (folder_path);
  skill = sj_skill_load_folder (folder, SJ_SKILL_ORIGIN_USER, cancellable, &local);
  if (skill == NULL)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        refuse_invalid (error, local);
      return NULL;
    }

  return g_steal_pointer (&folder);

failed:
  _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_FAILED, _("The skill could not be unpacked (%s)"),
                            local->message);
  return NULL;
}

static SjSkill *
install (SjSkillRegistry  *registry,
         GFile            *folder,
         gboolean          replace,
         GCancellable     *cancellable,
         GError          **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *name = g_file_get_basename (folder);
  SjSkill *skill;

  skill = sj_skill_registry_install_folder (registry, folder, replace, cancellable, &local);
  if (skill != NULL)
    return g_object_ref (skill);

  if (g_error_matches (local, SJ_SKILL_ERROR, SJ_SKILL_ERROR_EXISTS))
    g_set_error (error, SJ_SKILL_ARCHIVE_ERROR, SJ_SKILL_ARCHIVE_ERROR_EXISTS,
                 _("You already have a skill named “%s”"), name);
  else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, g_steal_pointer (&local));
  else if (local->domain == SJ_SKILL_ERROR)
    refuse_invalid (error, local);
  else
    _sj_skill_archive_refuse (error, SJ_SKILL_ARCHIVE_ERROR_FAILED, _("The skill could not be saved (%s)"),
                              local->message);
  return NULL;
}

/**
 * sj_skill_archive_import:
 * @registry: where to install the skill
 * @source: a .zip or a skill's folder
 * @replace: whether a user skill of the same name may be replaced (ask
 *   the musician first: the import fails with
 *   %SJ_SKILL_ARCHIVE_ERROR_EXISTS otherwise)
 *
 * Checks, validates and installs a skill, blocking; for tests and
 * threads that own @registry. Nothing is written among the user skills on
 * any error.
 *
 * Returns: (transfer full): the installed skill, or %NULL with an
 *   #SjSkillArchiveError (or %G_IO_ERROR_CANCELLED)
 */
SjSkill *
sj_skill_archive_import (SjSkillRegistry  *registry,
                         GFile            *source,
                         gboolean          replace,
                         GCancellable     *cancellable,
                         GError          **error)
{
  g_autofree char *tmp = NULL;
  g_autoptr(GFile) folder = NULL;
  SjSkill *skill = NULL;

  g_assert (SJ_IS_SKILL_REGISTRY (registry));
  g_return_val_if_fail (G_IS_FILE (source), NULL);

  folder = stage (source, &tmp, cancellable, error);
  if (folder != NULL)
    skill = install (registry, folder, replace, cancellable, error);
  remove_staging (tmp);

  return skill;
}

typedef struct
{
  GFile    *source;
  gboolean  replace;
  char     *tmp;
  GFile    *folder;   /* staged and valid */
} Import;

static void
import_free (gpointer data)
{
  Import *import = data;

  remove_staging (import->tmp);
  g_free (import->tmp);
  g_clear_object (&import->source);
  g_clear_object (&import->folder);
  g_free (import);
}

static void
stage_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Import *import = task_data;
  GError *error = NULL;

  import->folder = stage (import->source, &import->tmp, cancellable, &error);
  if (import->folder == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
staged_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Import *import = g_task_get_task_data (task);
  GError *error = NULL;
  SjSkill *skill;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }

  skill = install (SJ_SKILL_REGISTRY (object), import->folder, import->replace, g_task_get_cancellable (task), &error);
  if (skill == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, skill, g_object_unref);
}

/**
 * sj_skill_archive_import_async:
 *
 * Imports as sj_skill_archive_import() does, reading and validating in a
 * thread; the registry is changed in the caller's main context.
 */
void
sj_skill_archive_import_async (SjSkillRegistry     *registry,
                               GFile               *source,
                               gboolean             replace,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) staging = NULL;
  Import *import;

  g_assert (SJ_IS_SKILL_REGISTRY (registry));
  g_return_if_fail (G_IS_FILE (source));

  task = g_task_new (registry, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_skill_archive_import_async);
  import = g_new0 (Import, 1);
  import->source = g_object_ref (source);
  import->replace = replace;
  g_task_set_task_data (task, import, import_free);

  staging = g_task_new (registry, cancellable, staged_cb, g_object_ref (task));
  g_task_set_task_data (staging, import, NULL);
  g_task_run_in_thread (staging, stage_thread);
}

/**
 * sj_skill_archive_import_finish:
 *
 * Returns: (transfer full): the installed skill, or %NULL with an error
 */
SjSkill *
sj_skill_archive_import_finish (SjSkillRegistry  *registry,
                                GAsyncResult     *result,
                                GError          **error)
{
  g_assert (SJ_IS_SKILL_REGISTRY (registry));
  g_return_val_if_fail (g_task_is_valid (result, registry), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Exporting ----------------------------------------------------------------- */

static la_ssize_t
write_cb (struct archive *archive,
          void           *data,
          const void     *buffer,
          size_t          length)
{
  g_byte_array_append (data, buffer, length);
  return length;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *)a, *(const char * const *)b);
}

/* The skill's files in a .zip, in memory, sorted by name. */
static GBytes *
build_zip (SjSkill       *skill,
           GCancellable  *cancellable,
           GError       **error)
{
  GFile *folder = sj_skill_get_folder (skill);
  const char *name = sj_skill_get_name (skill);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GByteArray) zip = g_byte_array_new ();
  g_autoptr(GError) local = NULL;
  struct archive *archive = NULL;
  struct archive_entry *entry = NULL;
  gboolean ok = FALSE;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;

  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, &local);
  for (GFileInfo *info = NULL; children != NULL;)
    {
      if (!g_file_enumerator_iterate (children, &info, NULL, cancellable, &local) || info == NULL)
        break;
      /* The loader accepted regular files only; anything else appeared since. */
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
        g_ptr_array_add (names, g_strdup (g_file_info_get_name (info)));
    }
  if (local != NULL)
    goto out;
  g_ptr_array_sort (names, compare_names);

  archive = archive_write_new ();
  entry = archive_entry_new ();
  if (archive_write_set_format_zip (archive) != ARCHIVE_OK ||
      archive_write_zip_set_compression_deflate (archive) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block (archive, 1) != ARCHIVE_OK ||
      archive_write_open (archive, zip, NULL, write_cb, NULL) != ARCHIVE_OK)
    goto archive_failed;

  archive_entry_set_pathname_utf8 (entry, name);
  archive_entry_set_filetype (entry, AE_IFDIR);
  archive_entry_set_perm (entry, 0755);
  archive_entry_set_mtime (entry, now, 0);
  if (archive_write_header (archive, entry) != ARCHIVE_OK)
    goto archive_failed;

  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr(GFile) child = g_file_get_child (folder, g_ptr_array_index (names, i));
      g_autofree char *path = g_strdup_printf ("%s/%s", name, (char *)g_ptr_array_index (names, i));
      g_autoptr(GBytes) bytes = g_file_load_bytes (child, cancellable, NULL, &local);
      gsize length = 0;
      const void *data;

      if (bytes == NULL)
        goto out;
      data = g_bytes_get_data (bytes, &length);
      archive_entry_clear (entry);
      archive_entry_set_pathname_utf8 (entry, path);
      archive_entry_set_filetype (entry, AE_IFREG);
      archive_entry_set_perm (entry, 0644);
      archive_entry_set_size (entry, length);
      archive_entry_set_mtime (entry, now, 0);
      if (archive_write_header (archive, entry) != ARCHIVE_OK ||
          (length > 0 && archive_write_data (archive, data, length) != (la_ssize_t)length))
        goto archive_failed;
    }
  if (archive_write_close (archive) != ARCHIVE_OK)
    goto archive_failed;
  ok = TRUE;
  goto out;

archive_failed:
  g_set_error (&local, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", archive_error_string (archive));
out:
  if (entry != NULL)
    archive_entry_free (entry);
  if (archive != NULL)
    archive_write_free (archive);
  if (!ok)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, SJ_SKILL_ARCHIVE_ERROR, SJ_SKILL_ARCHIVE_ERROR_FAILED,
                     _("The skill “%s” could not be exported (%s)"), name, local ? local->message : "");
      return NULL;
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&zip));
}

/**
 * sj_skill_archive_export:
 * @skill: a bundled or user skill
 * @target: the .zip to write, replaced if it exists
 *
 * Writes @skill's folder as `<name>/` in a .zip, blocking.
 */
gboolean
sj_skill_archive_export (SjSkill       *skill,
                         GFile         *target,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GBytes) zip = NULL;
  g_autoptr(GError) local = NULL;

  g_assert (SJ_IS_SKILL (skill));
  g_return_val_if_fail (G_IS_FILE (target), FALSE);

  if ((zip = build_zip (skill, cancellable, error)) == NULL)
    return FALSE;
  if (!g_file_replace_contents (target, g_bytes_get_data (zip, NULL), g_bytes_get_size (zip), NULL, FALSE,
                                G_FILE_CREATE_REPLACE_DESTINATION, NULL, cancellable, &local))
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, SJ_SKILL_ARCHIVE_ERROR, SJ_SKILL_ARCHIVE_ERROR_FAILED,
                     _("The skill “%s” could not be exported (%s)"), sj_skill_get_name (skill), local->message);
      return FALSE;
    }

  return TRUE;
}

static void
export_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;

  if (sj_skill_archive_export (source_object, task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * sj_skill_archive_export_async:
 *
 * Exports as sj_skill_archive_export() does, in a thread.
 */
void
sj_skill_archive_export_async (SjSkill             *skill,
                               GFile               *target,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_assert (SJ_IS_SKILL (skill));
  g_return_if_fail (G_IS_FILE (target));

  task = g_task_new (skill, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_skill_archive_export_async);
  g_task_set_task_data (task, g_object_ref (target), g_object_unref);
  g_task_run_in_thread (task, export_thread);
}

gboolean
sj_skill_archive_export_finish (SjSkill       *skill,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_assert (SJ_IS_SKILL (skill));
  g_return_val_if_fail (g_task_is_valid (result, skill), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
