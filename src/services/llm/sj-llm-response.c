/* sj-llm-response.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Assembles one chat completion from the chunks an OpenAI-compatible
 * server streams: the text and the reasoning are passed on as they arrive
 * (for the chat to show) and kept; tool calls come in fragments keyed by
 * an index, their JSON arguments cut anywhere, and are only usable once
 * joined, so they are delivered whole at the end. Anything unexpected in
 * the stream becomes an error, never a crash: the server is not ours.
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "sj-json.h"
#include "sj-llm-client.h"
#include "sj-llm-response.h"
#include "sj-sse-parser-private.h"

/* The server chooses the indices; a bound keeps a bogus one from
 * allocating a huge array. */
#define MAX_TOOL_CALLS 128

typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
} ToolCall;

struct _SjLlmResponse
{
  SjLlmDeltaFunc  func;
  gpointer        user_data;
  SjSseParser    *parser;
  GString        *content;
  GString        *reasoning;
  GPtrArray      *tool_calls;
  JsonObject     *usage;
  char           *finish_reason;
  gsize           arguments_size; /* of all the tool calls together */
  GError         *error;  /* the first problem found in the stream */
  gboolean        done;   /* [DONE] seen */
};

static void on_event (const char *data,
                      gpointer    user_data);

static void
tool_call_free (ToolCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

SjLlmResponse *
sj_llm_response_new (SjLlmDeltaFunc func,
                     gpointer       user_data)
{
  SjLlmResponse *self = g_new0 (SjLlmResponse, 1);

  self->func = func;
  self->user_data = user_data;
  self->parser = sj_sse_parser_new (on_event, self);
  self->content = g_string_new (NULL);
  self->reasoning = g_string_new (NULL);
  /* Not g_ptr_array_new_with_free_func: a hole left by a skipped index
   * is NULL, and the free func must tolerate it. */
  self->tool_calls = g_ptr_array_new ();

  return self;
}

void
sj_llm_response_free (SjLlmResponse *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->tool_calls->len; i++)
    if (g_ptr_array_index (self->tool_calls, i) != NULL)
      tool_call_free (g_ptr_array_index (self->tool_calls, i));
  g_ptr_array_unref (self->tool_calls);
  sj_sse_parser_free (self->parser);
  g_string_free (self->content, TRUE);
  g_string_free (self->reasoning, TRUE);
  g_clear_pointer (&self->usage, json_object_unref);
  g_free (self->finish_reason);
  g_clear_error (&self->error);
  g_free (self);
}

static void
fail (SjLlmResponse *self,
      gint           code,
      const char    *message)
{
  if (self->error == NULL)
    self->error = g_error_new_literal (SJ_LLM_CLIENT_ERROR, code, message);
}

static void
apply_tool_calls (SjLlmResponse *self,
                  JsonArray     *calls)
{
  for (guint i = 0; i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      JsonObject *fragment;
      JsonObject *function;
      JsonNode *index_node;
      gint64 index = i;
      ToolCall *call;
      const char *str;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      fragment = json_node_get_object (node);

      /* A non-streamed answer has no "index": the position is the index. */
      index_node = json_object_get_member (fragment, "index");
      if (index_node != NULL && JSON_NODE_HOLDS_VALUE (index_node) &&
          json_node_get_value_type (index_node) == G_TYPE_INT64)
        index = json_node_get_int (index_node);

      if (index < 0 || index >= MAX_TOOL_CALLS)
        {
          fail (self, SJ_LLM_CLIENT_ERROR_PROTOCOL, "The provider sent an invalid tool call index");
          return;
        }

      if ((guint) index >= self->tool_calls->len)
        g_ptr_array_set_size (self->tool_calls, index + 1);

      call = g_ptr_array_index (self->tool_calls, index);
      if (call == NULL)
        {
          call = g_new0 (ToolCall, 1);
          call->arguments = g_string_new (NULL);
          g_ptr_array_index (self->tool_calls, index) = call;
        }

      /* The id and the name come whole in the first fragment; some
       * servers repeat them later, which must not duplicate them. */
      if ((str = sj_json_object_get_string (fragment, "id")) != NULL && *str && call->id == NULL)
        call->id = g_strdup (str);

      if ((function = sj_json_object_get_object (fragment, "function")) == NULL)
        continue;

      if ((str = sj_json_object_get_string (function, "name")) != NULL && *str && call->name == NULL)
        call->name = g_strdup (str);
      if ((str = sj_json_object_get_string (function, "arguments")) != NULL)
        {
          gsize len = strlen (str);

          if (self->arguments_size + len > SJ_LLM_MAX_TOOL_ARGUMENTS)
            {
              fail (self, SJ_LLM_CLIENT_ERROR_TOOL_ARGUMENTS_TOO_LARGE,
                    "The model's tool call arguments passed the 1 MiB limit");
              return;
            }
          self->arguments_size += len;
          g_string_append_len (call->arguments, str, len);
        }
    }
}

