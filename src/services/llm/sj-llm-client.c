/* sj-llm-client.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Talks to any OpenAI-compatible chat completions endpoint: OpenRouter by
 * default, or a local server (Ollama, llama.cpp, LM Studio) where the key
 * is optional. Completions are always streamed so the chat can show text
 * and reasoning as they arrive; the pieces are also assembled here so that
 * the agent loop gets one complete answer (content, reasoning, tool calls
 * with their full arguments, usage) at the end.
 *
 * The deltas are signals of the client, so a client runs one stream at a
 * time; the chat has one conversation and one request under way.
 *
 * This file has the client and what it asks for: a completion, the model
 * list, a key check. How one request is sent and its answer read is in
 * sj-llm-client-request.c.
 *
 * The key travels only in the Authorization header. Nothing here logs
 * headers or request bodies, and error messages never quote them.
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "sj-llm-client-private.h"
#include "sj-model-catalog.h"
#include "sj-redact.h"

G_DEFINE_FINAL_TYPE (SjLlmClient, sj_llm_client, G_TYPE_OBJECT)
G_DEFINE_QUARK (sj-llm-client-error-quark, sj_llm_client_error)

/* Only the tests change it, to play OpenRouter on the loopback interface. */
static char *openrouter_url;

enum {
  CONTENT_DELTA,
  REASONING_DELTA,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

void
_sj_llm_client_emit_delta (SjLlmClient    *self,
                           SjLlmDeltaKind  kind,
                           const char     *text)
{
  g_signal_emit (self, signals[kind == SJ_LLM_DELTA_CONTENT ? CONTENT_DELTA : REASONING_DELTA], 0, text);
}

static void
sj_llm_client_finalize (GObject *object)
{
  SjLlmClient *self = (SjLlmClient *)object;

  g_clear_object (&self->session);
  g_clear_pointer (&self->base_url, g_free);
  /* Not left behind in freed memory. */
  if (self->api_key != NULL)
    explicit_bzero (self->api_key, strlen (self->api_key));
  g_clear_pointer (&self->api_key, g_free);

  G_OBJECT_CLASS (sj_llm_client_parent_class)->finalize (object);
}

static void
sj_llm_client_class_init (SjLlmClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_llm_client_finalize;

  /**
   * SjLlmClient::content-delta:
   * @text: the piece of the answer just received
   */
  signals[CONTENT_DELTA] =
    g_signal_new ("content-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjLlmClient::reasoning-delta:
   * @text: the piece of the model's reasoning just received
   */
  signals[REASONING_DELTA] =
    g_signal_new ("reasoning-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
sj_llm_client_init (SjLlmClient *self)
{
  /* No idle timeout: a reasoning model may think for minutes before the
   * first token, and the caller has a GCancellable for giving up. */
  self->session = soup_session_new_with_options ("user-agent", "StrudelJam/" PACKAGE_VERSION,
                                                 "timeout", 0,
                                                 NULL);
  self->stall_timeout_ms = SJ_LLM_CLIENT_DEFAULT_STALL_TIMEOUT * 1000;
  self->deadline_ms = SJ_LLM_CLIENT_DEFAULT_DEADLINE * 1000;
}

/**
 * sj_llm_client_new:
 * @base_url: (nullable): the API root, such as "http://localhost:11434/v1";
 *   %NULL for OpenRouter
 * @api_key: (nullable): the key, or %NULL for a local server without one
 *
 * Returns: (transfer full): a new #SjLlmClient
 */
SjLlmClient *
sj_llm_client_new (const char *base_url,
                   const char *api_key)
{
  SjLlmClient *self = g_object_new (SJ_TYPE_LLM_CLIENT, NULL);
  gsize len;

  self->base_url = g_strdup (base_url != NULL && *base_url ? base_url : sj_llm_client_get_openrouter_url ());
  self->api_key = g_strdup (api_key);
  /* The key is masked wherever the app writes text: the history, the
   * tool logs, exports, and the log. */
  sj_redact_add_secret (api_key);

  /* "…/v1/" and "…/v1" are the same endpoint. */
  len = strlen (self->base_url);
  while (len > 0 && self->base_url[len - 1] == '/')
    self->base_url[--len] = '\0';

  /* OpenRouter asks apps to identify themselves. */
  self->send_attribution = strstr (self->base_url, "://openrouter.ai") != NULL;

  return self;
}

/**
 * sj_llm_client_get_openrouter_url:
 *
 * Returns: OpenRouter's API root: SJ_LLM_CLIENT_OPENROUTER_URL, or the
 *   loopback server a test plays it with
 */
const char *
sj_llm_client_get_openrouter_url (void)
{
  return openrouter_url != NULL ? openrouter_url : SJ_LLM_CLIENT_OPENROUTER_URL;
}

/**
 * _sj_llm_client_set_openrouter_url:
 * @url: (nullable): where OpenRouter is played, %NULL for the real one
 *
 * For tests: everything that speaks to OpenRouter (the agent's setup, the
 * key's place in the keyring, the model lists) goes to @url instead.
 */
void
_sj_llm_client_set_openrouter_url (const char *url)
{
  g_free (openrouter_url);
  openrouter_url = g_strdup (url);
}

/* The API root the client talks to, without a trailing slash. */
const char *
sj_llm_client_get_base_url (SjLlmClient *self)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  return self->base_url;
}

/**
 * sj_llm_client_set_timeout:
 * @seconds: how long a request may wait on the network, 0 for ever
 *
 * For the short requests that probe and list (a model list, a server
 * that may not be there); a completion keeps no timeout, since a reasoning
 * model may think for minutes before its first token.
 */
void
sj_llm_client_set_timeout (SjLlmClient *self,
                           guint        seconds)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  g_object_set (self->session, "timeout", seconds, NULL);
}

/**
 * sj_llm_client_set_stall_timeout:
 * @seconds: how long a completion may go without a single byte, 0 for ever
 *
 * A stream that sends nothing for this long (keep-alive comments count as
 * life) ends with %SJ_LLM_CLIENT_ERROR_STALLED rather than waiting for
 * ever on a dead connection.
 */
void
sj_llm_client_set_stall_timeout (SjLlmClient *self,
                                 guint        seconds)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  self->stall_timeout_ms = MIN (seconds, G_MAXUINT / 1000) * 1000;
}

/**
 * sj_llm_client_set_deadline:
 * @seconds: how long one answer may take from the request to its last
 *   byte, 0 for ever
 *
 * A stream that keeps going past this (a model that never stops, or
 * keep-alive comments without end) ends with %SJ_LLM_CLIENT_ERROR_DEADLINE;
 * what arrived before is kept in the partial answer.
 */
void
sj_llm_client_set_deadline (SjLlmClient *self,
                            guint        seconds)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  self->deadline_ms = MIN (seconds, G_MAXUINT / 1000) * 1000;
}

