/* sj-code-store-write.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * How SjCodeStore puts bytes on disk: any bytes (none at all, a NUL, 5 MB),
 * written to a temporary file next to the code, synced, then renamed over
 * it. The code file is therefore always either the old text or the new one,
 * whatever happens in between (a full disk, a read-only folder, the process
 * killed): a failed write removes its temporary file and leaves the code file
 * untouched. GIO's own replace would rename a half-written temporary file
 * after a failed write, and its asynchronous variant never finishes with an
 * empty buffer, so the store does it itself.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "sj-code-store-private.h"

static gboolean
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               "%s", g_strerror (saved_errno));
  g_debug ("Writing %s: %s", path, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (int          fd,
           const char  *data,
           gsize        length,
           const char  *path,
           GError     **error)
{
  while (length > 0)
    {
      gssize written = write (fd, data, MIN (length, (gsize)G_MAXSSIZE));

      if (written < 0)
        {
          if (errno == EINTR)
            continue;
          return set_errno_error (error, errno, path);
        }

      data += written;
      length -= written;
    }

  return TRUE;
}

/**
 * _sj_code_store_write_file:
 * @path: the code file
 * @bytes: what it is to hold, byte for byte
 *
 * Replaces @path with @bytes atomically, creating its folder if it is
 * missing. Runs in any thread.
 */
gboolean
_sj_code_store_write_file (const char            *path,
                           GBytes                *bytes,
                           SjCodeStoreWriteHook   hook,
                           gpointer               hook_data,
                           GError               **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *temp = NULL;
  const char *data;
  gsize length = 0;
  gsize half;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  /* An empty GBytes may have a NULL data pointer; no byte is read then. */
  data = g_bytes_get_data (bytes, &length);
  half = length / 2;

  /* A folder removed while the app runs is made again. */
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return set_errno_error (error, errno, dir);

  temp = g_strdup_printf ("%s" G_DIR_SEPARATOR_S SJ_CODE_STORE_TEMP_PREFIX "%s-XXXXXX", dir, base);
  fd = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return set_errno_error (error, errno, temp);

  if (!write_all (fd, data, half, temp, error) ||
      (hook != NULL && !hook (temp, hook_data, error)) ||
      !write_all (fd, data + half, length - half, temp, error))
    goto failed;

  /* The bytes are on the disk before the name points at them: a crash
   * right after the rename finds the new text, not an empty file. */
  if (fsync (fd) != 0 && errno != EINVAL)
    {
      set_errno_error (error, errno, temp);
      goto failed;
    }

  if (close (fd) != 0)
    {
      fd = -1;
      set_errno_error (error, errno, temp);
      goto failed;
    }
  fd = -1;

  if (g_rename (temp, path) != 0)
    {
      set_errno_error (error, errno, path);
      goto failed;
    }

  return TRUE;

failed:
  if (fd >= 0)
    close (fd);
  g_unlink (temp);
  return FALSE;
}

/**
 * _sj_code_store_remove_temps:
 * @path: the code file
 *
 * Removes the temporary files that writes interrupted by a crash left next
 * to @path. Only called before the first write of a session.
 */
void
_sj_code_store_remove_temps (const char *path)
{
  g_autofree char *dir_path = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *prefix = g_strconcat (SJ_CODE_STORE_TEMP_PREFIX, base, "-", NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *temp = NULL;

      /* mkstemp's six characters after the prefix, nothing else. */
      if (!g_str_has_prefix (name, prefix) || strlen (name) != strlen (prefix) + 6)
        continue;

      temp = g_build_filename (dir_path, name, NULL);
      g_unlink (temp);
    }
}
