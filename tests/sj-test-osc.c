/* sj-test-osc.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A stand-in for SuperDirt: a thread reading a free loopback UDP port that
 * decodes every datagram as it arrives, each message with the timetag of
 * the bundle it came in (a liblo server would hold bundles back until
 * their time), for the tests and the benchmark of .osc(). It decodes name,
 * value pairs as /dirt/play carries them.
 */

#include <string.h>

#include <gio/gio.h>
#include <lo/lo.h>

#include "sj-osc-sender.h"
#include "sj-test-osc.h"

struct _SjTestOscReceiver
{
  GSocket     *socket;
  GThread     *thread;
  GAsyncQueue *queue;
  gint         stop;  /* atomic */
};

void
sj_test_osc_message_free (SjTestOscMessage *message)
{
  if (message == NULL)
    return;
  g_free (message->path);
  g_free (message->types);
  g_clear_pointer (&message->fields, json_object_unref);
  g_free (message);
}

static void
set_field (JsonObject *fields,
           const char *name,
           char        type,
           lo_arg     *arg)
{
  switch (type)
    {
    case LO_FLOAT:
      json_object_set_double_member (fields, name, arg->f);
      break;
    case LO_INT32:
      json_object_set_int_member (fields, name, arg->i);
      break;
    case LO_DOUBLE:
      json_object_set_double_member (fields, name, arg->d);
      break;
    case LO_STRING:
      json_object_set_string_member (fields, name, &arg->s);
      break;
    case LO_TRUE:
      json_object_set_boolean_member (fields, name, TRUE);
      break;
    case LO_FALSE:
      json_object_set_boolean_member (fields, name, FALSE);
      break;
    default:
      json_object_set_null_member (fields, name);
    }
}

/* Decodes one OSC message of a datagram (inside a bundle or alone). */
static void
decode_message (SjTestOscReceiver *receiver,
                void              *data,
                gsize              size,
                gboolean           bundled,
                gint64             timetag_us,
                gint64             received_us)
{
  SjTestOscMessage *message;
  lo_message msg;
  const char *types;
  lo_arg **argv;
  int argc;
  int result = 0;

  msg = lo_message_deserialise (data, size, &result);
  if (msg == NULL)
    {
      g_printerr ("undecodable OSC message (%d)\n", result);
      return;
    }

  message = g_new0 (SjTestOscMessage, 1);
  message->path = g_strdup (lo_get_path (data, size));
  types = lo_message_get_types (msg);
  argv = lo_message_get_argv (msg);
  argc = lo_message_get_argc (msg);
  message->types = g_strdup (types);
  message->bundled = bundled;
  message->timetag_us = timetag_us;
  message->received_us = received_us;
  message->fields = json_object_new ();
  for (int i = 0; i + 1 < argc; i += 2)
    {
      if (types[i] == LO_STRING)
        set_field (message->fields, &argv[i]->s, types[i + 1], argv[i + 1]);
    }
  lo_message_free (msg);

  g_async_queue_push (receiver->queue, message);
}

/* A bundle is "#bundle", a timetag, then (size, element) pairs. */
static void
decode_datagram (SjTestOscReceiver *receiver,
                 guint8            *data,
                 gsize              size,
                 gint64             received_us)
{
  gsize at = 16;
  gint64 timetag_us;

  if (size < 16 || memcmp (data, "#bundle", 8) != 0)
    {
      decode_message (receiver, data, size, FALSE, 0, received_us);
      return;
    }

  timetag_us = sj_osc_timetag_to_epoch (GUINT32_FROM_BE (*(guint32 *)(data + 8)),
                                        GUINT32_FROM_BE (*(guint32 *)(data + 12)));
  while (at + 4 <= size)
    {
      guint32 length = GUINT32_FROM_BE (*(guint32 *)(data + at));

      at += 4;
      if (length > size - at)
        break;
      decode_message (receiver, data + at, length, TRUE, timetag_us, received_us);
      at += length;
    }
}

static gpointer
receive_thread (gpointer user_data)
{
  SjTestOscReceiver *receiver = user_data;
  guint8 buffer[65536];

  while (!g_atomic_int_get (&receiver->stop))
    {
      g_autoptr(GError) error = NULL;
      gssize size = g_socket_receive (receiver->socket, (char *)buffer, sizeof buffer, NULL, &error);

      if (size > 0)
        decode_datagram (receiver, buffer, (gsize)size, g_get_real_time ());
    }

  return NULL;
}

SjTestOscReceiver *
sj_test_osc_receiver_new (void)
{
  SjTestOscReceiver *receiver = g_new0 (SjTestOscReceiver, 1);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GError) error = NULL;

  receiver->queue = g_async_queue_new_full ((GDestroyNotify)sj_test_osc_message_free);
  receiver->socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &error);
  g_assert_no_error (error);
  g_socket_bind (receiver->socket, address, FALSE, &error);
  g_assert_no_error (error);
  /* The thread looks at its stop flag this often. */
  g_socket_set_timeout (receiver->socket, 1);
  receiver->thread = g_thread_new ("sj-test-osc", receive_thread, receiver);
  return receiver;
}

void
sj_test_osc_receiver_free (SjTestOscReceiver *receiver)
{
  if (receiver == NULL)
    return;
  g_atomic_int_set (&receiver->stop, 1);
  g_thread_join (receiver->thread);
  g_clear_object (&receiver->socket);
  g_async_queue_unref (receiver->queue);
  g_free (receiver);
}

guint
sj_test_osc_receiver_get_port (SjTestOscReceiver *receiver)
{
  g_autoptr(GSocketAddress) address = g_socket_get_local_address (receiver->socket, NULL);

  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address));
}

/* The next message, or NULL after @timeout_ms. */
SjTestOscMessage *
sj_test_osc_receiver_pop (SjTestOscReceiver *receiver,
                          guint              timeout_ms)
{
  return g_async_queue_timeout_pop (receiver->queue, (guint64)timeout_ms * 1000);
}
