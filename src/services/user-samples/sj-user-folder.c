/* sj-user-folder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A folder of SjUserSamples as the rest of the app reads it: its id, name
 * and state, its sounds, and the files that cannot be played, with a
 * sentence that names them.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-user-samples-private.h"

/* A short id (12 hex digits of its URI's SHA-256), the same in every run. */
const char *
sj_user_folder_get_id (SjUserFolder *folder)
{
  return folder->id;
}

const char *
sj_user_folder_get_uri (SjUserFolder *folder)
{
  return folder->uri;
}

/* Its name, for people. */
const char *
sj_user_folder_get_name (SjUserFolder *folder)
{
  return folder->name;
}

SjUserFolderState
sj_user_folder_get_state (SjUserFolder *folder)
{
  return folder->state;
}

/* Returns: (nullable): why the folder cannot be read */
const GError *
sj_user_folder_get_error (SjUserFolder *folder)
{
  return folder->error;
}

/* Returns: (transfer none) (nullable) (element-type SjUserSound): its sounds,
 * by name, once read */
GPtrArray *
sj_user_folder_get_sounds (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->sounds : NULL;
}

const SjUserSound *
sj_user_folder_lookup_sound (SjUserFolder *folder,
                             const char   *name)
{
  return folder->scan != NULL && name != NULL ? g_hash_table_lookup (folder->scan->by_name, name) : NULL;
}

/* Returns: (transfer none) (nullable) (element-type SjUserSampleProblem):
 * the files that do not play (at most SJ_USER_SAMPLES_MAX_PROBLEMS) */
GPtrArray *
sj_user_folder_get_problems (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->problems : NULL;
}

/* Returns: how many files do not play, listed or not. */
guint
sj_user_folder_get_n_problems (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->n_problems : 0;
}

/* Returns: how many files play. */
guint
sj_user_folder_get_n_files (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->n_files : 0;
}

/* A path of at most @max characters: a long one loses its middle. */
static char *
shorten (const char *path,
         glong       max)
{
  glong length = g_utf8_strlen (path, -1);
  g_autofree char *start = NULL;

  if (length <= max)
    return g_strdup (path);
  start = g_utf8_substring (path, 0, max / 2);
  return g_strconcat (start, "…", g_utf8_offset_to_pointer (path, length - (max - max / 2 - 1)), NULL);
}

/**
 * sj_user_folder_describe_problems:
 * @max_listed: how many files to name (a long path loses its middle)
 *
 * Returns: (transfer full) (nullable): "3 files cannot be played:
 *   notes.txt (not audio), broken.wav (not a WAV file), …", or %NULL when
 *   every file plays
 */
char *
sj_user_folder_describe_problems (SjUserFolder *folder,
                                  guint         max_listed)
{
  g_autoptr(GString) list = g_string_new (NULL);
  guint n = sj_user_folder_get_n_problems (folder);
  GPtrArray *problems = sj_user_folder_get_problems (folder);
  guint listed = MIN (max_listed, problems != NULL ? problems->len : 0);

  if (n == 0)
    return NULL;

  for (guint i = 0; i < listed; i++)
    {
      const SjUserSampleProblem *problem = g_ptr_array_index (problems, i);
      g_autofree char *why = sj_user_sample_problem_describe (problem);
      g_autofree char *path = shorten (problem->path, 48);

      if (i > 0)
        g_string_append (list, _(", "));
      /* TRANSLATORS: a file that cannot be played and why: "notes.txt (not audio)" */
      g_string_append_printf (list, _("%s (%s)"), path, why);
    }
  if (listed < n)
    g_string_append (list, _(", …"));

  /* TRANSLATORS: %u is a number of files, %s the list of them */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file cannot be played: %s",
                                       "%u files cannot be played: %s", n),
                          n, list->str);
}
