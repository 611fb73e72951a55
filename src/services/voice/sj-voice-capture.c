/* sj-voice-capture.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The microphone, through GStreamer from the default input of the sound
 * server (PulseAudio or PipeWire), never through the web view: the page
 * never gets the microphone. The pipeline converts to what the recogniser
 * takes and hands the samples over on its streaming thread, where their
 * level is measured for the meter:
 *
 *   pulsesrc → audioconvert → audioresample → S16LE 16 kHz mono → appsink
 *
 * (GStreamer's level element is not used: it divides by a zero rate when
 * the source fails before its format is known.)
 *
 * Failures are mapped to SJ_VOICE_ERROR codes the window can explain: no
 * microphone (or no sound server), a busy device, anything else.
 *
 * A busy device is not reported as such by pulsesrc: when the hardware is
 * held elsewhere (pasuspender, a program with exclusive access) or the
 * source is suspended, the stream opens but no audio ever comes, and the
 * pipeline never even reaches PLAYING. A working microphone always
 * streams, with at least its noise floor, so a watchdog takes one that
 * gives nothing for NO_SOUND_TIMEOUT_MS after the start as busy.
 */

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>

#include "sj-voice-capture.h"
#include "sj-voice-recognizer.h"

/* How often the meter moves: every 50 ms of audio. */
#define LEVEL_INTERVAL_SAMPLES (SJ_VOICE_SAMPLE_RATE / 20)
/* The quietest level the meter shows, in dBFS. */
#define LEVEL_FLOOR_DB -60.0
/* How long a microphone may give nothing after the start. The sound server
 * delivers the first audio of a working source within tens of
 * milliseconds (a Bluetooth headset switching profile can take a second);
 * much longer than that and the musician is left waiting, talking to a
 * device that hears nothing. */
#define NO_SOUND_TIMEOUT_MS 2000

struct _SjVoiceCapture
{
  GObject             parent_instance;

  char               *device;
  GMainContext       *context;
  SjVoiceSamplesFunc  samples_func;
  gpointer            samples_data;

  GstElement         *pipeline;
  guint               bus_watch;
  GTask              *start_task;
  gboolean            running;
  GSource            *watchdog;
  gint                got_sound;   /* atomic: the streaming thread sets it */

  /* The streaming thread's sum for the level. */
  double              sum_squares;
  guint               n_summed;
};

G_DEFINE_FINAL_TYPE (SjVoiceCapture, sj_voice_capture, G_TYPE_OBJECT)

enum {
  LEVEL,
  FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GError *
map_error (GError     *gst_error,
           const char *debug)
{
  g_debug ("Voice capture: %s (%s)", gst_error->message, debug != NULL ? debug : "");

  if (gst_error->domain == GST_RESOURCE_ERROR && gst_error->code == GST_RESOURCE_ERROR_BUSY)
    return g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_BUSY,
                        _("The microphone is used by another program (%s)"), gst_error->message);

  if (gst_error->domain == GST_RESOURCE_ERROR || gst_error->domain == GST_CORE_ERROR)
    return g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_NO_MICROPHONE,
                        _("No microphone can be opened (%s)"), gst_error->message);

  return g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_CAPTURE,
                      _("The microphone stopped working (%s)"), gst_error->message);
}

static void
teardown (SjVoiceCapture *self)
{
  self->running = FALSE;
  if (self->watchdog != NULL)
    {
      g_source_destroy (self->watchdog);
      g_clear_pointer (&self->watchdog, g_source_unref);
    }
  if (self->pipeline == NULL)
    return;

  gst_element_set_state (self->pipeline, GST_STATE_NULL);
  g_clear_handle_id (&self->bus_watch, g_source_remove);
  gst_clear_object (&self->pipeline);
}

static void
fail (SjVoiceCapture *self,
      GError         *error)
{
  teardown (self);

  if (self->start_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->start_task);

      g_task_return_error (task, error);
    }
  else
    {
      g_signal_emit (self, signals[FAILED], 0, error);
      g_error_free (error);
    }
}

typedef struct
{
  SjVoiceCapture *self;
  double          level;
} Level;

static gboolean
emit_level_cb (gpointer data)
{
  Level *level = data;

  g_signal_emit (level->self, signals[LEVEL], 0, level->level);

  return G_SOURCE_REMOVE;
}

static void
level_free (gpointer data)
{
  Level *level = data;

  g_object_unref (level->self);
  g_free (level);
}

/* On the streaming thread: sums the samples' energy and, every 50 ms of
 * audio, sends the meter its RMS level on a 60 dB scale. */
