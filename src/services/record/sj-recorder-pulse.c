/* sj-recorder-pulse.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The recorder's sound-server side (issue 33), run in libpulse's thread:
 * find the web process's playback stream (sj-recorder.c says why and how)
 * and monitor it, following it when the page's audio restarts. Its read
 * callback only queues the samples for the recorder's writing thread.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-recorder-private.h"

static void find_stream (SjRecorder *self);

static void
read_cb (pa_stream *stream,
         size_t     length,
         void      *user_data)
{
  SjRecorder *self = user_data;
  const void *data;
  size_t n;

  while (pa_stream_readable_size (stream) > 0)
    {
      if (pa_stream_peek (stream, &data, &n) < 0 || n == 0)
        return;
      /* A hole (data NULL) is silence: the file keeps its timing. */
      if (data != NULL)
        g_async_queue_push (self->queue, g_bytes_new (data, n));
      else
        g_async_queue_push (self->queue, g_bytes_new_take (g_malloc0 (n), n));
      pa_stream_drop (stream);
    }
}

void
_sj_recorder_detach (SjRecorder *self)
{
  if (self->stream != NULL)
    {
      pa_stream_set_read_callback (self->stream, NULL, NULL);
      pa_stream_set_state_callback (self->stream, NULL, NULL);
      pa_stream_disconnect (self->stream);
      pa_stream_unref (self->stream);
      self->stream = NULL;
    }
  self->monitored = PA_INVALID_INDEX;
  g_mutex_lock (&self->lock);
  self->attached = FALSE;
  g_mutex_unlock (&self->lock);
}

static void
stream_state_cb (pa_stream *stream,
                 void      *user_data)
{
  SjRecorder *self = user_data;

  switch (pa_stream_get_state (stream))
    {
    case PA_STREAM_READY:
      g_mutex_lock (&self->lock);
      self->attached = TRUE;
      g_mutex_unlock (&self->lock);
      break;

    case PA_STREAM_FAILED:
    case PA_STREAM_TERMINATED:
      /* The page's stream went: wait for the next one. */
      if (stream == self->stream)
        {
          _sj_recorder_detach (self);
          find_stream (self);
        }
      break;

    case PA_STREAM_UNCONNECTED:
    case PA_STREAM_CREATING:
    default:
      break;
    }
}

static void
sink_info_cb (pa_context         *context,
              const pa_sink_info *info,
              int                 eol,
              void               *user_data)
{
  SjRecorder *self = user_data;
  pa_sample_spec spec = { PA_SAMPLE_S16LE, 0, CHANNELS };
  pa_buffer_attr attr;

  if (eol != 0 || info == NULL || self->stream != NULL || self->pending == PA_INVALID_INDEX)
    return;

  spec.rate = self->rate;
  self->stream = pa_stream_new (context, "Strudel Jam recording", &spec, NULL);
  if (self->stream == NULL)
    {
      _sj_recorder_report (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, _("The sound server refused to record")));
      return;
    }
  self->monitored = self->pending;
  self->pending = PA_INVALID_INDEX;
  pa_stream_set_monitor_stream (self->stream, self->monitored);
  pa_stream_set_read_callback (self->stream, read_cb, self);
  pa_stream_set_state_callback (self->stream, stream_state_cb, self);

  memset (&attr, 0xff, sizeof attr);
  attr.fragsize = pa_usec_to_bytes (FRAGMENT_MS * PA_USEC_PER_MSEC, &spec);
  if (pa_stream_connect_record (self->stream, info->monitor_source_name, &attr, PA_STREAM_ADJUST_LATENCY) < 0)
    {
      _sj_recorder_detach (self);
      _sj_recorder_report (self, g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, _("The sound server refused to record: %s"),
                                 pa_strerror (pa_context_errno (context))));
    }
}

static gboolean
is_ours (SjRecorder               *self,
         const pa_sink_input_info *info)
{
  const char *name = pa_proplist_gets (info->proplist, PA_PROP_APPLICATION_NAME);
  const char *binary = pa_proplist_gets (info->proplist, PA_PROP_APPLICATION_PROCESS_BINARY);

  return g_strcmp0 (name, self->application_name) == 0 &&
         (self->binary == NULL || g_strcmp0 (binary, self->binary) == 0);
}

static void
sink_input_info_cb (pa_context               *context,
                    const pa_sink_input_info *info,
                    int                       eol,
                    void                     *user_data)
{
  SjRecorder *self = user_data;
  pa_operation *operation;

  if (eol == 0 && info != NULL)
    {
      /* The newest of ours (the highest index) is the one playing now. */
      if (is_ours (self, info) && (self->newest == PA_INVALID_INDEX || info->index > self->newest))
        {
          self->newest = info->index;
          self->newest_sink = info->sink;
          self->newest_rate = info->sample_spec.rate;
        }
      return;
    }

  if (eol < 0 || self->newest == PA_INVALID_INDEX || self->stream != NULL || self->pending != PA_INVALID_INDEX)
    return;

  if (self->rate == 0)
    {
      g_mutex_lock (&self->lock);
      self->rate = self->newest_rate;
      g_mutex_unlock (&self->lock);
    }
  self->pending = self->newest;
  operation = pa_context_get_sink_info_by_index (context, self->newest_sink, sink_info_cb, self);
  if (operation != NULL)
    pa_operation_unref (operation);
  else
    self->pending = PA_INVALID_INDEX;
}

static void
find_stream (SjRecorder *self)
{
  pa_operation *operation;

  if (self->context == NULL || self->stream != NULL || self->pending != PA_INVALID_INDEX)
    return;
  self->newest = PA_INVALID_INDEX;
  operation = pa_context_get_sink_input_info_list (self->context, sink_input_info_cb, self);
  if (operation != NULL)
    pa_operation_unref (operation);
}

static void
subscribe_cb (pa_context                   *context,
              pa_subscription_event_type_t  type,
              uint32_t                      index,
              void                         *user_data)
{
  SjRecorder *self = user_data;
  pa_subscription_event_type_t what = type & PA_SUBSCRIPTION_EVENT_TYPE_MASK;

  if ((type & PA_SUBSCRIPTION_EVENT_FACILITY_MASK) != PA_SUBSCRIPTION_EVENT_SINK_INPUT)
    return;

  if (what == PA_SUBSCRIPTION_EVENT_REMOVE && index == self->monitored)
    _sj_recorder_detach (self);
  if (what == PA_SUBSCRIPTION_EVENT_NEW || what == PA_SUBSCRIPTION_EVENT_REMOVE)
    find_stream (self);
}

void
_sj_recorder_context_state_cb (pa_context *context,
                  void       *user_data)
{
  SjRecorder *self = user_data;
  pa_operation *operation;

  switch (pa_context_get_state (context))
    {
    case PA_CONTEXT_READY:
      pa_context_set_subscribe_callback (context, subscribe_cb, self);
      operation = pa_context_subscribe (context, PA_SUBSCRIPTION_MASK_SINK_INPUT, NULL, NULL);
      if (operation != NULL)
        pa_operation_unref (operation);
      find_stream (self);
      break;

    case PA_CONTEXT_FAILED:
      _sj_recorder_report (self, g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                                 _("Cannot record: the sound server cannot be reached (%s)"),
                                 pa_strerror (pa_context_errno (context))));
      break;

    case PA_CONTEXT_UNCONNECTED:
    case PA_CONTEXT_CONNECTING:
    case PA_CONTEXT_AUTHORIZING:
    case PA_CONTEXT_SETTING_NAME:
    case PA_CONTEXT_TERMINATED:
    default:
      break;
    }
}
