/* sj-test-model-server.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A real HTTP server on the loopback interface that plays an
 * OpenAI-compatible provider from a script: streamed answers (text, tool
 * calls with their arguments cut into fragments), HTTP errors, a
 * connection cut mid-answer, an answer that never ends. It records every
 * request, and when each arrived and each answer's last byte left, for the
 * tests and for bench/agent. It can also list models (GET /models) and,
 * as OpenRouter does, say whether a key is accepted (GET /key).
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "sj-test-model-server.h"

typedef enum
{
  END_COMPLETE,
  END_HOLD,
  END_DROP,
} ReplyEnd;

typedef struct
{
  guint      status;
  char      *retry_after;
  char      *body;         /* a non-streamed body (errors) */
  GPtrArray *events;       /* server-sent events, written one per piece */
  guint      interval_ms;  /* between events, 0 for all at once */
  ReplyEnd   end;
} Reply;

typedef struct
{
  SjTestModelServer *server;
  SoupServerMessage *msg;
  Reply             *reply;
  guint              next;
  guint              index;
  guint              timeout_id;
} Writer;

struct _SjTestModelServer
{
  SoupServer *server;
  char       *url;
  GPtrArray  *replies;
  guint       next_reply;
  GPtrArray  *requests;
  GArray     *request_times;
  GArray     *last_byte_times;
  char       *models;       /* the body of GET /models; NULL for a 404 */
  char       *api_key;      /* the key GET /key accepts; NULL for a 404 */
  char       *checked_key;  /* the key GET /key was last asked about */
  guint       n_model_lists;
};

static void
reply_free (gpointer data)
{
  Reply *reply = data;

  g_free (reply->retry_after);
  g_free (reply->body);
  g_clear_pointer (&reply->events, g_ptr_array_unref);
  g_free (reply);
}

static Reply *
reply_new (SjTestModelServer *self)
{
  Reply *reply = g_new0 (Reply, 1);

  reply->status = 200;
  reply->events = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->replies, reply);

  return reply;
}

static char *
delta_event (JsonObject *delta,
             const char *finish_reason)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "choices");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "index");
  json_builder_add_int_value (builder, 0);
  json_builder_set_member_name (builder, "delta");
  json_builder_add_value (builder, json_node_init_object (json_node_alloc (), delta));
  if (finish_reason != NULL)
    {
      json_builder_set_member_name (builder, "finish_reason");
      json_builder_add_string_value (builder, finish_reason);
    }
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json = json_to_string (root, FALSE);
  return g_strdup_printf ("data: %s\n\n", json);
}

static void
add_text_events (Reply      *reply,
                 const char *text,
                 guint       piece)
{
  const char *p = text;

  while (p != NULL && *p != '\0')
    {
      const char *end = p;
      g_autoptr(JsonObject) delta = json_object_new ();
      g_autofree char *chunk = NULL;

      for (guint i = 0; i < MAX (piece, 1) && *end != '\0'; i++)
        end = g_utf8_next_char (end);
      chunk = g_strndup (p, end - p);
      json_object_set_string_member (delta, "content", chunk);
      g_ptr_array_add (reply->events, delta_event (delta, NULL));
      p = end;
    }
}

static void
add_finish_events (Reply      *reply,
                   const char *reason)
{
  g_autoptr(JsonObject) empty = json_object_new ();

  g_ptr_array_add (reply->events, delta_event (empty, reason));
  g_ptr_array_add (reply->events, g_strdup ("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"total_tokens\":120}}\n\n"));
  g_ptr_array_add (reply->events, g_strdup ("data: [DONE]\n\n"));
}

void
sj_test_model_server_reply_text (SjTestModelServer *self,
                                 const char        *text,
                                 guint              piece)
{
  Reply *reply = reply_new (self);

  add_text_events (reply, text, piece);
  add_finish_events (reply, "stop");
}

void
sj_test_model_server_reply_slow_text (SjTestModelServer *self,
                                      const char        *text,
                                      guint              piece,
                                      guint              interval_ms)
{
  Reply *reply = reply_new (self);

  reply->interval_ms = interval_ms;
  add_text_events (reply, text, piece);
  add_finish_events (reply, "stop");
}

/* The arguments go out in fragments of 7 bytes, as models stream them,
 * cut anywhere (inside strings, escapes and UTF-8 sequences alike at the
 * JSON level: each fragment is a JSON string of its own). */
