/* sj-test-files.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Helpers for tests, GLib only, so that the service tests can use them
 * without linking any widget code: removing a tree of files, and keeping
 * the result of an asynchronous call for the test to wait on, listing a
 * tree of files.
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sj-test-files.h"

/* Removes @path and everything below it, without following links. */
void
sj_test_remove_tree (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileEnumerator) enumerator = NULL;
  GFileInfo *info;

  enumerator = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                          G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  while (enumerator != NULL && (info = g_file_enumerator_next_file (enumerator, NULL, NULL)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, g_file_info_get_name (info), NULL);

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        sj_test_remove_tree (child);
      else
        g_unlink (child);
      g_object_unref (info);
    }
  g_rmdir (path);
}

/* A GAsyncReadyCallback that keeps @result in the GAsyncResult * slot
 * @user_data points to, for the test to spin until it is set. */
void
sj_test_store_result_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  *(GAsyncResult **)user_data = g_object_ref (result);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *)a, *(const char * const *)b);
}

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

/* Every path under @root, hidden ones included, one a line, sorted, with
 * each file's size: a listing to compare before and after. */
char *
sj_test_list_tree (const char *root)
{
  GString *out = g_string_new (NULL);

  list_into (out, root, "");
  return g_string_free (out, FALSE);
}
