/* sj-recorder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Record what you hear (issue 33): the app's live output, agent changes
 * and all, to a WAV or FLAC file, while it plays.
 *
 * Why libpulse and a monitor of one stream. The sound the app plays leaves
 * the web process as one playback stream (a sink input) of the sound
 * server (PulseAudio, or PipeWire through pipewire-pulse). A record stream
 * with pa_stream_set_monitor_stream() on that sink input receives exactly
 * its samples: nothing another application plays into the same output, and
 * nothing is added to the page (a tap in the page, an AudioWorklet on its
 * master, costs about 17 % of a core, issue 29, and would run on the audio
 * thread). The sink's monitor would mix in every other application, and
 * GStreamer's pulsesrc cannot monitor one stream.
 *
 * Finding the stream. WebKit's web process runs in a sandbox with its own
 * PID namespace, so the stream's application.process.id is not a PID we
 * know (it is 2). WebKit names the stream after the application
 * (application.name is the UI process's g_get_application_name ()), and
 * its binary is WebKitWebProcess; the recorder takes the newest sink input
 * with both. The hidden page a render uses plays into an offline context,
 * so it has no stream. When the stream goes (the page's audio restarted),
 * the recording waits for the next one and goes on in the same file.
 *
 * Threads. libpulse runs in its own thread (pa_threaded_mainloop); its
 * read callback only copies the samples into a queue. A writing thread of
 * the recorder's own takes them from the queue and writes the file
 * (SjRecordingWriter), so a slow disk never holds up the sound server's
 * thread, the main loop or, of course, the page's audio thread. An error
 * in either thread ends up, once, as the "failed" signal on the main
 * context; the music is never touched.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <pulse/pulseaudio.h>

#include "sj-recorder-private.h"
#include "sj-recording-writer.h"

G_DEFINE_FINAL_TYPE (SjRecorder, sj_recorder, G_TYPE_OBJECT)

enum {
  FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The queue's end mark: not a GBytes. */
static guint8 end_mark;

/* Errors ----------------------------------------------------------------*/

static gboolean
emit_failed_cb (gpointer data)
{
  SjRecorder *self = data;
  g_autoptr(GError) error = NULL;

  g_mutex_lock (&self->lock);
  if (!self->failed_emitted && self->error != NULL)
    {
      error = g_error_copy (self->error);
      self->failed_emitted = TRUE;
    }
  g_mutex_unlock (&self->lock);

  if (error != NULL)
    g_signal_emit (self, signals[FAILED], 0, error);

  return G_SOURCE_REMOVE;
}

/* From any thread: keeps the first error and says it on the main context. */
void
_sj_recorder_report (SjRecorder *self,
        GError     *error)
{
  gboolean first;

  g_mutex_lock (&self->lock);
  first = self->error == NULL;
  if (first)
    self->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&self->lock);

  if (first)
    g_main_context_invoke_full (self->main_context, G_PRIORITY_DEFAULT, emit_failed_cb,
                                g_object_ref (self), g_object_unref);
}

/* The writing thread -----------------------------------------------------*/

static gpointer
write_thread (gpointer data)
{
  SjRecorder *self = data;
  gboolean failed = FALSE;

  for (;;)
    {
      gpointer item = g_async_queue_pop (self->queue);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      gsize size;
      const guint8 *samples;

      if (item == &end_mark)
        break;
      bytes = item;
      if (failed)
        continue;     /* emptied, not written: the recording has stopped */

      samples = g_bytes_get_data (bytes, &size);
      if ((!self->began && !sj_recording_writer_begin (self->writer, self->rate, CHANNELS, &error)) ||
          !sj_recording_writer_write (self->writer, samples, size, &error))
        {
          failed = TRUE;
          _sj_recorder_report (self, g_steal_pointer (&error));
          continue;
        }

      g_mutex_lock (&self->lock);
      self->began = TRUE;
      self->frames = sj_recording_writer_get_frames (self->writer);
      self->bytes = sj_recording_writer_get_bytes (self->writer);
      g_mutex_unlock (&self->lock);
    }

  return NULL;
}

/* Public ----------------------------------------------------------------*/

/**
 * sj_recorder_new:
 * @application_name: the application.name of the stream to record
 * @binary: (nullable): its application.process.binary too, if not %NULL
 *
 * Returns: (transfer full): a recorder of the newest stream with these
 *   properties (the app: g_get_application_name () and "WebKitWebProcess")
 */