void
_sj_llm_client_set_deadline_ms (SjLlmClient *self,
                                guint        milliseconds)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  self->deadline_ms = milliseconds;
}

void
_sj_llm_client_set_stall_timeout_ms (SjLlmClient *self,
                                     guint        milliseconds)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  self->stall_timeout_ms = milliseconds;
}

const char *
_sj_llm_client_get_base_url (SjLlmClient *self)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  return self->base_url;
}

gboolean
_sj_llm_client_get_send_attribution (SjLlmClient *self)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  return self->send_attribution;
}

/**
 * _sj_llm_client_set_send_attribution:
 * @self: a #SjLlmClient
 * @send_attribution: whether to send OpenRouter's HTTP-Referer and X-Title
 *
 * On by default for an openrouter.ai base URL, off for any other.
 */
void
_sj_llm_client_set_send_attribution (SjLlmClient *self,
                                     gboolean     send_attribution)
{
  g_assert (SJ_IS_LLM_CLIENT (self));

  self->send_attribution = !!send_attribution;
}

/**
 * sj_llm_client_stream_async:
 * @self: a #SjLlmClient
 * @request_body: the chat completion request (model, messages, tools, …)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the answer is complete or failed
 * @user_data: data for @callback
 *
 * Streams a chat completion. "stream" is forced on, and usage is asked for
 * unless @request_body sets its own "stream_options". The text and the
 * reasoning are emitted as #SjLlmClient::content-delta and
 * #SjLlmClient::reasoning-delta while they arrive.
 */
