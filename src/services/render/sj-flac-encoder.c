/* sj-flac-encoder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Encodes 16-bit PCM to a FLAC file as it arrives (issue 33): a render
 * chosen as OUT.flac, and a live recording to FLAC.
 *
 * It is GStreamer's flacenc (gst-plugins-good): appsrc ! audioconvert !
 * flacenc ! filesink. GStreamer is already a dependency of the app (voice
 * capture) and flacenc is in the plugins the app already needs, whereas
 * libFLAC would be one more library to build in the Flatpak and install in
 * CI. flacenc streams: the frames are on disk as they are encoded, so a
 * recording cut short (the app killed) is still a FLAC a player decodes up
 * to where it stopped; on a clean end, flacenc seeks back and writes the
 * total length into the STREAMINFO header.
 *
 * The caller's thread is never blocked for long and never forever: the
 * queue in appsrc is bounded by waiting on the bus (10 ms at a time, so an
 * error, such as a full disk, ends the wait at once) rather than by
 * appsrc's own blocking push, which would wait forever once the pipeline
 * has stopped on an error.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include "sj-flac-encoder.h"
#include "sj-render-options.h"

#define MAX_QUEUED_BYTES  (1024 * 1024)
#define FINISH_TIMEOUT_S  60

struct _SjFlacEncoder
{
  GObject     parent_instance;

  char       *path;
  char       *name;      /* in messages: the final name of a temporary file */
  GstElement *pipeline;
  GstElement *src;
  GstBus     *bus;
  guint       rate;
  guint       channels;
  guint64     frames;
  guint8      carry[16];   /* part of a frame left between two pieces */
  gsize       carry_len;
  gboolean    failed;
};

G_DEFINE_FINAL_TYPE (SjFlacEncoder, sj_flac_encoder, G_TYPE_OBJECT)

/* Whether @path names a FLAC file (by its extension, any case). */
gboolean
sj_path_is_flac (const char *path)
{
  gsize len = path != NULL ? strlen (path) : 0;

  return len >= 5 && g_ascii_strcasecmp (path + len - 5, ".flac") == 0;
}

static gboolean
error_from_message (SjFlacEncoder  *self,
                    GstMessage     *message,
                    GError        **error)
{
  g_autoptr(GError) gst_error = NULL;
  g_autofree char *debug = NULL;

  self->failed = TRUE;
  gst_message_parse_error (message, &gst_error, &debug);
  g_debug ("FLAC encoder: %s (%s)", gst_error->message, debug != NULL ? debug : "");
  g_set_error (error, G_IO_ERROR,
               gst_error->domain == GST_RESOURCE_ERROR && gst_error->code == GST_RESOURCE_ERROR_NO_SPACE_LEFT
                 ? G_IO_ERROR_NO_SPACE : G_IO_ERROR_FAILED,
               /* TRANSLATORS: %s is the file written to, then why writing failed */
               _("Could not write %s: %s"), self->name, gst_error->message);
  return FALSE;
}

/* Checks the bus for an error without waiting (@timeout 0) or up to @timeout. */
static gboolean
check_bus (SjFlacEncoder  *self,
           GstClockTime    timeout,
           GError        **error)
{
  g_autoptr(GstMessage) message = gst_bus_timed_pop_filtered (self->bus, timeout, GST_MESSAGE_ERROR);

  if (message != NULL)
    return error_from_message (self, message, error);

  return TRUE;
}

/**
 * sj_flac_encoder_new:
 * @path: the file to write (created or truncated)
 *
 * Returns: (transfer full): an encoder writing @path, or %NULL with @error
 */
SjFlacEncoder *
sj_flac_encoder_new (const char  *path,
                     guint        rate,
                     guint        channels,
                     GError     **error)
{
  g_autoptr(SjFlacEncoder) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GstCaps) caps = NULL;
  GstElement *convert, *encoder, *sink;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (rate > 0 && channels > 0 && channels <= 8, NULL);

  if (!gst_init_check (NULL, NULL, &local_error))
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT, _("Cannot write FLAC: %s"), local_error->message);
      return NULL;
    }

  self = g_object_new (SJ_TYPE_FLAC_ENCODER, NULL);
  self->path = g_strdup (path);
  self->name = g_strdup (path);
  self->rate = rate;
  self->channels = channels;
  self->pipeline = gst_object_ref_sink (gst_pipeline_new ("sj-flac"));
  self->src = gst_element_factory_make ("appsrc", NULL);
  convert = gst_element_factory_make ("audioconvert", NULL);
  encoder = gst_element_factory_make ("flacenc", NULL);
  sink = gst_element_factory_make ("filesink", NULL);
  if (self->src == NULL || convert == NULL || encoder == NULL || sink == NULL)
    {
      g_clear_object (&self->src);
      g_clear_object (&convert);
      g_clear_object (&encoder);
      g_clear_object (&sink);
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                           _("Cannot write FLAC: GStreamer's flacenc (gst-plugins-good) is not installed"));
      return NULL;
    }
  gst_object_ref (self->src);

  caps = gst_caps_new_simple ("audio/x-raw",
                              "format", G_TYPE_STRING, "S16LE",
                              "layout", G_TYPE_STRING, "interleaved",
                              "rate", G_TYPE_INT, (int)rate,
                              "channels", G_TYPE_INT, (int)channels,
                              NULL);
  g_object_set (self->src, "caps", caps, "format", GST_FORMAT_TIME, "block", FALSE, NULL);
  g_object_set (sink, "location", path, "async", FALSE, NULL);
  /* Each frame reaches the file as it is encoded (a recording killed keeps
   * all but the last frame); flacenc's frames are a few KiB, about ten a
   * second. */
  gst_util_set_object_arg (G_OBJECT (sink), "buffer-mode", "unbuffered");
  gst_bin_add_many (GST_BIN (self->pipeline), self->src, convert, encoder, sink, NULL);
  if (!gst_element_link_many (self->src, convert, encoder, sink, NULL))
    {
      g_set_error_literal (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT, _("Cannot write FLAC: the encoder cannot be set up"));
      return NULL;
    }

  self->bus = gst_element_get_bus (self->pipeline);
  if (gst_element_set_state (self->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    {
      g_autoptr(GstMessage) message = gst_bus_pop_filtered (self->bus, GST_MESSAGE_ERROR);

      if (message != NULL)
        error_from_message (self, message, error);
      else
        g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_OUTPUT,
                     /* TRANSLATORS: %s is the file to write */
                     _("Cannot write %s"), path);
      return NULL;
    }

  return g_steal_pointer (&self);
}

