/* sj-llm-client-request.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One HTTP exchange of SjLlmClient with the provider: the message with
 * its headers (the key, OpenRouter's attribution), sending it, reading the
 * answer as its mode says (an event stream fed to SjLlmResponse as it
 * arrives, a JSON completion, the model list, a body that does not
 * matter, or an error body), and the GTask that reports it. What is asked
 * (a completion, the models, the key) is in sj-llm-client.c.
 *
 * The key travels only in the Authorization header, and only over https://
 * or to this computer unless the user allowed the address (SjKeyGuard):
 * otherwise the request fails before it is sent. Nothing here logs
 * headers or request bodies, and error messages never quote them.
 */

#include "config.h"

#include <libsoup/soup.h>

#include "sj-key-guard.h"
#include "sj-llm-client-private.h"
#include "sj-llm-response.h"
#include "sj-model-catalog.h"

#define READ_SIZE 16384
/* Error bodies and model lists are small; a provider sending more is
 * broken, and we would rather say so than buffer it all. */
#define MAX_BODY_SIZE (8 * 1024 * 1024)

#define ATTRIBUTION_REFERER "https://github.com/strudeljam/strudel-jam"
#define ATTRIBUTION_TITLE   "Strudel Jam"

typedef struct
{
  SjLlmClient   *self;  /* unowned: the task holds a reference */
  SoupMessage   *msg;
  GInputStream  *stream;
  SjLlmReadMode  mode;
  GByteArray    *body;  /* everything but an event stream */
  SjLlmResponse *response;
  guint          retry_after;

  /* The stall watch: reads use their own cancellable, cancelled by the
   * caller's or when no byte came for the stall timeout. */
  GCancellable  *io_cancellable;
  GCancellable  *caller_cancellable;
  gulong         caller_handler;
  guint          stall_id;
  guint          stall_ms;
  gboolean       stalled;
  /* The deadline of the whole answer, which no byte resets. */
  guint          deadline_id;
  guint          deadline_ms;
  gboolean       past_deadline;
} Request;

static void
request_stop_watch (Request *req)
{
  g_clear_handle_id (&req->stall_id, g_source_remove);
  g_clear_handle_id (&req->deadline_id, g_source_remove);
  if (req->caller_handler != 0)
    g_cancellable_disconnect (req->caller_cancellable, req->caller_handler);
  req->caller_handler = 0;
}

static void
request_free (Request *req)
{
  request_stop_watch (req);
  g_clear_object (&req->caller_cancellable);
  g_clear_object (&req->io_cancellable);
  g_clear_object (&req->msg);
  g_clear_object (&req->stream);
  g_byte_array_unref (req->body);
  sj_llm_response_free (req->response);
  g_free (req);
}

static void
on_delta (SjLlmDeltaKind  kind,
          const char     *text,
          gpointer        user_data)
{
  Request *req = user_data;

  _sj_llm_client_emit_delta (req->self, kind, text);
}

static Request *
request_new (SjLlmClient   *self,
             SoupMessage   *msg,
             SjLlmReadMode  mode)
{
  Request *req = g_new0 (Request, 1);

  req->self = self;
  req->msg = msg;
  req->mode = mode;
  req->body = g_byte_array_new ();
  req->response = sj_llm_response_new (on_delta, req);

  return req;
}

static gboolean
stall_cb (gpointer user_data)
{
  Request *req = user_data;

  req->stall_id = 0;
  req->stalled = TRUE;
  g_cancellable_cancel (req->io_cancellable);

  return G_SOURCE_REMOVE;
}

static gboolean
deadline_cb (gpointer user_data)
{
  Request *req = user_data;

  req->deadline_id = 0;
  req->past_deadline = TRUE;
  g_cancellable_cancel (req->io_cancellable);

  return G_SOURCE_REMOVE;
}

