/* sj-renderer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Render to a file, the music playing on (issue 33). Upstream's
 * renderPatternAudio closes the AudioContext of the page it runs in, so it
 * never runs in the page that plays: each render loads a second Strudel
 * page in a hidden web view of its own (its own web process), which gets
 * its sounds through the same strudel-jam:// scheme, sound cache, remote
 * samples and user samples as the live page, renders there
 * (data/web/src/render.mjs) and is thrown away with its process when the
 * render ends or is cancelled. An offline render cannot be stopped from
 * inside; ending the hidden page's process stops it.
 *
 * The rendered files are pulled from the page in bounded pieces and written
 * by SjWavWriter beside their final names, renamed into place only when
 * every file of the render is whole: a failure or Cancel leaves nothing
 * half-written under a chosen name.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-flac-encoder.h"
#include "sj-repl.h"
#include "sj-renderer.h"
#include "sj-wav-writer.h"

/* Loading the hidden page with its prebake; on a loaded 2-core machine it
 * takes seconds. */
#define READY_TIMEOUT_S     60
#define PROGRESS_PERIOD_MS  250

struct _SjRenderer
{
  GObject          parent_instance;

  SjSoundCache    *sound_cache;
  SjRemoteSamples *remote_samples;
  SjUserSamples   *user_samples;
  double           progress;
};

G_DEFINE_FINAL_TYPE (SjRenderer, sj_renderer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PROGRESS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct
{
  SjRenderOptions *options;
  SjRepl          *repl;
  GPtrArray       *writers;      /* SjWavWriter, one per rendered file */
  JsonArray       *files;        /* the page's [{name, layer, bytes}] */
  JsonArray       *changes;      /* a jam's [{at, seconds, cps, origin}], or NULL */
  double           cps;
  double           seconds;
  guint            index;        /* the file being pulled */
  guint64          offset;
  gulong           ready_handler;
  GCancellable    *cancellable;
  gulong           cancelled_handler;
  guint            ready_timeout;
  guint            progress_source;
  gboolean         progress_pending;
} Job;

static void
job_free (Job *job)
{
  if (job->cancellable != NULL)
    g_cancellable_disconnect (job->cancellable, job->cancelled_handler);
  g_clear_object (&job->cancellable);
  g_clear_handle_id (&job->ready_timeout, g_source_remove);
  g_clear_handle_id (&job->progress_source, g_source_remove);
  g_clear_signal_handler (&job->ready_handler, job->repl);
  /* Not committed: the temporary files go (SjWavWriter's finalize). */
  g_clear_pointer (&job->writers, g_ptr_array_unref);
  g_clear_pointer (&job->files, json_array_unref);
  g_clear_object (&job->repl);
  sj_render_options_free (job->options);
  g_clear_pointer (&job->changes, json_array_unref);
  g_free (job);
}

static void
set_progress (SjRenderer *self,
              double      progress)
{
  if (self->progress == progress)
    return;
  self->progress = progress;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
}

/* Ends the task: the hidden page and its process go at once (a render it
 * may still be running with them), so that Cancel frees the CPU. */
static void
fail (GTask  *task,
      GError *error)
{
  Job *job = g_task_get_task_data (task);

  g_clear_handle_id (&job->ready_timeout, g_source_remove);
  g_clear_handle_id (&job->progress_source, g_source_remove);
  g_clear_signal_handler (&job->ready_handler, job->repl);
  for (guint i = 0; job->writers != NULL && i < job->writers->len; i++)
    sj_wav_writer_abort (g_ptr_array_index (job->writers, i));
  g_clear_object (&job->repl);
  g_task_return_error (task, error);
}

static double
dbfs (double linear)
{
  return linear > 0 ? MAX (20 * log10 (linear), -120) : -120;
}

static JsonObject *
summary (Job *job)
{
  JsonObject *object = json_object_new ();
  JsonArray *files = json_array_new ();
  double peak = 0, rms = 0;
  guint channels = 0, rate = 0;
  guint64 frames = 0;

  for (guint i = 0; i < job->writers->len; i++)
    {
      SjWavWriter *writer = g_ptr_array_index (job->writers, i);
      JsonObject *page_file = json_array_get_object_element (job->files, i);
      JsonObject *file = json_object_new ();
      gboolean is_mix = i == 0 && job->options->output != NULL;

      json_object_set_string_member (file, "path", sj_wav_writer_get_path (writer));
      json_object_set_string_member (file, "layer", is_mix ? "mix" : json_object_get_string_member_with_default (page_file, "name", ""));
      json_object_set_int_member (file, "frames", sj_wav_writer_get_frames (writer));
      json_object_set_double_member (file, "peak", sj_wav_writer_get_peak (writer));
      json_object_set_double_member (file, "peakDbfs", dbfs (sj_wav_writer_get_peak (writer)));
      json_object_set_double_member (file, "rms", sj_wav_writer_get_rms (writer));
      json_object_set_double_member (file, "rmsDbfs", dbfs (sj_wav_writer_get_rms (writer)));
      json_array_add_object_element (files, file);

      /* The figures are the mix's; with stems only, the loudest stem's. */
      if (is_mix || (job->options->output == NULL && sj_wav_writer_get_peak (writer) >= peak))
        {
          peak = sj_wav_writer_get_peak (writer);
          rms = sj_wav_writer_get_rms (writer);
        }
      channels = sj_wav_writer_get_channels (writer);
      rate = sj_wav_writer_get_rate (writer);
      frames = sj_wav_writer_get_frames (writer);
    }

  json_object_set_string_member (object, "status", "ok");
  json_object_set_double_member (object, "seconds", rate > 0 ? (double)frames / rate : job->seconds);
  json_object_set_int_member (object, "cycles", job->options->cycles);
  json_object_set_double_member (object, "cps", job->cps);
  json_object_set_int_member (object, "sampleRate", rate);
  json_object_set_int_member (object, "channels", channels);
  json_object_set_string_member (object, "format",
                                 job->options->output != NULL && sj_path_is_flac (job->options->output) ? "flac" : "wav-pcm16");
  json_object_set_double_member (object, "peak", peak);
  json_object_set_double_member (object, "peakDbfs", dbfs (peak));
  json_object_set_double_member (object, "rms", rms);
  json_object_set_double_member (object, "rmsDbfs", dbfs (rms));
  json_object_set_array_member (object, "files", files);
  if (job->changes != NULL)
    json_object_set_array_member (object, "changes", json_array_ref (job->changes));

  return object;
}

static void pull_next (GTask *task);

static void
chunk_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  SjWavWriter *writer;
  gsize size;
  const guint8 *data;

  if ((bytes = sj_repl_render_chunk_finish (SJ_REPL (object), result, &error)) == NULL)
    return fail (task, g_steal_pointer (&error));

  data = g_bytes_get_data (bytes, &size);
  writer = g_ptr_array_index (job->writers, job->index);
  if (size == 0)
    {
      job->index++;
      job->offset = 0;
    }
  else if (!sj_wav_writer_write (writer, data, size, &error))
    return fail (task, g_steal_pointer (&error));
  else
    job->offset += size;

  pull_next (task);
}

