/* test-address-policy.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The network boundary of the downloads the page's code causes (issue 28):
 * every class of address judged by what it is (sj-address-policy.c), and,
 * through loopback SoupServers (127.0.0.1 and, where there is IPv6, ::1),
 * that no spelling of this computer or the local network is reached, that a
 * public name resolving to a private address is refused when it connects,
 * that a redirect's target is judged (the test hook that maps hosts onto
 * the server included), and that "Allow sample hosts on my local network"
 * lets them through. A GResolver set as the default answers the test's
 * names and records every lookup, so that "refused before any lookup" is
 * asserted, and each server counts what it received.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "sj-address-policy.h"
#include "sj-remote-samples.h"
#include "sj-sound-cache-private.h"
#include "sj-test-files.h"

/* The resolver --------------------------------------------------------------- */

#define TEST_TYPE_RESOLVER (test_resolver_get_type ())
G_DECLARE_FINAL_TYPE (TestResolver, test_resolver, TEST, RESOLVER, GResolver)

struct _TestResolver
{
  GResolver   parent_instance;

  GHashTable *names;    /* name → address string */
  GPtrArray  *lookups;  /* every name looked up */
};

G_DEFINE_FINAL_TYPE (TestResolver, test_resolver, G_TYPE_RESOLVER)

static GList *
resolve (TestResolver              *self,
         const char                *name,
         GResolverNameLookupFlags   flags,
         GError                   **error)
{
  const char *text = g_hash_table_lookup (self->names, name);
  g_autoptr(GInetAddress) address = NULL;

  g_ptr_array_add (self->lookups, g_strdup (name));
  if (text != NULL)
    address = g_inet_address_new_from_string (text);
  if (address == NULL ||
      ((flags & G_RESOLVER_NAME_LOOKUP_FLAGS_IPV4_ONLY) && g_inet_address_get_family (address) != G_SOCKET_FAMILY_IPV4) ||
      ((flags & G_RESOLVER_NAME_LOOKUP_FLAGS_IPV6_ONLY) && g_inet_address_get_family (address) != G_SOCKET_FAMILY_IPV6))
    {
      g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND, "no address for %s", name);
      return NULL;
    }

  return g_list_prepend (NULL, g_steal_pointer (&address));
}

static GList *
lookup_by_name_with_flags (GResolver                 *resolver,
                           const char                *name,
                           GResolverNameLookupFlags   flags,
                           GCancellable              *cancellable,
                           GError                   **error)
{
  return resolve (TEST_RESOLVER (resolver), name, flags, error);
}

static GList *
lookup_by_name (GResolver     *resolver,
                const char    *name,
                GCancellable  *cancellable,
                GError       **error)
{
  return resolve (TEST_RESOLVER (resolver), name, G_RESOLVER_NAME_LOOKUP_FLAGS_DEFAULT, error);
}

static void
lookup_by_name_with_flags_async (GResolver                 *resolver,
                                 const char                *name,
                                 GResolverNameLookupFlags   flags,
                                 GCancellable              *cancellable,
                                 GAsyncReadyCallback        callback,
                                 gpointer                   user_data)
{
  g_autoptr(GTask) task = g_task_new (resolver, cancellable, callback, user_data);
  GError *error = NULL;
  GList *addresses = resolve (TEST_RESOLVER (resolver), name, flags, &error);

  if (addresses == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, addresses, (GDestroyNotify) g_resolver_free_addresses);
}

static void
lookup_by_name_async (GResolver           *resolver,
                      const char          *name,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  lookup_by_name_with_flags_async (resolver, name, G_RESOLVER_NAME_LOOKUP_FLAGS_DEFAULT, cancellable,
                                   callback, user_data);
}

