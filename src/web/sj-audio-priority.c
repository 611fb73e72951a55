/* sj-audio-priority.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Real-time priority for WebKit's audio output threads, only while playing.
 *
 * WebKit renders Web Audio on a real-time thread, but the GStreamer threads
 * of its web process that carry the rendered audio to the sound server
 * (the webaudiosrc task that pulls each render quantum, PulseAudio's
 * threaded mainloop, a ring buffer thread with other sinks) run at normal
 * priority: on a busy machine they miss a deadline now and then, and the
 * sound drops out. bench/README.md "Playing for hours, part two" has the
 * measurement. While the page plays, those threads are promoted through
 * SjRealtime (directly, or rtkit, or the Realtime portal); when it stops,
 * they go back to normal.
 *
 * The threads belong to the web process, which WebKit does not name: it
 * is found among this process's descendants by its name. They appear when
 * the AudioContext starts, and GStreamer may replace them, so they are
 * looked for again every few seconds while playing.
 *
 * And while playing, the web process's main thread, which WebKit itself
 * runs at RR 5, is put back to normal priority (issue 35). WebKit's
 * allocator (libpas) guards its heap with spin locks that wait by
 * sched_yield (): when a normal thread (a JIT worker, the scavenger) holds
 * one and two real-time threads want it on a 2-core machine, the holder
 * never runs and they spin until the kernel's real-time throttling stops
 * them, 950 ms of every second: the music stopped for a second at a time
 * (bench/README.md has the trace). With the main thread, which allocates
 * the most, out of the real-time class those stalls are gone.
 *
 * The "realtime-audio" setting turns it off; STRUDEL_JAM_REALTIME=0 too
 * (for measuring with and without).
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sj-audio-priority.h"
#include "sj-realtime.h"

/* WebKit runs its audio rendering thread, and also the web process's main
 * thread, at RR 5 (WTF's RealTimeThreads). RR 10, above them, measured no
 * better than 5 (bench/README.md), so the output threads take WebKit's own
 * level. STRUDEL_JAM_REALTIME=N asks for N instead (measurements). */
#define PRIORITY 5
#define RESCAN_SECONDS 3

static const char * const output_threads[] = {
  "webaudioSrc:src",          /* the webaudiosrc task: renders and pushes */
  "webaudioSrcTask",
  "threaded-ml",              /* pulsesink's mainloop */
  "audiosink-ringbuffer",     /* alsasink and other GstAudioSink sinks */
  "pw-data-loop",             /* pipewiresink */
  NULL
};

/* "WebCore: AudioWorklet", named by its last 15 bytes. Once a page has an
 * AudioWorklet (superdough adds its own at start), WebKit renders the whole
 * graph on that thread, not on its real-time audio thread, and it runs at
 * normal priority: on a busy machine it waited up to 85 ms in a 50 ms
 * sample to be scheduled (bench/soak --trace, issue 35). It goes one level
 * above the others, and so above the web process's main thread, which
 * WebKit runs at RR 5 too until it is demoted (below): at the same level a
 * busy main thread would hold it off for a whole round-robin slice
 * (100 ms). */
static const char * const render_threads[] = {
  "e: AudioWorklet",
  NULL
};

struct _SjAudioPriority
{
  GObject       parent_instance;

  SjRepl       *repl;        /* weak: the repl owns this */
  SjRealtime   *realtime;
  GSettings    *settings;    /* NULL without the installed schema */
  GCancellable *cancellable;
  guint         rescan_id;
  guint         promoted;
  guint         demoted;
  gboolean      refused_logged;
};

G_DEFINE_FINAL_TYPE (SjAudioPriority, sj_audio_priority, G_TYPE_OBJECT)

static gboolean
enabled (SjAudioPriority *self)
{
  if (g_strcmp0 (g_getenv ("STRUDEL_JAM_REALTIME"), "0") == 0)
    return FALSE;

  return self->settings == NULL || g_settings_get_boolean (self->settings, "realtime-audio");
}

/**
 * sj_audio_priority_find_web_processes:
 *
 * Descendants of this process named like WebKit's web process (bubblewrap
 * may stand in between).
 *
 * Returns: (transfer full): their PIDs
 */
GArray *
sj_audio_priority_find_web_processes (void)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  g_autoptr(GHashTable) parents = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GArray *found = g_array_new (FALSE, FALSE, sizeof (GPid));
  const char *entry;
  GHashTableIter iter;
  gpointer pid, name;

  while (proc != NULL && (entry = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", entry, "stat", NULL);
      g_autofree char *stat = NULL;
      const char *open, *close;
      int id = atoi (entry), ppid = 0;

      if (id <= 0 || !g_file_get_contents (path, &stat, NULL, NULL))
        continue;
      /* "pid (comm) state ppid ...": the name may hold spaces. */
      if ((open = strchr (stat, '(')) == NULL || (close = strrchr (stat, ')')) == NULL ||
          sscanf (close + 2, "%*c %d", &ppid) != 1)
        continue;
      g_hash_table_insert (parents, GINT_TO_POINTER (id), GINT_TO_POINTER (ppid));
      g_hash_table_insert (names, GINT_TO_POINTER (id), g_strndup (open + 1, close - open - 1));
    }

  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, &pid, &name))
    {
      if (!g_str_has_prefix (name, "WebKitWebProces"))
        continue;
      for (int up = GPOINTER_TO_INT (pid); up > 1; up = GPOINTER_TO_INT (g_hash_table_lookup (parents, GINT_TO_POINTER (up))))
        {
          if (up == getpid ())
            {
              GPid web = GPOINTER_TO_INT (pid);

              g_array_append_val (found, web);
              break;
            }
        }
    }

  return found;
}