static void
pull_next (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (job->index < job->writers->len)
    {
      sj_repl_render_chunk_async (job->repl, job->index, job->offset, g_task_get_cancellable (task),
                                  chunk_cb, g_object_ref (task));
      return;
    }

  /* Every file is whole: only now do they take their names. */
  for (guint i = 0; i < job->writers->len; i++)
    if (!sj_wav_writer_commit (g_ptr_array_index (job->writers, i), &error))
      return fail (task, g_steal_pointer (&error));

  g_clear_object (&job->repl);
  set_progress (g_task_get_source_object (task), 1);
  g_task_return_pointer (task, summary (job), (GDestroyNotify)json_object_unref);
}

static void
rendered_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *files;

  g_clear_handle_id (&job->progress_source, g_source_remove);

  if ((answer = sj_repl_render_finish (SJ_REPL (object), result, &error)) == NULL)
    return fail (task, g_steal_pointer (&error));

  if (!json_object_get_boolean_member_with_default (answer, "ok", FALSE))
    {
      const char *code = json_object_get_string_member_with_default (answer, "code", "");

      return fail (task, g_error_new (SJ_RENDER_ERROR,
                                      g_strcmp0 (code, "too-long") == 0 ? SJ_RENDER_ERROR_TOO_LONG
                                                                        : SJ_RENDER_ERROR_PATTERN,
                                      "%s", json_object_get_string_member_with_default (answer, "error", "")));
    }

  files = json_object_get_array_member (answer, "files");
  job->files = files != NULL ? json_array_ref (files) : json_array_new ();
  job->cps = json_object_get_double_member_with_default (answer, "cps", job->options->cps);
  /* A jam's length follows the tempos its codes set. */
  job->options->cycles = json_object_get_int_member_with_default (answer, "cycles", job->options->cycles);
  if (json_object_has_member (answer, "changes") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (answer, "changes")))
    job->changes = json_array_ref (json_object_get_array_member (answer, "changes"));
  job->seconds = json_object_get_double_member_with_default (answer, "seconds", 0);
  job->writers = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < json_array_get_length (job->files); i++)
    {
      JsonObject *file = json_array_get_object_element (job->files, i);
      g_autofree char *path = NULL;
      SjWavWriter *writer;

      if (file == NULL)
        return fail (task, g_error_new_literal (SJ_RENDER_ERROR, SJ_RENDER_ERROR_PAGE,
                                                _("The Strudel page answered with something other than a render result")));
      if (i == 0 && job->options->output != NULL)
        path = g_strdup (job->options->output);
      else
        path = sj_render_stem_path (job->options->stems_dir, i - (job->options->output != NULL ? 1 : 0),
                                    json_object_get_string_member_with_default (file, "name", ""));
      if ((writer = sj_wav_writer_new (path, &error)) == NULL)
        return fail (task, g_steal_pointer (&error));
      g_ptr_array_add (job->writers, writer);
    }

  if (job->writers->len == 0)
    return fail (task, g_error_new_literal (SJ_RENDER_ERROR, SJ_RENDER_ERROR_PAGE, _("The render produced no file")));

  pull_next (task);
}

