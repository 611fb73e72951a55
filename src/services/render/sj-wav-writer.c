/* sj-wav-writer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Writes a rendered WAV (issue 33) as it arrives from the page, in pieces,
 * and measures it on the way: the peak and the RMS of its samples, for the
 * command line's summary and the dialog's.
 *
 * Nothing is ever half-written under the chosen name: the bytes go to a
 * hidden temporary file beside it (same folder, so same file system), which
 * is synced and renamed over the name only once it is whole (commit). A
 * full disk, a failed write or a cancelled render removes the temporary
 * file (abort, also on finalize if never committed), and an existing file
 * of that name is left as it was.
 *
 * A path ending in .flac gets the same samples encoded to FLAC on the way
 * (SjFlacEncoder, writing the same temporary file), measured as the WAV's.
 *
 * The WAV is upstream's (@strudel/webaudio's audioBufferToWav): 16-bit PCM,
 * a 44-byte header. The header is checked before anything is trusted, and
 * the data chunk's size bounds what is measured.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sj-flac-encoder.h"
#include "sj-render-options.h"
#include "sj-wav-writer.h"

#define HEADER_SIZE 44

struct _SjWavWriter
{
  GObject  parent_instance;

  char    *path;
  char    *temp_path;
  int      fd;
  guint8   header[HEADER_SIZE];
  gsize    header_len;
  guint    channels;
  guint    rate;
  guint64  data_size;   /* from the header */
  guint64  data_seen;
  guint8   carry[2];    /* half a sample left between two pieces */
  gsize    carry_len;
  double   peak;
  double   sum_squares;
  guint64  samples;
  gboolean committed;
  gboolean flac;
  SjFlacEncoder *encoder; /* for a .flac, once the header is read */
};

G_DEFINE_FINAL_TYPE (SjWavWriter, sj_wav_writer, G_TYPE_OBJECT)

static guint32
read_le32 (const guint8 *p)
{
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

static guint16
read_le16 (const guint8 *p)
{
  return (guint16)(p[0] | p[1] << 8);
}

static gboolean
parse_header (SjWavWriter  *self,
              GError      **error)
{
  const guint8 *h = self->header;

  if (memcmp (h, "RIFF", 4) != 0 || memcmp (h + 8, "WAVE", 4) != 0 || memcmp (h + 12, "fmt ", 4) != 0 ||
      read_le16 (h + 20) != 1 || read_le16 (h + 34) != 16 || memcmp (h + 36, "data", 4) != 0 ||
      read_le16 (h + 22) == 0 || read_le32 (h + 24) == 0)
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_FORMAT,
                           _("The rendered sound is not a 16-bit PCM WAV file"));
      return FALSE;
    }

  self->channels = read_le16 (h + 22);
  self->rate = read_le32 (h + 24);
  self->data_size = read_le32 (h + 40);

  return TRUE;
}

static void
measure (SjWavWriter  *self,
         const guint8 *data,
         gsize         size)
{
  gsize i = 0;

  if (self->data_seen + size > self->data_size)
    size = self->data_size - self->data_seen;
  self->data_seen += size;

  if (self->carry_len == 1 && size > 0)
    {
      gint16 sample = (gint16)(self->carry[0] | data[0] << 8);
      double v = fabs (sample / 32768.0);

      self->peak = MAX (self->peak, v);
      self->sum_squares += v * v;
      self->samples++;
      self->carry_len = 0;
      i = 1;
    }

  for (; i + 1 < size; i += 2)
    {
      gint16 sample = (gint16)(data[i] | data[i + 1] << 8);
      double v = fabs (sample / 32768.0);

      self->peak = MAX (self->peak, v);
      self->sum_squares += v * v;
      self->samples++;
    }

  if (i < size)
    {
      self->carry[0] = data[i];
      self->carry_len = 1;
    }
}

static gboolean
write_all (SjWavWriter   *self,
           const guint8  *data,
           gsize          size,
           GError       **error)
{
  while (size > 0)
    {
      gssize n = write (self->fd, data, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       /* TRANSLATORS: %s is the file rendered to, then why writing failed */
                       _("Could not write %s: %s"), self->path, g_strerror (saved));
          return FALSE;
        }
      data += n;
      size -= n;
    }

  return TRUE;
}

/* The FLAC encoder writes the temporary file by its name. */
static gboolean
start_flac (SjWavWriter  *self,
            GError      **error)
{
  g_close (self->fd, NULL);
  self->fd = -1;
  self->encoder = sj_flac_encoder_new (self->temp_path, self->rate, self->channels, error);
  if (self->encoder == NULL)
    return FALSE;
  sj_flac_encoder_set_name (self->encoder, self->path);

  return TRUE;
}

/**
 * sj_wav_writer_new:
 * @path: the file's final name
 *
 * Returns: (transfer full): a writer with its temporary file beside @path
 *   open, or %NULL with @error set
 */
SjWavWriter *
sj_wav_writer_new (const char  *path,
                   GError     **error)
{
  g_autoptr(SjWavWriter) self = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *base = NULL;
  g_autofree char *template = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (SJ_TYPE_WAV_WRITER, NULL);
  self->path = g_strdup (path);
  self->flac = sj_path_is_flac (path);
  folder = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  template = g_strdup_printf (".%s.XXXXXX.part", base);
  self->temp_path = g_build_filename (folder, template, NULL);
  self->fd = g_mkstemp_full (self->temp_path, O_WRONLY | O_CLOEXEC, 0644);
  if (self->fd < 0)
    {
      int saved = errno;

      g_clear_pointer (&self->temp_path, g_free);
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                   /* TRANSLATORS: %s is the file rendered to, then why it cannot be written */
                   _("Cannot write %s: %s"), path, g_strerror (saved));
      return NULL;
    }

  return g_steal_pointer (&self);
}

