/* test-mcp-server.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The MCP protocol layer without a display (issue 34): SjMcpFramer cutting
 * chunks of any size into lines and refusing a line over the limit without
 * holding it; SjMcpServer over a scripted backend: initialize and version
 * negotiation, ping, notifications (no answer), the JSON-RPC errors (parse,
 * invalid request, unknown method, bad params), answers out of order, and
 * a fuzz of hostile lines that must each get one well-formed answer (or
 * none for a notification) and never crash; and the real `strudel-jam
 * --mcp` on stdio with no session bus: 100,000-deep params, a 10 MB line,
 * not JSON, a closed stdin (exit 0), and nothing on stdout but the
 * protocol.
 */

#include "config.h"

#include <string.h>

#include "sj-mcp-framer.h"
#include "sj-mcp-server.h"

/* A scripted backend ----------------------------------------------------------- */

#define TEST_TYPE_BACKEND (test_backend_get_type ())
G_DECLARE_FINAL_TYPE (TestBackend, test_backend, TEST, BACKEND, GObject)

struct _TestBackend
{
  GObject    parent_instance;
  GPtrArray *held;     /* GTasks answered when the test says */
  char      *client;   /* of the last request */
  char      *method;
};

static void test_backend_iface_init (SjMcpBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBackend, test_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SJ_TYPE_MCP_BACKEND, test_backend_iface_init))

static void
test_backend_request_async (SjMcpBackend        *backend,
                            const char          *client,
                            const char          *method,
                            JsonObject          *params,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  TestBackend *self = TEST_BACKEND (backend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_free (self->client);
  self->client = g_strdup (client);
  g_free (self->method);
  self->method = g_strdup (method);
  g_task_set_task_data (task, g_strdup (method), g_free);
  if (params != NULL && g_strcmp0 (json_object_get_string_member_with_default (params, "name", ""), "hold") == 0)
    {
      g_ptr_array_add (self->held, task);
      return;
    }
  if (params != NULL && g_strcmp0 (json_object_get_string_member_with_default (params, "name", ""), "refuse") == 0)
    {
      g_task_return_new_error (task, SJ_MCP_ERROR, SJ_MCP_ERROR_REFUSED, "The musician blocked it");
      g_object_unref (task);
      return;
    }
  {
    JsonObject *result = json_object_new ();

    json_object_set_string_member (result, "echo", method);
    g_task_return_pointer (task, result, (GDestroyNotify)json_object_unref);
    g_object_unref (task);
  }
}

static JsonObject *
test_backend_request_finish (SjMcpBackend  *backend,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_backend_iface_init (SjMcpBackendInterface *iface)
{
  iface->request_async = test_backend_request_async;
  iface->request_finish = test_backend_request_finish;
}

static void
test_backend_finalize (GObject *object)
{
  TestBackend *self = TEST_BACKEND (object);

  g_ptr_array_unref (self->held);
  g_free (self->client);
  g_free (self->method);
  G_OBJECT_CLASS (test_backend_parent_class)->finalize (object);
}

static void
test_backend_class_init (TestBackendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_backend_finalize;
}

static void
test_backend_init (TestBackend *self)
{
  self->held = g_ptr_array_new ();
}

/* Helpers -------------------------------------------------------------------- */

typedef struct
{
  TestBackend *backend;
  SjMcpServer *server;
  GPtrArray   *out;  /* the lines written, as JsonObjects */
} Fixture;

static void
write_cb (const char *line,
          gpointer    user_data)
{
  Fixture *fixture = user_data;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  /* One line each: no raw newline inside. */
  g_assert_null (strchr (line, '\n'));
  node = json_from_string (line, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "jsonrpc"), ==, "2.0");
  g_ptr_array_add (fixture->out, json_object_ref (json_node_get_object (node)));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->backend = g_object_new (TEST_TYPE_BACKEND, NULL);
  fixture->server = sj_mcp_server_new (SJ_MCP_BACKEND (fixture->backend), write_cb, fixture);
  fixture->out = g_ptr_array_new_with_free_func ((GDestroyNotify)json_object_unref);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->server);
  g_clear_object (&fixture->backend);
  g_ptr_array_unref (fixture->out);
}