static void
progress_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);
  double progress = sj_repl_render_progress_finish (SJ_REPL (object), result, NULL);

  job->progress_pending = FALSE;
  /* The render's own part is the first 95 %; the writing is the rest. */
  if (progress >= 0 && !g_task_get_completed (task))
    set_progress (g_task_get_source_object (task), progress * 0.95);
}

static gboolean
progress_tick_cb (gpointer user_data)
{
  GTask *task = user_data;
  Job *job = g_task_get_task_data (task);

  if (!job->progress_pending && job->repl != NULL)
    {
      job->progress_pending = TRUE;
      sj_repl_render_progress_async (job->repl, g_task_get_cancellable (task), progress_cb, g_object_ref (task));
    }

  return G_SOURCE_CONTINUE;
}

static void
start_render (GTask *task)
{
  Job *job = g_task_get_task_data (task);
  gboolean stems = job->options->stems_dir != NULL;
  /* The render itself, however slow the machine: ten times real time per
   * file, and a minute to load the sounds. */
  double seconds = job->options->cycles / job->options->cps;
  guint timeout_ms = (guint)MIN ((60 + seconds * 10 * (stems ? 4 : 1)) * 1000, G_MAXUINT / 2);

  job->progress_source = g_timeout_add (PROGRESS_PERIOD_MS, progress_tick_cb, task);
  /* A jam's changes are each evaluated first: a second apiece at most. */
  if (job->options->timeline != NULL)
    timeout_ms = (guint)MIN (timeout_ms + (double)job->options->n_changes * 1000, G_MAXUINT / 2);
  sj_repl_render_async (job->repl, job->options->code, job->options->timeline,
                        job->options->timeline != NULL ? (guint)job->options->tail : (guint)job->options->cycles,
                        job->options->cps,
                        SJ_RENDER_SAMPLE_RATE, SJ_RENDER_MAX_SECONDS, job->options->output != NULL, stems,
                        timeout_ms, g_task_get_cancellable (task), rendered_cb, g_object_ref (task));
}

static void
ready_cb (SjRepl *repl,
          GTask  *task)
{
  Job *job = g_task_get_task_data (task);

  g_clear_handle_id (&job->ready_timeout, g_source_remove);
  g_clear_signal_handler (&job->ready_handler, job->repl);
  start_render (task);
  g_object_unref (task);
}

static gboolean
ready_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  Job *job = g_task_get_task_data (task);

  job->ready_timeout = 0;
  fail (task, g_error_new_literal (SJ_RENDER_ERROR, SJ_RENDER_ERROR_PAGE,
                                   _("The Strudel page for rendering did not start in time")));
  g_object_unref (task);

  return G_SOURCE_REMOVE;
}

static gboolean
cancelled_idle_cb (gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Job *job = g_task_get_task_data (task);

  /* Only while waiting for the page (the calls to it end by themselves),
   * dropping the reference the task held on itself for that wait. */
  if (job->ready_handler == 0 || g_task_get_completed (task))
    return G_SOURCE_REMOVE;
  fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Rendering was cancelled")));
  g_object_unref (task);

  return G_SOURCE_REMOVE;
}

