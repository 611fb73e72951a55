/* sj-realtime.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Real-time scheduling for another process's audio threads, the way desktop
 * audio programs get it. WebKit gives real-time priority to its Web Audio
 * rendering thread only; the GStreamer threads that carry the rendered
 * audio to the sound server run at normal priority, and on a busy machine
 * they miss their deadline now and then (an underrun: a dropout).
 *
 * A thread is promoted to SCHED_RR (with SCHED_RESET_ON_FORK, so that what
 * it spawns does not inherit it) directly when the system allows it
 * (CAP_SYS_NICE, or an RLIMIT_RTPRIO granted to audio users), as WebKit's own
 * RealTimeThreads does; otherwise through rtkit's MakeThreadRealtimeWithPID
 * on the system bus, or the Realtime portal (the same method) inside
 * Flatpak. rtkit only grants threads of a process whose RLIMIT_RTTIME is
 * bounded (200 ms by default: a real-time thread that spins that long
 * without sleeping gets SIGXCPU instead of freezing the machine), so that
 * limit is set on the process first.
 *
 * sj_realtime_release() puts every promoted thread back to SCHED_OTHER:
 * real time only while playing.
 */

#define _GNU_SOURCE /* prlimit () */

#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sj-realtime.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* rtkit's default RTTimeUSecMax. */
#define RTTIME_USEC 200000

struct _SjRealtime
{
  GObject          parent_instance;

  GDBusConnection *bus;         /* NULL until first needed (for the desktop) */
  GBusType         bus_type;
  char            *bus_name;
  char            *object_path;
  char            *interface;
  gboolean         allow_direct;
  GHashTable      *promoted;    /* "pid/tid" -> GINT (tid) */
};

G_DEFINE_FINAL_TYPE (SjRealtime, sj_realtime, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-realtime-error-quark, sj_realtime_error)

static void
sj_realtime_finalize (GObject *object)
{
  SjRealtime *self = SJ_REALTIME (object);

  g_clear_object (&self->bus);
  g_free (self->bus_name);
  g_free (self->object_path);
  g_free (self->interface);
  g_hash_table_unref (self->promoted);

  G_OBJECT_CLASS (sj_realtime_parent_class)->finalize (object);
}

static void
sj_realtime_class_init (SjRealtimeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_realtime_finalize;
}

static void
sj_realtime_init (SjRealtime *self)
{
  self->allow_direct = TRUE;
  self->promoted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * sj_realtime_new:
 * @bus: the bus rtkit or the portal is on
 * @bus_name: its well-known name
 * @object_path: its object
 * @portal: %TRUE for org.freedesktop.portal.Realtime, %FALSE for rtkit
 *
 * For tests, which run their own rtkit on a private bus.
 */
SjRealtime *
sj_realtime_new (GDBusConnection *bus,
                 const char      *bus_name,
                 const char      *object_path,
                 gboolean         portal)
{
  SjRealtime *self;

  g_return_val_if_fail (G_IS_DBUS_CONNECTION (bus), NULL);

  self = g_object_new (SJ_TYPE_REALTIME, NULL);
  self->bus = g_object_ref (bus);
  self->bus_name = g_strdup (bus_name);
  self->object_path = g_strdup (object_path);
  self->interface = g_strdup (portal ? "org.freedesktop.portal.Realtime" : "org.freedesktop.RealtimeKit1");

  return self;
}

/**
 * sj_realtime_new_for_desktop:
 *
 * rtkit on the system bus, or the Realtime portal inside Flatpak. The bus
 * is connected to only when a thread cannot be promoted directly.
 */
SjRealtime *
sj_realtime_new_for_desktop (void)
{
  SjRealtime *self = g_object_new (SJ_TYPE_REALTIME, NULL);
  gboolean portal = g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS);

  self->bus_type = portal ? G_BUS_TYPE_SESSION : G_BUS_TYPE_SYSTEM;
  self->bus_name = g_strdup (portal ? "org.freedesktop.portal.Desktop" : "org.freedesktop.RealtimeKit1");
  self->object_path = g_strdup (portal ? "/org/freedesktop/portal/desktop" : "/org/freedesktop/RealtimeKit1");
  self->interface = g_strdup (portal ? "org.freedesktop.portal.Realtime" : "org.freedesktop.RealtimeKit1");

  return self;
}

/* Tests turn the direct way off to reach rtkit even when running with
 * CAP_SYS_NICE. */
void
sj_realtime_set_allow_direct (SjRealtime *self,
                              gboolean    allow_direct)
{
  g_assert (SJ_IS_REALTIME (self));

  self->allow_direct = allow_direct;
}