SjRecorder *
sj_recorder_new (const char *application_name,
                 const char *binary)
{
  SjRecorder *self;

  g_return_val_if_fail (application_name != NULL, NULL);

  self = g_object_new (SJ_TYPE_RECORDER, NULL);
  self->application_name = g_strdup (application_name);
  self->binary = g_strdup (binary);

  return self;
}

/**
 * sj_recorder_start:
 * @path: a new .wav or .flac file
 *
 * Creates the file and starts listening for the app's stream (recording
 * starts when it plays). Fails at once if the file cannot be made or the
 * sound server cannot be reached; later failures are the "failed" signal.
 */
gboolean
sj_recorder_start (SjRecorder  *self,
                   const char  *path,
                   GError     **error)
{
  g_autoptr(SjRecordingWriter) writer = NULL;
  pa_proplist *props;

  g_return_val_if_fail (SJ_IS_RECORDER (self), FALSE);
  g_return_val_if_fail (self->writer == NULL, FALSE);

  if ((writer = sj_recording_writer_new (path, error)) == NULL)
    return FALSE;

  g_clear_error (&self->error);
  self->failed_emitted = FALSE;
  self->frames = self->bytes = 0;
  self->began = self->attached = FALSE;
  self->rate = 0;
  self->monitored = self->pending = PA_INVALID_INDEX;
  g_clear_pointer (&self->main_context, g_main_context_unref);
  self->main_context = g_main_context_ref_thread_default ();

  /* The queue and its writer first: once the sound server's thread runs,
   * its read callback may push samples at any moment. */
  self->writer = g_steal_pointer (&writer);
  self->queue = g_async_queue_new ();
  self->thread = g_thread_new ("sj-recorder", write_thread, self);

  self->mainloop = pa_threaded_mainloop_new ();
  props = pa_proplist_new ();
  pa_proplist_sets (props, PA_PROP_APPLICATION_NAME, "Strudel Jam");
  pa_proplist_sets (props, PA_PROP_APPLICATION_ID, "io.github.strudeljam.StrudelJam");
  self->context = pa_context_new_with_proplist (pa_threaded_mainloop_get_api (self->mainloop),
                                                "Strudel Jam recorder", props);
  pa_proplist_free (props);
  pa_context_set_state_callback (self->context, _sj_recorder_context_state_cb, self);
  if (pa_context_connect (self->context, NULL, PA_CONTEXT_NOFLAGS, NULL) < 0 ||
      pa_threaded_mainloop_start (self->mainloop) < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, _("Cannot record: the sound server cannot be reached (%s)"),
                   pa_strerror (pa_context_errno (self->context)));
      pa_context_unref (self->context);
      self->context = NULL;
      pa_threaded_mainloop_free (self->mainloop);
      self->mainloop = NULL;
      g_async_queue_push (self->queue, &end_mark);
      g_thread_join (g_steal_pointer (&self->thread));
      g_clear_pointer (&self->queue, g_async_queue_unref);
      g_clear_object (&self->writer);
      g_unlink (path);
      return FALSE;
    }

  return TRUE;
}

static void
stop_sound_server (SjRecorder *self)
{
  if (self->mainloop == NULL)
    return;

  pa_threaded_mainloop_lock (self->mainloop);
  _sj_recorder_detach (self);
  pa_context_set_state_callback (self->context, NULL, NULL);
  pa_context_set_subscribe_callback (self->context, NULL, NULL);
  pa_context_disconnect (self->context);
  pa_context_unref (self->context);
  self->context = NULL;
  pa_threaded_mainloop_unlock (self->mainloop);
  pa_threaded_mainloop_stop (self->mainloop);
  pa_threaded_mainloop_free (self->mainloop);
  self->mainloop = NULL;
}

/**
 * sj_recorder_stop:
 *
 * Stops capturing, writes what is queued and closes the file. A recording
 * that never heard the app (nothing played) leaves no file.
 *
 * Returns: %FALSE with @error if writing failed at any point (the file
 *   then holds what was written before)
 */
