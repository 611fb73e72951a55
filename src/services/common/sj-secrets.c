/* sj-secrets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The LLM API key, kept in the user's keyring through libsecret and
 * nowhere else: never in GSettings, the history database or a log line.
 * Items are found by our own schema with the provider and its base URL as
 * attributes, so keys for two providers (or two endpoints of one) never
 * overwrite each other.
 *
 * Inside Flatpak libsecret notices the sandbox and goes through the Secret
 * portal on its own (the key then lives in a file encrypted with a secret
 * the portal hands out), so there is no Flatpak-specific code here.
 *
 * libsecret's errors say what went wrong in D-Bus terms; the ones the user
 * can act on (no keyring at all, a locked keyring) become SJ_SECRETS_ERROR
 * codes with a message that says what to do.
 *
 * Every call first makes sure the Secret Service answers at all, within
 * SJ_SECRETS_DEADLINE_MS (sj-secrets-probe.c): without a keyring, or with
 * one that never answers, the caller hears so at once rather than after
 * D-Bus's 25 s.
 *
 * A key stored or cleared is announced through SjSecretsMonitor (by its
 * provider and base URL, never the key), so everything that uses or shows
 * it follows wherever it was set.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "sj-secrets.h"
#include "sj-secrets-monitor.h"
#include "sj-secrets-private.h"

G_DEFINE_QUARK (sj-secrets-error-quark, sj_secrets_error)

static const SecretSchema *
sj_secrets_get_schema (void)
{
  static const SecretSchema schema = {
    SJ_SECRETS_SCHEMA_NAME,
    /* Match on the schema name too, so an item some other application
     * happens to store with the same attribute names is never returned as
     * our key. */
    SECRET_SCHEMA_NONE,
    {
      { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "base-url", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  };

  return &schema;
}

static gboolean
is_no_keyring_error (const GError *error)
{
  if (error->domain == G_DBUS_ERROR)
    {
      switch (error->code)
        {
        /* Nothing owns org.freedesktop.secrets and nothing can be
         * activated to own it. */
        case G_DBUS_ERROR_SERVICE_UNKNOWN:
        case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
        case G_DBUS_ERROR_SPAWN_EXEC_FAILED:
        case G_DBUS_ERROR_SPAWN_FORK_FAILED:
        case G_DBUS_ERROR_SPAWN_CHILD_EXITED:
        case G_DBUS_ERROR_SPAWN_CHILD_SIGNALED:
        case G_DBUS_ERROR_SPAWN_FAILED:
        case G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND:
        case G_DBUS_ERROR_SPAWN_SERVICE_INVALID:
        case G_DBUS_ERROR_SPAWN_FILE_INVALID:
        case G_DBUS_ERROR_SPAWN_NO_MEMORY:
        /* No session bus at all, or it went away. */
        case G_DBUS_ERROR_NO_SERVER:
        case G_DBUS_ERROR_DISCONNECTED:
        /* Something owns the name but does not speak the Secret Service
         * API. */
        case G_DBUS_ERROR_UNKNOWN_METHOD:
        case G_DBUS_ERROR_UNKNOWN_OBJECT:
        case G_DBUS_ERROR_UNKNOWN_INTERFACE:
          return TRUE;
        default:
          return FALSE;
        }
    }

  /* The session bus could not be reached: GIO reports that as a plain
   * G_IO_ERROR (no address to connect to, socket gone, autolaunch
   * impossible without a display). */
  if (error->domain == G_IO_ERROR)
    return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
           g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
           g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED) ||
           g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE);

  return FALSE;
}

/* Takes @error and returns the error to hand to the caller.  The original
 * message only goes to the debug log: it names D-Bus objects, never the
 * key, which is not part of any call that can fail this way. */
static GError *
sj_secrets_map_error (GError *error)
{
  GError *mapped;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return error;

  g_debug ("Keyring error: %s (%s, %d)",
           error->message, g_quark_to_string (error->domain), error->code);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_TIMEOUT) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_TIMED_OUT) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY))
    mapped = g_error_new_literal (SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING,
                                  _("The keyring does not answer, so the API key cannot be kept. "
                                    "Restart GNOME Keyring or another Secret Service provider, "
                                    "then try again."));
  else if (is_no_keyring_error (error))
    mapped = g_error_new_literal (SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING,
                                  _("No keyring is available to keep the API key. "
                                    "Install and start GNOME Keyring or another "
                                    "Secret Service provider, then try again."));
  else if (g_error_matches (error, SECRET_ERROR, SECRET_ERROR_IS_LOCKED))
    mapped = g_error_new_literal (SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_LOCKED,
                                  _("The keyring is locked. Unlock it "
                                    "(for example in Passwords and Keys), then try again."));
  else
    mapped = g_error_new (SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_FAILED,
                          _("The keyring could not be used: %s"), error->message);

  g_error_free (error);
  return mapped;
}

/* libsecret hands the key over in non-pageable memory.  It goes into an
 * HTTP header through libsoup right after, so keeping it there would buy
 * little; but every copy we make is still wiped before it is freed. */
static void
sj_secrets_wipe_free (gpointer data)
{
  char *key = data;

  if (key != NULL)
    {
      secret_password_wipe (key);
      g_free (key);
    }
}

/* What a call is for: where the key is kept and, for a store, the key and
 * the item's label.  The key is wiped with the call. */
typedef struct
{
  char *provider;
  char *base_url;
  char *label;
  char *key;
} Call;