/* A streamed chunk and a whole non-streamed completion have the same
 * shape, with "delta" in one and "message" in the other. */
static void
apply_completion (SjLlmResponse *self,
                  JsonObject    *object)
{
  JsonObject *usage = sj_json_object_get_object (object, "usage");
  JsonArray *choices = sj_json_object_get_array (object, "choices");
  JsonNode *choice_node;
  JsonObject *choice;
  JsonObject *delta;
  JsonArray *calls;
  const char *str;

  if (usage != NULL)
    {
      g_clear_pointer (&self->usage, json_object_unref);
      self->usage = json_object_ref (usage);
    }

  /* We never ask for n > 1, so only the first choice matters. The usage
   * chunk has an empty "choices". */
  if (choices == NULL || json_array_get_length (choices) == 0)
    return;

  choice_node = json_array_get_element (choices, 0);
  if (!JSON_NODE_HOLDS_OBJECT (choice_node))
    return;
  choice = json_node_get_object (choice_node);

  if ((str = sj_json_object_get_string (choice, "finish_reason")) != NULL)
    {
      g_free (self->finish_reason);
      self->finish_reason = g_strdup (str);
    }

  if ((delta = sj_json_object_get_object (choice, "delta")) == NULL &&
      (delta = sj_json_object_get_object (choice, "message")) == NULL)
    return;

  /* OpenRouter says "reasoning", DeepSeek, vLLM and llama.cpp say
   * "reasoning_content". */
  if (((str = sj_json_object_get_string (delta, "reasoning")) != NULL ||
       (str = sj_json_object_get_string (delta, "reasoning_content")) != NULL) && *str)
    {
      /* Past a limit the piece is not kept nor shown: what came before it is. */
      if (self->reasoning->len + strlen (str) > SJ_LLM_MAX_REASONING)
        {
          fail (self, SJ_LLM_CLIENT_ERROR_REASONING_TOO_LARGE,
                "The model's reasoning passed the 4 MiB limit");
          return;
        }
      g_string_append (self->reasoning, str);
      if (self->func != NULL)
        self->func (SJ_LLM_DELTA_REASONING, str, self->user_data);
    }

  if ((str = sj_json_object_get_string (delta, "content")) != NULL && *str)
    {
      if (self->content->len + strlen (str) > SJ_LLM_MAX_CONTENT)
        {
          fail (self, SJ_LLM_CLIENT_ERROR_ANSWER_TOO_LARGE,
                "The model's answer passed the 4 MiB limit");
          return;
        }
      g_string_append (self->content, str);
      if (self->func != NULL)
        self->func (SJ_LLM_DELTA_CONTENT, str, self->user_data);
    }

  if ((calls = sj_json_object_get_array (delta, "tool_calls")) != NULL)
    apply_tool_calls (self, calls);
}

static void
on_event (const char *data,
          gpointer    user_data)
{
  SjLlmResponse *self = user_data;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;
  JsonObject *error;

  /* Nothing after [DONE] or a fatal error counts. */
  if (self->done || self->error != NULL)
    return;

  if (g_strcmp0 (data, "[DONE]") == 0)
    {
      self->done = TRUE;
      return;
    }

  root = sj_json_parse (data, -1, NULL, &local);
  if (g_error_matches (local, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP) ||
      g_error_matches (local, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_LARGE))
    {
      /* Said plainly: a hostile or broken server, not a bug of the app. */
      fail (self, SJ_LLM_CLIENT_ERROR_PROTOCOL,
            g_error_matches (local, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP)
              ? "The provider sent a chunk nested too deep to read (INPUT_TOO_DEEP)"
              : "The provider sent a chunk too large to read (INPUT_TOO_LARGE)");
      return;
    }
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (self, SJ_LLM_CLIENT_ERROR_PROTOCOL, "The provider sent a malformed chunk");
      return;
    }

  /* OpenRouter reports a failure after the 200 as an error chunk. */
  if ((error = sj_json_object_get_object (json_node_get_object (root), "error")) != NULL)
    {
      const char *message = sj_json_object_get_string (error, "message");

      fail (self, SJ_LLM_CLIENT_ERROR_SERVER, message ? message : "The provider reported an error");
      return;
    }

  apply_completion (self, json_node_get_object (root));
}

/**
 * sj_llm_response_feed:
 * @self: a #SjLlmResponse
 * @data: bytes of the event stream, cut anywhere
 * @len: their length
 *
 * Returns: %FALSE once the stream has failed (see sj_llm_response_get_error())
 */
