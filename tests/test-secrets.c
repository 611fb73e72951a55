/* test-secrets.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjSecrets against a real Secret Service: tests/test-secrets.sh runs this
 * under a private session bus, with a gnome-keyring-daemon of its own
 * (SJ_TEST_KEYRING=running), the same with its collection locked
 * (SJ_TEST_KEYRING=locked) or with nothing owning org.freedesktop.secrets
 * (SJ_TEST_KEYRING=none); or with a Secret Service that never answers,
 * owned by tests/sj-test-silent-keyring (SJ_TEST_KEYRING=silent) or
 * activatable but never appearing (SJ_TEST_KEYRING=stuck).  Run without the script it skips, so it can never
 * touch the keyring of the user running it.
 *
 * The key comes from SJ_TEST_API_KEY, so the script can look for it in
 * everything the test wrote (its output, the private home); here every log
 * message is checked for it too.
 */

#include "config.h"

#include <string.h>

#include "sj-secrets.h"

#define PROVIDER "OpenRouter"
#define BASE_URL "https://openrouter.ai/api/v1"
#define OTHER_PROVIDER "Local"
#define OTHER_BASE_URL "http://127.0.0.1:8080/v1"

/* A keyring that is missing must be reported at once, not after the D-Bus
 * call timeout (25 s). */
#define NO_KEYRING_MAX_USEC (5 * G_USEC_PER_SEC)

/* A keyring that never answers gets its deadline (2 s) and no more: the
 * bound leaves room for a loaded machine, still far from D-Bus's 25 s. */
#define SILENT_KEYRING_MAX_USEC (4 * G_USEC_PER_SEC)

/* Once it has missed its deadline it is not waited for again. */
#define REMEMBERED_MAX_USEC (G_USEC_PER_SEC / 2)

static char *api_key;
static guint leaked_messages;

static GLogWriterOutput
check_log_writer (GLogLevelFlags   log_level,
                  const GLogField *fields,
                  gsize            n_fields,
                  gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 &&
          fields[i].length == -1 &&
          strstr (fields[i].value, api_key) != NULL)
        leaked_messages++;
    }

  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