static void
measure_level (SjVoiceCapture *self,
               const gint16   *samples,
               gsize           n)
{
  Level *level;
  double db;

  for (gsize i = 0; i < n; i++)
    self->sum_squares += (double) samples[i] * samples[i];
  self->n_summed += n;
  if (self->n_summed < LEVEL_INTERVAL_SAMPLES)
    return;

  db = 10.0 * log10 (self->sum_squares / self->n_summed / (32768.0 * 32768.0) + 1e-12);
  self->sum_squares = 0;
  self->n_summed = 0;

  level = g_new0 (Level, 1);
  level->self = g_object_ref (self);
  level->level = CLAMP ((db - LEVEL_FLOOR_DB) / -LEVEL_FLOOR_DB, 0.0, 1.0);
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, emit_level_cb, level, level_free);
}

static gboolean
bus_cb (GstBus     *bus,
        GstMessage *message,
        gpointer    user_data)
{
  SjVoiceCapture *self = user_data;

  switch (GST_MESSAGE_TYPE (message))
    {
    case GST_MESSAGE_ERROR:
      {
        g_autoptr(GError) gst_error = NULL;
        g_autofree char *debug = NULL;

        gst_message_parse_error (message, &gst_error, &debug);
        self->bus_watch = 0;
        fail (self, map_error (gst_error, debug));
        return G_SOURCE_REMOVE;
      }

    case GST_MESSAGE_STATE_CHANGED:
      if (GST_MESSAGE_SRC (message) == GST_OBJECT (self->pipeline))
        {
          GstState new_state;

          gst_message_parse_state_changed (message, NULL, &new_state, NULL);
          if (new_state == GST_STATE_PLAYING && self->start_task != NULL)
            {
              g_autoptr(GTask) task = g_steal_pointer (&self->start_task);

              self->running = TRUE;
              g_task_return_boolean (task, TRUE);
            }
        }
      break;

    default:
      break;
    }

  return G_SOURCE_CONTINUE;
}

/* On the streaming thread. */
static GstFlowReturn
new_sample_cb (GstAppSink *sink,
               gpointer    user_data)
{
  SjVoiceCapture *self = user_data;
  g_autoptr(GstSample) sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buffer;
  GstMapInfo map;

  if (sample == NULL)
    return GST_FLOW_EOS;

  g_atomic_int_set (&self->got_sound, TRUE);

  buffer = gst_sample_get_buffer (sample);
  if (buffer != NULL && self->samples_func != NULL && gst_buffer_map (buffer, &map, GST_MAP_READ))
    {
      g_autoptr(GBytes) bytes = g_bytes_new (map.data, map.size);

      gst_buffer_unmap (buffer, &map);
      measure_level (self, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes) / sizeof (gint16));
      self->samples_func (bytes, self->samples_data);
    }

  return GST_FLOW_OK;
}

/* NO_SOUND_TIMEOUT_MS after the start: a microphone that gave nothing is
 * held by another program, or suspended. */
static gboolean
watchdog_cb (gpointer user_data)
{
  SjVoiceCapture *self = user_data;

  g_clear_pointer (&self->watchdog, g_source_unref);
  if (!g_atomic_int_get (&self->got_sound))
    fail (self, g_error_new_literal (SJ_VOICE_ERROR, SJ_VOICE_ERROR_BUSY,
                                     _("The microphone gives no sound: another program may be using it, "
                                       "or it is suspended")));

  return G_SOURCE_REMOVE;
}

static GstElement *
make_source (SjVoiceCapture *self)
{
  GstElement *source = gst_element_factory_make ("pulsesrc", NULL);

  if (source == NULL)
    return gst_element_factory_make ("autoaudiosrc", NULL);

  if (self->device != NULL)
    g_object_set (source, "device", self->device, NULL);
  g_object_set (source, "client-name", "Strudel Jam", NULL);
  /* Small buffers, so the last word is decoded soon after it is said. */
  g_object_set (source, "latency-time", (gint64) 20000, "buffer-time", (gint64) 100000, NULL);

  return source;
}

static GstElement *
build_pipeline (SjVoiceCapture  *self,
                GError         **error)
{
  g_autoptr(GstElement) pipeline = gst_pipeline_new ("sj-voice-capture");
  g_autoptr(GstCaps) caps = NULL;
  GstElement *source = make_source (self);
  GstElement *convert = gst_element_factory_make ("audioconvert", NULL);
  GstElement *resample = gst_element_factory_make ("audioresample", NULL);
  GstElement *filter = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  GstAppSinkCallbacks callbacks = { .new_sample = new_sample_cb };

  if (source == NULL || convert == NULL || resample == NULL || filter == NULL || sink == NULL)
    {
      g_clear_object (&source);
      g_clear_object (&convert);
      g_clear_object (&resample);
      g_clear_object (&filter);
      g_clear_object (&sink);
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_CAPTURE,
                   _("The GStreamer plugins for sound input are missing (pulseaudio, base and good)"));
      return NULL;
    }

  caps = gst_caps_new_simple ("audio/x-raw",
                              "format", G_TYPE_STRING, "S16LE",
                              "rate", G_TYPE_INT, SJ_VOICE_SAMPLE_RATE,
                              "channels", G_TYPE_INT, 1,
                              NULL);
  g_object_set (filter, "caps", caps, NULL);
  g_object_set (sink, "sync", FALSE, "max-buffers", 0, NULL);
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &callbacks, self, NULL);

  gst_bin_add_many (GST_BIN (pipeline), source, convert, resample, filter, sink, NULL);
  if (!gst_element_link_many (source, convert, resample, filter, sink, NULL))
    {
      g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_CAPTURE, _("The sound input pipeline cannot be built"));
      return NULL;
    }

  return g_steal_pointer (&pipeline);
}

