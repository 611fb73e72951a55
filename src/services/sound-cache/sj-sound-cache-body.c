/* sj-sound-cache-body.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A download's body, once the server answered (sj-sound-cache-download.c
 * sends the request and decides what an answer means): the .part file
 * made ready (the pack's folders, no stale .part), the body read a chunk
 * at a time and written into it, a sound's first bytes sniffed so that
 * what is not audio is never kept, the byte count checked against the
 * size limit and Content-Length, and the .part closed and renamed over
 * the file only when whole.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-cache-private.h"
#include "sj-user-samples.h"

static void
closed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  SjSoundDownload *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  if (!g_output_stream_close_finish (G_OUTPUT_STREAM (object), result, &error))
    {
      _sj_sound_download_fail_io (self, error);
      return;
    }
  g_clear_object (&self->out);

  /* The file is whole and on disk: only now does it take the real name. */
  if (!g_file_move (self->part, self->target, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
                    NULL, NULL, NULL, &error))
    {
      g_file_delete (self->part, NULL, NULL);
      _sj_sound_download_fail_io (self, error);
      return;
    }

  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&self->data));
  _sj_sound_download_finish (self, bytes, NULL);
}

static void
written_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  SjSoundDownload *self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->chunk, g_bytes_unref);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    _sj_sound_download_fail_io (self, error);
  else
    _sj_sound_download_read_next (self);
}

/* A sound's first bytes must say it is one; checked once, as soon as there
 * are enough of them (or at the end of a shorter body). Not retried: the
 * same server would send the same page. */
static gboolean
sniff (SjSoundDownload *self)
{
  if (!self->audio || self->sniffed)
    return TRUE;
  self->sniffed = TRUE;
  if (sj_sample_format_sniff (self->data->data, self->data->len) != SJ_SAMPLE_FORMAT_NONE)
    return TRUE;

  _sj_sound_download_retry_or_finish (self, _sj_sound_cache_not_audio (self->data->data, self->data->len), FALSE);
  return FALSE;
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  SjSoundDownload *self = user_data;
  g_autoptr(GError) error = NULL;
  gsize size;

  self->chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (self->chunk == NULL)
    {
      _sj_sound_download_fail_attempt (self, error);
      return;
    }

  size = g_bytes_get_size (self->chunk);
  if (size == 0)
    {
      g_clear_pointer (&self->chunk, g_bytes_unref);
      if (self->expected >= 0 && (goffset)self->data->len != self->expected)
        {
          _sj_sound_download_retry_or_finish (self, g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TRUNCATED,
                                                      _("the server sent less than it announced")), FALSE);
          return;
        }
      if (!sniff (self))
        return;
      g_output_stream_close_async (self->out, G_PRIORITY_DEFAULT, self->cancellable, closed_cb, self);
      return;
    }

  if (self->data->len + size > self->max_size)
    {
      _sj_sound_download_retry_or_finish (self, _sj_sound_download_too_large (self), FALSE);
      return;
    }

  g_byte_array_append (self->data, g_bytes_get_data (self->chunk, NULL), size);
  if (self->data->len >= SJ_SAMPLE_FORMAT_SNIFF_BYTES && !sniff (self))
    return;
  g_output_stream_write_all_async (self->out, g_bytes_get_data (self->chunk, NULL), size,
                                   G_PRIORITY_DEFAULT, self->cancellable, written_cb, self);
}

void
_sj_sound_download_read_next (SjSoundDownload *self)
{
  g_input_stream_read_bytes_async (self->body, SJ_SOUND_CACHE_CHUNK_SIZE, G_PRIORITY_DEFAULT, self->cancellable, read_cb, self);
}

void
_sj_sound_download_part_created_cb (GObject      *object,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  SjSoundDownload *self = user_data;
  g_autoptr(GError) error = NULL;
  GFileOutputStream *out;

  if ((out = g_file_create_finish (G_FILE (object), result, &error)) == NULL)
    {
      /* Cancelled while it was being opened, it may have been created all
       * the same: nothing half-written stays behind. */
      g_file_delete (self->part, NULL, NULL);
      _sj_sound_download_fail_io (self, error);
      return;
    }

  self->out = G_OUTPUT_STREAM (out);
  _sj_sound_download_read_next (self);
}

/* Makes room for the .part file: the pack's folders, and no stale .part. */
gboolean
_sj_sound_download_prepare_part (SjSoundDownload  *self,
                                 GError          **error)
{
  g_autoptr(GFile) parent = g_file_get_parent (self->target);
  g_autoptr(GError) local_error = NULL;

  if (!g_file_make_directory_with_parents (parent, self->cancellable, &local_error) &&
      !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  g_clear_error (&local_error);

  if (!g_file_delete (self->part, self->cancellable, &local_error) &&
      !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  return TRUE;
}