void
sj_test_model_server_reply_tool_calls (SjTestModelServer  *self,
                                       guint               n_calls,
                                       const char * const *call_ids,
                                       const char * const *names,
                                       const char * const *arguments)
{
  Reply *reply = reply_new (self);

  for (guint c = 0; c < n_calls; c++)
    {
      gsize len = strlen (arguments[c]);

      for (gsize offset = 0; offset == 0 || offset < len; offset += 7)
        {
          g_autoptr(JsonObject) delta = json_object_new ();
          JsonArray *calls = json_array_new ();
          JsonObject *call = json_object_new ();
          JsonObject *function = json_object_new ();
          g_autofree char *fragment = g_strndup (arguments[c] + offset, MIN (7, len - MIN (offset, len)));

          json_object_set_int_member (call, "index", c);
          if (offset == 0)
            {
              json_object_set_string_member (call, "id", call_ids[c]);
              json_object_set_string_member (call, "type", "function");
              json_object_set_string_member (function, "name", names[c]);
            }
          json_object_set_string_member (function, "arguments", fragment);
          json_object_set_object_member (call, "function", function);
          json_array_add_object_element (calls, call);
          json_object_set_array_member (delta, "tool_calls", calls);
          g_ptr_array_add (reply->events, delta_event (delta, NULL));
          if (len == 0)
            break;
        }
    }
  add_finish_events (reply, "tool_calls");
}

void
sj_test_model_server_reply_tool_call (SjTestModelServer *self,
                                      const char        *content,
                                      const char        *call_id,
                                      const char        *name,
                                      const char        *arguments)
{
  const char *ids[] = { call_id };
  const char *names[] = { name };
  const char *args[] = { arguments };
  Reply *reply;

  sj_test_model_server_reply_tool_calls (self, 1, ids, names, args);

  /* Some models say something before calling. */
  reply = g_ptr_array_index (self->replies, self->replies->len - 1);
  if (content != NULL)
    {
      g_autoptr(JsonObject) delta = json_object_new ();

      json_object_set_string_member (delta, "content", content);
      g_ptr_array_insert (reply->events, 0, delta_event (delta, NULL));
    }
}

void
sj_test_model_server_reply_status (SjTestModelServer *self,
                                   guint              status,
                                   const char        *retry_after,
                                   const char        *body)
{
  Reply *reply = reply_new (self);

  reply->status = status;
  reply->retry_after = g_strdup (retry_after);
  reply->body = g_strdup (body ? body : "{\"error\":{\"message\":\"scripted error\"}}");
}

void
sj_test_model_server_reply_drop (SjTestModelServer *self,
                                 const char        *text_before)
{
  Reply *reply = reply_new (self);

  reply->end = END_DROP;
  add_text_events (reply, text_before, 5);
}

void
sj_test_model_server_reply_hold (SjTestModelServer *self,
                                 const char        *text_before)
{
  Reply *reply = reply_new (self);

  reply->end = END_HOLD;
  add_text_events (reply, text_before, 5);
}

void
sj_test_model_server_reply_events (SjTestModelServer  *self,
                                   const char * const *events)
{
  Reply *reply = reply_new (self);

  for (guint i = 0; events[i] != NULL; i++)
    g_ptr_array_add (reply->events, g_strdup (events[i]));
}

static void
record_last_byte (SjTestModelServer *self,
                  guint              index)
{
  gint64 now = g_get_monotonic_time ();

  if (self->last_byte_times->len <= index)
    g_array_set_size (self->last_byte_times, index + 1);
  g_array_index (self->last_byte_times, gint64, index) = now;
}

static void
wrote_body_cb (SoupServerMessage *msg,
               gpointer           user_data)
{
  Writer *writer = user_data;

  record_last_byte (writer->server, writer->index);
}

static void
writer_free (gpointer data)
{
  Writer *writer = data;

  g_clear_handle_id (&writer->timeout_id, g_source_remove);
  g_free (writer);
}

static void
finished_cb (SoupServerMessage *msg,
             Writer            *writer)
{
  /* The client went away (a stop): nothing more to write. */
  g_clear_handle_id (&writer->timeout_id, g_source_remove);
}

