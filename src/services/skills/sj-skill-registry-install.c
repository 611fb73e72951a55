/* sj-skill-registry-install.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Writing the musician's skills: installing a folder (an import, once its
 * archive is extracted), creating one from the template, removing one.
 * A folder is validated with the same loader as every skill before a
 * byte is written, then copied into a hidden temporary folder next to the
 * user skills and renamed into place, so that a failure halfway leaves no
 * half-written skill, and an existing skill is only replaced once its
 * successor is whole.
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sj-skill-private.h"
#include "sj-skill-registry-private.h"

/* The skill the template creates: valid as it is, to be edited. */
static const char template_json[] =
  "{\n"
  "  \"name\": \"%s\",\n"
  "  \"title\": \"%s\",\n"
  "  \"description\": \"%s\",\n"
  "  \"version\": \"0.1.0\",\n"
  "  \"tags\": [],\n"
  "  \"triggers\": [\"%s\"],\n"
  "  \"priority\": 50\n"
  "}\n";

static const char template_markdown[] =
  "# %s\n"
  "\n"
  "## Rules\n"
  "\n"
  "- Set the tempo with `setcpm(...)`.\n"
  "- Say which sounds, rhythms and effects make this style.\n"
  "\n"
  "## Examples\n"
  "\n"
  "```javascript\n"
  "// Offline: built-in synths only.\n"
  "setcpm(30)\n"
  "note(\"c3 e3 g3\").s(\"triangle\")\n"
  "```\n";

static gboolean
remove_folder (GFile   *folder,
               GError **error)
{
  g_autoptr(GFileEnumerator) children = NULL;

  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        NULL, error);
  if (children == NULL)
    return FALSE;

  for (;;)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, NULL, error))
        return FALSE;
      if (info == NULL)
        break;
      /* Skill folders are flat: the loader refuses sub-folders. */
      if (!g_file_delete (child, NULL, error))
        return FALSE;
    }

  return g_file_delete (folder, NULL, error);
}

static gboolean
copy_folder (GFile         *source,
             GFile         *target,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GFileEnumerator) children = NULL;

  if (!g_file_make_directory (target, cancellable, error))
    return FALSE;

  children = g_file_enumerate_children (source, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        cancellable, error);
  if (children == NULL)
    return FALSE;

  for (;;)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;
      g_autoptr(GFile) copy = NULL;

      if (!g_file_enumerator_iterate (children, &info, &child, cancellable, error))
        return FALSE;
      if (info == NULL)
        break;
      copy = g_file_get_child (target, g_file_info_get_name (info));
      if (!g_file_copy (child, copy, G_FILE_COPY_NOFOLLOW_SYMLINKS, cancellable, NULL, NULL, error))
        return FALSE;
    }

  return TRUE;
}

/**
 * sj_skill_registry_install_folder:
 * @source: a skill folder, named after the skill
 * @replace: whether a user skill of the same name may be replaced
 *
 * Validates @source and, only when it is a valid skill, copies it among
 * the user skills and loads them again. A bundled skill of the same name
 * is overridden, not replaced.
 *
 * Returns: (transfer none): the installed skill, or %NULL with an
 *   #SjSkillError (the validation's) or a #GIOError; nothing is written
 *   then
 */
