/* sj-osc-sender.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Sends one hap's controls as an OSC message (/dirt/play for SuperDirt)
 * over UDP with liblo, wrapped in a bundle whose NTP timetag is the hap's
 * time on the system clock: SuperDirt then plays it at that time whatever
 * the network and the page's scheduling add, as with @strudel/osc's Node
 * bridge, without the bridge.
 *
 * Arguments follow the message as @strudel/osc builds it (name, value,
 * name, value…), typed as the osc npm package types JavaScript values:
 * numbers as 32-bit floats, strings as strings, booleans as T and F. The
 * oschost and oscport controls send that hap elsewhere, as upstream's
 * bridge does (SjOutputs asks before any destination but Settings' own);
 * addresses are kept per host and port.
 *
 * A host name is never resolved on the caller's thread: liblo would call
 * getaddrinfo() from lo_send, on the main loop. A numeric address is used
 * as it is; a name is looked up with GResolver, in the background, and
 * its haps are dropped (with SJ_OSC_SENDER_ERROR_PENDING) until the
 * address is known; liblo is then given the numeric address. A name not
 * found is tried again 10 s later.
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <lo/lo.h>

#include "sj-osc-sender.h"

/* How long a name that was not found stays so before it is looked up again. */
#define RETRY_LOOKUP_US (10 * G_USEC_PER_SEC)

/* Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
#define NTP_UNIX_OFFSET G_GINT64_CONSTANT (2208988800)

struct _SjOscSender
{
  GObject     parent_instance;

  char       *host;
  guint       port;
  GHashTable *addresses;  /* "host:port" -> lo_address */
  GHashTable *lookups;    /* host -> NULL while looked up, else a GError */
  GHashTable *failed_at;  /* host -> when its lookup failed (gint64 *) */
  GHashTable *resolved;   /* host -> its numeric address, once looked up */
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (SjOscSender, sj_osc_sender, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-osc-sender-error-quark, sj_osc_sender_error)

void
sj_osc_timetag_from_epoch (gint64   epoch_us,
                           guint32 *sec,
                           guint32 *frac)
{
  gint64 whole = epoch_us / G_USEC_PER_SEC;
  gint64 micro = epoch_us % G_USEC_PER_SEC;

  *sec = (guint32)(whole + NTP_UNIX_OFFSET);
  *frac = (guint32)((micro << 32) / G_USEC_PER_SEC);
}

gint64
sj_osc_timetag_to_epoch (guint32 sec,
                         guint32 frac)
{
  return ((gint64)sec - NTP_UNIX_OFFSET) * G_USEC_PER_SEC + (((gint64)frac * G_USEC_PER_SEC + (1ll << 31)) >> 32);
}

static void
sj_osc_sender_finalize (GObject *object)
{
  SjOscSender *self = SJ_OSC_SENDER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->addresses, g_hash_table_unref);
  g_clear_pointer (&self->lookups, g_hash_table_unref);
  g_clear_pointer (&self->failed_at, g_hash_table_unref);
  g_clear_pointer (&self->resolved, g_hash_table_unref);
  g_clear_pointer (&self->host, g_free);

  G_OBJECT_CLASS (sj_osc_sender_parent_class)->finalize (object);
}

static void
sj_osc_sender_class_init (SjOscSenderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_osc_sender_finalize;
}

static void
clear_error (gpointer error)
{
  if (error != NULL)
    g_error_free (error);
}

static void
sj_osc_sender_init (SjOscSender *self)
{
  self->addresses = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)lo_address_free);
  self->lookups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, clear_error);
  self->failed_at = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->resolved = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->cancellable = g_cancellable_new ();
}

/**
 * sj_osc_sender_new:
 * @host: (nullable): where SuperDirt listens, 127.0.0.1 when %NULL or empty
 * @port: its UDP port, 57120 when 0
 */
SjOscSender *
sj_osc_sender_new (const char *host,
                   guint       port)
{
  SjOscSender *self = g_object_new (SJ_TYPE_OSC_SENDER, NULL);

  self->host = g_strdup (host != NULL && *host != '\0' ? host : SJ_OSC_DEFAULT_HOST);
  self->port = port != 0 && port <= 65535 ? port : SJ_OSC_DEFAULT_PORT;
  return self;
}

const char *
sj_osc_sender_get_host (SjOscSender *self)
{
  g_assert (SJ_IS_OSC_SENDER (self));

  return self->host;
}

guint
sj_osc_sender_get_port (SjOscSender *self)
{
  g_assert (SJ_IS_OSC_SENDER (self));

  return self->port;
}