static gboolean
write_next_cb (gpointer user_data)
{
  Writer *writer = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (writer->msg);
  Reply *reply = writer->reply;

  writer->timeout_id = 0;
  if (writer->next < reply->events->len)
    {
      const char *event = g_ptr_array_index (reply->events, writer->next++);

      soup_message_body_append (body, SOUP_MEMORY_COPY, event, strlen (event));
      soup_server_message_unpause (writer->msg);
      writer->timeout_id = g_timeout_add (reply->interval_ms, write_next_cb, writer);
      return G_SOURCE_REMOVE;
    }

  if (reply->end == END_COMPLETE)
    {
      soup_message_body_complete (body);
      soup_server_message_unpause (writer->msg);
    }

  return G_SOURCE_REMOVE;
}

static void
drop (SjTestModelServer *self,
      SoupServerMessage *msg,
      Reply             *reply,
      guint              index)
{
  g_autoptr(GIOStream) stream = soup_server_message_steal_connection (msg);
  g_autoptr(GString) raw = g_string_new ("HTTP/1.1 200 OK\r\n"
                                         "Content-Type: text/event-stream\r\n"
                                         "Transfer-Encoding: chunked\r\n\r\n");
  GOutputStream *out = g_io_stream_get_output_stream (stream);

  /* Well-formed chunks, then the connection closes without the last one. */
  for (guint i = 0; i < reply->events->len; i++)
    {
      const char *event = g_ptr_array_index (reply->events, i);

      g_string_append_printf (raw, "%zx\r\n%s\r\n", strlen (event), event);
    }
  g_output_stream_write_all (out, raw->str, raw->len, NULL, NULL, NULL);
  g_io_stream_close (stream, NULL, NULL);
  record_last_byte (self, index);
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  SjTestModelServer *self = user_data;
  SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (request_body);
  g_autoptr(JsonParser) parser = json_parser_new ();
  gint64 now = g_get_monotonic_time ();
  guint index = self->requests->len;
  Reply *reply;
  Writer *writer;

  if (g_str_has_suffix (path, "/key") && self->api_key != NULL)
    {
      const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                       "Authorization");

      g_free (self->checked_key);
      self->checked_key = auth != NULL && g_str_has_prefix (auth, "Bearer ") ? g_strdup (auth + 7) : NULL;
      if (g_strcmp0 (self->checked_key, self->api_key) == 0)
        {
          soup_server_message_set_status (msg, 200, NULL);
          soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                            "{\"data\":{\"label\":\"test\"}}", 25);
        }
      else
        {
          soup_server_message_set_status (msg, 401, NULL);
          soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                            "{\"error\":{\"message\":\"User not found.\",\"code\":401}}", 50);
        }
      return;
    }

  if (g_str_has_suffix (path, "/models") && self->models != NULL)
    {
      self->n_model_lists++;
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        self->models, strlen (self->models));
      return;
    }

  if (!g_str_has_suffix (path, "/chat/completions"))
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }

  if (json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    g_ptr_array_add (self->requests, json_object_ref (json_node_get_object (json_parser_get_root (parser))));
  else
    g_ptr_array_add (self->requests, json_object_new ());
  g_array_append_val (self->request_times, now);

  if (self->next_reply >= self->replies->len)
    {
      soup_server_message_set_status (msg, 500, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"error\":{\"message\":\"no scripted reply\"}}", 41);
      return;
    }

  reply = g_ptr_array_index (self->replies, self->next_reply++);

  if (reply->status != 200)
    {
      soup_server_message_set_status (msg, reply->status, NULL);
      if (reply->retry_after != NULL)
        soup_message_headers_replace (headers, "Retry-After", reply->retry_after);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        reply->body, strlen (reply->body));
      return;
    }

  if (reply->end == END_DROP)
    {
      drop (self, msg, reply, index);
      return;
    }

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);

  writer = g_new0 (Writer, 1);
  writer->server = self;
  writer->msg = msg;
  writer->reply = reply;
  writer->index = index;
  g_object_set_data_full (G_OBJECT (msg), "writer", writer, writer_free);
  g_signal_connect (msg, "wrote-body", G_CALLBACK (wrote_body_cb), writer);
  g_signal_connect (msg, "finished", G_CALLBACK (finished_cb), writer);

  if (reply->interval_ms == 0)
    {
      SoupMessageBody *body = soup_server_message_get_response_body (msg);

      for (guint i = 0; i < reply->events->len; i++)
        soup_message_body_append (body, SOUP_MEMORY_COPY, g_ptr_array_index (reply->events, i),
                                  strlen (g_ptr_array_index (reply->events, i)));
      /* Held: what is appended goes out, and the answer never ends. */
      if (reply->end == END_COMPLETE)
        soup_message_body_complete (body);
      return;
    }

  soup_server_message_pause (msg);
  writer->timeout_id = g_timeout_add (reply->interval_ms, write_next_cb, writer);
}

