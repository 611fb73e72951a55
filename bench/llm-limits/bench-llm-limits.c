/* bench-llm-limits.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Peak memory of reading one 150 MiB server-sent event: "data:" lines of
 * 1 KiB with no blank line between them, streamed by a loopback server (a
 * child process, so its memory is not counted) in 64 KiB writes.
 *
 *   bench-llm-limits client     the real SjLlmClient (the 8 MiB event cap)
 *   bench-llm-limits unbounded  the same stream into an SjSseParser whose
 *                               cap is lifted: the old behaviour, where data
 *                               lines piled up until a blank line
 *   bench-llm-limits floor      a bare libsoup read of the stream, discarded
 *
 * Prints the resident memory before the request and the peak (VmHWM).
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "sj-llm-client-private.h"
#include "sj-sse-parser-private.h"

#define EVENT_SIZE (150 * 1024 * 1024)
#define WRITE_SIZE (64 * 1024)

static guint64
status_kib (const char *field)
{
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL) ||
      (line = strstr (text, field)) == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen (field), NULL, 10);
}

static void
serve (GSocket *listener)
{
  g_autoptr(GSocket) conn = g_socket_accept (listener, NULL, NULL);
  g_autofree char *chunk = g_malloc (WRITE_SIZE);
  char request[65536];
  const char *head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
  gsize sent = 0;

  if (conn == NULL)
    _exit (1);
  /* Enough of the request: the client waits for nothing more. */
  g_socket_receive (conn, request, sizeof request, NULL, NULL);
  for (gsize i = 0; i < WRITE_SIZE; i += 1024)
    {
      memcpy (chunk + i, "data: ", 6);
      memset (chunk + i + 6, 'x', 1024 - 7);
      chunk[i + 1023] = '\n';
    }
  g_socket_send (conn, head, strlen (head), NULL, NULL);
  while (sent < EVENT_SIZE)
    {
      gssize n = g_socket_send (conn, chunk, WRITE_SIZE, NULL, NULL);

      if (n <= 0)
        break;  /* the client gave up */
      sent += WRITE_SIZE;
    }
  _exit (0);
}

static void
ignore_event (const char *data,
              gpointer    user_data)
{
}

typedef struct
{
  GMainLoop *loop;
  GError    *error;
  gsize      bytes;
} Run;

static void
stream_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(JsonObject) answer = sj_llm_client_stream_finish (SJ_LLM_CLIENT (object), result, &run->error);

  g_main_loop_quit (run->loop);
}

int
main (int   argc,
      char *argv[])
{
  const char *mode = argc > 1 ? argv[1] : "client";
  g_autoptr(GSocket) listener = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *url = NULL;
  guint64 before;
  gint64 start;
  Run run = { 0 };
  pid_t child;

  g_assert_true (g_socket_bind (listener, any, TRUE, NULL));
  g_assert_true (g_socket_listen (listener, NULL));
  bound = g_socket_get_local_address (listener, NULL);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  child = fork ();
  if (child == 0)
    serve (listener);
  g_socket_close (listener, NULL);

  before = status_kib ("VmRSS:");
  start = g_get_monotonic_time ();

  if (g_str_equal (mode, "client"))
    {
      g_autoptr(SjLlmClient) client = sj_llm_client_new (url, NULL);
      g_autoptr(JsonNode) body = json_from_string ("{\"model\":\"m\",\"messages\":[]}", NULL);

      run.loop = g_main_loop_new (NULL, FALSE);
      sj_llm_client_stream_async (client, json_node_get_object (body), NULL, stream_cb, &run);
      g_main_loop_run (run.loop);
      g_main_loop_unref (run.loop);
    }
  else
    {
      g_autoptr(SoupSession) session = soup_session_new ();
      g_autofree char *completions = g_strconcat (url, "/chat/completions", NULL);
      g_autoptr(SoupMessage) msg = soup_message_new ("POST", completions);
      g_autoptr(GInputStream) in = soup_session_send (session, msg, NULL, &run.error);
      g_autoptr(SjSseParser) parser = sj_sse_parser_new (ignore_event, NULL);
      g_autofree char *buffer = g_malloc (16384);
      gssize n;

      _sj_sse_parser_set_max_event (parser, G_MAXSIZE);
      while (in != NULL && (n = g_input_stream_read (in, buffer, 16384, NULL, &run.error)) > 0)
        {
          run.bytes += n;
          if (g_str_equal (mode, "unbounded"))
            sj_sse_parser_feed (parser, buffer, n, NULL);
        }
    }

  kill (child, SIGTERM);
  waitpid (child, NULL, 0);

  g_print ("%-10s rss before %6.1f MB, peak %6.1f MB, %.2f s, %s\n", mode,
           before / 1024.0, status_kib ("VmHWM:") / 1024.0,
           (g_get_monotonic_time () - start) / 1e6,
           run.error != NULL ? run.error->message : "read to the end");
  return 0;
}