static char *
thread_key (GPid pid,
            GPid tid)
{
  return g_strdup_printf ("%d/%d", (int)pid, (int)tid);
}

gboolean
sj_realtime_is_promoted (SjRealtime *self,
                         GPid        pid,
                         GPid        tid)
{
  g_autofree char *key = thread_key (pid, tid);

  g_assert (SJ_IS_REALTIME (self));

  return g_hash_table_contains (self->promoted, key);
}

/* The threads of @pid whose name starts with one of @names (the kernel
 * keeps 15 bytes of a thread's name), not promoted yet. */
static GArray *
find_threads (SjRealtime          *self,
              GPid                 pid,
              const char * const  *names,
              GError             **error)
{
  g_autofree char *dir_path = g_strdup_printf ("/proc/%d/task", (int)pid);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GArray) tids = g_array_new (FALSE, FALSE, sizeof (GPid));
  const char *entry;

  if (dir == NULL)
    {
      g_set_error (error, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_NO_PROCESS, "No process %d", (int)pid);
      return NULL;
    }

  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *comm_path = g_build_filename (dir_path, entry, "comm", NULL);
      g_autofree char *comm = NULL;
      GPid tid = atoi (entry);

      if (tid <= 0 || !g_file_get_contents (comm_path, &comm, NULL, NULL))
        continue;
      g_strchomp (comm);
      for (guint i = 0; names[i] != NULL; i++)
        {
          if (comm[0] != '\0' && strncmp (names[i], comm, strlen (comm)) == 0 &&
              !sj_realtime_is_promoted (self, pid, tid))
            {
              g_array_append_val (tids, tid);
              break;
            }
        }
    }

  return g_steal_pointer (&tids);
}

static gboolean
promote_directly (GPid  tid,
                  guint priority)
{
  struct sched_param param = { .sched_priority = (int)priority };

  return sched_setscheduler (tid, SCHED_RR | SCHED_RESET_ON_FORK, &param) == 0;
}

/* rtkit refuses a process whose RLIMIT_RTTIME is unbounded or above its
 * RTTimeUSecMax. */
static void
bound_rttime (GPid pid)
{
  struct rlimit current;

  if (prlimit (pid, RLIMIT_RTTIME, NULL, &current) == 0 &&
      (current.rlim_max == RLIM_INFINITY || current.rlim_max > RTTIME_USEC))
    {
      struct rlimit bounded = { RTTIME_USEC, RTTIME_USEC };

      if (prlimit (pid, RLIMIT_RTTIME, &bounded, NULL) != 0)
        g_debug ("Cannot bound RLIMIT_RTTIME of %d: %s", (int)pid, g_strerror (errno));
    }
}

typedef struct
{
  GPid     pid;
  guint    priority;
  GArray  *pending;   /* TIDs still to ask for */
  int      granted;
  GError  *refused;   /* the first refusal */
} Promotion;

static void
promotion_free (Promotion *promotion)
{
  g_array_unref (promotion->pending);
  g_clear_error (&promotion->refused);
  g_free (promotion);
}

static void ask_next (GTask *task);

static void
record (SjRealtime *self,
        GPid        pid,
        GPid        tid)
{
  g_hash_table_insert (self->promoted, thread_key (pid, tid), GINT_TO_POINTER (tid));
}

static void
make_realtime_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjRealtime *self = g_task_get_source_object (task);
  Promotion *promotion = g_task_get_task_data (task);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  GPid tid = g_array_index (promotion->pending, GPid, 0);

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  g_array_remove_index (promotion->pending, 0);
  if (reply != NULL)
    {
      record (self, promotion->pid, tid);
      promotion->granted++;
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  else if (promotion->refused == NULL)
    {
      g_dbus_error_strip_remote_error (error);
      promotion->refused = g_error_new (SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_REFUSED,
                                        "Real-time scheduling refused: %s", error->message);
    }

  ask_next (g_steal_pointer (&task));
}

static void
ask_next (GTask *task)
{
  SjRealtime *self = g_task_get_source_object (task);
  Promotion *promotion = g_task_get_task_data (task);

  if (promotion->pending->len == 0)
    {
      if (promotion->granted == 0 && promotion->refused != NULL)
        g_task_return_error (task, g_steal_pointer (&promotion->refused));
      else
        g_task_return_int (task, promotion->granted);
      g_object_unref (task);
      return;
    }

  g_dbus_connection_call (self->bus, self->bus_name, self->object_path, self->interface,
                          "MakeThreadRealtimeWithPID",
                          g_variant_new ("(ttu)", (guint64)promotion->pid,
                                         (guint64)g_array_index (promotion->pending, GPid, 0),
                                         promotion->priority),
                          G_VARIANT_TYPE_UNIT, G_DBUS_CALL_FLAGS_NONE, 5000,
                          g_task_get_cancellable (task), make_realtime_cb, task);
}

