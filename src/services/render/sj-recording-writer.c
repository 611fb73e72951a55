/* sj-recording-writer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Writes a live recording (issue 33, "record what you hear") to a WAV or a
 * FLAC file, by the name's extension, as the sound arrives.
 *
 * Unlike a render, a recording is written under its own name from the
 * start: it is a new file (created with O_EXCL, never over another one),
 * and whatever happens to the app, what was recorded must stay playable.
 * A WAV's header gives the length of its data, so the header is rewritten
 * with the sizes so far every second of sound (two pwrite()s of 4 bytes):
 * the app killed or crashing leaves a WAV whose header is at most a second
 * short of its data, which every player plays. A FLAC is streamed by
 * flacenc (SjFlacEncoder): its frames are on disk as they are encoded, and
 * its header gets the total length when the recording is closed.
 *
 * The calls block on the disk: the recorder makes them from its own
 * writing thread, never the audio thread nor the main loop.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sj-flac-encoder.h"
#include "sj-recording-writer.h"
#include "sj-wav-header.h"

#define HEADER_SIZE SJ_WAV_HEADER_SIZE
/* WAV sizes are 32-bit: a recording stops growing the file past this. */
#define MAX_WAV_DATA (G_MAXUINT32 - HEADER_SIZE - 8)

struct _SjRecordingWriter
{
  GObject        parent_instance;

  char          *path;
  int            fd;            /* a WAV's */
  SjFlacEncoder *encoder;       /* a FLAC's */
  gboolean       flac;
  guint          rate;
  guint          channels;
  guint64        data_bytes;
  guint64        synced_bytes;  /* the data size the header says */
  gint64         bytes;         /* on disk, for the elapsed size shown */
};

G_DEFINE_FINAL_TYPE (SjRecordingWriter, sj_recording_writer, G_TYPE_OBJECT)

static gboolean
io_error (SjRecordingWriter  *self,
          int                 saved,
          GError            **error)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               /* TRANSLATORS: %s is the recording's file, then why writing failed */
               _("Could not write %s: %s"), self->path, g_strerror (saved));
  return FALSE;
}

static gboolean
pwrite_all (SjRecordingWriter  *self,
            const guint8       *data,
            gsize               size,
            goffset             offset,
            GError            **error)
{
  while (size > 0)
    {
      gssize n = pwrite (self->fd, data, size, offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return io_error (self, errno, error);
      data += n;
      size -= n;
      offset += n;
    }

  return TRUE;
}

/* The sizes the header gives: the data so far. */
static gboolean
sync_header (SjRecordingWriter  *self,
             GError            **error)
{
  guint8 size[4];

  sj_wav_put_le32 (size, 36 + self->data_bytes);
  if (!pwrite_all (self, size, 4, SJ_WAV_RIFF_SIZE_OFFSET, error))
    return FALSE;
  sj_wav_put_le32 (size, self->data_bytes);
  if (!pwrite_all (self, size, 4, SJ_WAV_DATA_SIZE_OFFSET, error))
    return FALSE;
  self->synced_bytes = self->data_bytes;

  return TRUE;
}

/**
 * sj_recording_writer_new:
 * @path: a new file, .wav or .flac
 *
 * Creates the file at once (so an unwritable folder or a name taken is
 * known before anything is recorded).
 *
 * Returns: (transfer full): the writer, or %NULL with @error
 */
SjRecordingWriter *
sj_recording_writer_new (const char  *path,
                         GError     **error)
{
  g_autoptr(SjRecordingWriter) self = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (SJ_TYPE_RECORDING_WRITER, NULL);
  self->path = g_strdup (path);
  self->flac = sj_path_is_flac (path);
  self->fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (self->fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   /* TRANSLATORS: %s is the recording's file, then why it cannot be made */
                   _("Cannot record to %s: %s"), path, g_strerror (saved));
      return NULL;
    }

  return g_steal_pointer (&self);
}

/**
 * sj_recording_writer_begin:
 *
 * Starts the file for 16-bit samples at @rate and @channels: a WAV's
 * header, or the FLAC encoder.
 */
