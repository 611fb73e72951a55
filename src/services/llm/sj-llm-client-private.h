/* sj-llm-client-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the client's two files share (sj-llm-client.c, the client and what
 * it asks; sj-llm-client-request.c, one exchange with the provider), and
 * what only the tests reach in the client: its base URL, whether it sends
 * the attribution headers, and where OpenRouter is.
 */

#pragma once

#include <libsoup/soup.h>

#include "sj-llm-client.h"
#include "sj-llm-response.h"

G_BEGIN_DECLS

struct _SjLlmClient
{
  GObject      parent_instance;

  SoupSession *session;
  char        *base_url;
  char        *api_key;
  gboolean     send_attribution;
  guint        stall_timeout_ms;  /* 0: wait for ever */
  guint        deadline_ms;       /* an answer's whole time, 0: none */
};

/* How a request's answer is read. */
typedef enum
{
  SJ_LLM_READ_STREAM,     /* a 2xx event stream, fed to the parser */
  SJ_LLM_READ_COMPLETION, /* a 2xx JSON answer from a server that ignored "stream" */
  SJ_LLM_READ_MODELS,     /* the model list */
  SJ_LLM_READ_ACCEPTED,   /* a 2xx answer whose body does not matter */
  SJ_LLM_READ_ERROR,      /* a non-2xx body, read for its message */
} SjLlmReadMode;

/* sj-llm-client.c */
void         _sj_llm_client_emit_delta           (SjLlmClient         *self,
                                                  SjLlmDeltaKind       kind,
                                                  const char          *text);

/* sj-llm-client-request.c */
SoupMessage *_sj_llm_client_create_message       (SjLlmClient         *self,
                                                  const char          *method,
                                                  const char          *path);
void         _sj_llm_client_start_request        (SjLlmClient         *self,
                                                  SoupMessage         *msg,
                                                  SjLlmReadMode        mode,
                                                  gpointer             source_tag,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);

/* For the tests. */

const char  *_sj_llm_client_get_base_url         (SjLlmClient         *self);
gboolean     _sj_llm_client_get_send_attribution (SjLlmClient         *self);
void         _sj_llm_client_set_send_attribution (SjLlmClient         *self,
                                                  gboolean             send_attribution);
void         _sj_llm_client_set_openrouter_url   (const char          *url);
void         _sj_llm_client_set_stall_timeout_ms (SjLlmClient         *self,
                                                  guint                milliseconds);
void         _sj_llm_client_set_deadline_ms      (SjLlmClient         *self,
                                                  guint                milliseconds);

G_END_DECLS
