/* sj-recorder-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The recorder's state, shared by its two halves: sj-recorder.c (the
 * public object and the writing thread) and sj-recorder-pulse.c (the sound
 * server's side, which finds the web process's stream and monitors it).
 */

#pragma once

#include <pulse/pulseaudio.h>

#include "sj-recorder.h"
#include "sj-recording-writer.h"

G_BEGIN_DECLS

#define CHANNELS      2
#define FRAGMENT_MS   100

struct _SjRecorder
{
  GObject               parent_instance;

  char                 *application_name;
  char                 *binary;
  GMainContext         *main_context;

  /* The sound server's side: touched in its thread, or under its lock. */
  pa_threaded_mainloop *mainloop;
  pa_context           *context;
  pa_stream            *stream;
  guint32               monitored;      /* the sink input, or PA_INVALID_INDEX */
  guint32               pending;        /* the sink input being attached */
  guint32               newest;         /* while listing */
  guint32               newest_sink;
  guint                 newest_rate;
  guint                 rate;           /* set once, at the first attach */

  /* The writing side. */
  SjRecordingWriter    *writer;
  GThread              *thread;
  GAsyncQueue          *queue;          /* GBytes, then the end mark */

  /* Shared, under lock. */
  GMutex                lock;
  guint64               frames;
  guint64               bytes;
  gboolean              attached;
  gboolean              began;
  GError               *error;          /* the first failure */
  gboolean              failed_emitted;
};

void _sj_recorder_report           (SjRecorder *self,
                                    GError     *error);
void _sj_recorder_context_state_cb (pa_context *context,
                                    void       *user_data);
void _sj_recorder_detach           (SjRecorder *self);

G_END_DECLS
