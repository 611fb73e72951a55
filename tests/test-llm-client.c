/* test-llm-client.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjLlmClient against a real HTTP server on the loopback interface that
 * plays the provider: event streams written in many small pieces (cut in
 * the middle of lines and of UTF-8 characters), HTTP errors, a connection
 * cut mid-answer, and what the client sends. The SSE parser is also fed
 * every possible split of a stream directly.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-llm-client-private.h"
#include "sj-llm-response.h"
#include "sj-sse-parser-private.h"

#define API_KEY "sk-test-0123456789"

/* One streamed chunk with the given delta. */
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":" delta "}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define DONE "data: [DONE]\n\n"
#define HEADER(fixture, name) soup_message_headers_get_one ((fixture)->headers, name)

typedef struct
{
  SoupServer         *server;
  char               *base_url;

  /* What the provider does. */
  guint               status;
  const char         *content_type;
  const char         *retry_after;
  const char         *body;
  gsize               piece_size;  /* the body goes out in pieces of this size */
  gsize               hold_at;     /* stop writing here and keep the connection */
  gsize               drop_at;     /* write this much, then cut the connection */
  gsize               offset;
  gboolean            completed;
  guint               idle_id;
  guint               tick_id;
  guint               ticks;

  /* What it saw. */
  char               *path;
  SoupMessageHeaders *headers;
  JsonObject         *request;

  /* What the client reported. */
  SjLlmClient        *client;
  GString            *deltas;
  GString            *reasoning_deltas;
  GCancellable       *cancellable;
  gboolean            cancel_on_delta;
  GAsyncResult       *result;
} Fixture;

typedef struct
{
  guint       status;
  const char *retry_after;
  gint        code;
  guint       seconds;
} StatusCase;

static gboolean
write_next_piece (gpointer user_data)
{
  Fixture *fixture = user_data;
  SoupServerMessage *msg = g_object_get_data (G_OBJECT (fixture->server), "msg");
  SoupMessageBody *body = soup_server_message_get_response_body (msg);
  gsize limit = fixture->hold_at > 0 ? fixture->hold_at : strlen (fixture->body);

  fixture->idle_id = 0;
  if (fixture->offset < limit)
    {
      gsize n = MIN (fixture->piece_size, limit - fixture->offset);

      soup_message_body_append (body, SOUP_MEMORY_COPY, fixture->body + fixture->offset, n);
      fixture->offset += n;
    }
  else if (fixture->hold_at == 0 && !fixture->completed)
    {
      soup_message_body_complete (body);
      fixture->completed = TRUE;
    }

  soup_server_message_unpause (msg);
  return G_SOURCE_REMOVE;
}

/* One piece per write: the next is only queued once the previous one is on
 * the wire, so the client sees them in separate reads. */
static void
on_wrote_chunk (SoupServerMessage *msg,
                Fixture           *fixture)
{
  if (fixture->idle_id == 0 && !fixture->completed &&
      (fixture->hold_at == 0 || fixture->offset < fixture->hold_at))
    fixture->idle_id = g_idle_add (write_next_piece, fixture);
}

static gboolean
drop_connection (gpointer user_data)
{
  Fixture *fixture = user_data;
  SoupServerMessage *msg = g_object_get_data (G_OBJECT (fixture->server), "msg");
  g_autoptr(GIOStream) stream = soup_server_message_steal_connection (msg);
  g_autoptr(GString) raw = g_string_new ("HTTP/1.1 200 OK\r\n"
                                         "Content-Type: text/event-stream\r\n"
                                         "Transfer-Encoding: chunked\r\n\r\n");
  GOutputStream *out = g_io_stream_get_output_stream (stream);

  fixture->idle_id = 0;

  /* A well-formed chunk, then the connection closes without the last one. */
  g_string_append_printf (raw, "%zx\r\n", fixture->drop_at);
  g_string_append_len (raw, fixture->body, fixture->drop_at);
  g_string_append (raw, "\r\n");

  g_assert_true (g_output_stream_write_all (out, raw->str, raw->len, NULL, NULL, NULL));
  g_assert_true (g_io_stream_close (stream, NULL, NULL));
  return G_SOURCE_REMOVE;
}