SjSkill *
sj_skill_registry_install_folder (SjSkillRegistry  *self,
                                  GFile            *source,
                                  gboolean          replace,
                                  GCancellable     *cancellable,
                                  GError          **error)
{
  g_autoptr(SjSkill) checked = NULL;
  g_autoptr(GFile) root = NULL;
  g_autoptr(GFile) target = NULL;
  g_autoptr(GFile) staging = NULL;
  g_autoptr(GFile) old = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *staging_name = NULL;
  const char *name;

  g_assert (SJ_IS_SKILL_REGISTRY (self));
  g_return_val_if_fail (G_IS_FILE (source), NULL);

  checked = sj_skill_load_folder (source, SJ_SKILL_ORIGIN_USER, cancellable, error);
  if (checked == NULL)
    return NULL;
  name = sj_skill_get_name (checked);

  if (self->user_root == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("There is no folder for your skills"));
      return NULL;
    }
  if (g_mkdir_with_parents (self->user_root, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), _("Could not create “%s”"), self->user_root);
      return NULL;
    }

  root = g_file_new_for_path (self->user_root);
  target = g_file_get_child (root, name);
  if (g_file_query_exists (target, cancellable) && !replace)
    {
      g_set_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_EXISTS, _("You already have a skill named “%s”"), name);
      return NULL;
    }

  staging_name = g_strdup_printf (".%s.new-%08x", name, g_random_int ());
  staging = g_file_get_child (root, staging_name);
  if (!copy_folder (source, staging, cancellable, error))
    {
      remove_folder (staging, NULL);
      return NULL;
    }

  if (g_file_query_exists (target, cancellable))
    {
      g_autofree char *old_name = g_strdup_printf (".%s.old-%08x", name, g_random_int ());

      old = g_file_get_child (root, old_name);
      if (!g_file_move (target, old, G_FILE_COPY_NOFOLLOW_SYMLINKS, cancellable, NULL, NULL, error))
        {
          remove_folder (staging, NULL);
          return NULL;
        }
    }
  if (!g_file_move (staging, target, G_FILE_COPY_NOFOLLOW_SYMLINKS, cancellable, NULL, NULL, error))
    {
      if (old != NULL)
        g_file_move (old, target, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, NULL);
      remove_folder (staging, NULL);
      return NULL;
    }
  if (old != NULL && !remove_folder (old, &local))
    g_warning ("Could not remove the replaced skill “%s”: %s", name, local->message);

  sj_skill_registry_reload (self);
  return sj_skill_registry_lookup (self, name);
}

/**
 * sj_skill_registry_create:
 * @name: the new skill's name (lowercase letters, digits, dashes)
 * @title: its title
 *
 * Creates a user skill from the template, ready to be edited.
 *
 * Returns: (transfer none): the new skill, or %NULL with an error
 */
SjSkill *
sj_skill_registry_create (SjSkillRegistry  *self,
                          const char       *name,
                          const char       *title,
                          GError          **error)
{
  g_autofree char *tmp = NULL;
  g_autofree char *folder_path = NULL;
  g_autofree char *json = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *markdown_path = NULL;
  g_autofree char *escaped_title = NULL;
  g_autoptr(GFile) folder = NULL;
  SjSkill *skill = NULL;

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  if (!sj_skill_is_valid_name (name))
    {
      g_set_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_INVALID_FIELD,
                   _("“%s” is not a skill name: use lowercase letters, digits and dashes"), name ? name : "");
      return NULL;
    }
  if (title == NULL || *title == '\0' || g_utf8_strlen (title, -1) > 60 || strpbrk (title, "\"\\\n") != NULL)
    {
      g_set_error_literal (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_INVALID_FIELD,
                           _("A title is 1 to 60 characters, without quotes or backslashes"));
      return NULL;
    }

  tmp = g_dir_make_tmp ("sj-skill-XXXXXX", error);
  if (tmp == NULL)
    return NULL;
  folder_path = g_build_filename (tmp, name, NULL);
  escaped_title = g_strdup (title);
  json = g_strdup_printf (template_json, name, escaped_title, escaped_title, name);
  markdown = g_strdup_printf (template_markdown, title);
  json_path = g_build_filename (folder_path, "skill.json", NULL);
  markdown_path = g_build_filename (folder_path, "SKILL.md", NULL);

  if (g_mkdir (folder_path, 0755) == 0 &&
      g_file_set_contents (json_path, json, -1, error) &&
      g_file_set_contents (markdown_path, markdown, -1, error))
    {
      folder = g_file_new_for_path (folder_path);
      skill = sj_skill_registry_install_folder (self, folder, FALSE, NULL, error);
    }
  else if (error != NULL && *error == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write the new skill"));

  g_remove (markdown_path);
  g_remove (json_path);
  g_rmdir (folder_path);
  g_rmdir (tmp);

  return skill;
}

/**
 * sj_skill_registry_remove:
 *
 * Deletes a user skill (a bundled skill it overrode shows again).
 */
gboolean
sj_skill_registry_remove (SjSkillRegistry  *self,
                          const char       *name,
                          GError          **error)
{
  SjSkill *skill;

  g_assert (SJ_IS_SKILL_REGISTRY (self));

  skill = sj_skill_registry_lookup (self, name);
  if (skill == NULL || sj_skill_get_origin (skill) != SJ_SKILL_ORIGIN_USER)
    {
      g_set_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_NOT_FOUND, _("You have no skill named “%s”"), name ? name : "");
      return FALSE;
    }

  if (!remove_folder (sj_skill_get_folder (skill), error))
    return FALSE;

  sj_skill_registry_reload (self);
  return TRUE;
}