static gboolean
push (SjFlacEncoder  *self,
      const guint8   *data,
      gsize           size,
      GError        **error)
{
  GstBuffer *buffer = gst_buffer_new_memdup (data, size);
  guint64 frames = size / (2 * self->channels);

  GST_BUFFER_PTS (buffer) = gst_util_uint64_scale (self->frames, GST_SECOND, self->rate);
  GST_BUFFER_DURATION (buffer) = gst_util_uint64_scale (self->frames + frames, GST_SECOND, self->rate) -
                                 GST_BUFFER_PTS (buffer);
  self->frames += frames;

  if (gst_app_src_push_buffer (GST_APP_SRC (self->src), buffer) != GST_FLOW_OK)
    {
      if (check_bus (self, 0, error))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write %s"), self->name);
      self->failed = TRUE;
      return FALSE;
    }

  /* A bounded queue, and an error (a full disk) ends the wait. */
  while (gst_app_src_get_current_level_bytes (GST_APP_SRC (self->src)) > MAX_QUEUED_BYTES)
    if (!check_bus (self, 10 * GST_MSECOND, error))
      return FALSE;

  return check_bus (self, 0, error);
}

/**
 * sj_flac_encoder_write:
 * @data: interleaved 16-bit little-endian samples, any number of bytes
 *   (a part of a frame waits for the next piece)
 */
gboolean
sj_flac_encoder_write (SjFlacEncoder  *self,
                       const guint8   *data,
                       gsize           size,
                       GError        **error)
{
  gsize frame = 2 * self->channels;
  gsize whole;

  g_return_val_if_fail (SJ_IS_FLAC_ENCODER (self), FALSE);

  if (self->failed || self->pipeline == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write %s"), self->name);
      return FALSE;
    }

  if (self->carry_len > 0)
    {
      gsize take = MIN (size, frame - self->carry_len);

      memcpy (self->carry + self->carry_len, data, take);
      self->carry_len += take;
      data += take;
      size -= take;
      if (self->carry_len < frame)
        return TRUE;
      self->carry_len = 0;
      if (!push (self, self->carry, frame, error))
        return FALSE;
    }

  whole = size - size % frame;
  if (whole > 0 && !push (self, data, whole, error))
    return FALSE;
  memcpy (self->carry, data + whole, size - whole);
  self->carry_len = size - whole;

  return TRUE;
}

/**
 * sj_flac_encoder_finish:
 *
 * Ends the stream and waits (at most a minute) until every frame and the
 * final header are written.
 */
gboolean
sj_flac_encoder_finish (SjFlacEncoder  *self,
                        GError        **error)
{
  g_autoptr(GstMessage) message = NULL;
  gboolean ok = TRUE;

  g_return_val_if_fail (SJ_IS_FLAC_ENCODER (self), FALSE);

  if (self->pipeline == NULL || self->failed)
    {
      sj_flac_encoder_abort (self);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write %s"), self->name);
      return FALSE;
    }

  gst_app_src_end_of_stream (GST_APP_SRC (self->src));
  message = gst_bus_timed_pop_filtered (self->bus, FINISH_TIMEOUT_S * GST_SECOND,
                                        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (message == NULL)
    ok = (g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, _("Could not write %s"), self->name), FALSE);
  else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
    ok = error_from_message (self, message, error);

  sj_flac_encoder_abort (self);

  return ok;
}

/* Stops the pipeline; the file keeps what was written. */
void
sj_flac_encoder_abort (SjFlacEncoder *self)
{
  g_return_if_fail (SJ_IS_FLAC_ENCODER (self));

  if (self->pipeline != NULL)
    gst_element_set_state (self->pipeline, GST_STATE_NULL);
  g_clear_object (&self->bus);
  g_clear_object (&self->src);
  g_clear_object (&self->pipeline);
}

/* The name errors give the file (the final name of a temporary file). */
void
sj_flac_encoder_set_name (SjFlacEncoder *self,
                          const char    *name)
{
  g_return_if_fail (SJ_IS_FLAC_ENCODER (self));

  g_free (self->name);
  self->name = g_strdup (name);
}

guint64
sj_flac_encoder_get_frames (SjFlacEncoder *self)
{
  g_return_val_if_fail (SJ_IS_FLAC_ENCODER (self), 0);

  return self->frames;
}

static void
sj_flac_encoder_finalize (GObject *object)
{
  SjFlacEncoder *self = (SjFlacEncoder *)object;

  sj_flac_encoder_abort (self);
  g_free (self->path);
  g_free (self->name);

  G_OBJECT_CLASS (sj_flac_encoder_parent_class)->finalize (object);
}

static void
sj_flac_encoder_class_init (SjFlacEncoderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_flac_encoder_finalize;
}

static void
sj_flac_encoder_init (SjFlacEncoder *self)
{
}