/* Chooses an IPv4 address when there is one: SuperDirt listens on IPv4. */
static char *
pick_address (GList *addresses)
{
  for (const GList *l = addresses; l != NULL; l = l->next)
    if (g_inet_address_get_family (l->data) == G_SOCKET_FAMILY_IPV4)
      return g_inet_address_to_string (l->data);

  return addresses != NULL ? g_inet_address_to_string (addresses->data) : NULL;
}

typedef struct
{
  SjOscSender *self;  /* weak: the sender cancels its lookups when it goes */
  char        *host;
} Lookup;

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Lookup *lookup = user_data;
  g_autoptr(GError) error = NULL;
  g_autolist(GInetAddress) addresses = NULL;
  g_autofree char *numeric = NULL;

  addresses = g_resolver_lookup_by_name_finish (G_RESOLVER (object), result, &error);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      SjOscSender *self = lookup->self;

      if (addresses != NULL && (numeric = pick_address (addresses)) != NULL)
        {
          g_hash_table_insert (self->resolved, g_strdup (lookup->host), g_steal_pointer (&numeric));
          g_hash_table_remove (self->lookups, lookup->host);
        }
      else
        {
          if (error == NULL)
            error = g_error_new_literal (G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND, _("no address"));
          g_hash_table_insert (self->lookups, g_strdup (lookup->host), g_steal_pointer (&error));
          g_hash_table_insert (self->failed_at, g_strdup (lookup->host), g_memdup2 (&(gint64) { g_get_monotonic_time () },
                                                                                   sizeof (gint64)));
        }
    }

  g_free (lookup->host);
  g_free (lookup);
}

/* The numeric address of @host, or %NULL with @error set while it is
 * looked up (in the background) or when it cannot be found. */
static const char *
numeric_host (SjOscSender  *self,
              const char   *host,
              guint         port,
              GError      **error)
{
  g_autoptr(GResolver) resolver = NULL;
  const char *numeric;
  gpointer failure;
  Lookup *lookup;

  if (g_hostname_is_ip_address (host))
    return host;
  if ((numeric = g_hash_table_lookup (self->resolved, host)) != NULL)
    return numeric;

  /* A name not found is looked up again after a while: the network may
   * have come back. */
  if (g_hash_table_lookup_extended (self->lookups, host, NULL, &failure) && failure != NULL &&
      g_get_monotonic_time () - *(gint64 *)g_hash_table_lookup (self->failed_at, host) >= RETRY_LOOKUP_US)
    {
      g_hash_table_remove (self->lookups, host);
      g_hash_table_remove (self->failed_at, host);
    }

  if (g_hash_table_lookup_extended (self->lookups, host, NULL, &failure))
    {
      if (failure == NULL)
        g_set_error (error, SJ_OSC_SENDER_ERROR, SJ_OSC_SENDER_ERROR_PENDING,
                     _("Looking up %s; OSC to %s:%u is dropped until it is found"), host, host, port);
      else
        g_set_error (error, SJ_OSC_SENDER_ERROR, SJ_OSC_SENDER_ERROR_ADDRESS,
                     _("Cannot send OSC to %s:%u: %s"), host, port, ((GError *)failure)->message);
      return NULL;
    }

  /* A bounded table: oschost patterns could otherwise grow it forever. */
  if (g_hash_table_size (self->lookups) + g_hash_table_size (self->resolved) > 64)
    {
      GHashTableIter iter;
      gpointer failed;

      g_hash_table_remove_all (self->resolved);
      g_hash_table_remove_all (self->addresses);
      g_hash_table_remove_all (self->failed_at);
      /* Lookups under way stay: their answers are on their way. */
      g_hash_table_iter_init (&iter, self->lookups);
      while (g_hash_table_iter_next (&iter, NULL, &failed))
        if (failed != NULL)
          g_hash_table_iter_remove (&iter);
    }

  lookup = g_new0 (Lookup, 1);
  lookup->self = self;
  lookup->host = g_strdup (host);
  g_hash_table_insert (self->lookups, g_strdup (host), NULL);
  resolver = g_resolver_get_default ();
  g_resolver_lookup_by_name_async (resolver, host, self->cancellable, lookup_cb, lookup);
  g_set_error (error, SJ_OSC_SENDER_ERROR, SJ_OSC_SENDER_ERROR_PENDING,
               _("Looking up %s; OSC to %s:%u is dropped until it is found"), host, host, port);
  return NULL;
}