static void
server_callback (SoupServer        *server,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  Fixture *fixture = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *request_body = soup_server_message_get_request_body (msg);

  g_free (fixture->path);
  fixture->path = g_strdup (path);
  g_clear_pointer (&fixture->headers, soup_message_headers_unref);
  fixture->headers = soup_message_headers_ref (soup_server_message_get_request_headers (msg));

  if (request_body->length > 0)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();

      g_assert_true (json_parser_load_from_data (parser, request_body->data, request_body->length, NULL));
      g_clear_pointer (&fixture->request, json_object_unref);
      fixture->request = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
    }

  g_object_set_data_full (G_OBJECT (server), "msg", g_object_ref (msg), g_object_unref);

  if (fixture->drop_at > 0)
    {
      soup_server_message_pause (msg);
      fixture->idle_id = g_idle_add (drop_connection, fixture);
      return;
    }

  soup_server_message_set_status (msg, fixture->status, NULL);
  if (fixture->retry_after != NULL)
    soup_message_headers_replace (headers, "Retry-After", fixture->retry_after);

  if (fixture->piece_size > 0)
    {
      soup_message_headers_set_content_type (headers, fixture->content_type, NULL);
      soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
      g_signal_connect (msg, "wrote-chunk", G_CALLBACK (on_wrote_chunk), fixture);
      soup_server_message_pause (msg);
      fixture->idle_id = g_idle_add (write_next_piece, fixture);
    }
  else
    {
      soup_server_message_set_response (msg, fixture->content_type, SOUP_MEMORY_COPY,
                                        fixture->body, strlen (fixture->body));
    }
}

static void
on_content_delta (SjLlmClient *client,
                  const char  *text,
                  Fixture     *fixture)
{
  g_string_append (fixture->deltas, text);
  if (fixture->cancel_on_delta)
    g_cancellable_cancel (fixture->cancellable);
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, server_callback, fixture, NULL);
  soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (fixture->server);
  fixture->base_url = g_strdup_printf ("http://127.0.0.1:%d/v1/", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  fixture->status = SOUP_STATUS_OK;
  fixture->content_type = "text/event-stream";
  fixture->piece_size = 7;
  fixture->deltas = g_string_new (NULL);
  fixture->reasoning_deltas = g_string_new (NULL);
  fixture->cancellable = g_cancellable_new ();

  fixture->client = sj_llm_client_new (fixture->base_url, API_KEY);
  g_signal_connect (fixture->client, "content-delta", G_CALLBACK (on_content_delta), fixture);
  g_signal_connect_swapped (fixture->client, "reasoning-delta",
                            G_CALLBACK (g_string_append), fixture->reasoning_deltas);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_handle_id (&fixture->idle_id, g_source_remove);
  g_clear_handle_id (&fixture->tick_id, g_source_remove);
  g_clear_object (&fixture->client);
  g_clear_object (&fixture->result);
  soup_server_disconnect (fixture->server);
  g_clear_object (&fixture->server);
  g_clear_object (&fixture->cancellable);
  g_string_free (fixture->deltas, TRUE);
  g_string_free (fixture->reasoning_deltas, TRUE);
  g_clear_pointer (&fixture->request, json_object_unref);
  g_free (fixture->base_url);
  g_free (fixture->path);
  g_clear_pointer (&fixture->headers, soup_message_headers_unref);
}

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Fixture *fixture = user_data;

  fixture->result = g_object_ref (result);
}