/* Answers from the backend come in an idle of the main context. */
static void
flush (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
send (Fixture    *fixture,
      const char *line)
{
  sj_mcp_server_handle_line (fixture->server, line, strlen (line));
  flush ();
}

static JsonObject *
last (Fixture *fixture)
{
  g_assert_cmpuint (fixture->out->len, >, 0);
  return g_ptr_array_index (fixture->out, fixture->out->len - 1);
}

static int
last_error (Fixture *fixture)
{
  JsonObject *message = last (fixture);

  g_assert_true (json_object_has_member (message, "error"));
  return json_object_get_int_member (json_object_get_object_member (message, "error"), "code");
}

static void
initialize (Fixture    *fixture,
            const char *version)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                                           "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                                           "\"clientInfo\":{\"name\":\"test client\",\"version\":\"1\"}}}", version);

  send (fixture, line);
}

/* The framer ----------------------------------------------------------------- */

typedef struct
{
  GPtrArray *lines;
  guint      too_long;
} Lines;

static void
line_cb (const char *line,
         gsize       length,
         gboolean    too_long,
         gpointer    user_data)
{
  Lines *lines = user_data;

  if (too_long)
    lines->too_long++;
  else
    {
      g_assert_cmpuint (strlen (line), ==, length);
      g_ptr_array_add (lines->lines, g_strndup (line, length));
    }
}

static void
test_framer_chunks (void)
{
  const char *stream = "{\"a\":1}\n\r\n{\"b\":2}\r\n\n{\"c\":3}";
  Lines lines = { g_ptr_array_new_with_free_func (g_free), 0 };

  /* Every chunk size gives the same lines. */
  for (gsize chunk = 1; chunk <= strlen (stream); chunk++)
    {
      g_autoptr(SjMcpFramer) framer = sj_mcp_framer_new (0);

      g_ptr_array_set_size (lines.lines, 0);
      for (gsize at = 0; at < strlen (stream); at += chunk)
        sj_mcp_framer_push (framer, stream + at, MIN (chunk, strlen (stream) - at), line_cb, &lines);
      sj_mcp_framer_finish (framer, line_cb, &lines);
      g_assert_cmpuint (lines.lines->len, ==, 3);
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 0), ==, "{\"a\":1}");
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 1), ==, "{\"b\":2}");
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 2), ==, "{\"c\":3}");
    }
  g_assert_cmpuint (lines.too_long, ==, 0);
  g_ptr_array_unref (lines.lines);
}

/* 10 MB without a newline, fed in 64 KiB chunks: refused once, never
 * held beyond the limit, and the next line is read. */
static void
test_framer_too_long (void)
{
  g_autoptr(SjMcpFramer) framer = sj_mcp_framer_new (SJ_MCP_MAX_LINE);
  Lines lines = { g_ptr_array_new_with_free_func (g_free), 0 };
  g_autofree char *chunk = g_malloc (64 * 1024);

  memset (chunk, 'x', 64 * 1024);
  for (guint i = 0; i < 160; i++)
    {
      sj_mcp_framer_push (framer, chunk, 64 * 1024, line_cb, &lines);
      g_assert_cmpuint (sj_mcp_framer_get_buffered (framer), <=, SJ_MCP_MAX_LINE);
    }
  g_assert_cmpuint (lines.too_long, ==, 1);
  g_assert_cmpuint (sj_mcp_framer_get_buffered (framer), ==, 0);
  sj_mcp_framer_push (framer, "tail\n{\"ok\":1}\n", 14, line_cb, &lines);
  g_assert_cmpuint (lines.lines->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (lines.lines, 0), ==, "{\"ok\":1}");
  g_ptr_array_unref (lines.lines);
}

/* The server ----------------------------------------------------------------- */

static void
test_initialize (Fixture       *fixture,
                 gconstpointer  data)
{
  static const struct { const char *asked; const char *answered; } versions[] = {
    { "2025-06-18", "2025-06-18" },
    { "2025-03-26", "2025-03-26" },
    { "2024-11-05", "2024-11-05" },
    { "2099-01-01", "2025-06-18" },
  };
  JsonObject *result;

  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      initialize (fixture, versions[i].asked);
      result = json_object_get_object_member (last (fixture), "result");
      g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, versions[i].answered);
      g_assert_true (json_object_has_member (json_object_get_object_member (result, "capabilities"), "tools"));
      g_assert_true (json_object_has_member (json_object_get_object_member (result, "capabilities"), "resources"));
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "serverInfo"), "name"), ==,
                       "strudel-jam");
    }
  g_assert_cmpstr (sj_mcp_server_get_client (fixture->server), ==, "test client");

  /* The initialized notification gets no answer. */
  send (fixture, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  g_assert_cmpuint (fixture->out->len, ==, G_N_ELEMENTS (versions));

  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
  g_assert_cmpstr (json_object_get_string_member (last (fixture), "id"), ==, "p");
  g_assert_true (json_object_has_member (last (fixture), "result"));
}