static lo_address
address_for (SjOscSender  *self,
             const char   *host,
             guint         port,
             GError      **error)
{
  g_autofree char *key = g_strdup_printf ("%s:%u", host, port);
  g_autofree char *service = g_strdup_printf ("%u", port);
  lo_address address = g_hash_table_lookup (self->addresses, key);
  const char *numeric;

  if (address != NULL)
    return address;

  /* A bounded cache: oscport patterns could otherwise grow it forever. */
  if (g_hash_table_size (self->addresses) > 64)
    g_hash_table_remove_all (self->addresses);

  if ((numeric = numeric_host (self, host, port, error)) == NULL)
    return NULL;

  address = lo_address_new (numeric, service);
  if (address == NULL)
    {
      g_set_error (error, SJ_OSC_SENDER_ERROR, SJ_OSC_SENDER_ERROR_ADDRESS,
                   _("Cannot send OSC to %s:%u"), host, port);
      return NULL;
    }

  g_hash_table_insert (self->addresses, g_steal_pointer (&key), address);
  return address;
}

static void
add_argument (lo_message  message,
              JsonNode   *node)
{
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;

  if (type == G_TYPE_DOUBLE || type == G_TYPE_INT64)
    lo_message_add_float (message, (float)json_node_get_double (node));
  else if (type == G_TYPE_STRING)
    lo_message_add_string (message, json_node_get_string (node));
  else if (type == G_TYPE_BOOLEAN && json_node_get_boolean (node))
    lo_message_add_true (message);
  else if (type == G_TYPE_BOOLEAN)
    lo_message_add_false (message);
  else
    lo_message_add_nil (message);
}

/**
 * sj_osc_sender_get_destination:
 * @controls: a hap's controls
 * @host: (out) (transfer none): where it goes: its oschost, else the
 *   sender's host
 * @port: (out): its oscport, else the sender's port
 */
void
sj_osc_sender_get_destination (SjOscSender  *self,
                               JsonObject   *controls,
                               const char  **host,
                               guint        *port)
{
  JsonNode *node;

  g_assert (SJ_IS_OSC_SENDER (self));

  *host = self->host;
  *port = self->port;
  if ((node = json_object_get_member (controls, "oschost")) != NULL &&
      JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
      *json_node_get_string (node) != '\0')
    *host = json_node_get_string (node);
  if ((node = json_object_get_member (controls, "oscport")) != NULL &&
      JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) != G_TYPE_STRING)
    {
      double value = json_node_get_double (node);

      if (value >= 1 && value <= 65535)
        *port = (guint)value;
    }
}

/**
 * sj_osc_sender_send:
 * @path: the OSC address, "/dirt/play"
 * @controls: the hap's controls, sent as name, value pairs
 * @epoch_us: when it is due, in microseconds since the epoch
 *
 * Returns: %FALSE with @error set when the address cannot be resolved or
 *   the datagram cannot be sent; SJ_OSC_SENDER_ERROR_PENDING while a host
 *   name is looked up in the background (the hap is dropped). A SuperDirt that is not running is no
 *   error: UDP cannot tell.
 */
gboolean
sj_osc_sender_send (SjOscSender  *self,
                    const char   *path,
                    JsonObject   *controls,
                    gint64        epoch_us,
                    GError      **error)
{
  g_autoptr(GList) members = NULL;
  const char *host;
  guint port;
  lo_address address;
  lo_message message;
  lo_bundle bundle;
  lo_timetag tag;
  int sent;

  g_assert (SJ_IS_OSC_SENDER (self));
  g_return_val_if_fail (controls != NULL, FALSE);

  sj_osc_sender_get_destination (self, controls, &host, &port);
  if ((address = address_for (self, host, port, error)) == NULL)
    return FALSE;

  message = lo_message_new ();
  members = json_object_get_members (controls);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      lo_message_add_string (message, l->data);
      add_argument (message, json_object_get_member (controls, l->data));
    }

  sj_osc_timetag_from_epoch (epoch_us, &tag.sec, &tag.frac);
  bundle = lo_bundle_new (tag);
  lo_bundle_add_message (bundle, path, message);
  sent = lo_send_bundle (address, bundle);
  /* Frees the message too. */
  lo_bundle_free_recursive (bundle);

  if (sent < 0)
    {
      g_set_error (error, SJ_OSC_SENDER_ERROR, SJ_OSC_SENDER_ERROR_SEND,
                   _("Could not send OSC to %s:%u: %s"), host, port, lo_address_errstr (address));
      return FALSE;
    }

  return TRUE;
}