SjTestModelServer *
sj_test_model_server_new (void)
{
  SjTestModelServer *self = g_new0 (SjTestModelServer, 1);
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  self->server = soup_server_new (NULL, NULL);
  self->replies = g_ptr_array_new_with_free_func (reply_free);
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->request_times = g_array_new (FALSE, TRUE, sizeof (gint64));
  self->last_byte_times = g_array_new (FALSE, TRUE, sizeof (gint64));
  soup_server_add_handler (self->server, NULL, server_cb, self, NULL);

  if (!soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("Cannot listen on the loopback interface: %s", error->message);

  uris = soup_server_get_uris (self->server);
  self->url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));

  return self;
}

void
sj_test_model_server_free (SjTestModelServer *self)
{
  if (self == NULL)
    return;

  soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  g_ptr_array_unref (self->replies);
  g_ptr_array_unref (self->requests);
  g_array_unref (self->request_times);
  g_array_unref (self->last_byte_times);
  g_free (self->url);
  g_free (self->models);
  g_free (self->api_key);
  g_free (self->checked_key);
  g_free (self);
}

/* GET /models answers @json from now on; %NULL for a 404. */
void
sj_test_model_server_set_models (SjTestModelServer *self,
                                 const char        *json)
{
  g_free (self->models);
  self->models = g_strdup (json);
}

/* GET /key accepts @key only from now on (401 for any other), as
 * OpenRouter's does; %NULL for a 404. */
void
sj_test_model_server_set_api_key (SjTestModelServer *self,
                                  const char        *key)
{
  g_free (self->api_key);
  self->api_key = g_strdup (key);
}

/* Returns: the key GET /key was last asked about, or %NULL */
const char *
sj_test_model_server_get_checked_key (SjTestModelServer *self)
{
  return self->checked_key;
}

guint
sj_test_model_server_get_n_model_lists (SjTestModelServer *self)
{
  return self->n_model_lists;
}

guint16
sj_test_model_server_get_port (SjTestModelServer *self)
{
  g_autoptr(GUri) uri = g_uri_parse (self->url, G_URI_FLAGS_NONE, NULL);

  return g_uri_get_port (uri);
}

const char *
sj_test_model_server_get_url (SjTestModelServer *self)
{
  return self->url;
}

guint
sj_test_model_server_get_n_requests (SjTestModelServer *self)
{
  return self->requests->len;
}

JsonObject *
sj_test_model_server_get_request (SjTestModelServer *self,
                                  guint              index)
{
  g_assert_cmpuint (index, <, self->requests->len);
  return g_ptr_array_index (self->requests, index);
}

gint64
sj_test_model_server_get_request_time (SjTestModelServer *self,
                                       guint              index)
{
  g_assert_cmpuint (index, <, self->request_times->len);
  return g_array_index (self->request_times, gint64, index);
}

gint64
sj_test_model_server_get_last_byte_time (SjTestModelServer *self,
                                         guint              index)
{
  if (index >= self->last_byte_times->len)
    return 0;
  return g_array_index (self->last_byte_times, gint64, index);
}

/**
 * sj_test_model_server_find_tool_result:
 *
 * Returns: (transfer full) (nullable): the content of the tool message
 *   answering @call_id in request @request
 */
char *
sj_test_model_server_find_tool_result (SjTestModelServer *self,
                                       guint              request,
                                       const char        *call_id)
{
  JsonArray *messages = json_object_get_array_member (sj_test_model_server_get_request (self, request), "messages");

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "role", ""), "tool") == 0 &&
          g_strcmp0 (json_object_get_string_member_with_default (message, "tool_call_id", ""), call_id) == 0)
        return g_strdup (json_object_get_string_member (message, "content"));
    }

  return NULL;
}
