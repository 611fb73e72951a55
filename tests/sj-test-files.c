/* sj-test-files.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Helpers for tests, GLib only, so that the service tests can use them
 * without linking any widget code: removing a tree of files, and keeping
 * the result of an asynchronous call for the test to wait on.
 */

#include "config.h"

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