static GList *
lookup_by_name_finish (GResolver     *resolver,
                       GAsyncResult  *result,
                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_resolver_finalize (GObject *object)
{
  TestResolver *self = TEST_RESOLVER (object);

  g_hash_table_unref (self->names);
  g_ptr_array_unref (self->lookups);
  G_OBJECT_CLASS (test_resolver_parent_class)->finalize (object);
}

static void
test_resolver_class_init (TestResolverClass *klass)
{
  GResolverClass *resolver_class = G_RESOLVER_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = test_resolver_finalize;
  resolver_class->lookup_by_name = lookup_by_name;
  resolver_class->lookup_by_name_async = lookup_by_name_async;
  resolver_class->lookup_by_name_finish = lookup_by_name_finish;
  resolver_class->lookup_by_name_with_flags = lookup_by_name_with_flags;
  resolver_class->lookup_by_name_with_flags_async = lookup_by_name_with_flags_async;
  resolver_class->lookup_by_name_with_flags_finish = lookup_by_name_finish;
}

static void
test_resolver_init (TestResolver *self)
{
  self->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->lookups = g_ptr_array_new_with_free_func (g_free);
}

/* The servers ------------------------------------------------------------------ */

typedef struct
{
  SoupServer *server;
  guint       port;
  GPtrArray  *paths;   /* every request's path */
} Server;

static GBytes *
make_wav (void)
{
  static const guint8 header[44] = {
    'R', 'I', 'F', 'F', 36 + 16, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
    16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0,
    'd', 'a', 't', 'a', 16, 0, 0, 0,
  };
  guint8 *wav = g_malloc0 (sizeof header + 16);

  memcpy (wav, header, sizeof header);
  return g_bytes_new_take (wav, sizeof header + 16);
}

static void
server_cb (SoupServer        *soup_server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Server *server = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  g_ptr_array_add (server->paths, g_strdup (path));

  if (g_str_has_suffix (path, "/redirect") && query != NULL && g_hash_table_lookup (query, "to") != NULL)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_FOUND, NULL);
      soup_message_headers_replace (headers, "Location", g_hash_table_lookup (query, "to"));
    }
  else if (g_str_has_suffix (path, "/loop"))
    {
      soup_server_message_set_status (msg, SOUP_STATUS_FOUND, NULL);
      soup_message_headers_replace (headers, "Location", "http://public.example/loop");
    }
  else
    {
      g_autoptr(GBytes) wav = make_wav ();

      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_message_headers_set_content_type (headers, "audio/wav", NULL);
      soup_message_body_append_bytes (soup_server_message_get_response_body (msg), wav);
    }
}

/* Listens on @address (127.0.0.1 or ::1); FALSE when it cannot (no IPv6). */
static gboolean
server_start (Server     *server,
              const char *address)
{
  g_autoptr(GInetAddress) inet = g_inet_address_new_from_string (address);
  g_autoptr(GSocketAddress) socket_address = g_inet_socket_address_new (inet, 0);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  server->paths = g_ptr_array_new_with_free_func (g_free);
  server->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server->server, NULL, server_cb, server, NULL);
  if (!soup_server_listen (server->server, socket_address, 0, &error))
    {
      g_test_message ("Cannot listen on %s: %s", address, error->message);
      return FALSE;
    }
  uris = soup_server_get_uris (server->server);
  server->port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  return TRUE;
}

static void
server_stop (Server *server)
{
  if (server->server != NULL)
    soup_server_disconnect (server->server);
  g_clear_object (&server->server);
  g_clear_pointer (&server->paths, g_ptr_array_unref);
}

/* The fixture -------------------------------------------------------------- */

typedef struct
{
  char         *dir;
  GFile        *directory;
  Server        server;   /* 127.0.0.1 */
  Server        server6;  /* ::1, when there is IPv6 */
  gboolean      has_ipv6;
  TestResolver *resolver;
  SjSoundCache *cache;
  guint         fetches;
} Fixture;

/* A cache; with @hook, the test hook maps every host onto the server. */
static void
new_cache (Fixture  *fixture,
           gboolean  hook)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", fixture->server.port);

  g_clear_object (&fixture->cache);
  if (hook)
    g_setenv (SJ_REMOTE_SAMPLES_URL_ENV, url, TRUE);
  else
    g_unsetenv (SJ_REMOTE_SAMPLES_URL_ENV);
  g_unsetenv ("STRUDEL_JAM_SOUNDS_URL");
  fixture->cache = sj_sound_cache_new (sj_sound_library_get_default (), fixture->directory);
  _sj_sound_cache_set_retry_delay (fixture->cache, 10, 1);
  _sj_sound_cache_set_timeout (fixture->cache, 5);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->dir = g_dir_make_tmp ("sj-address-policy-XXXXXX", NULL);
  g_assert_nonnull (fixture->dir);
  fixture->directory = g_file_new_for_path (fixture->dir);
  g_assert_true (server_start (&fixture->server, "127.0.0.1"));
  fixture->has_ipv6 = server_start (&fixture->server6, "::1");
  fixture->resolver = g_object_new (TEST_TYPE_RESOLVER, NULL);
  g_resolver_set_default (G_RESOLVER (fixture->resolver));
  new_cache (fixture, FALSE);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->cache);
  server_stop (&fixture->server);
  server_stop (&fixture->server6);
  g_clear_object (&fixture->resolver);
  sj_test_remove_tree (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
  g_clear_object (&fixture->directory);
  g_unsetenv (SJ_REMOTE_SAMPLES_URL_ENV);
}