static void
test_errors (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GString) deep = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"a\":");

  /* Before initialize, the backend's methods are refused. */
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  g_assert_null (fixture->backend->method);

  initialize (fixture, SJ_MCP_PROTOCOL_VERSION);

  send (fixture, "not json");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_PARSE);
  g_assert_true (json_object_get_null_member (last (fixture), "id"));
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_PARSE);
  send (fixture, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  send (fixture, "42");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  send (fixture, "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  g_assert_cmpint (json_object_get_int_member (last (fixture), "id"), ==, 2);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":7}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/destroy\"}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_METHOD_NOT_FOUND);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{}}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_PARAMS);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":[1]}}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_PARAMS);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{}}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_PARAMS);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":\"x\"}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_PARAMS);

  /* 100,000 levels deep: refused by the scan, json-glib never recurses. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  send (fixture, deep->str);
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_PARSE);
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (last (fixture), "error"),
                                                           "message"), "deep"));

  sj_mcp_server_handle_too_long (fixture->server);
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INVALID_REQUEST);

  /* A notification never gets an answer, even a wrong one. */
  {
    guint before = fixture->out->len;

    send (fixture, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}");
    send (fixture, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}");
    send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}");
    g_assert_cmpuint (fixture->out->len, ==, before);
  }
}

static void
test_backend_calls (Fixture       *fixture,
                    gconstpointer  data)
{
  JsonObject *message;
  GTask *held;

  initialize (fixture, SJ_MCP_PROTOCOL_VERSION);

  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"read_code\"}}");
  message = last (fixture);
  g_assert_cmpint (json_object_get_int_member (message, "id"), ==, 10);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (message, "result"), "echo"), ==,
                   "tools/call");
  g_assert_cmpstr (fixture->backend->client, ==, "test client");

  /* The backend's error, with its code. */
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"refuse\"}}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_REFUSED);

  /* A slow call does not hold up a ping; its answer comes later. */
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"hold\"}}");
  g_assert_cmpuint (sj_mcp_server_get_pending (fixture->server), ==, 1);
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}");
  g_assert_cmpint (json_object_get_int_member (last (fixture), "id"), ==, 13);
  held = g_ptr_array_steal_index (fixture->backend->held, 0);
  g_task_return_pointer (held, json_object_new (), (GDestroyNotify)json_object_unref);
  g_object_unref (held);
  flush ();
  g_assert_cmpint (json_object_get_int_member (last (fixture), "id"), ==, 12);
  g_assert_cmpuint (sj_mcp_server_get_pending (fixture->server), ==, 0);

  /* Too many at once are refused, not queued without bound. */
  for (guint i = 0; i < SJ_MCP_MAX_PENDING; i++)
    send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tools/call\",\"params\":{\"name\":\"hold\"}}");
  send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{\"name\":\"hold\"}}");
  g_assert_cmpint (last_error (fixture), ==, SJ_MCP_ERROR_INTERNAL);
  while (fixture->backend->held->len > 0)
    {
      held = g_ptr_array_steal_index (fixture->backend->held, 0);
      g_task_return_pointer (held, json_object_new (), (GDestroyNotify)json_object_unref);
      g_object_unref (held);
    }
  flush ();
  g_assert_cmpuint (sj_mcp_server_get_pending (fixture->server), ==, 0);
}

/* Random hostile lines: each gets at most one answer, well formed (checked
 * by write_cb), and a request exactly one. */