static JsonObject *
run_stream (Fixture  *fixture,
            GError  **error)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"model\": \"test/model\", \"messages\": "
                                               "[{\"role\": \"user\", \"content\": \"make it groovier\"}]}",
                                               NULL);
  JsonObject *request = json_node_get_object (node);

  sj_llm_client_stream_async (fixture->client, request, fixture->cancellable, on_done, fixture);
  while (fixture->result == NULL)
    g_main_context_iteration (NULL, TRUE);

  /* The caller's request is left as it was. */
  g_assert_false (json_object_has_member (request, "stream"));

  return sj_llm_client_stream_finish (fixture->client, fixture->result, error);
}

static void
collect_event (const char *data,
               gpointer    user_data)
{
  g_string_append_printf (user_data, "%s|", data);
}

static void
test_sse_split (void)
{
  static const char stream[] =
    ": keep-alive\r\n\r\n"
    "data: a\r\ndata:b\r\n\r\n"
    "event: message\nid: 3\ndata: {\"x\": \"é\"}\n\n"
    "data: c\r\r"
    "data: [DONE]\n\n";
  static const char expected[] = "a\nb|{\"x\": \"é\"}|c|[DONE]|";
  gsize len = strlen (stream);

  /* Every cut into two pieces, then one byte at a time. */
  for (gsize cut = 0; cut <= len + 1; cut++)
    {
      g_autoptr(GString) events = g_string_new (NULL);
      g_autoptr(SjSseParser) parser = sj_sse_parser_new (collect_event, events);

      if (cut <= len)
        {
          g_assert_true (sj_sse_parser_feed (parser, stream, cut, NULL));
          g_assert_true (sj_sse_parser_feed (parser, stream + cut, len - cut, NULL));
        }
      else
        {
          for (gsize i = 0; i < len; i++)
            g_assert_true (sj_sse_parser_feed (parser, stream + i, 1, NULL));
        }
      sj_sse_parser_finish (parser);
      g_assert_cmpstr (events->str, ==, expected);
    }
}

static void
test_stream_content (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  JsonObject *options;
  JsonObject *usage;

  /* OpenRouter's keep-alive comment, CR LF line ends, and a character cut
   * in two by the 7-byte pieces; usage comes last, with no choices. */
  fixture->body =
    ": OPENROUTER PROCESSING\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\", wor\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ld! ✨\"}}]}\r\n\r\n"
    FINISH ("stop")
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17}}\n\n"
    DONE;

  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "content"), ==, "Hello, world! ✨");
  g_assert_cmpstr (fixture->deltas->str, ==, "Hello, world! ✨");
  g_assert_cmpstr (json_object_get_string_member (result, "reasoning"), ==, "");
  g_assert_cmpstr (json_object_get_string_member (result, "finish_reason"), ==, "stop");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "tool_calls")), ==, 0);
  usage = json_object_get_object_member (result, "usage");
  g_assert_cmpint (json_object_get_int_member (usage, "prompt_tokens"), ==, 12);
  g_assert_cmpint (json_object_get_int_member (usage, "completion_tokens"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (usage, "total_tokens"), ==, 17);

  g_assert_cmpstr (fixture->path, ==, "/v1/chat/completions");
  g_assert_cmpstr (HEADER (fixture, "Authorization"), ==, "Bearer " API_KEY);
  g_assert_null (HEADER (fixture, "HTTP-Referer"));
  g_assert_null (HEADER (fixture, "X-Title"));
  g_assert_cmpstr (json_object_get_string_member (fixture->request, "model"), ==, "test/model");
  g_assert_true (json_object_get_boolean_member (fixture->request, "stream"));
  options = json_object_get_object_member (fixture->request, "stream_options");
  g_assert_true (json_object_get_boolean_member (options, "include_usage"));
}

