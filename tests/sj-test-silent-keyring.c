/* sj-test-silent-keyring.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A Secret Service that never answers, for tests/test-secrets.sh:
 *
 *   sj-test-silent-keyring           takes org.freedesktop.secrets on the
 *                                    session bus and never replies to any
 *                                    call made to it
 *   sj-test-silent-keyring --no-name connects and never takes the name: the
 *                                    D-Bus service file of "stuck" mode
 *                                    starts it, so the service is
 *                                    activatable yet never appears
 *
 * Either way it quits when the bus goes away.
 */

#include <gio/gio.h>

/* Keeps every method call unanswered: the caller can only time out. */
static GDBusMessage *
swallow_filter (GDBusConnection *connection,
                GDBusMessage    *message,
                gboolean         incoming,
                gpointer         user_data)
{
  GPtrArray *swallowed = user_data;

  if (incoming && g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL &&
      g_strcmp0 (g_dbus_message_get_sender (message), "org.freedesktop.DBus") != 0)
    {
      g_ptr_array_add (swallowed, message);
      return NULL;
    }

  return message;
}

static void
closed_cb (GDBusConnection *connection,
           gboolean         remote_peer_vanished,
           GError          *error,
           GMainLoop       *loop)
{
  g_main_loop_quit (loop);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GPtrArray) swallowed = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  gboolean take_name = argc < 2 || g_strcmp0 (argv[1], "--no-name") != 0;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("sj-test-silent-keyring: %s\n", error->message);
      return 1;
    }

  g_dbus_connection_set_exit_on_close (bus, FALSE);
  g_signal_connect (bus, "closed", G_CALLBACK (closed_cb), loop);
  g_dbus_connection_add_filter (bus, swallow_filter, swallowed, NULL);

  if (take_name)
    {
      reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                           "org.freedesktop.DBus", "RequestName",
                                           /* ALLOW_REPLACEMENT | DO_NOT_QUEUE: a test may
                                                            * take the name over. */
                                           g_variant_new ("(su)", "org.freedesktop.secrets", 0x1 | 0x4),
                                           G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
      if (reply == NULL)
        {
          g_printerr ("sj-test-silent-keyring: %s\n", error->message);
          return 1;
        }
    }

  g_main_loop_run (loop);
  return 0;
}