static guint
priority (void)
{
  const char *env = g_getenv ("STRUDEL_JAM_REALTIME");
  int value = env != NULL ? atoi (env) : 0;

  return value >= 1 && value <= 99 ? (guint)value : PRIORITY;
}

static void
promote_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(SjAudioPriority) self = user_data;
  g_autoptr(GError) error = NULL;
  int promoted = sj_realtime_promote_finish (SJ_REALTIME (object), result, &error);

  if (promoted > 0)
    {
      self->promoted += promoted;
      g_debug ("%d audio output threads now run with real-time priority", promoted);
    }
  else if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
           !self->refused_logged)
    {
      /* Once: without it the music plays as before. */
      self->refused_logged = TRUE;
      g_message ("Audio output threads keep normal priority: %s", error->message);
    }
}

/* The web process's main thread is its first: its ID is the process's.
 * WebKit may make it real-time again (a new AudioContext), so this is done
 * at every rescan; it is not put back when the music stops. */
static void
demote_main_thread (SjAudioPriority *self,
                    GPid             pid)
{
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (g_getenv ("STRUDEL_JAM_REALTIME_MAIN"), "1") == 0)
    return;
  if (sj_realtime_demote (self->realtime, pid, &error))
    {
      self->demoted++;
      g_debug ("The web process's main thread (%d) now runs at normal priority", pid);
    }
  else if (error != NULL)
    g_debug ("%s", error->message);
}

static gboolean
rescan_cb (gpointer user_data)
{
  SjAudioPriority *self = user_data;
  g_autoptr(GArray) pids = sj_audio_priority_find_web_processes ();

  for (guint i = 0; i < pids->len; i++)
    {
      GPid pid = g_array_index (pids, GPid, i);

      sj_realtime_promote_async (self->realtime, pid, output_threads, priority (),
                                 self->cancellable, promote_cb, g_object_ref (self));
      sj_realtime_promote_async (self->realtime, pid, render_threads, MIN (priority () + 1, 99),
                                 self->cancellable, promote_cb, g_object_ref (self));
      demote_main_thread (self, pid);
    }

  return G_SOURCE_CONTINUE;
}

static void
stop (SjAudioPriority *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  sj_realtime_release (self->realtime);
  self->promoted = 0;
}

static void
update (SjAudioPriority *self)
{
  gboolean playing = self->repl != NULL && sj_repl_get_state (self->repl)->playing;

  if (playing && enabled (self))
    {
      if (self->rescan_id == 0)
        {
          self->cancellable = g_cancellable_new ();
          self->rescan_id = g_timeout_add_seconds (RESCAN_SECONDS, rescan_cb, self);
          rescan_cb (self);
        }
    }
  else
    stop (self);
}

static void
sj_audio_priority_dispose (GObject *object)
{
  SjAudioPriority *self = SJ_AUDIO_PRIORITY (object);

  if (self->repl != NULL)
    g_signal_handlers_disconnect_by_data (self->repl, self);
  g_clear_weak_pointer (&self->repl);
  if (self->realtime != NULL)
    stop (self);
  g_clear_object (&self->realtime);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sj_audio_priority_parent_class)->dispose (object);
}

static void
sj_audio_priority_class_init (SjAudioPriorityClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sj_audio_priority_dispose;
}

static void
sj_audio_priority_init (SjAudioPriority *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = source ? g_settings_schema_source_lookup (source, APP_ID, TRUE) : NULL;

  self->realtime = sj_realtime_new_for_desktop ();
  if (schema != NULL && g_settings_schema_has_key (schema, "realtime-audio"))
    {
      self->settings = g_settings_new (APP_ID);
      g_signal_connect_swapped (self->settings, "changed::realtime-audio", G_CALLBACK (update), self);
    }
}

SjAudioPriority *
sj_audio_priority_new (SjRepl *repl)
{
  SjAudioPriority *self;

  g_return_val_if_fail (SJ_IS_REPL (repl), NULL);

  self = g_object_new (SJ_TYPE_AUDIO_PRIORITY, NULL);
  g_set_weak_pointer (&self->repl, repl);
  g_signal_connect_swapped (repl, "notify::playing", G_CALLBACK (update), self);

  return self;
}

/* How many times the web process's main thread was put back to normal
 * priority (tests). */
guint
sj_audio_priority_get_demoted (SjAudioPriority *self)
{
  g_assert (SJ_IS_AUDIO_PRIORITY (self));

  return self->demoted;
}

/* How many threads run with real-time priority now (tests). */
guint
sj_audio_priority_get_promoted (SjAudioPriority *self)
{
  g_assert (SJ_IS_AUDIO_PRIORITY (self));

  return self->promoted;
}