static void
test_fuzz (Fixture       *fixture,
           gconstpointer  data)
{
  static const char * const pieces[] = {
    "{", "}", "[", "]", "\"", "\\", "\\u", "\\ud800", ":", ",", "\"jsonrpc\"", "\"2.0\"", "\"id\"", "1", "-1e999",
    "\"method\"", "\"ping\"", "\"tools/call\"", "\"params\"", "null", "true", "\xff", "\xc3", "\x01", " ", "\t",
  };
  GRand *rand = g_rand_new_with_seed (34);

  initialize (fixture, SJ_MCP_PROTOCOL_VERSION);
  for (guint n = 0; n < 20000; n++)
    {
      g_autoptr(GString) line = g_string_new (NULL);
      guint before = fixture->out->len;
      guint count = g_rand_int_range (rand, 1, 40);

      for (guint i = 0; i < count; i++)
        g_string_append (line, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      sj_mcp_server_handle_line (fixture->server, line->str, line->len);
      flush ();
      g_assert_cmpuint (fixture->out->len, <=, before + 1);
    }
  /* Well-formed requests with random ids and methods. */
  for (guint n = 0; n < 2000; n++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\"}", n,
                                               pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      guint before = fixture->out->len;

      send (fixture, line);
      g_assert_cmpuint (fixture->out->len, ==, before + 1);
    }
  g_rand_free (rand);
}

/* The real binary on stdio --------------------------------------------------- */

static GPtrArray *
run_binary (GBytes *input,
            int    *status)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify)json_object_unref);
  g_autofree char *text = NULL;

  /* No bus and no display: nothing can start a window. */
  g_subprocess_launcher_setenv (launcher, "DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "WAYLAND_DISPLAY");
  process = g_subprocess_launcher_spawn (launcher, &error, SJ_STRUDEL_JAM, "--mcp", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate (process, input, NULL, &out, &err, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  *status = g_subprocess_get_exit_status (process);

  text = g_strndup (g_bytes_get_size (out) > 0 ? g_bytes_get_data (out, NULL) : "", g_bytes_get_size (out));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;

      if (*lines[i] == '\0')
        continue;
      /* Every line of stdout is a JSON-RPC message. */
      node = json_from_string (lines[i], &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "jsonrpc"), ==, "2.0");
      g_ptr_array_add (objects, json_object_ref (json_node_get_object (node)));
    }

  return objects;
}

static int
error_code (JsonObject *message)
{
  g_assert_true (json_object_has_member (message, "error"));
  return json_object_get_int_member (json_object_get_object_member (message, "error"), "code");
}

static void
test_binary_hostile (void)
{
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GPtrArray) out = NULL;
  int status = -1;

  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                          "\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n");
  g_string_append (input, "not json\n");
  /* 100,000-deep params. */
  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"a\":");
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (input, '[');
  g_string_append_c (input, '\n');
  /* A 10 MB line. */
  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"a\":\"");
  for (guint i = 0; i < 10 * 1000 * 1000 / 64; i++)
    g_string_append (input, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  g_string_append (input, "\"}}\n");
  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"nope\"}\n");
  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}\n");
  /* The last line without its newline, then stdin closes. */
  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
  bytes = g_string_free_to_bytes (g_steal_pointer (&input));

  out = run_binary (bytes, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (out->len, ==, 7);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (g_ptr_array_index (out, 0), "result"),
                                                  "protocolVersion"), ==, "2024-11-05");
  g_assert_cmpint (error_code (g_ptr_array_index (out, 1)), ==, SJ_MCP_ERROR_PARSE);
  g_assert_cmpint (error_code (g_ptr_array_index (out, 2)), ==, SJ_MCP_ERROR_PARSE);
  g_assert_cmpint (error_code (g_ptr_array_index (out, 3)), ==, SJ_MCP_ERROR_INVALID_REQUEST);
  g_assert_cmpint (error_code (g_ptr_array_index (out, 4)), ==, SJ_MCP_ERROR_METHOD_NOT_FOUND);
  /* No bus: the window cannot be reached, and says so. */
  g_assert_cmpint (error_code (g_ptr_array_index (out, 5)), ==, SJ_MCP_ERROR_UNAVAILABLE);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (out, 6), "id"), ==, 6);
}

static void
test_binary_closed_stdin (void)
{
  g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
  g_autoptr(GPtrArray) out = NULL;
  int status = -1;

  out = run_binary (empty, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (out->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp-server/framer/chunks", test_framer_chunks);
  g_test_add_func ("/mcp-server/framer/too-long", test_framer_too_long);
  g_test_add ("/mcp-server/initialize", Fixture, NULL, fixture_setup, test_initialize, fixture_teardown);
  g_test_add ("/mcp-server/errors", Fixture, NULL, fixture_setup, test_errors, fixture_teardown);
  g_test_add ("/mcp-server/backend", Fixture, NULL, fixture_setup, test_backend_calls, fixture_teardown);
  g_test_add ("/mcp-server/fuzz", Fixture, NULL, fixture_setup, test_fuzz, fixture_teardown);
  g_test_add_func ("/mcp-server/binary/hostile", test_binary_hostile);
  g_test_add_func ("/mcp-server/binary/closed-stdin", test_binary_closed_stdin);

  return g_test_run ();
}