/* Inside g_cancellable_cancel (), where nothing may disconnect: the rest
 * happens from an idle. */
static void
cancelled_cb (GCancellable *cancellable,
              GTask        *task)
{
  g_idle_add (cancelled_idle_cb, g_object_ref (task));
}

/**
 * sj_renderer_render_async:
 *
 * Renders @options (checked first: sj_render_options_check ()) in a hidden
 * page of its own. The result is the summary the command line prints.
 */
void
sj_renderer_render_async (SjRenderer             *self,
                          const SjRenderOptions  *options,
                          GCancellable           *cancellable,
                          GAsyncReadyCallback     callback,
                          gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  Job *job;

  g_return_if_fail (SJ_IS_RENDERER (self));
  g_return_if_fail (options != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_renderer_render_async);
  set_progress (self, 0);

  if (!sj_render_options_check (options, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  job = g_new0 (Job, 1);
  job->options = sj_render_options_new ();
  job->options->code = g_strdup (options->code);
  job->options->cycles = options->cycles;
  job->options->cps = options->cps;
  job->options->output = g_strdup (options->output);
  job->options->stems_dir = g_strdup (options->stems_dir);
  job->options->timeline = g_strdup (options->timeline);
  job->options->tail = options->tail;
  job->options->n_changes = options->n_changes;
  job->options->limiter = options->limiter;
  job->cps = options->cps;
  g_task_set_task_data (task, job, (GDestroyNotify)job_free);

  job->repl = sj_repl_new ();
  /* The mix goes through the master limiter as the live page's output does
   * (limiter.mjs, limitRender), when it is on. */
  sj_repl_set_limiter (job->repl, options->limiter);
  if (self->sound_cache != NULL)
    sj_repl_set_sound_cache (job->repl, self->sound_cache);
  if (self->remote_samples != NULL)
    sj_repl_set_remote_samples (job->repl, self->remote_samples);
  if (self->user_samples != NULL)
    sj_repl_set_user_samples (job->repl, self->user_samples);

  /* The task holds itself while the page loads; ready, the timeout or
   * Cancel lets go of that reference. */
  job->ready_handler = g_signal_connect (job->repl, "ready", G_CALLBACK (ready_cb), task);
  job->ready_timeout = g_timeout_add_seconds (READY_TIMEOUT_S, ready_timeout_cb, task);
  if (cancellable != NULL)
    {
      job->cancellable = g_object_ref (cancellable);
      job->cancelled_handler = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb), task, NULL);
    }
  g_object_ref (task);
  sj_repl_load (job->repl, "");
}

/* Returns: (transfer full): the summary, {status, seconds, peak, rms, …, files} */
JsonObject *
sj_renderer_render_finish (SjRenderer    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The part of the render done, 0 to 1. */
double
sj_renderer_get_progress (SjRenderer *self)
{
  g_return_val_if_fail (SJ_IS_RENDERER (self), 0);

  return self->progress;
}

SjRenderer *
sj_renderer_new (SjSoundCache    *sound_cache,
                 SjRemoteSamples *remote_samples,
                 SjUserSamples   *user_samples)
{
  SjRenderer *self = g_object_new (SJ_TYPE_RENDERER, NULL);

  g_set_object (&self->sound_cache, sound_cache);
  g_set_object (&self->remote_samples, remote_samples);
  g_set_object (&self->user_samples, user_samples);

  return self;
}

static void
sj_renderer_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  SjRenderer *self = SJ_RENDERER (object);

  switch (prop_id)
    {
    case PROP_PROGRESS:
      g_value_set_double (value, self->progress);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_renderer_finalize (GObject *object)
{
  SjRenderer *self = (SjRenderer *)object;

  g_clear_object (&self->sound_cache);
  g_clear_object (&self->remote_samples);
  g_clear_object (&self->user_samples);

  G_OBJECT_CLASS (sj_renderer_parent_class)->finalize (object);
}

static void
sj_renderer_class_init (SjRendererClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sj_renderer_get_property;
  object_class->finalize = sj_renderer_finalize;

  properties[PROP_PROGRESS] =
    g_param_spec_double ("progress", NULL, NULL, 0, 1, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sj_renderer_init (SjRenderer *self)
{
}