static void
test_stream_reasoning (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  fixture->body =
    CHUNK ("{\"reasoning\":\"Think\"}")
    CHUNK ("{\"reasoning\":\"ing.\",\"content\":null}")
    CHUNK ("{\"reasoning_content\":\" More.\"}")
    CHUNK ("{\"content\":\"Answer\"}")
    FINISH ("stop") DONE;

  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "reasoning"), ==, "Thinking. More.");
  g_assert_cmpstr (fixture->reasoning_deltas->str, ==, "Thinking. More.");
  g_assert_cmpstr (json_object_get_string_member (result, "content"), ==, "Answer");
  g_assert_cmpstr (fixture->deltas->str, ==, "Answer");
}

static void
assert_tool_call (JsonArray  *calls,
                  guint       index,
                  const char *id,
                  const char *name,
                  const char *arguments)
{
  JsonObject *call = json_array_get_object_element (calls, index);

  g_assert_cmpstr (json_object_get_string_member (call, "id"), ==, id);
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, name);
  g_assert_cmpstr (json_object_get_string_member (call, "arguments"), ==, arguments);
}

static void
test_stream_tool_calls (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  JsonArray *calls;

  /* Two parallel calls, their arguments interleaved across chunks. */
  fixture->body =
    CHUNK ("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\","
           "\"function\":{\"name\":\"strudel_knowledge\",\"arguments\":\"\"}}]}")
    CHUNK ("{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\","
           "\"function\":{\"name\":\"read_code\",\"arguments\":\"{\\\"fro\"}}]}")
    CHUNK ("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"query\\\":\"}}]}")
    CHUNK ("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"m\\\":1}\"}}]}")
    CHUNK ("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\" \\\"fast\\\"}\"}}]}")
    FINISH ("tool_calls") DONE;

  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "finish_reason"), ==, "tool_calls");
  calls = json_object_get_array_member (result, "tool_calls");
  g_assert_cmpuint (json_array_get_length (calls), ==, 2);
  assert_tool_call (calls, 0, "call_a", "strudel_knowledge", "{\"query\": \"fast\"}");
  assert_tool_call (calls, 1, "call_b", "read_code", "{\"from\":1}");
}

static void
test_error_status (Fixture       *fixture,
                   gconstpointer  data)
{
  const StatusCase *expected = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  fixture->status = expected->status;
  fixture->retry_after = expected->retry_after;
  fixture->content_type = "application/json";
  fixture->piece_size = 0;
  fixture->body = "{\"error\":{\"message\":\"Provider says no\",\"code\":0}}";

  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, expected->code);
  g_assert_cmpstr (error->message, ==, "Provider says no");
  g_assert_null (strstr (error->message, API_KEY));
  g_assert_cmpuint (sj_llm_client_result_get_retry_after (fixture->result), ==, expected->seconds);
}

static void
test_error_dropped (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) partial = NULL;

  fixture->body =
    CHUNK ("{\"content\":\"Hello\"}")
    CHUNK ("{\"content\":\", wor\"}")
    CHUNK ("{\"content\":\"ld\"}")
    FINISH ("stop") DONE;
  /* Cut in the middle of the third chunk. */
  fixture->drop_at = strstr (fixture->body, "ld\"") - fixture->body;

  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK);
  g_assert_cmpstr (fixture->deltas->str, ==, "Hello, wor");
  partial = sj_llm_client_stream_get_partial (fixture->result);
  g_assert_cmpstr (json_object_get_string_member (partial, "content"), ==, "Hello, wor");
}

static void
test_error_cancelled (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  fixture->body =
    CHUNK ("{\"content\":\"Hello\"}")
    CHUNK ("{\"content\":\" again\"}")
    FINISH ("stop") DONE;
  /* The provider goes quiet after the first chunk, as if thinking. */
  fixture->hold_at = strlen (CHUNK ("{\"content\":\"Hello\"}"));
  fixture->cancel_on_delta = TRUE;

  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (fixture->deltas->str, ==, "Hello");
}

