/* test-realtime.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjRealtime against a stand-in for rtkit on a private bus (GTestDBus): the
 * threads asked for are the ones named, each once, with the priority asked
 * for; the process's RLIMIT_RTTIME is bounded first, as rtkit requires; a
 * refusal is a structured error. The direct way is tested only where the
 * system allows real-time scheduling (CAP_SYS_NICE or RLIMIT_RTPRIO).
 */

#define _GNU_SOURCE /* pthread_setname_np () */

#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sj-realtime.h"

typedef struct
{
  GMutex  lock;
  GCond   cond;
  GPid    tid;
  gboolean quit;
} Worker;

static gpointer
worker_main (gpointer data)
{
  Worker *worker = data;

  g_mutex_lock (&worker->lock);
  worker->tid = (GPid)syscall (SYS_gettid);
  g_cond_broadcast (&worker->cond);
  while (!worker->quit)
    g_cond_wait (&worker->cond, &worker->lock);
  g_mutex_unlock (&worker->lock);

  return NULL;
}

/* A thread with the given name, waiting until worker_stop(). */
static GThread *
worker_start (Worker     *worker,
              const char *name)
{
  GThread *thread;

  g_mutex_init (&worker->lock);
  g_cond_init (&worker->cond);
  thread = g_thread_new (name, worker_main, worker);
  g_mutex_lock (&worker->lock);
  while (worker->tid == 0)
    g_cond_wait (&worker->cond, &worker->lock);
  g_mutex_unlock (&worker->lock);

  return thread;
}

static void
worker_stop (Worker  *worker,
             GThread *thread)
{
  g_mutex_lock (&worker->lock);
  worker->quit = TRUE;
  g_cond_broadcast (&worker->cond);
  g_mutex_unlock (&worker->lock);
  g_thread_join (thread);
}

/* The stand-in for rtkit ------------------------------------------------ */

typedef struct
{
  GPtrArray *calls;    /* "pid tid priority" */
  GPid       refuse;   /* a thread to refuse */
} FakeRtkit;

static void
fake_method_call (GDBusConnection       *connection,
                  const char            *sender,
                  const char            *object_path,
                  const char            *interface_name,
                  const char            *method_name,
                  GVariant              *parameters,
                  GDBusMethodInvocation *invocation,
                  gpointer               user_data)
{
  FakeRtkit *fake = user_data;
  guint64 pid, tid;
  guint32 priority;
  struct rlimit limit;

  g_assert_cmpstr (method_name, ==, "MakeThreadRealtimeWithPID");
  g_variant_get (parameters, "(ttu)", &pid, &tid, &priority);
  /* What rtkit checks before it grants anything. */
  g_assert_no_errno (prlimit ((pid_t)pid, RLIMIT_RTTIME, NULL, &limit));
  if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max > 200000)
    {
      g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.AccessDenied",
                                                  "RLIMIT_RTTIME not set");
      return;
    }
  g_ptr_array_add (fake->calls, g_strdup_printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u",
                                                 pid, tid, priority));
  if ((GPid)tid == fake->refuse)
    g_dbus_method_invocation_return_dbus_error (invocation, "org.freedesktop.DBus.Error.AccessDenied",
                                                "Operation not permitted");
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static const char introspection[] =
  "<node><interface name='org.freedesktop.RealtimeKit1'>"
  "<method name='MakeThreadRealtimeWithPID'>"
  "<arg type='t' direction='in'/><arg type='t' direction='in'/><arg type='u' direction='in'/>"
  "</method></interface></node>";

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **)user_data = g_object_ref (result);
}