static void
call_free (Call *call)
{
  g_free (call->provider);
  g_free (call->base_url);
  g_free (call->label);
  sj_secrets_wipe_free (call->key);
  g_free (call);
}

static GTask *
call_task_new (const char          *provider,
               const char          *base_url,
               gpointer             source_tag,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Call *call = g_new0 (Call, 1);

  call->provider = g_strdup (provider);
  call->base_url = g_strdup (base_url);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  return task;
}

static void
announce_change (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  sj_secrets_monitor_key_changed (sj_secrets_monitor_get_default (), call->provider, call->base_url);
}

/* How a store or a clear ends: a keyring error for the caller, or the
 * change announced to the rest of the app. */
static void
return_change (GTask  *task,
               GError *error)
{
  if (error != NULL)
    {
      g_task_return_error (task, sj_secrets_map_error (error));
      return;
    }

  announce_change (task);
  g_task_return_boolean (task, TRUE);
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  secret_password_store_finish (result, &error);
  return_change (task, error);
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *secure_key;

  secure_key = secret_password_lookup_finish (result, &error);

  if (error != NULL)
    {
      g_task_return_error (task, sj_secrets_map_error (error));
      return;
    }

  /* NULL without an error: nothing is stored for this provider. */
  g_task_return_pointer (task, g_strdup (secure_key), sj_secrets_wipe_free);
  secret_password_free (secure_key);
}

static void
clear_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  /* FALSE without an error only means there was nothing to clear, which
   * is what the caller wanted anyway. */
  secret_password_clear_finish (result, &error);
  return_change (task, error);
}

/* The Secret Service answered the probe (or there is none to ask): the
 * call itself goes to libsecret. */
static void
probe_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  gpointer tag = g_task_get_source_tag (task);
  GError *error = NULL;

  if (!_sj_secrets_probe_finish (result, &error))
    {
      g_task_return_error (task, sj_secrets_map_error (error));
      return;
    }

  if (tag == sj_secrets_store_api_key_async)
    secret_password_store (sj_secrets_get_schema (), SECRET_COLLECTION_DEFAULT,
                           call->label, call->key, cancellable, store_cb, g_steal_pointer (&task),
                           "provider", call->provider,
                           "base-url", call->base_url,
                           NULL);
  else if (tag == sj_secrets_clear_api_key_async)
    secret_password_clear (sj_secrets_get_schema (), cancellable,
                           clear_cb, g_steal_pointer (&task),
                           "provider", call->provider,
                           "base-url", call->base_url,
                           NULL);
  else
    secret_password_lookup (sj_secrets_get_schema (), cancellable,
                            lookup_cb, g_steal_pointer (&task),
                            "provider", call->provider,
                            "base-url", call->base_url,
                            NULL);
}

static void
start_call (GTask *task)
{
  _sj_secrets_probe_async (g_task_get_cancellable (task), probe_cb, task);
}

/* Stores @key for @provider at @base_url, replacing any key stored there
 * before.  It goes to the default collection (the login keyring), which is
 * unlocked with the session on a normal desktop. */
void
sj_secrets_store_api_key_async (const char          *provider,
                                const char          *base_url,
                                const char          *key,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task;
  Call *call;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (base_url != NULL);
  g_return_if_fail (key != NULL && *key != '\0');
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = call_task_new (provider, base_url, sj_secrets_store_api_key_async, cancellable, callback, user_data);
  call = g_task_get_task_data (task);
  call->key = g_strdup (key);

  /* Translators: the name of the keyring item, as shown in Passwords and
   * Keys; %s is the LLM provider, e.g. "OpenRouter". */
  call->label = g_strdup_printf (_("Strudel Jam API key (%s)"), provider);

  start_call (task);
}

gboolean
sj_secrets_store_api_key_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_secrets_store_api_key_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
sj_secrets_lookup_api_key_async (const char          *provider,
                                 const char          *base_url,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (provider != NULL);
  g_return_if_fail (base_url != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  start_call (call_task_new (provider, base_url, sj_secrets_lookup_api_key_async, cancellable, callback, user_data));
}

/* Returns the key, or NULL with no error set when none is stored.  Free it
 * with g_free(). */
char *
sj_secrets_lookup_api_key_finish (GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_secrets_lookup_api_key_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
sj_secrets_has_api_key_async (const char          *provider,
                              const char          *base_url,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (provider != NULL);
  g_return_if_fail (base_url != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  start_call (call_task_new (provider, base_url, sj_secrets_has_api_key_async, cancellable, callback, user_data));
}

/* Sets @has_key and returns TRUE when the keyring could be asked; the key
 * itself is wiped here and never reaches the caller. */
gboolean
sj_secrets_has_api_key_finish (GAsyncResult  *result,
                               gboolean      *has_key,
                               GError       **error)
{
  char *key;
  GError *local_error = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_secrets_has_api_key_async, FALSE);
  g_return_val_if_fail (has_key != NULL, FALSE);

  key = g_task_propagate_pointer (G_TASK (result), &local_error);

  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }

  *has_key = key != NULL;
  sj_secrets_wipe_free (key);
  return TRUE;
}

void
sj_secrets_clear_api_key_async (const char          *provider,
                                const char          *base_url,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (provider != NULL);
  g_return_if_fail (base_url != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  start_call (call_task_new (provider, base_url, sj_secrets_clear_api_key_async, cancellable, callback, user_data));
}

gboolean
sj_secrets_clear_api_key_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_secrets_clear_api_key_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
