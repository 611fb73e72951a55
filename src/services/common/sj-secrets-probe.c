/* sj-secrets-probe.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Asks the Secret Service whether it is there before SjSecrets hands a call
 * to libsecret, and gives it SJ_SECRETS_DEADLINE_MS to answer.
 *
 * libsecret waits as long as D-Bus lets it: when org.freedesktop.secrets is
 * activatable (GNOME Keyring installed) but the daemon it starts never takes
 * the name (no login session, no usable home), or when something owns the
 * name and never replies, each of its calls takes the bus's default 25 s
 * before it fails, and the app looked ready, then "Checking…", all that
 * time. The probe is one Properties.Get of the service's collections, which
 * starts the service on demand like libsecret would and is answered at once
 * by a Secret Service that works; with nothing to start the bus refuses it
 * at once.
 *
 * A service that did not answer in time is remembered as missing, so the
 * calls after it (a model server connected, a key row shown) fail at once
 * too, until the name's owner changes on the bus: a keyring started (or
 * restarted) later is asked again.
 *
 * Inside Flatpak libsecret keeps the key through the Secret portal rather
 * than the Secret Service, so there is nothing to probe there.
 */

#include "config.h"

#include "sj-secrets-private.h"

#define SECRETS_NAME "org.freedesktop.secrets"

/* The bus the remembered failure belongs to, and the failure. */
static GDBusConnection *watched_bus;
static guint owner_changed_id;
static GError *remembered_error;

static void
owner_changed_cb (GDBusConnection *connection,
                  const char      *sender_name,
                  const char      *object_path,
                  const char      *interface_name,
                  const char      *signal_name,
                  GVariant        *parameters,
                  gpointer         user_data)
{
  if (remembered_error != NULL)
    g_debug ("The Secret Service changed owner; the keyring is asked again");

  g_clear_error (&remembered_error);
}

static void
watch_owner (GDBusConnection *bus)
{
  if (watched_bus == bus)
    return;

  if (watched_bus != NULL)
    {
      g_dbus_connection_signal_unsubscribe (watched_bus, owner_changed_id);
      g_clear_object (&watched_bus);
    }

  g_clear_error (&remembered_error);
  watched_bus = g_object_ref (bus);
  owner_changed_id = g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                                         "NameOwnerChanged", "/org/freedesktop/DBus",
                                                         SECRETS_NAME, G_DBUS_SIGNAL_FLAGS_NONE,
                                                         owner_changed_cb, NULL, NULL);
}

static gboolean
is_timeout (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_TIMEOUT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_TIMED_OUT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY);
}

static void
get_collections_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GVariant) reply = NULL;
  GError *error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  if (error == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (is_timeout (error))
    {
      /* The name may have changed owner while we waited: then this
       * failure is already out of date. */
      if (watched_bus == G_DBUS_CONNECTION (object))
        {
          g_clear_error (&remembered_error);
          remembered_error = g_error_copy (error);
        }
      g_task_return_error (task, error);
      return;
    }

  if (error->domain == G_DBUS_ERROR &&
      (error->code == G_DBUS_ERROR_SERVICE_UNKNOWN || error->code == G_DBUS_ERROR_NAME_HAS_NO_OWNER ||
       (error->code >= G_DBUS_ERROR_SPAWN_EXEC_FAILED && error->code <= G_DBUS_ERROR_SPAWN_NO_MEMORY)))
    {
      g_task_return_error (task, error);
      return;
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      return;
    }

  /* It answered, if not as we hoped (a policy refusing the property, an
   * older service): libsecret has the last word. */
  g_debug ("The Secret Service answered the probe with: %s", error->message);
  g_error_free (error);
  g_task_return_boolean (task, TRUE);
}

static void
bus_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GDBusConnection) bus = NULL;
  GError *error = NULL;

  bus = g_bus_get_finish (result, &error);
  if (bus == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  watch_owner (bus);
  if (remembered_error != NULL)
    {
      g_task_return_error (task, g_error_copy (remembered_error));
      return;
    }

  g_dbus_connection_call (bus, SECRETS_NAME, "/org/freedesktop/secrets",
                          "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", "org.freedesktop.Secret.Service", "Collections"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, SJ_SECRETS_DEADLINE_MS,
                          g_task_get_cancellable (task), get_collections_cb, g_object_ref (task));
}

/* Completes with TRUE when libsecret may be asked, or with the D-Bus or
 * GIO error that says the keyring is missing or silent (for
 * sj_secrets_map_error()), within SJ_SECRETS_DEADLINE_MS. */
void
_sj_secrets_probe_async (GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, _sj_secrets_probe_async);

  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_bus_get (G_BUS_TYPE_SESSION, cancellable, bus_cb, g_steal_pointer (&task));
}

gboolean
_sj_secrets_probe_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