static int
promote (SjRealtime         *realtime,
         const char * const *names,
         GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_realtime_promote_async (realtime, getpid (), names, 5, NULL, result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return sj_realtime_promote_finish (realtime, result, error);
}

static void
test_rtkit (void)
{
  g_autoptr(GTestDBus) bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_autoptr(GDBusConnection) service = NULL;
  g_autoptr(GDBusConnection) client = NULL;
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(SjRealtime) realtime = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) owned = NULL;
  GDBusInterfaceVTable vtable = { fake_method_call, NULL, NULL, { 0 } };
  FakeRtkit fake = { g_ptr_array_new_with_free_func (g_free), 0 };
  const char *audio[] = { "sj-test-audio", NULL };
  const char *refused[] = { "sj-test-refused", NULL };
  Worker one = { 0 }, other = { 0 }, no = { 0 };
  GThread *thread_one, *thread_other, *thread_no;
  g_autofree char *expected = NULL;
  struct rlimit limit;

  g_test_dbus_up (bus);
  service = g_dbus_connection_new_for_address_sync (g_test_dbus_get_bus_address (bus),
                                                    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                    G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                    NULL, NULL, &error);
  g_assert_no_error (error);
  info = g_dbus_node_info_new_for_xml (introspection, &error);
  g_assert_no_error (error);
  g_dbus_connection_register_object (service, "/org/freedesktop/RealtimeKit1", info->interfaces[0],
                                     &vtable, &fake, NULL, &error);
  g_assert_no_error (error);
  owned = g_dbus_connection_call_sync (service, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "RequestName",
                                       g_variant_new ("(su)", "org.freedesktop.RealtimeKit1", 0),
                                       G_VARIANT_TYPE ("(u)"), 0, -1, NULL, &error);
  g_assert_no_error (error);

  client = g_dbus_connection_new_for_address_sync (g_test_dbus_get_bus_address (bus),
                                                   G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                   G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                   NULL, NULL, &error);
  g_assert_no_error (error);
  realtime = sj_realtime_new (client, "org.freedesktop.RealtimeKit1", "/org/freedesktop/RealtimeKit1", FALSE);
  sj_realtime_set_allow_direct (realtime, FALSE);

  thread_one = worker_start (&one, "sj-test-audio");
  thread_other = worker_start (&other, "sj-test-audio");
  thread_no = worker_start (&no, "sj-test-refused");

  /* Both threads of that name, and only them. */
  g_assert_cmpint (promote (realtime, audio, &error), ==, 2);
  g_assert_no_error (error);
  g_assert_cmpuint (fake.calls->len, ==, 2);
  expected = g_strdup_printf ("%d %d 5", (int)getpid (), (int)one.tid);
  g_assert_true (g_ptr_array_find_with_equal_func (fake.calls, expected, g_str_equal, NULL));
  g_assert_true (sj_realtime_is_promoted (realtime, getpid (), one.tid));
  g_assert_true (sj_realtime_is_promoted (realtime, getpid (), other.tid));
  g_assert_false (sj_realtime_is_promoted (realtime, getpid (), no.tid));
  g_assert_no_errno (getrlimit (RLIMIT_RTTIME, &limit));
  g_assert_cmpuint (limit.rlim_max, <=, 200000);

  /* Asked again (the page rescans while playing): nothing new to ask for. */
  g_assert_cmpint (promote (realtime, audio, &error), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (fake.calls->len, ==, 2);

  /* A refusal is an error naming rtkit's reason. */
  fake.refuse = no.tid;
  g_assert_cmpint (promote (realtime, refused, &error), ==, -1);
  g_assert_error (error, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_REFUSED);
  g_assert_nonnull (strstr (error->message, "Operation not permitted"));
  g_clear_error (&error);
  g_assert_false (sj_realtime_is_promoted (realtime, getpid (), no.tid));

  /* Released, nothing stays promoted. */
  sj_realtime_release (realtime);
  g_assert_false (sj_realtime_is_promoted (realtime, getpid (), one.tid));

  worker_stop (&one, thread_one);
  worker_stop (&other, thread_other);
  worker_stop (&no, thread_no);
  g_ptr_array_unref (fake.calls);
  g_clear_object (&service);
  g_clear_object (&client);
  g_test_dbus_down (bus);
}

static void
test_no_process (void)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(SjRealtime) realtime = sj_realtime_new_for_desktop ();
  g_autoptr(GError) error = NULL;
  const char *names[] = { "x", NULL };

  /* Beyond pid_max: no such process. */
  sj_realtime_promote_async (realtime, 1 << 30, names, 5, NULL, result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (sj_realtime_promote_finish (realtime, result, &error), ==, -1);
  g_assert_error (error, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_NO_PROCESS);
}

/* Where the system allows it, promoted without any bus, and back to
 * normal on release. */
static void
test_direct (void)
{
  g_autoptr(SjRealtime) realtime = sj_realtime_new_for_desktop ();
  g_autoptr(GError) error = NULL;
  const char *names[] = { "sj-test-direct", NULL };
  struct sched_param param = { .sched_priority = 1 };
  Worker worker = { 0 };
  GThread *thread = worker_start (&worker, "sj-test-direct");

  if (sched_setscheduler (worker.tid, SCHED_RR, &param) != 0)
    {
      worker_stop (&worker, thread);
      g_test_skip ("real-time scheduling is not allowed here");
      return;
    }
  param.sched_priority = 0;
  sched_setscheduler (worker.tid, SCHED_OTHER, &param);

  g_assert_cmpint (promote (realtime, names, &error), ==, 1);
  g_assert_no_error (error);
  g_assert_cmpint (sched_getscheduler (worker.tid) & ~SCHED_RESET_ON_FORK, ==, SCHED_RR);
  g_assert_no_errno (sched_getparam (worker.tid, &param));
  g_assert_cmpint (param.sched_priority, ==, 5);

  g_assert_cmpuint (sj_realtime_release (realtime), ==, 1);
  g_assert_cmpint (sched_getscheduler (worker.tid), ==, SCHED_OTHER);
  worker_stop (&worker, thread);
}

/* A thread someone else made real-time is put back to normal (the web
 * process's main thread, which WebKit runs at RR 5: issue 35); a normal
 * one is left alone, and a missing one is an error. */
static void
test_demote (void)
{
  g_autoptr(SjRealtime) realtime = sj_realtime_new_for_desktop ();
  g_autoptr(GError) error = NULL;
  struct sched_param param = { .sched_priority = 5 };
  Worker worker = { 0 };
  GThread *thread = worker_start (&worker, "sj-test-demote");

  g_assert_false (sj_realtime_demote (realtime, worker.tid, &error));
  g_assert_no_error (error);
  g_assert_false (sj_realtime_demote (realtime, 1 << 30, &error));
  g_assert_error (error, SJ_REALTIME_ERROR, SJ_REALTIME_ERROR_NO_PROCESS);
  g_clear_error (&error);

  if (sched_setscheduler (worker.tid, SCHED_RR | SCHED_RESET_ON_FORK, &param) != 0)
    {
      worker_stop (&worker, thread);
      g_test_skip ("real-time scheduling is not allowed here");
      return;
    }
  g_assert_true (sj_realtime_demote (realtime, worker.tid, &error));
  g_assert_no_error (error);
  g_assert_cmpint (sched_getscheduler (worker.tid), ==, SCHED_OTHER);
  /* Not the realtime object's to put back. */
  g_assert_cmpuint (sj_realtime_release (realtime), ==, 0);
  worker_stop (&worker, thread);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/realtime/rtkit", test_rtkit);
  g_test_add_func ("/realtime/no-process", test_no_process);
  g_test_add_func ("/realtime/direct", test_direct);
  g_test_add_func ("/realtime/demote", test_demote);

  return g_test_run ();
}