static void
test_error_malformed (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) partial = NULL;

  fixture->body =
    CHUNK ("{\"content\":\"Hi\"}")
    "data: {\"choices\":[{\"delta\":{\"content\":\n\n"
    CHUNK ("{\"content\":\" there\"}")
    FINISH ("stop") DONE;

  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL);
  partial = sj_llm_client_stream_get_partial (fixture->result);
  g_assert_cmpstr (json_object_get_string_member (partial, "content"), ==, "Hi");
}

/* 100,000 nested arrays crashed the app in json-glib (issue 23): the
 * chunk now ends the answer with INPUT_TOO_DEEP, and what came before
 * it is kept. */
static void
test_error_too_deep (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) partial = NULL;
  g_autoptr(GString) body = g_string_new (CHUNK ("{\"content\":\"Hi\"}") "data: {\"choices\":");
  g_autofree char *text = NULL;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (body, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (body, ']');
  g_string_append (body, "}\n\n" CHUNK ("{\"content\":\" there\"}") FINISH ("stop") DONE);
  fixture->body = text = g_string_free (g_steal_pointer (&body), FALSE);
  fixture->piece_size = 65536;

  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "INPUT_TOO_DEEP"));
  partial = sj_llm_client_stream_get_partial (fixture->result);
  g_assert_cmpstr (json_object_get_string_member (partial, "content"), ==, "Hi");
}

/* A U+0000 cut the rest of the text off: it comes back as U+FFFD. */
static void
test_stream_nul (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  fixture->body = CHUNK ("{\"content\":\"nul \\u0000 rest\"}") CHUNK ("{\"content\":\" \\ud800!\"}")
                  FINISH ("stop") DONE;

  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "content"), ==, "nul \xef\xbf\xbd rest \xef\xbf\xbd!");
}

/* A connection that goes quiet ends the answer after the stall timeout,
 * with what arrived kept; the caller's cancellable is not touched. */
static void
test_error_stalled (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) partial = NULL;
  gint64 start;

  fixture->body = CHUNK ("{\"content\":\"Hello\"}") CHUNK ("{\"content\":\" never\"}") FINISH ("stop") DONE;
  fixture->hold_at = strlen (CHUNK ("{\"content\":\"Hello\"}"));
  _sj_llm_client_set_stall_timeout_ms (fixture->client, 300);

  start = g_get_monotonic_time ();
  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_STALLED);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 300 * 1000);
  g_assert_false (g_cancellable_is_cancelled (fixture->cancellable));
  partial = sj_llm_client_stream_get_partial (fixture->result);
  g_assert_cmpstr (json_object_get_string_member (partial, "content"), ==, "Hello");
}

/* Keep-alive comments are life: a stream slower in total than the stall
 * timeout, but never quiet for that long, completes. */
static gboolean
release_hold (gpointer user_data)
{
  Fixture *fixture = user_data;
  SoupServerMessage *msg = g_object_get_data (G_OBJECT (fixture->server), "msg");
  SoupMessageBody *body = soup_server_message_get_response_body (msg);

  if (++fixture->ticks < 8)
    {
      soup_message_body_append (body, SOUP_MEMORY_STATIC, ": keep-alive\n\n", 14);
      soup_server_message_unpause (msg);
      return G_SOURCE_CONTINUE;
    }

  fixture->tick_id = 0;
  fixture->hold_at = 0;
  fixture->idle_id = g_idle_add (write_next_piece, fixture);
  return G_SOURCE_REMOVE;
}

static void
test_keep_alive (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  fixture->body = CHUNK ("{\"content\":\"Hello\"}") CHUNK ("{\"content\":\" there\"}") FINISH ("stop") DONE;
  fixture->hold_at = strlen (CHUNK ("{\"content\":\"Hello\"}"));
  _sj_llm_client_set_stall_timeout_ms (fixture->client, 400);
  /* 8 comments 100 ms apart: 800 ms in all, never 400 ms quiet. */
  fixture->tick_id = g_timeout_add (100, release_hold, fixture);

  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "content"), ==, "Hello there");
}