static void
sj_voice_capture_dispose (GObject *object)
{
  SjVoiceCapture *self = (SjVoiceCapture *)object;

  teardown (self);
  if (self->start_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->start_task);

      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The capture was stopped"));
    }

  G_OBJECT_CLASS (sj_voice_capture_parent_class)->dispose (object);
}

static void
sj_voice_capture_finalize (GObject *object)
{
  SjVoiceCapture *self = (SjVoiceCapture *)object;

  g_free (self->device);
  g_main_context_unref (self->context);

  G_OBJECT_CLASS (sj_voice_capture_parent_class)->finalize (object);
}

static void
sj_voice_capture_class_init (SjVoiceCaptureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_voice_capture_dispose;
  object_class->finalize = sj_voice_capture_finalize;

  /**
   * SjVoiceCapture::level:
   * @level: the loudness, from 0 (silence, -60 dBFS or less) to 1 (full scale)
   */
  signals[LEVEL] = g_signal_new ("level", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);

  /**
   * SjVoiceCapture::failed:
   * @error: why, in %SJ_VOICE_ERROR
   *
   * Emitted when the capture stops by itself after it started.
   */
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sj_voice_capture_init (SjVoiceCapture *self)
{
  self->context = g_main_context_ref_thread_default ();
}

SjVoiceCapture *
sj_voice_capture_new (void)
{
  gst_init (NULL, NULL);

  return g_object_new (SJ_TYPE_VOICE_CAPTURE, NULL);
}

/**
 * sj_voice_capture_set_device:
 * @device: (nullable): a source of the sound server, or %NULL for the
 *   default input
 */
void
sj_voice_capture_set_device (SjVoiceCapture *self,
                             const char     *device)
{
  g_assert (SJ_IS_VOICE_CAPTURE (self));

  g_free (self->device);
  self->device = g_strdup (device);
}

/**
 * sj_voice_capture_set_samples_func:
 *
 * Sets who gets the samples; called on the streaming thread. Set it
 * before starting.
 */
void
sj_voice_capture_set_samples_func (SjVoiceCapture     *self,
                                   SjVoiceSamplesFunc  func,
                                   gpointer            user_data)
{
  g_assert (SJ_IS_VOICE_CAPTURE (self));
  g_return_if_fail (self->pipeline == NULL);

  self->samples_func = func;
  self->samples_data = user_data;
}

/**
 * sj_voice_capture_start_async:
 *
 * Opens the microphone; completes once audio flows, or with an error in
 * %SJ_VOICE_ERROR.
 */
void
sj_voice_capture_start_async (SjVoiceCapture      *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GstBus) bus = NULL;
  GError *error = NULL;

  g_assert (SJ_IS_VOICE_CAPTURE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_voice_capture_start_async);

  if (self->pipeline != NULL || self->start_task != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, _("The microphone is already open"));
      return;
    }

  self->pipeline = build_pipeline (self, &error);
  if (self->pipeline == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  bus = gst_pipeline_get_bus (GST_PIPELINE (self->pipeline));
  self->bus_watch = gst_bus_add_watch (bus, bus_cb, self);
  self->start_task = g_steal_pointer (&task);

  g_atomic_int_set (&self->got_sound, FALSE);
  self->watchdog = g_timeout_source_new (NO_SOUND_TIMEOUT_MS);
  g_source_set_callback (self->watchdog, watchdog_cb, self, NULL);
  g_source_set_static_name (self->watchdog, "[sj] voice capture watchdog");
  g_source_attach (self->watchdog, self->context);

  /* A failure to open is posted on the bus as well; bus_cb reports it. */
  gst_element_set_state (self->pipeline, GST_STATE_PLAYING);
}

gboolean
sj_voice_capture_start_finish (SjVoiceCapture  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_assert (SJ_IS_VOICE_CAPTURE (self));

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * sj_voice_capture_stop:
 *
 * Closes the microphone. The samples callback is not called any more once
 * this returns.
 */
void
sj_voice_capture_stop (SjVoiceCapture *self)
{
  g_assert (SJ_IS_VOICE_CAPTURE (self));

  teardown (self);
  if (self->start_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->start_task);

      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The capture was stopped"));
    }
}

gboolean
sj_voice_capture_get_running (SjVoiceCapture *self)
{
  g_assert (SJ_IS_VOICE_CAPTURE (self));

  return self->running;
}