static void
got_result (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Spins the main loop until the call started with got_result is done. */
static GAsyncResult *
wait_for (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return *result;
}

static gboolean
store (const char  *provider,
       const char  *base_url,
       const char  *key,
       GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_secrets_store_api_key_async (provider, base_url, key, NULL, got_result, &result);
  return sj_secrets_store_api_key_finish (wait_for (&result), error);
}

static char *
lookup (const char  *provider,
        const char  *base_url,
        GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_secrets_lookup_api_key_async (provider, base_url, NULL, got_result, &result);
  return sj_secrets_lookup_api_key_finish (wait_for (&result), error);
}

static gboolean
has (const char  *provider,
     const char  *base_url,
     gboolean    *has_key,
     GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_secrets_has_api_key_async (provider, base_url, NULL, got_result, &result);
  return sj_secrets_has_api_key_finish (wait_for (&result), has_key, error);
}

static gboolean
clear (const char  *provider,
       const char  *base_url,
       GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sj_secrets_clear_api_key_async (provider, base_url, NULL, got_result, &result);
  return sj_secrets_clear_api_key_finish (wait_for (&result), error);
}

static void
assert_stored (const char *provider,
               const char *base_url,
               const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  gboolean has_key = !expected;

  key = lookup (provider, base_url, &error);
  g_assert_no_error (error);
  /* Not g_assert_cmpstr: a failure would print the key. */
  g_assert_true (g_strcmp0 (key, expected) == 0);

  g_assert_true (has (provider, base_url, &has_key, &error));
  g_assert_no_error (error);
  g_assert_true (has_key == (expected != NULL));
}

static void
clear_all (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (clear (PROVIDER, BASE_URL, &error));
  g_assert_no_error (error);
  g_assert_true (clear (OTHER_PROVIDER, OTHER_BASE_URL, &error));
  g_assert_no_error (error);
  g_assert_true (clear (PROVIDER, OTHER_BASE_URL, &error));
  g_assert_no_error (error);
}

static void
test_store_lookup (void)
{
  g_autoptr(GError) error = NULL;

  clear_all ();
  assert_stored (PROVIDER, BASE_URL, NULL);

  g_assert_true (store (PROVIDER, BASE_URL, api_key, &error));
  g_assert_no_error (error);
  assert_stored (PROVIDER, BASE_URL, api_key);
}

static void
test_replace (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *new_key = g_strconcat (api_key, "-new", NULL);

  clear_all ();
  g_assert_true (store (PROVIDER, BASE_URL, api_key, &error));
  g_assert_no_error (error);
  g_assert_true (store (PROVIDER, BASE_URL, new_key, &error));
  g_assert_no_error (error);
  assert_stored (PROVIDER, BASE_URL, new_key);

  /* Replaced, not added next to the old one: one clear removes it. */
  g_assert_true (clear (PROVIDER, BASE_URL, &error));
  g_assert_no_error (error);
  assert_stored (PROVIDER, BASE_URL, NULL);
}

static void
test_clear (void)
{
  g_autoptr(GError) error = NULL;

  clear_all ();
  g_assert_true (store (PROVIDER, BASE_URL, api_key, &error));
  g_assert_no_error (error);
  g_assert_true (clear (PROVIDER, BASE_URL, &error));
  g_assert_no_error (error);
  assert_stored (PROVIDER, BASE_URL, NULL);

  /* Clearing what is not there is not an error. */
  g_assert_true (clear (PROVIDER, BASE_URL, &error));
  g_assert_no_error (error);
}

static void
test_providers_apart (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *other_key = g_strconcat (api_key, "-other", NULL);
  g_autofree char *other_url_key = g_strconcat (api_key, "-other-url", NULL);

  clear_all ();
  g_assert_true (store (PROVIDER, BASE_URL, api_key, &error));
  g_assert_no_error (error);
  g_assert_true (store (OTHER_PROVIDER, OTHER_BASE_URL, other_key, &error));
  g_assert_no_error (error);
  /* The same provider at another endpoint is another key too. */
  g_assert_true (store (PROVIDER, OTHER_BASE_URL, other_url_key, &error));
  g_assert_no_error (error);

  assert_stored (PROVIDER, BASE_URL, api_key);
  assert_stored (OTHER_PROVIDER, OTHER_BASE_URL, other_key);
  assert_stored (PROVIDER, OTHER_BASE_URL, other_url_key);
  assert_stored (OTHER_PROVIDER, BASE_URL, NULL);

  g_assert_true (clear (OTHER_PROVIDER, OTHER_BASE_URL, &error));
  g_assert_no_error (error);
  assert_stored (OTHER_PROVIDER, OTHER_BASE_URL, NULL);
  assert_stored (PROVIDER, BASE_URL, api_key);
  assert_stored (PROVIDER, OTHER_BASE_URL, other_url_key);

  clear_all ();
}

static void
test_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  g_cancellable_cancel (cancellable);
  sj_secrets_lookup_api_key_async (PROVIDER, BASE_URL, cancellable, got_result, &result);
  key = sj_secrets_lookup_api_key_finish (wait_for (&result), &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (key);
}

static void
assert_no_keyring (GError *error,
                   gint64  started)
{
  g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING);
  g_assert_nonnull (strstr (error->message, "Secret Service"));
  g_assert_cmpint (g_get_monotonic_time () - started, <, NO_KEYRING_MAX_USEC);
}

static void
test_no_keyring (void)
{
  gint64 started;
  gboolean has_key = FALSE;

  {
    g_autoptr(GError) error = NULL;
    started = g_get_monotonic_time ();
    g_assert_false (store (PROVIDER, BASE_URL, api_key, &error));
    assert_no_keyring (error, started);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *key = NULL;
    started = g_get_monotonic_time ();
    key = lookup (PROVIDER, BASE_URL, &error);
    g_assert_null (key);
    assert_no_keyring (error, started);
  }
  {
    g_autoptr(GError) error = NULL;
    started = g_get_monotonic_time ();
    g_assert_false (has (PROVIDER, BASE_URL, &has_key, &error));
    assert_no_keyring (error, started);
  }
  {
    g_autoptr(GError) error = NULL;
    started = g_get_monotonic_time ();
    g_assert_false (clear (PROVIDER, BASE_URL, &error));
    assert_no_keyring (error, started);
  }
}

/* Each call returns within the deadline with an error that says the
 * keyring does not answer; after the first, at once. */
static void
test_silent_keyring (void)
{
  gint64 started;
  gboolean has_key = FALSE;

  {
    g_autoptr(GError) error = NULL;
    g_autofree char *key = NULL;
    started = g_get_monotonic_time ();
    key = lookup (PROVIDER, BASE_URL, &error);
    g_assert_null (key);
    g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING);
    g_assert_nonnull (strstr (error->message, "does not answer"));
    g_assert_cmpint (g_get_monotonic_time () - started, <, SILENT_KEYRING_MAX_USEC);
    g_test_message ("first call: %.2f s", (g_get_monotonic_time () - started) / (double) G_USEC_PER_SEC);
  }
  {
    g_autoptr(GError) error = NULL;
    started = g_get_monotonic_time ();
    g_assert_false (store (PROVIDER, BASE_URL, api_key, &error));
    g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING);
    g_assert_cmpint (g_get_monotonic_time () - started, <, REMEMBERED_MAX_USEC);
  }
  {
    g_autoptr(GError) error = NULL;
    started = g_get_monotonic_time ();
    g_assert_false (has (PROVIDER, BASE_URL, &has_key, &error));
    g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING);
    g_assert_cmpint (g_get_monotonic_time () - started, <, REMEMBERED_MAX_USEC);
  }
  {
    g_autoptr(GError) error = NULL;
    started = g_get_monotonic_time ();
    g_assert_false (clear (PROVIDER, BASE_URL, &error));
    g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING);
    g_assert_cmpint (g_get_monotonic_time () - started, <, REMEMBERED_MAX_USEC);
  }
}