static void
test_headers_openrouter (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(SjLlmClient) openrouter = sj_llm_client_new (NULL, API_KEY);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  g_assert_cmpstr (_sj_llm_client_get_base_url (openrouter), ==, SJ_LLM_CLIENT_OPENROUTER_URL);
  g_assert_true (_sj_llm_client_get_send_attribution (openrouter));
  g_assert_false (_sj_llm_client_get_send_attribution (fixture->client));

  _sj_llm_client_set_send_attribution (fixture->client, TRUE);
  fixture->body = CHUNK ("{\"content\":\"ok\"}") FINISH ("stop") DONE;
  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (HEADER (fixture, "Authorization"), ==, "Bearer " API_KEY);
  g_assert_cmpstr (HEADER (fixture, "HTTP-Referer"), ==, "https://github.com/strudeljam/strudel-jam");
  g_assert_cmpstr (HEADER (fixture, "X-Title"), ==, "Strudel Jam");
}

static void
test_headers_no_key (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  g_clear_object (&fixture->client);
  fixture->client = sj_llm_client_new (fixture->base_url, NULL);
  g_signal_connect (fixture->client, "content-delta", G_CALLBACK (on_content_delta), fixture);

  /* A local server that does not stream answers with plain JSON. */
  fixture->content_type = "application/json";
  fixture->piece_size = 0;
  fixture->body = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"local\"},"
                  "\"finish_reason\":\"stop\"}]}";

  result = run_stream (fixture, &error);
  g_assert_no_error (error);
  g_assert_null (HEADER (fixture, "Authorization"));
  g_assert_cmpstr (json_object_get_string_member (result, "content"), ==, "local");
}

static void
test_models (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;

  fixture->content_type = "application/json";
  fixture->piece_size = 0;
  fixture->body = "{\"object\":\"list\",\"data\":[{\"id\":\"openai/gpt-4o\",\"object\":\"model\"},"
                  "{\"id\":\"qwen3:8b\"},{\"object\":\"model\"}]}";

  sj_llm_client_list_models_async (fixture->client, NULL, on_done, fixture);
  while (fixture->result == NULL)
    g_main_context_iteration (NULL, TRUE);

  ids = sj_llm_client_list_models_finish (fixture->client, fixture->result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (fixture->path, ==, "/v1/models");
  g_assert_cmpstr (HEADER (fixture, "Authorization"), ==, "Bearer " API_KEY);
  g_assert_cmpuint (g_strv_length (ids), ==, 2);
  g_assert_cmpstr (ids[0], ==, "openai/gpt-4o");
  g_assert_cmpstr (ids[1], ==, "qwen3:8b");
}

static const StatusCase unauthorized = { 401, NULL, SJ_LLM_CLIENT_ERROR_UNAUTHORIZED, 0 },
  rate_limited = { 429, "17", SJ_LLM_CLIENT_ERROR_RATE_LIMITED, 17 },
  server_error = { 500, NULL, SJ_LLM_CLIENT_ERROR_SERVER, 0 };


/* A deadline for the whole answer: keep-alive comments keep the stall
 * watch quiet, not the deadline. What arrived is kept. */
static void
test_error_deadline (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) partial = NULL;
  gint64 start;

  fixture->body = CHUNK ("{\"content\":\"Hello\"}") CHUNK ("{\"content\":\" there\"}") FINISH ("stop") DONE;
  fixture->hold_at = strlen (CHUNK ("{\"content\":\"Hello\"}"));
  _sj_llm_client_set_stall_timeout_ms (fixture->client, 400);
  _sj_llm_client_set_deadline_ms (fixture->client, 400);
  /* 800 ms of keep-alives, 100 ms apart: alive, but past the deadline. */
  fixture->tick_id = g_timeout_add (100, release_hold, fixture);

  start = g_get_monotonic_time ();
  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_DEADLINE);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 400 * 1000);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 800 * 1000);
  partial = sj_llm_client_stream_get_partial (fixture->result);
  g_assert_cmpstr (json_object_get_string_member (partial, "content"), ==, "Hello");
}