gboolean
sj_recorder_stop (SjRecorder  *self,
                  GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean began;

  g_return_val_if_fail (SJ_IS_RECORDER (self), FALSE);

  if (self->writer == NULL)
    return TRUE;

  stop_sound_server (self);
  g_async_queue_push (self->queue, &end_mark);
  g_thread_join (g_steal_pointer (&self->thread));
  g_clear_pointer (&self->queue, g_async_queue_unref);

  g_mutex_lock (&self->lock);
  began = self->began;
  if (self->error != NULL)
    local_error = g_error_copy (self->error);
  self->failed_emitted = TRUE;
  g_mutex_unlock (&self->lock);

  if (!began)
    {
      g_unlink (sj_recording_writer_get_path (self->writer));
      if (local_error == NULL)
        g_set_error_literal (&local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                             _("Nothing played while recording, so no file was kept"));
    }
  else
    {
      g_autoptr(GError) close_error = NULL;

      if (!sj_recording_writer_close (self->writer, &close_error) && local_error == NULL)
        local_error = g_steal_pointer (&close_error);
    }

  g_mutex_lock (&self->lock);
  self->bytes = sj_recording_writer_get_bytes (self->writer);
  g_mutex_unlock (&self->lock);

  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      g_clear_object (&self->writer);
      return FALSE;
    }

  g_clear_object (&self->writer);

  return TRUE;
}

gboolean
sj_recorder_is_recording (SjRecorder *self)
{
  g_return_val_if_fail (SJ_IS_RECORDER (self), FALSE);

  return self->writer != NULL;
}

const char *
sj_recorder_get_path (SjRecorder *self)
{
  g_return_val_if_fail (SJ_IS_RECORDER (self), NULL);

  return self->writer != NULL ? sj_recording_writer_get_path (self->writer) : NULL;
}

/* The seconds of sound written so far. */
double
sj_recorder_get_seconds (SjRecorder *self)
{
  double seconds;

  g_return_val_if_fail (SJ_IS_RECORDER (self), 0);

  g_mutex_lock (&self->lock);
  seconds = self->rate > 0 ? (double)self->frames / self->rate : 0;
  g_mutex_unlock (&self->lock);

  return seconds;
}

/* The file's size so far. */
guint64
sj_recorder_get_bytes (SjRecorder *self)
{
  guint64 bytes;

  g_return_val_if_fail (SJ_IS_RECORDER (self), 0);

  g_mutex_lock (&self->lock);
  bytes = self->bytes;
  g_mutex_unlock (&self->lock);

  return bytes;
}

/* Whether the app's stream is being captured now. */
gboolean
sj_recorder_is_attached (SjRecorder *self)
{
  gboolean attached;

  g_return_val_if_fail (SJ_IS_RECORDER (self), FALSE);

  g_mutex_lock (&self->lock);
  attached = self->attached;
  g_mutex_unlock (&self->lock);

  return attached;
}

/**
 * sj_recorder_default_path:
 * @music_dir: the user's Music folder
 * @extension: "flac" or "wav"
 *
 * Returns: (transfer full): "MUSIC/Strudel Jam/Jam 2026-11-29 10.15.02.flac",
 *   its folder made if need be
 */
char *
sj_recorder_default_path (const char *music_dir,
                          GDateTime  *now,
                          const char *extension)
{
  g_autofree char *folder = g_build_filename (music_dir, "Strudel Jam", NULL);
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d %H.%M.%S");
  /* TRANSLATORS: a recording's file name; %s is the date and time */
  g_autofree char *name = g_strdup_printf (_("Jam %s.%s"), stamp, extension);

  g_mkdir_with_parents (folder, 0755);

  return g_build_filename (folder, name, NULL);
}

/* GObject ---------------------------------------------------------------*/

static void
sj_recorder_dispose (GObject *object)
{
  SjRecorder *self = (SjRecorder *)object;

  /* Quitting while recording: the file is closed whole. */
  if (self->writer != NULL)
    sj_recorder_stop (self, NULL);

  G_OBJECT_CLASS (sj_recorder_parent_class)->dispose (object);
}

static void
sj_recorder_finalize (GObject *object)
{
  SjRecorder *self = (SjRecorder *)object;

  g_clear_error (&self->error);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_free (self->application_name);
  g_free (self->binary);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (sj_recorder_parent_class)->finalize (object);
}

static void
sj_recorder_class_init (SjRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_recorder_dispose;
  object_class->finalize = sj_recorder_finalize;

  /**
   * SjRecorder::failed:
   * @error: why (a full disk, the sound server gone)
   *
   * Writing stopped; the file holds what was written before. Stop the
   * recorder to close it.
   */
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sj_recorder_init (SjRecorder *self)
{
  g_mutex_init (&self->lock);
  self->monitored = self->pending = self->newest = PA_INVALID_INDEX;
}