gboolean
sj_wav_writer_write (SjWavWriter   *self,
                     const guint8  *data,
                     gsize          size,
                     GError       **error)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), FALSE);
  g_return_val_if_fail (self->fd >= 0 || self->encoder != NULL, FALSE);

  if (self->header_len < HEADER_SIZE)
    {
      gsize take = MIN (size, HEADER_SIZE - self->header_len);

      memcpy (self->header + self->header_len, data, take);
      self->header_len += take;
      if (self->header_len == HEADER_SIZE && !parse_header (self, error))
        return FALSE;
      if (self->header_len == HEADER_SIZE && self->flac && !start_flac (self, error))
        return FALSE;
      if (!self->flac && !write_all (self, data, take, error))
        return FALSE;
      data += take;
      size -= take;
    }

  if (size == 0)
    return TRUE;

  measure (self, data, size);

  if (self->encoder != NULL)
    return sj_flac_encoder_write (self->encoder, data, size, error);

  return write_all (self, data, size, error);
}

/* flacenc's filesink closes without a sync. */
static gboolean
sync_file (const char  *path,
           GError     **error)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0 || fsync (fd) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not write %s: %s"), path, g_strerror (saved));
      return FALSE;
    }

  return g_close (fd, error);
}

/**
 * sj_wav_writer_commit:
 *
 * Checks that the whole WAV arrived, syncs it and renames it over the
 * final name. On failure the temporary file is removed.
 */
gboolean
sj_wav_writer_commit (SjWavWriter  *self,
                      GError      **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), FALSE);
  g_return_val_if_fail (self->fd >= 0 || self->encoder != NULL, FALSE);

  if (self->header_len < HEADER_SIZE || self->data_seen < self->data_size)
    g_set_error_literal (&local_error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_FORMAT,
                         _("The rendered sound ended before its end"));
  else if (self->encoder != NULL)
    {
      if (sj_flac_encoder_finish (self->encoder, &local_error) && !sync_file (self->temp_path, &local_error))
        ;
      else if (local_error == NULL && g_rename (self->temp_path, self->path) != 0)
        g_set_error (&local_error, G_IO_ERROR, g_io_error_from_errno (errno),
                     _("Could not write %s: %s"), self->path, g_strerror (errno));
    }
  else if (fsync (self->fd) != 0 || !g_close (self->fd, NULL))
    g_set_error (&local_error, G_IO_ERROR, g_io_error_from_errno (errno),
                 _("Could not write %s: %s"), self->path, g_strerror (errno));
  else
    {
      self->fd = -1;
      if (g_rename (self->temp_path, self->path) != 0)
        g_set_error (&local_error, G_IO_ERROR, g_io_error_from_errno (errno),
                     _("Could not write %s: %s"), self->path, g_strerror (errno));
    }

  if (local_error != NULL)
    {
      sj_wav_writer_abort (self);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  self->committed = TRUE;
  g_clear_pointer (&self->temp_path, g_free);

  return TRUE;
}

/* Removes the temporary file; the final name is untouched. */
void
sj_wav_writer_abort (SjWavWriter *self)
{
  g_return_if_fail (SJ_IS_WAV_WRITER (self));

  if (self->encoder != NULL)
    sj_flac_encoder_abort (self->encoder);
  g_clear_object (&self->encoder);
  if (self->fd >= 0)
    g_close (self->fd, NULL);
  self->fd = -1;
  if (self->temp_path != NULL)
    g_unlink (self->temp_path);
  g_clear_pointer (&self->temp_path, g_free);
}

const char *
sj_wav_writer_get_path (SjWavWriter *self)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), NULL);

  return self->path;
}

guint
sj_wav_writer_get_channels (SjWavWriter *self)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), 0);

  return self->channels;
}

guint
sj_wav_writer_get_rate (SjWavWriter *self)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), 0);

  return self->rate;
}

guint64
sj_wav_writer_get_frames (SjWavWriter *self)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), 0);

  return self->channels > 0 ? self->data_size / (2 * self->channels) : 0;
}

/* Linear, 0 to 1 (full scale). */
double
sj_wav_writer_get_peak (SjWavWriter *self)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), 0);

  return self->peak;
}

double
sj_wav_writer_get_rms (SjWavWriter *self)
{
  g_return_val_if_fail (SJ_IS_WAV_WRITER (self), 0);

  return self->samples > 0 ? sqrt (self->sum_squares / self->samples) : 0;
}

static void
sj_wav_writer_finalize (GObject *object)
{
  SjWavWriter *self = (SjWavWriter *)object;

  if (!self->committed)
    sj_wav_writer_abort (self);
  g_free (self->path);

  G_OBJECT_CLASS (sj_wav_writer_parent_class)->finalize (object);
}

static void
sj_wav_writer_class_init (SjWavWriterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_wav_writer_finalize;
}

static void
sj_wav_writer_init (SjWavWriter *self)
{
  self->fd = -1;
}