gboolean
sj_recording_writer_begin (SjRecordingWriter  *self,
                           guint               rate,
                           guint               channels,
                           GError            **error)
{
  guint8 header[HEADER_SIZE];

  g_return_val_if_fail (SJ_IS_RECORDING_WRITER (self), FALSE);
  g_return_val_if_fail (self->rate == 0 && rate > 0 && channels > 0, FALSE);

  self->rate = rate;
  self->channels = channels;

  if (self->flac)
    {
      g_close (self->fd, NULL);
      self->fd = -1;
      self->encoder = sj_flac_encoder_new (self->path, rate, channels, error);
      return self->encoder != NULL;
    }

  sj_wav_header_set (header, rate, channels, 0);
  if (!pwrite_all (self, header, HEADER_SIZE, 0, error))
    return FALSE;
  self->bytes = HEADER_SIZE;

  return TRUE;
}

/* Whole frames of interleaved 16-bit little-endian samples. */
gboolean
sj_recording_writer_write (SjRecordingWriter  *self,
                           const guint8       *data,
                           gsize               size,
                           GError            **error)
{
  g_return_val_if_fail (SJ_IS_RECORDING_WRITER (self), FALSE);
  g_return_val_if_fail (self->rate > 0, FALSE);

  if (self->flac)
    {
      if (!sj_flac_encoder_write (self->encoder, data, size, error))
        return FALSE;
      self->data_bytes += size;
      /* What flacenc has written so far, checked once a second. */
      if (self->data_bytes - self->synced_bytes >= (guint64)self->rate * self->channels * 2)
        {
          GStatBuf st;

          if (g_stat (self->path, &st) == 0)
            self->bytes = st.st_size;
          self->synced_bytes = self->data_bytes;
        }
      return TRUE;
    }

  if (self->data_bytes + size > MAX_WAV_DATA)
    return io_error (self, EFBIG, error);
  if (!pwrite_all (self, data, size, HEADER_SIZE + self->data_bytes, error))
    return FALSE;
  self->data_bytes += size;
  self->bytes = HEADER_SIZE + self->data_bytes;

  /* Every second of sound, the header catches up. */
  if (self->data_bytes - self->synced_bytes >= (guint64)self->rate * self->channels * 2)
    return sync_header (self, error);

  return TRUE;
}

/* Ends the file: a WAV's final sizes, a FLAC's last frames and header. */
gboolean
sj_recording_writer_close (SjRecordingWriter  *self,
                           GError            **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (SJ_IS_RECORDING_WRITER (self), FALSE);

  if (self->encoder != NULL)
    {
      ok = sj_flac_encoder_finish (self->encoder, error);
      g_clear_object (&self->encoder);
    }
  else if (self->fd >= 0)
    {
      if (self->rate > 0)
        ok = sync_header (self, error);
      if (ok && fsync (self->fd) != 0)
        ok = io_error (self, errno, error);
      g_close (self->fd, NULL);
      self->fd = -1;
    }

  return ok;
}

const char *
sj_recording_writer_get_path (SjRecordingWriter *self)
{
  g_return_val_if_fail (SJ_IS_RECORDING_WRITER (self), NULL);

  return self->path;
}

guint64
sj_recording_writer_get_frames (SjRecordingWriter *self)
{
  g_return_val_if_fail (SJ_IS_RECORDING_WRITER (self), 0);

  return self->channels > 0 ? self->data_bytes / (2 * self->channels) : 0;
}

/* The file's size on disk so far. */
guint64
sj_recording_writer_get_bytes (SjRecordingWriter *self)
{
  g_return_val_if_fail (SJ_IS_RECORDING_WRITER (self), 0);

  return self->bytes;
}

static void
sj_recording_writer_finalize (GObject *object)
{
  SjRecordingWriter *self = (SjRecordingWriter *)object;

  sj_recording_writer_close (self, NULL);
  g_free (self->path);

  G_OBJECT_CLASS (sj_recording_writer_parent_class)->finalize (object);
}

static void
sj_recording_writer_class_init (SjRecordingWriterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_recording_writer_finalize;
}

static void
sj_recording_writer_init (SjRecordingWriter *self)
{
  self->fd = -1;
}