/* Any byte, keep-alive comments included, is a sign of life. */
static void
request_alive (Request *req)
{
  g_clear_handle_id (&req->stall_id, g_source_remove);
  if (req->stall_ms > 0)
    req->stall_id = g_timeout_add (req->stall_ms, stall_cb, req);
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static void
return_network_error (GTask  *task,
                      GError *error)
{
  Request *req = g_task_get_task_data (task);

  if (req != NULL)
    request_stop_watch (req);

  if (req != NULL && req->past_deadline && !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    g_task_return_new_error (task, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_DEADLINE,
                             "The answer took longer than its deadline of %u seconds",
                             MAX ((req->deadline_ms + 999) / 1000, 1));
  else if (req != NULL && req->stalled && !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    g_task_return_new_error (task, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_STALLED,
                             "The provider sent nothing for %u seconds", MAX (req->stall_ms / 1000, 1));
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_task_return_error (task, g_error_copy (error));
  else
    g_task_return_new_error (task, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK,
                             "Connection to the provider failed: %s", error->message);
}

static void
finish_reading (GTask *task)
{
  Request *req = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  request_stop_watch (req);
  switch (req->mode)
    {
    case SJ_LLM_READ_ERROR:
      g_task_return_error (task, sj_llm_error_from_status (soup_message_get_status (req->msg), req->body));
      break;

    case SJ_LLM_READ_MODELS:
      {
        SjModelCatalog *catalog = sj_model_catalog_new_from_json ((const char *) req->body->data,
                                                                  req->body->len, &error);

        if (catalog == NULL)
          g_task_return_error (task, g_steal_pointer (&error));
        else
          g_task_return_pointer (task, catalog, g_object_unref);
      }
      break;

    case SJ_LLM_READ_ACCEPTED:
      g_task_return_boolean (task, TRUE);
      break;

    case SJ_LLM_READ_COMPLETION:
      g_byte_array_append (req->body, (const guint8 *) "", 1);
      sj_llm_response_feed_completion (req->response, (const char *) req->body->data);
      G_GNUC_FALLTHROUGH;

    case SJ_LLM_READ_STREAM:
    default:
      sj_llm_response_end (req->response);
      if (sj_llm_response_get_error (req->response) != NULL)
        g_task_return_error (task, g_error_copy (sj_llm_response_get_error (req->response)));
      else if (sj_llm_response_is_complete (req->response))
        g_task_return_pointer (task, sj_llm_response_to_json (req->response),
                               (GDestroyNotify) json_object_unref);
      else
        g_task_return_new_error (task, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK,
                                 "The connection closed before the answer was complete");
      break;
    }
}

static void read_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data);

static void
read_next (GTask *task)
{
  Request *req = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (req->stream, READ_SIZE, G_PRIORITY_DEFAULT,
                                   req->io_cancellable, read_cb, task);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Request *req = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize len;
  const char *data;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      return_network_error (task, error);
      return;
    }

  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      finish_reading (task);
      return;
    }

  request_alive (req);
  if (req->mode == SJ_LLM_READ_STREAM)
    {
      /* Stop at the first error rather than read an answer we will not use. */
      if (!sj_llm_response_feed (req->response, data, len))
        {
          request_stop_watch (req);
          g_task_return_error (task, g_error_copy (sj_llm_response_get_error (req->response)));
          return;
        }
    }
  else
    {
      if (req->body->len + len > MAX_BODY_SIZE)
        {
          request_stop_watch (req);
          g_task_return_new_error (task, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL,
                                   "The provider's answer is too large");
          return;
        }
      g_byte_array_append (req->body, (const guint8 *) data, len);
    }

  read_next (g_steal_pointer (&task));
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Request *req = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers = soup_message_get_response_headers (req->msg);
  guint status;

  req->stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (req->stream == NULL)
    {
      return_network_error (task, error);
      return;
    }

  status = soup_message_get_status (req->msg);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      req->mode = SJ_LLM_READ_ERROR;
      if (status == 429)
        req->retry_after = sj_llm_parse_retry_after (soup_message_headers_get_one (headers, "Retry-After"));
    }
  else if (req->mode == SJ_LLM_READ_STREAM)
    {
      const char *type = soup_message_headers_get_content_type (headers, NULL);

      /* A server that does not stream answers with plain JSON. */
      if (g_strcmp0 (type, "application/json") == 0)
        req->mode = SJ_LLM_READ_COMPLETION;
    }

  read_next (g_steal_pointer (&task));
}