static void
bus_get_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  SjRealtime *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);

  if (bus == NULL)
    {
      g_task_return_new_error (task, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_REFUSED,
                               "Real-time scheduling is not available: %s", error->message);
      g_object_unref (task);
      return;
    }
  if (self->bus == NULL)
    self->bus = bus;
  else
    g_object_unref (bus);

  ask_next (task);
}

/**
 * sj_realtime_promote_async:
 * @pid: the process
 * @thread_names: its threads to promote, by name (prefixes of 15 bytes
 *   or more match the kernel's truncated names)
 * @priority: the SCHED_RR priority
 *
 * Promotes the threads of @pid so named that are not promoted yet. Threads
 * come and go with the audio pipeline: calling this again picks up new
 * ones. Finishes with the number of threads promoted by this call, or an
 * error when none could be and at least one was asked for.
 */
void
sj_realtime_promote_async (SjRealtime          *self,
                           GPid                 pid,
                           const char * const  *thread_names,
                           guint                priority,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) tids = NULL;
  Promotion *promotion;

  g_assert (SJ_IS_REALTIME (self));
  g_return_if_fail (thread_names != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_realtime_promote_async);

  if ((tids = find_threads (self, pid, thread_names, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  promotion = g_new0 (Promotion, 1);
  promotion->pid = pid;
  promotion->priority = priority;
  promotion->pending = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_task_set_task_data (task, promotion, (GDestroyNotify)promotion_free);

  for (guint i = 0; i < tids->len; i++)
    {
      GPid tid = g_array_index (tids, GPid, i);

      if (self->allow_direct && promote_directly (tid, priority))
        {
          record (self, pid, tid);
          promotion->granted++;
        }
      else
        g_array_append_val (promotion->pending, tid);
    }

  if (promotion->pending->len > 0)
    bound_rttime (pid);

  if (promotion->pending->len > 0 && self->bus == NULL)
    g_bus_get (self->bus_type, cancellable, bus_get_cb, g_steal_pointer (&task));
  else
    ask_next (g_steal_pointer (&task));
}

int
sj_realtime_promote_finish (SjRealtime    *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_assert (SJ_IS_REALTIME (self));
  g_return_val_if_fail (g_task_is_valid (result, self), -1);

  return (int)g_task_propagate_int (G_TASK (result), error);
}

/**
 * sj_realtime_demote:
 * @tid: a thread of a process of this user's (its ID in this process's
 *   PID namespace)
 *
 * Puts @tid, when it runs with a real-time policy someone else gave it, to
 * SCHED_OTHER; the same user may always lower another's class. It is not
 * remembered, so never put back by sj_realtime_release().
 *
 * Returns: %TRUE if @tid was real-time and now is not; %FALSE with no
 *   error if it was not real-time
 */
gboolean
sj_realtime_demote (SjRealtime  *self,
                    GPid         tid,
                    GError     **error)
{
  struct sched_param param = { .sched_priority = 0 };
  int policy;

  g_assert (SJ_IS_REALTIME (self));

  policy = sched_getscheduler (tid);
  if (policy < 0)
    {
      g_set_error (error, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_NO_PROCESS,
                   "No thread %d: %s", tid, g_strerror (errno));
      return FALSE;
    }
  policy &= ~SCHED_RESET_ON_FORK;
  if (policy != SCHED_RR && policy != SCHED_FIFO)
    return FALSE;
  if (sched_setscheduler (tid, SCHED_OTHER, &param) != 0)
    {
      g_set_error (error, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_REFUSED,
                   "Thread %d keeps its real-time priority: %s", tid, g_strerror (errno));
      return FALSE;
    }

  return TRUE;
}

/**
 * sj_realtime_release:
 *
 * Puts every promoted thread that still exists back to SCHED_OTHER (a
 * thread may always lower its own class; the same user may lower
 * another's). Returns how many were.
 */
guint
sj_realtime_release (SjRealtime *self)
{
  GHashTableIter iter;
  gpointer tid;
  guint released = 0;

  g_assert (SJ_IS_REALTIME (self));

  g_hash_table_iter_init (&iter, self->promoted);
  while (g_hash_table_iter_next (&iter, NULL, &tid))
    {
      struct sched_param param = { .sched_priority = 0 };

      if (sched_setscheduler (GPOINTER_TO_INT (tid), SCHED_OTHER, &param) == 0)
        released++;
      g_hash_table_iter_remove (&iter);
    }

  return released;
}