/* Downloads @url through the cache, as the page's requests are. */
static GBytes *
fetch (Fixture     *fixture,
       const char  *url,
       GError     **error)
{
  g_autofree char *name = g_strdup_printf ("fetch-%u.wav", fixture->fetches++);
  g_autoptr(GFile) target = g_file_get_child (fixture->directory, name);
  g_autoptr(GAsyncResult) result = NULL;

  sj_sound_cache_fetch_async (fixture->cache, url, target, 1024 * 1024, SJ_SOUND_CACHE_FETCH_NONE, NULL,
                              sj_test_store_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return sj_sound_cache_fetch_finish (fixture->cache, result, error);
}

static void
assert_refused (Fixture    *fixture,
                const char *url,
                guint       requests)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = fetch (fixture, url, &error);

  g_test_message ("%s: %s", url, error != NULL ? error->message : "fetched");
  g_assert_null (bytes);
  g_assert_nonnull (error);
  g_assert_true (error->domain == SJ_ADDRESS_POLICY_ERROR);
  g_assert_cmpuint (fixture->server.paths->len, ==, requests);
  if (fixture->has_ipv6)
    g_assert_cmpuint (fixture->server6.paths->len, ==, 0);
}

/* Tests -------------------------------------------------------------------- */

/* Every class of address, in every way IPv6 carries an IPv4 address. */
static void
test_classes (void)
{
  static const struct { const char *address; SjAddressClass class; } cases[] = {
    { "8.8.8.8", SJ_ADDRESS_CLASS_PUBLIC },
    { "151.101.1.1", SJ_ADDRESS_CLASS_PUBLIC },
    { "0.0.0.0", SJ_ADDRESS_CLASS_SPECIAL },
    { "0.1.2.3", SJ_ADDRESS_CLASS_SPECIAL },
    { "10.0.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "10.255.255.255", SJ_ADDRESS_CLASS_LOCAL },
    { "100.63.255.255", SJ_ADDRESS_CLASS_PUBLIC },
    { "100.64.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "100.127.255.254", SJ_ADDRESS_CLASS_LOCAL },
    { "100.128.0.1", SJ_ADDRESS_CLASS_PUBLIC },
    { "127.0.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "127.255.0.9", SJ_ADDRESS_CLASS_LOCAL },
    { "169.254.169.254", SJ_ADDRESS_CLASS_LOCAL },
    { "172.15.0.1", SJ_ADDRESS_CLASS_PUBLIC },
    { "172.16.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "172.31.255.255", SJ_ADDRESS_CLASS_LOCAL },
    { "172.32.0.1", SJ_ADDRESS_CLASS_PUBLIC },
    { "192.168.1.1", SJ_ADDRESS_CLASS_LOCAL },
    { "192.0.0.8", SJ_ADDRESS_CLASS_SPECIAL },
    { "198.18.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "198.19.255.255", SJ_ADDRESS_CLASS_LOCAL },
    { "198.20.0.1", SJ_ADDRESS_CLASS_PUBLIC },
    { "224.0.0.1", SJ_ADDRESS_CLASS_SPECIAL },
    { "239.255.255.250", SJ_ADDRESS_CLASS_SPECIAL },
    { "240.0.0.1", SJ_ADDRESS_CLASS_SPECIAL },
    { "255.255.255.255", SJ_ADDRESS_CLASS_SPECIAL },
    { "2606:4700::1111", SJ_ADDRESS_CLASS_PUBLIC },
    { "::", SJ_ADDRESS_CLASS_SPECIAL },
    { "::1", SJ_ADDRESS_CLASS_LOCAL },
    { "fc00::1", SJ_ADDRESS_CLASS_LOCAL },
    { "fd12:3456::1", SJ_ADDRESS_CLASS_LOCAL },
    { "fe80::1", SJ_ADDRESS_CLASS_LOCAL },
    { "febf::1", SJ_ADDRESS_CLASS_LOCAL },
    { "fec0::1", SJ_ADDRESS_CLASS_LOCAL },
    { "ff02::1", SJ_ADDRESS_CLASS_SPECIAL },
    { "ff05::2", SJ_ADDRESS_CLASS_SPECIAL },
    /* Mapped. */
    { "::ffff:127.0.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "::ffff:7f00:1", SJ_ADDRESS_CLASS_LOCAL },
    { "::ffff:192.168.1.1", SJ_ADDRESS_CLASS_LOCAL },
    { "::ffff:0.0.0.0", SJ_ADDRESS_CLASS_SPECIAL },
    { "::ffff:8.8.8.8", SJ_ADDRESS_CLASS_PUBLIC },
    /* Compatible. */
    { "::127.0.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "::10.0.0.1", SJ_ADDRESS_CLASS_LOCAL },
    { "::8.8.8.8", SJ_ADDRESS_CLASS_PUBLIC },
    /* NAT64, well-known and local-use. */
    { "64:ff9b::7f00:1", SJ_ADDRESS_CLASS_LOCAL },
    { "64:ff9b::192.168.1.1", SJ_ADDRESS_CLASS_LOCAL },
    { "64:ff9b::6440:1", SJ_ADDRESS_CLASS_LOCAL },
    { "64:ff9b::808:808", SJ_ADDRESS_CLASS_PUBLIC },
    { "64:ff9b::e000:1", SJ_ADDRESS_CLASS_SPECIAL },
    { "64:ff9b:1:7f00:1::", SJ_ADDRESS_CLASS_LOCAL },
    { "64:ff9b:1:808:8:800::", SJ_ADDRESS_CLASS_LOCAL },
    { "64:ff9b:1:e000:0:100::", SJ_ADDRESS_CLASS_SPECIAL },
    /* 6to4. */
    { "2002:7f00:1::1", SJ_ADDRESS_CLASS_LOCAL },
    { "2002:c0a8:101::1", SJ_ADDRESS_CLASS_LOCAL },
    { "2002:808:808::1", SJ_ADDRESS_CLASS_PUBLIC },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GInetAddress) address = g_inet_address_new_from_string (cases[i].address);
      g_autoptr(GError) error = NULL;

      g_assert_nonnull (address);
      g_test_message ("%s", cases[i].address);
      g_assert_cmpint (sj_address_policy_classify (address), ==, cases[i].class);

      /* The setting lets the local ones through, never the special ones. */
      g_assert_cmpint (sj_address_policy_check_address (address, FALSE, &error), ==,
                       cases[i].class == SJ_ADDRESS_CLASS_PUBLIC);
      g_clear_error (&error);
      g_assert_cmpint (sj_address_policy_check_address (address, TRUE, &error), ==,
                       cases[i].class != SJ_ADDRESS_CLASS_SPECIAL);
      if (cases[i].class == SJ_ADDRESS_CLASS_SPECIAL)
        g_assert_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_SPECIAL);
    }
}

/* Hosts as written: names of the local network, numbers spelt as names. */
static void
test_hosts (void)
{
  const char *local[] = { "localhost", "LOCALHOST", "localhost.", "a.localhost", "nas", "nas.", "router",
                          "printer.local", "nas.lan", "router.home.arpa", "db.internal", "box.localdomain" };
  const char *public[] = { "raw.githubusercontent.com", "shabda.ndre.gr", "example.com", "Host.Test",
                           "localhost.example.com", "lan.example.org" };
  const char *numbers[] = { "2130706433", "0x7f000001", "127.1", "0x7f.1", "1.2.3.04" };

  for (guint i = 0; i < G_N_ELEMENTS (local); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (sj_address_policy_is_local_name (local[i]));
      g_assert_false (sj_address_policy_check_host (local[i], FALSE, &error));
      g_assert_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_LOCAL);
      g_assert_true (sj_address_policy_check_host (local[i], TRUE, NULL));
    }
  for (guint i = 0; i < G_N_ELEMENTS (public); i++)
    {
      g_assert_false (sj_address_policy_is_local_name (public[i]));
      g_assert_true (sj_address_policy_check_host (public[i], FALSE, NULL));
    }
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (sj_address_policy_check_host (numbers[i], TRUE, &error));
      g_assert_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS);
    }

  g_assert_false (sj_address_policy_check_host ("fe80::1%lo", FALSE, NULL));
  g_assert_false (sj_address_policy_check_host ("::ffff:127.0.0.1", FALSE, NULL));
  g_assert_true (sj_address_policy_check_host ("2606:4700::1111", FALSE, NULL));
}

/* Each spelling of this computer and the local network in the issue is
 * refused before any lookup, and the server hears nothing. */
static void
test_spellings (Fixture       *fixture,
                gconstpointer  data)
{
  const char *hosts[] = {
    "127.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[::ffff:192.168.1.1]",
    "[64:ff9b::7f00:1]", "[64:ff9b::c0a8:101]", "[2002:7f00:1::1]", "100.64.0.1", "[::1]", "[fe80::1]",
    "[fd00::1]", "0.0.0.0", "localhost", "LocalHost.", "nas", "nas.", "printer.local", "nas.lan",
    "router.home.arpa", "db.internal", "2130706433", "0x7f000001", "127.1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (hosts); i++)
    {
      g_autofree char *url = g_strdup_printf ("http://%s:%u/secret.wav", hosts[i], fixture->server.port);

      assert_refused (fixture, url, 0);
    }
  if (fixture->has_ipv6)
    {
      g_autofree char *url = g_strdup_printf ("http://[::1]:%u/secret.wav", fixture->server6.port);

      assert_refused (fixture, url, 0);
    }
  g_assert_cmpuint (fixture->resolver->lookups->len, ==, 0);
}

/* A public-looking name that resolves to this computer is refused when it
 * connects: the address connected to is what is judged. */
static void
test_resolved_private (Fixture       *fixture,
                       gconstpointer  data)
{
  const char *names[] = { "rebind.example.com", "mapped.example.com", "cgnat.example.com", "any.example.com" };

  g_hash_table_insert (fixture->resolver->names, g_strdup ("rebind.example.com"), g_strdup ("127.0.0.1"));
  g_hash_table_insert (fixture->resolver->names, g_strdup ("mapped.example.com"), g_strdup ("::ffff:127.0.0.1"));
  g_hash_table_insert (fixture->resolver->names, g_strdup ("cgnat.example.com"), g_strdup ("100.64.0.1"));
  g_hash_table_insert (fixture->resolver->names, g_strdup ("any.example.com"), g_strdup ("0.0.0.0"));

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *url = g_strdup_printf ("http://%s:%u/secret.wav", names[i], fixture->server.port);

      assert_refused (fixture, url, 0);
      g_assert_true (g_ptr_array_find_with_equal_func (fixture->resolver->lookups, names[i], g_str_equal, NULL));
    }
}

/* Redirects: each target judged as written, the hook's server included;
 * a name that passes is mapped onto the server by the hook, as the first
 * address was. */
static void
test_redirects (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *base = g_strdup_printf ("http://127.0.0.1:%u/public.example", fixture->server.port);
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *ok = NULL;
  g_autofree char *loop = NULL;
  guint requests = 0;

  new_cache (fixture, TRUE);
  g_ptr_array_add (targets, g_strdup_printf ("http://localhost:%u/secret.wav", fixture->server.port));
  g_ptr_array_add (targets, g_strdup_printf ("http://127.0.0.1:%u/secret.wav", fixture->server.port));
  g_ptr_array_add (targets, g_strdup_printf ("http://[::ffff:127.0.0.1]:%u/secret.wav", fixture->server.port));
  g_ptr_array_add (targets, g_strdup_printf ("http://[::1]:%u/secret.wav",
                                             fixture->has_ipv6 ? fixture->server6.port : fixture->server.port));
  g_ptr_array_add (targets, g_strdup ("/secret.wav"));
  g_ptr_array_add (targets, g_strdup ("//127.0.0.1/secret.wav"));
  g_ptr_array_add (targets, g_strdup ("http://nas.lan/secret.wav"));
  g_ptr_array_add (targets, g_strdup ("file:///etc/passwd"));

  for (guint i = 0; i < targets->len; i++)
    {
      g_autofree char *escaped = g_uri_escape_string (g_ptr_array_index (targets, i), NULL, FALSE);
      g_autofree char *url = g_strdup_printf ("%s/redirect?to=%s", base, escaped);

      /* The redirect itself is heard, its target never. */
      assert_refused (fixture, url, ++requests);
    }
  for (guint i = 0; i < fixture->server.paths->len; i++)
    g_assert_cmpstr (g_ptr_array_index (fixture->server.paths, i), ==, "/public.example/redirect");
  g_assert_cmpuint (fixture->resolver->lookups->len, ==, 0);

  /* A public name is followed, onto the server the hook points it at. */
  ok = g_strdup_printf ("%s/redirect?to=%s", base, "http%3A%2F%2Fother.example%2Fok.wav");
  bytes = fetch (fixture, ok, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_cmpstr (g_ptr_array_index (fixture->server.paths, fixture->server.paths->len - 1), ==,
                   "/other.example/ok.wav");
  requests += 2;

  /* And not for ever. */
  loop = g_strdup_printf ("%s/loop", base);
  g_clear_pointer (&bytes, g_bytes_unref);
  bytes = fetch (fixture, loop, &error);
  g_assert_null (bytes);
  g_assert_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_REDIRECTS);
  g_assert_cmpuint (fixture->server.paths->len, ==, requests + 1 + SJ_SOUND_CACHE_MAX_REDIRECTS);
}

/* "Allow sample hosts on my local network" lets this computer and the local
 * network through, in any spelling; never an unspecified address. */
static void
test_setting (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *mapped = g_strdup_printf ("http://[::ffff:127.0.0.1]:%u/nas/a.wav", fixture->server.port);
  g_autofree char *named = g_strdup_printf ("http://nas.lan:%u/nas/b.wav", fixture->server.port);
  g_autofree char *any = g_strdup_printf ("http://0.0.0.0:%u/nas/c.wav", fixture->server.port);
  g_autofree char *resolved_any = g_strdup_printf ("http://any.example.com:%u/nas/d.wav", fixture->server.port);

  g_hash_table_insert (fixture->resolver->names, g_strdup ("nas.lan"), g_strdup ("127.0.0.1"));
  g_hash_table_insert (fixture->resolver->names, g_strdup ("any.example.com"), g_strdup ("0.0.0.0"));
  g_object_set (fixture->cache, "allow-local-hosts", TRUE, NULL);
  g_assert_true (sj_sound_cache_get_allow_local_hosts (fixture->cache));

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = fetch (fixture, i == 0 ? mapped : named, &error);

      g_assert_no_error (error);
      g_assert_nonnull (bytes);
    }
  g_assert_cmpuint (fixture->server.paths->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (fixture->server.paths, 0), ==, "/nas/a.wav");
  g_assert_cmpstr (g_ptr_array_index (fixture->server.paths, 1), ==, "/nas/b.wav");

  assert_refused (fixture, any, 2);
  assert_refused (fixture, resolved_any, 2);

  /* Off again, it is refused again. */
  g_object_set (fixture->cache, "allow-local-hosts", FALSE, NULL);
  assert_refused (fixture, mapped, 2);
}

static void
load_failed_cb (SjRemoteSamples *remote,
                const char      *url,
                const GError    *error,
                const char      *message,
                guint           *count)
{
  g_assert_true (error->domain == SJ_ADDRESS_POLICY_ERROR);
  g_assert_nonnull (strstr (message, "local network"));
  (*count)++;
}

/* What the page asks for (strudel-jam://remote/file/http/[::ffff:127.0.0.1]:…)
 * is refused, said once in the Console, and the server hears nothing. */
static void
test_page (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(SjRemoteSamples) remote = sj_remote_samples_new (fixture->cache, NULL);
  g_autofree char *path = g_strdup_printf ("/http/[::ffff:127.0.0.1]:%u/secret.wav", fixture->server.port);
  g_autofree char *url = sj_remote_samples_url_for_path (path, NULL, NULL);
  guint failures = 0;

  g_assert_nonnull (url);
  g_signal_connect (remote, "load-failed", G_CALLBACK (load_failed_cb), &failures);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = NULL;

      sj_remote_samples_load_async (remote, SJ_REMOTE_KIND_FILE, url, NULL, sj_test_store_result_cb, &result);
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      bytes = sj_remote_samples_load_finish (remote, result, NULL, &error);
      g_assert_null (bytes);
      g_assert_true (error->domain == SJ_ADDRESS_POLICY_ERROR);
    }
  g_assert_cmpuint (failures, ==, 1);
  g_assert_cmpuint (fixture->server.paths->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/address-policy/classes", test_classes);
  g_test_add_func ("/address-policy/hosts", test_hosts);
#define ADD(path, func) g_test_add ("/address-policy/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("spellings", test_spellings);
  ADD ("resolved-private", test_resolved_private);
  ADD ("redirects", test_redirects);
  ADD ("setting", test_setting);
  ADD ("page", test_page);
#undef ADD

  return g_test_run ();
}