SoupMessage *
_sj_llm_client_create_message (SjLlmClient *self,
                               const char  *method,
                               const char  *path)
{
  g_autofree char *url = g_strconcat (self->base_url, path, NULL);
  SoupMessage *msg = soup_message_new (method, url);
  SoupMessageHeaders *headers;

  if (msg == NULL)
    return NULL;

  headers = soup_message_get_request_headers (msg);
  if (self->api_key != NULL && *self->api_key)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", self->api_key, NULL);

      soup_message_headers_replace (headers, "Authorization", auth);
    }

  /* OpenRouter's app attribution, https://openrouter.ai/docs/app-attribution */
  if (self->send_attribution)
    {
      soup_message_headers_replace (headers, "HTTP-Referer", ATTRIBUTION_REFERER);
      soup_message_headers_replace (headers, "X-Title", ATTRIBUTION_TITLE);
    }

  return msg;
}

void
_sj_llm_client_start_request (SjLlmClient         *self,
                              SoupMessage         *msg,
                              SjLlmReadMode        mode,
                              gpointer             source_tag,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  Request *req;

  g_task_set_source_tag (task, source_tag);

  /* No key over plain HTTP to another computer unless allowed. */
  if (msg != NULL && self->api_key != NULL && *self->api_key && !sj_key_guard_check (self->base_url, &error))
    {
      g_object_unref (msg);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (msg == NULL)
    {
      g_task_return_new_error (task, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL,
                               "Invalid provider URL");
      return;
    }

  req = request_new (self, msg, mode);
  g_task_set_task_data (task, req, (GDestroyNotify) request_free);

  req->io_cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      req->caller_cancellable = g_object_ref (cancellable);
      req->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                                   g_object_ref (req->io_cancellable), g_object_unref);
    }
  /* Only a completion can stall; the short requests have the session's timeout. */
  req->stall_ms = mode == SJ_LLM_READ_STREAM ? self->stall_timeout_ms : 0;
  request_alive (req);
  req->deadline_ms = mode == SJ_LLM_READ_STREAM ? self->deadline_ms : 0;
  if (req->deadline_ms > 0)
    req->deadline_id = g_timeout_add (req->deadline_ms, deadline_cb, req);

  soup_session_send_async (self->session, msg, G_PRIORITY_DEFAULT, req->io_cancellable,
                           send_cb, g_object_ref (task));
}

/**
 * sj_llm_client_stream_get_partial:
 * @result: the result given to the callback of sj_llm_client_stream_async()
 *
 * What arrived before the stream ended, in the same shape as the finished
 * result. After a dropped connection it holds the text the user already
 * saw, so it can be kept rather than lost.
 *
 * Returns: (transfer full) (nullable): the partial answer
 */
JsonObject *
sj_llm_client_stream_get_partial (GAsyncResult *result)
{
  Request *req;

  g_return_val_if_fail (G_IS_TASK (result), NULL);

  req = g_task_get_task_data (G_TASK (result));
  return req != NULL ? sj_llm_response_to_json (req->response) : NULL;
}

/**
 * sj_llm_client_result_get_retry_after:
 * @result: the result of a request of this client
 *
 * Returns: the seconds a rate-limited request asked us to wait, or 0
 */
guint
sj_llm_client_result_get_retry_after (GAsyncResult *result)
{
  Request *req;

  g_return_val_if_fail (G_IS_TASK (result), 0);

  req = g_task_get_task_data (G_TASK (result));
  return req != NULL ? req->retry_after : 0;
}