gboolean
sj_llm_response_feed (SjLlmResponse *self,
                      const char    *data,
                      gsize          len)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->error == NULL && !sj_sse_parser_feed (self->parser, data, len, &error))
    fail (self,
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE)
            ? SJ_LLM_CLIENT_ERROR_EVENT_TOO_LARGE : SJ_LLM_CLIENT_ERROR_PROTOCOL,
          error->message);

  return self->error == NULL;
}

/* For a server that ignored "stream" and answered with one JSON object. */
void
sj_llm_response_feed_completion (SjLlmResponse *self,
                                 const char    *json)
{
  g_return_if_fail (self != NULL);

  on_event (json, self);
  if (self->error == NULL)
    self->done = TRUE;
}

void
sj_llm_response_end (SjLlmResponse *self)
{
  g_return_if_fail (self != NULL);

  sj_sse_parser_finish (self->parser);
}

const GError *
sj_llm_response_get_error (SjLlmResponse *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->error;
}

/* Some servers end with a finish_reason and no [DONE]; that is a whole
 * answer. With neither, the connection was cut. */
gboolean
sj_llm_response_is_complete (SjLlmResponse *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->done || self->finish_reason != NULL;
}

/**
 * sj_llm_response_to_json:
 * @self: a #SjLlmResponse
 *
 * Returns: (transfer full): {content, reasoning, tool_calls: [{id, name,
 *   arguments}], usage, finish_reason} as far as it has arrived
 */
JsonObject *
sj_llm_response_to_json (SjLlmResponse *self)
{
  JsonObject *object = json_object_new ();
  JsonArray *calls = json_array_new ();

  g_return_val_if_fail (self != NULL, NULL);

  json_object_set_string_member (object, "content", self->content->str);
  json_object_set_string_member (object, "reasoning", self->reasoning->str);

  for (guint i = 0; i < self->tool_calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (self->tool_calls, i);
      JsonObject *item;

      /* A hole in the indices is a server bug; there is nothing to call. */
      if (call == NULL)
        continue;

      item = json_object_new ();
      json_object_set_string_member (item, "id", call->id ? call->id : "");
      json_object_set_string_member (item, "name", call->name ? call->name : "");
      json_object_set_string_member (item, "arguments", call->arguments->str);
      json_array_add_object_element (calls, item);
    }
  json_object_set_array_member (object, "tool_calls", calls);

  if (self->usage != NULL)
    json_object_set_object_member (object, "usage", json_object_ref (self->usage));
  else
    json_object_set_null_member (object, "usage");

  if (self->finish_reason != NULL)
    json_object_set_string_member (object, "finish_reason", self->finish_reason);
  else
    json_object_set_null_member (object, "finish_reason");

  return object;
}

/* An HTTP failure, with the provider's own message when it gave one. */
GError *
sj_llm_error_from_status (guint       status,
                          GByteArray *body)
{
  g_autofree char *message = NULL;
  g_autoptr(JsonNode) node = NULL;
  gint code;

  /* OpenAI, OpenRouter and Ollama all say {"error": {"message": …}};
   * some servers send {"error": "…"}. */
  if (body->len > 0 &&
      (node = sj_json_parse ((const char *) body->data, body->len, NULL, NULL)) != NULL &&
      JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *root = json_node_get_object (node);
      JsonObject *error = sj_json_object_get_object (root, "error");
      const char *str = error ? sj_json_object_get_string (error, "message") : sj_json_object_get_string (root, "error");

      if (str != NULL && *str)
        message = g_strdup (str);
    }

  if (message == NULL)
    message = g_strdup_printf ("HTTP %u %s", status, soup_status_get_phrase (status));

  if (status == 401 || status == 403)
    code = SJ_LLM_CLIENT_ERROR_UNAUTHORIZED;
  else if (status == 429)
    code = SJ_LLM_CLIENT_ERROR_RATE_LIMITED;
  else if (status >= 500)
    code = SJ_LLM_CLIENT_ERROR_SERVER;
  else if (status >= 400)
    code = SJ_LLM_CLIENT_ERROR_REJECTED;
  else
    code = SJ_LLM_CLIENT_ERROR_PROTOCOL;

  return g_error_new_literal (SJ_LLM_CLIENT_ERROR, code, message);
}

/* Retry-After is seconds or an HTTP date; 0 when absent or unusable. */
guint
sj_llm_parse_retry_after (const char *value)
{
  g_autofree char *trimmed = NULL;
  guint64 seconds;

  if (value == NULL)
    return 0;

  trimmed = g_strstrip (g_strdup (value));
  if (g_ascii_string_to_unsigned (trimmed, 10, 0, G_MAXUINT, &seconds, NULL))
    return seconds;

  /* The other form is an HTTP date. */
  {
    g_autoptr(GDateTime) when = soup_date_time_new_from_http_string (value);
    g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
    GTimeSpan span;

    if (when == NULL)
      return 0;
    span = g_date_time_difference (when, now);
    return span > 0 ? (guint) ((span + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC) : 0;
  }
}