static void
ignore_event (const char *data,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

/* 150 MiB of "data:" lines with no blank line between them, fed in 64 KiB
 * pieces: the parser refuses the event once it passes 8 MiB, and never
 * holds more than that meanwhile. */
static void
test_sse_event_too_large (void)
{
  const gsize piece = 64 * 1024;
  const gsize total = 150 * 1024 * 1024;
  g_autofree char *chunk = g_malloc (piece);
  g_autoptr(GError) error = NULL;
  guint events = 0;
  g_autoptr(SjSseParser) parser = sj_sse_parser_new (ignore_event, &events);
  gsize fed = 0;
  gsize peak = 0;
  gboolean ok = TRUE;

  /* Lines of 1 KiB: "data: xxx…x\n". */
  for (gsize i = 0; i < piece; i += 1024)
    {
      memcpy (chunk + i, "data: ", 6);
      memset (chunk + i + 6, 'x', 1024 - 7);
      chunk[i + 1023] = '\n';
    }

  while (fed < total && ok)
    {
      ok = sj_sse_parser_feed (parser, chunk, piece, &error);
      fed += piece;
      peak = MAX (peak, _sj_sse_parser_get_buffered (parser));
      g_assert_cmpuint (_sj_sse_parser_get_buffered (parser), <=, 8 * 1024 * 1024 + piece);
    }

  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpuint (events, ==, 0);
  g_assert_cmpuint (peak, <=, 8 * 1024 * 1024);
  g_assert_cmpuint (peak, >, 8 * 1024 * 1024 - piece);
  /* It stopped at the limit, not at the end of the stream. */
  g_assert_cmpuint (fed, <=, 8 * 1024 * 1024 + piece);

  /* One endless line is refused the same way. */
  {
    g_autoptr(SjSseParser) line_parser = sj_sse_parser_new (ignore_event, &events);
    g_autoptr(GError) line_error = NULL;

    memset (chunk, 'y', piece);
    g_assert_true (sj_sse_parser_feed (line_parser, "data: ", 6, NULL));
    ok = TRUE;
    for (fed = 0; fed < total && ok; fed += piece)
      {
        ok = sj_sse_parser_feed (line_parser, chunk, piece, &line_error);
        g_assert_cmpuint (_sj_sse_parser_get_buffered (line_parser), <=, 8 * 1024 * 1024);
      }
    g_assert_error (line_error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  }
}

/* Through the client: the first event is shown and kept, the oversized
 * one ends the stream with its own error. */
static void
test_error_event_too_large (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) partial = NULL;
  g_autoptr(GString) body = g_string_new (CHUNK ("{\"content\":\"Hello\"}"));

  while (body->len < 9 * 1024 * 1024)
    g_string_append (body, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"xxxxxxxxxxxxxxxxxxxxxxxx\"}}]}\n");
  fixture->body = body->str;
  fixture->piece_size = 64 * 1024;

  result = run_stream (fixture, &error);
  g_assert_null (result);
  g_assert_error (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_EVENT_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "8 MiB"));
  g_assert_cmpstr (fixture->deltas->str, ==, "Hello");
  partial = sj_llm_client_stream_get_partial (fixture->result);
  g_assert_cmpstr (json_object_get_string_member (partial, "content"), ==, "Hello");
}

/* Feeds @n events each carrying @delta (a JSON delta object) and returns
 * the response, failed or not. */
static SjLlmResponse *
feed_deltas (const char *delta,
             guint       n)
{
  SjLlmResponse *response = sj_llm_response_new (NULL, NULL);
  g_autofree char *event = g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", delta);

  for (guint i = 0; i < n; i++)
    if (!sj_llm_response_feed (response, event, strlen (event)))
      break;

  return response;
}

