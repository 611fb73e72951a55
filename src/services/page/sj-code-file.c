/* sj-code-file.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Reads a file of Strudel code that the user opens (`strudel-jam
 * pattern.strudel.js`). Whatever the file is, the answer is its code or an
 * error that says why not, never a hang or a huge allocation: only regular
 * files are read, and at most SJ_CODE_FILE_MAX_BYTES of them; a file with
 * NUL bytes or invalid UTF-8 is not code. The text is given as the editor
 * keeps it: without a byte-order mark, with "\n" line ends, so that it can
 * be compared with what the editor holds.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "sj-code-file.h"

G_DEFINE_QUARK (sj-code-file-error-quark, sj_code_file_error)

/* "\r\n" and a lone "\r" become "\n", in place. */
static void
normalize_line_ends (char *text)
{
  char *out = text;

  for (const char *in = text; *in != '\0'; in++)
    {
      if (*in == '\r')
        {
          *out++ = '\n';
          if (in[1] == '\n')
            in++;
        }
      else
        *out++ = *in;
    }
  *out = '\0';
}

/* @buffer's @length bytes (NUL-terminated, one byte more than allowed
 * telling a file that is too large) as the editor keeps code. */
static char *
text_from_bytes (char    *buffer,
                 gsize    length,
                 GError **error)
{
  const char *text;

  if (length > SJ_CODE_FILE_MAX_BYTES)
    {
      g_set_error_literal (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_TOO_LARGE,
                           _("It is larger than 1 MiB, the most code the editor takes"));
      return NULL;
    }
  if (memchr (buffer, '\0', length) != NULL || !g_utf8_validate_len (buffer, length, NULL))
    {
      g_set_error_literal (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_NOT_TEXT, _("It is not text (UTF-8)"));
      return NULL;
    }

  text = g_str_has_prefix (buffer, "\xEF\xBB\xBF") ? buffer + 3 : buffer;
  normalize_line_ends ((char *)text);
  return g_strdup (text);
}

static char *
read_file (GFile         *file,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autofree char *buffer = NULL;
  gsize length = 0;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (info == NULL)
    return NULL;

  switch (g_file_info_get_file_type (info))
    {
    case G_FILE_TYPE_DIRECTORY:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, _("It is a folder"));
      return NULL;

    case G_FILE_TYPE_REGULAR:
    case G_FILE_TYPE_SYMBOLIC_LINK:
    case G_FILE_TYPE_SHORTCUT:
    case G_FILE_TYPE_UNKNOWN:
      break;

    case G_FILE_TYPE_SPECIAL:
    case G_FILE_TYPE_MOUNTABLE:
    default:
      /* A device or a pipe could be endless or never answer. */
      g_set_error_literal (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_NOT_TEXT, _("It is not a file of code"));
      return NULL;
    }

  if (g_file_info_get_size (info) > SJ_CODE_FILE_MAX_BYTES)
    {
      g_set_error_literal (error, SJ_CODE_FILE_ERROR, SJ_CODE_FILE_ERROR_TOO_LARGE,
                           _("It is larger than 1 MiB, the most code the editor takes"));
      return NULL;
    }

  if ((stream = g_file_read (file, cancellable, error)) == NULL)
    return NULL;

  /* One byte more than allowed tells a file that grew meanwhile. */
  buffer = g_malloc (SJ_CODE_FILE_MAX_BYTES + 2);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, SJ_CODE_FILE_MAX_BYTES + 1, &length,
                                cancellable, error))
    return NULL;
  buffer[length] = '\0';

  return text_from_bytes (buffer, length, error);
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  char *text = read_file (task_data, cancellable, &error);

  if (text == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, text, g_free);
}

/**
 * sj_code_file_read_command_line:
 * @arg: a file's path or URI as given on the command line, or "-" for the
 *   standard input
 *
 * Reads code for the command-line modes (--dry-run, --render), with the
 * editor's limits: at most SJ_CODE_FILE_MAX_BYTES, UTF-8 text. Blocks.
 *
 * Returns: (transfer full): the code, or %NULL with @error set
 */
char *
sj_code_file_read_command_line (const char  *arg,
                                GError     **error)
{
  g_autofree char *buffer = NULL;
  gsize length = 0;

  g_return_val_if_fail (arg != NULL, NULL);

  if (g_strcmp0 (arg, "-") != 0)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (arg);

      return read_file (file, NULL, error);
    }

  /* The standard input may be endless: one byte more than allowed is
   * enough to refuse it. */
  buffer = g_malloc (SJ_CODE_FILE_MAX_BYTES + 2);
  while (length <= SJ_CODE_FILE_MAX_BYTES)
    {
      size_t n = fread (buffer + length, 1, SJ_CODE_FILE_MAX_BYTES + 1 - length, stdin);

      if (n == 0)
        break;
      length += n;
    }
  if (ferror (stdin))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read the code from stdin."));
      return NULL;
    }
  buffer[length] = '\0';

  return text_from_bytes (buffer, length, error);
}

/**
 * sj_code_file_read_async:
 * @file: the file to open
 *
 * Reads @file's code in a thread; see sj_code_file_read_finish().
 */
void
sj_code_file_read_async (GFile               *file,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_code_file_read_async);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, read_thread);
}

/**
 * sj_code_file_read_finish:
 *
 * Returns: (transfer full): the file's code, or %NULL with @error set: a
 *   #GIOError from reading, or %SJ_CODE_FILE_ERROR_TOO_LARGE or
 *   %SJ_CODE_FILE_ERROR_NOT_TEXT. The error's message is a sentence about
 *   the file, without its name.
 */
char *
sj_code_file_read_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_code_file_read_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Returns: (transfer full): @file's name as the user knows it */
char *
sj_code_file_dup_name (GFile *file)
{
  g_autofree char *basename = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (g_file_peek_path (file) != NULL)
    return g_filename_display_basename (g_file_peek_path (file));

  basename = g_file_get_basename (file);
  return basename != NULL ? g_steal_pointer (&basename) : g_file_get_uri (file);
}