static void
owner_changed_cb (GDBusConnection *connection,
                  const char      *sender_name,
                  const char      *object_path,
                  const char      *interface_name,
                  const char      *signal_name,
                  GVariant        *parameters,
                  gpointer         user_data)
{
  gboolean *changed = user_data;

  *changed = TRUE;
}

/* The silent keyring's name taken over (by this process, which answers
 * every call with an error at once): the keyring is asked again, and
 * answers at once, rather than being remembered as silent. */
static void
test_silent_then_replaced (void)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  gboolean changed = FALSE;
  gint64 started;
  guint id;

  g_assert_nonnull (bus);
  id = g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                           "/org/freedesktop/DBus", "org.freedesktop.secrets",
                                           G_DBUS_SIGNAL_FLAGS_NONE, owner_changed_cb, &changed, NULL);
  /* REPLACE_EXISTING | DO_NOT_QUEUE */
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "RequestName", g_variant_new ("(su)", "org.freedesktop.secrets", 0x2 | 0x4),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  {
    guint32 result = 0;

    g_variant_get (reply, "(u)", &result);
    g_assert_cmpuint (result, ==, 1);  /* PRIMARY_OWNER */
  }
  while (!changed)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_dbus_connection_signal_unsubscribe (bus, id);

  started = g_get_monotonic_time ();
  key = lookup (PROVIDER, BASE_URL, &error);
  g_assert_null (key);
  g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING);
  g_assert_null (strstr (error->message, "does not answer"));
  g_assert_cmpint (g_get_monotonic_time () - started, <, REMEMBERED_MAX_USEC);
}

static void
test_locked (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (store (PROVIDER, BASE_URL, api_key, &error));
  g_assert_error (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_LOCKED);
}

static void
test_never_logged (void)
{
  g_assert_cmpuint (leaked_messages, ==, 0);
}

static void
test_not_in_wrapper (void)
{
  g_test_skip ("run through tests/test-secrets.sh, with a keyring of its own");
}

int
main (int   argc,
      char *argv[])
{
  const char *mode;

  g_test_init (&argc, &argv, NULL);

  mode = g_getenv ("SJ_TEST_KEYRING");
  api_key = g_strdup (g_getenv ("SJ_TEST_API_KEY"));
  if (api_key == NULL || *api_key == '\0')
    {
      g_free (api_key);
      api_key = g_strdup_printf ("sk-test-%08x%08x", g_random_int (), g_random_int ());
    }

  /* Every message, debug ones included, goes through the check, and to
   * stderr: stdout is the TAP stream. */
  g_log_writer_default_set_use_stderr (TRUE);
  g_log_set_writer_func (check_log_writer, NULL, NULL);

  if (g_strcmp0 (mode, "running") == 0)
    {
      g_test_add_func ("/secrets/store-lookup", test_store_lookup);
      g_test_add_func ("/secrets/replace", test_replace);
      g_test_add_func ("/secrets/clear", test_clear);
      g_test_add_func ("/secrets/providers-apart", test_providers_apart);
      g_test_add_func ("/secrets/cancelled", test_cancelled);
      g_test_add_func ("/secrets/never-logged", test_never_logged);
    }
  else if (g_strcmp0 (mode, "locked") == 0)
    {
      g_test_add_func ("/secrets/locked", test_locked);
      g_test_add_func ("/secrets/never-logged", test_never_logged);
    }
  else if (g_strcmp0 (mode, "none") == 0)
    {
      g_test_add_func ("/secrets/no-keyring", test_no_keyring);
      g_test_add_func ("/secrets/cancelled", test_cancelled);
      g_test_add_func ("/secrets/never-logged", test_never_logged);
    }
  else if (g_strcmp0 (mode, "silent") == 0 || g_strcmp0 (mode, "stuck") == 0)
    {
      g_test_add_func ("/secrets/silent-keyring", test_silent_keyring);
      if (g_strcmp0 (mode, "silent") == 0)
        g_test_add_func ("/secrets/silent-then-replaced", test_silent_then_replaced);
      g_test_add_func ("/secrets/never-logged", test_never_logged);
    }
  else
    {
      g_test_add_func ("/secrets/not-in-wrapper", test_not_in_wrapper);
    }

  return g_test_run ();
}