/* The answer's text, the reasoning and the tool calls' arguments each have
 * a limit; past it the piece is refused with an error that names the
 * limit, and what came before is kept. */
static void
test_answer_limits (void)
{
  g_autofree char *text = g_strnfill (64 * 1024, 'a');
  g_autofree char *content = g_strdup_printf ("{\"content\":\"%s\"}", text);
  g_autofree char *reasoning = g_strdup_printf ("{\"reasoning\":\"%s\"}", text);
  g_autofree char *arguments = g_strdup_printf ("{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":"
                                                "{\"name\":\"read_code\",\"arguments\":\"%s\"}}]}", text);
  struct
  {
    const char *delta;
    gint        code;
    const char *member;
    gsize       kept;
  } cases[] = {
    { content, SJ_LLM_CLIENT_ERROR_ANSWER_TOO_LARGE, "content", 4 * 1024 * 1024 },
    { reasoning, SJ_LLM_CLIENT_ERROR_REASONING_TOO_LARGE, "reasoning", 4 * 1024 * 1024 },
    { arguments, SJ_LLM_CLIENT_ERROR_TOOL_ARGUMENTS_TOO_LARGE, NULL, 1024 * 1024 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SjLlmResponse) response = feed_deltas (cases[i].delta, 100);
      g_autoptr(JsonObject) json = sj_llm_response_to_json (response);
      const GError *error = sj_llm_response_get_error (response);

      g_assert_error ((GError *) error, SJ_LLM_CLIENT_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, "MiB"));
      if (cases[i].member != NULL)
        g_assert_cmpuint (strlen (json_object_get_string_member (json, cases[i].member)), ==, cases[i].kept);
      else
        {
          JsonArray *calls = json_object_get_array_member (json, "tool_calls");
          JsonObject *call = json_array_get_object_element (calls, 0);

          g_assert_cmpuint (strlen (json_object_get_string_member (call, "arguments")), ==, cases[i].kept);
        }
    }

  /* Just under the limits is fine. */
  {
    g_autoptr(SjLlmResponse) response = feed_deltas (content, 64);

    g_assert_null (sj_llm_response_get_error (response));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/llm-client/sse/split", test_sse_split);
  g_test_add_func ("/llm-client/sse/event-too-large", test_sse_event_too_large);
  g_test_add_func ("/llm-client/limits/answer", test_answer_limits);

#define ADD(path, func, data) \
  g_test_add ("/llm-client/" path, Fixture, data, fixture_setup, func, fixture_teardown)
  ADD ("stream/content-usage", test_stream_content, NULL);
  ADD ("stream/reasoning", test_stream_reasoning, NULL);
  ADD ("stream/tool-calls", test_stream_tool_calls, NULL);
  ADD ("error/unauthorized", test_error_status, &unauthorized);
  ADD ("error/rate-limited", test_error_status, &rate_limited);
  ADD ("error/server", test_error_status, &server_error);
  ADD ("error/dropped", test_error_dropped, NULL);
  ADD ("error/cancelled", test_error_cancelled, NULL);
  ADD ("error/malformed", test_error_malformed, NULL);
  ADD ("error/too-deep", test_error_too_deep, NULL);
  ADD ("error/stalled", test_error_stalled, NULL);
  ADD ("error/deadline", test_error_deadline, NULL);
  ADD ("error/event-too-large", test_error_event_too_large, NULL);
  ADD ("stream/nul", test_stream_nul, NULL);
  ADD ("stream/keep-alive", test_keep_alive, NULL);
  ADD ("headers/openrouter", test_headers_openrouter, NULL);
  ADD ("headers/no-key", test_headers_no_key, NULL);
  ADD ("models", test_models, NULL);
#undef ADD

  return g_test_run ();
}
