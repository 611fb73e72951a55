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
 * bridge does; addresses are kept per host and port.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <lo/lo.h>

#include "sj-osc-sender.h"

/* Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
#define NTP_UNIX_OFFSET G_GINT64_CONSTANT (2208988800)

struct _SjOscSender
{
  GObject     parent_instance;

  char       *host;
  guint       port;
  GHashTable *addresses;  /* "host:port" -> lo_address */
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

  g_clear_pointer (&self->addresses, g_hash_table_unref);
  g_clear_pointer (&self->host, g_free);

  G_OBJECT_CLASS (sj_osc_sender_parent_class)->finalize (object);
}

static void
sj_osc_sender_class_init (SjOscSenderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_osc_sender_finalize;
}

static void
sj_osc_sender_init (SjOscSender *self)
{
  self->addresses = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)lo_address_free);
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

static lo_address
address_for (SjOscSender  *self,
             const char   *host,
             guint         port,
             GError      **error)
{
  g_autofree char *key = g_strdup_printf ("%s:%u", host, port);
  g_autofree char *service = g_strdup_printf ("%u", port);
  lo_address address = g_hash_table_lookup (self->addresses, key);

  if (address != NULL)
    return address;

  /* A bounded cache: oscport patterns could otherwise grow it forever. */
  if (g_hash_table_size (self->addresses) > 64)
    g_hash_table_remove_all (self->addresses);

  address = lo_address_new (host, service);
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
 * sj_osc_sender_send:
 * @path: the OSC address, "/dirt/play"
 * @controls: the hap's controls, sent as name, value pairs
 * @epoch_us: when it is due, in microseconds since the epoch
 *
 * Returns: %FALSE with @error set when the address cannot be resolved or
 *   the datagram cannot be sent. A SuperDirt that is not running is no
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
  const char *host = self->host;
  guint port = self->port;
  lo_address address;
  lo_message message;
  lo_bundle bundle;
  lo_timetag tag;
  JsonNode *node;
  int sent;

  g_assert (SJ_IS_OSC_SENDER (self));
  g_return_val_if_fail (controls != NULL, FALSE);

  if ((node = json_object_get_member (controls, "oschost")) != NULL &&
      JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
      *json_node_get_string (node) != '\0')
    host = json_node_get_string (node);
  if ((node = json_object_get_member (controls, "oscport")) != NULL &&
      JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) != G_TYPE_STRING)
    {
      double value = json_node_get_double (node);

      if (value >= 1 && value <= 65535)
        port = (guint)value;
    }

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