void
sj_llm_client_stream_async (SjLlmClient         *self,
                            JsonObject          *request_body,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) body = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  g_autofree char *json = NULL;
  SoupMessage *msg;
  gsize len;

  g_assert (SJ_IS_LLM_CLIENT (self));
  g_assert (request_body != NULL);
  g_assert (!cancellable || G_IS_CANCELLABLE (cancellable));

  /* A copy of the top level, which is all we change: the request is the
   * caller's to reuse for the next turn. */
  json_object_iter_init (&iter, request_body);
  while (json_object_iter_next (&iter, &name, &member))
    json_object_set_member (body, name, json_node_copy (member));
  json_node_set_object (node, body);

  json_object_set_boolean_member (body, "stream", TRUE);
  if (!json_object_has_member (body, "stream_options"))
    {
      JsonObject *options = json_object_new ();

      json_object_set_boolean_member (options, "include_usage", TRUE);
      json_object_set_object_member (body, "stream_options", options);
    }

  json = json_to_string (node, FALSE);
  len = strlen (json);

  msg = _sj_llm_client_create_message (self, SOUP_METHOD_POST, "/chat/completions");
  if (msg != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_take (g_steal_pointer (&json), len);

      soup_message_headers_replace (soup_message_get_request_headers (msg),
                                    "Accept", "text/event-stream");
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }

  _sj_llm_client_start_request (self, msg, SJ_LLM_READ_STREAM, sj_llm_client_stream_async,
                                cancellable, callback, user_data);
}

/**
 * sj_llm_client_stream_finish:
 *
 * Returns: (transfer full): {content, reasoning, tool_calls: [{id, name,
 *   arguments}], usage, finish_reason}, or %NULL with @error set
 */
JsonObject *
sj_llm_client_stream_finish (SjLlmClient   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_assert (SJ_IS_LLM_CLIENT (self));
  g_assert (g_task_is_valid (result, self));

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* GET @path, its answer read as @mode: the model list and the key check. */
static void
get_async (SjLlmClient         *self,
           const char          *path,
           SjLlmReadMode        mode,
           gpointer             source_tag,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  g_assert (SJ_IS_LLM_CLIENT (self));
  g_assert (!cancellable || G_IS_CANCELLABLE (cancellable));

  _sj_llm_client_start_request (self, _sj_llm_client_create_message (self, SOUP_METHOD_GET, path), mode,
                                source_tag, cancellable, callback, user_data);
}

void
sj_llm_client_list_models_async (SjLlmClient         *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  get_async (self, "/models", SJ_LLM_READ_MODELS, sj_llm_client_list_models_async, cancellable, callback, user_data);
}

/**
 * sj_llm_client_list_models_finish:
 *
 * Returns: (transfer full): the model ids, in the provider's order
 */
char **
sj_llm_client_list_models_finish (SjLlmClient   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_autoptr(SjModelCatalog) catalog = NULL;

  g_assert (SJ_IS_LLM_CLIENT (self));
  g_assert (g_task_is_valid (result, self));

  catalog = g_task_propagate_pointer (G_TASK (result), error);
  return catalog != NULL ? g_strdupv ((char **) sj_model_catalog_get_ids (catalog)) : NULL;
}

/**
 * sj_llm_client_list_catalog_async:
 *
 * Asks for the models (GET /models), with what the provider says about
 * each (whether it can use tools).
 */
void
sj_llm_client_list_catalog_async (SjLlmClient         *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  get_async (self, "/models", SJ_LLM_READ_MODELS, sj_llm_client_list_catalog_async, cancellable, callback, user_data);
}

/* Returns: (transfer full): the provider's models */
SjModelCatalog *
sj_llm_client_list_catalog_finish (SjLlmClient   *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_assert (SJ_IS_LLM_CLIENT (self));
  g_assert (g_task_is_valid (result, self));

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * sj_llm_client_check_key_async:
 *
 * Asks OpenRouter about the key itself (GET /key): its model list is
 * public, so only this says whether the key is accepted.
 */
void
sj_llm_client_check_key_async (SjLlmClient         *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  get_async (self, "/key", SJ_LLM_READ_ACCEPTED, sj_llm_client_check_key_async, cancellable, callback, user_data);
}

/* Returns: %TRUE when the provider accepted the key; a refusal is
 * SJ_LLM_CLIENT_ERROR_UNAUTHORIZED. */
gboolean
sj_llm_client_check_key_finish (SjLlmClient   *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_assert (SJ_IS_LLM_CLIENT (self));
  g_assert (g_task_is_valid (result, self));

  return g_task_propagate_boolean (G_TASK (result), error);
}
