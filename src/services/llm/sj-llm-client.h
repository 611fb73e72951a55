/* sj-llm-client.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sj-model-catalog.h"

G_BEGIN_DECLS

#define SJ_LLM_CLIENT_OPENROUTER_URL "https://openrouter.ai/api/v1"

#define SJ_LLM_CLIENT_ERROR (sj_llm_client_error_quark ())

typedef enum
{
  SJ_LLM_CLIENT_ERROR_UNAUTHORIZED,
  SJ_LLM_CLIENT_ERROR_RATE_LIMITED,
  SJ_LLM_CLIENT_ERROR_SERVER,
  SJ_LLM_CLIENT_ERROR_NETWORK,
  SJ_LLM_CLIENT_ERROR_PROTOCOL,
  SJ_LLM_CLIENT_ERROR_REJECTED,  /* any other 4xx: bad request, unknown model, no credits */
  SJ_LLM_CLIENT_ERROR_STALLED,   /* no byte for the stall timeout */
  SJ_LLM_CLIENT_ERROR_EVENT_TOO_LARGE,          /* one server-sent event over 8 MiB */
  SJ_LLM_CLIENT_ERROR_ANSWER_TOO_LARGE,         /* the answer's text over 4 MiB */
  SJ_LLM_CLIENT_ERROR_REASONING_TOO_LARGE,      /* the reasoning over 4 MiB */
  SJ_LLM_CLIENT_ERROR_TOOL_ARGUMENTS_TOO_LARGE, /* the tool calls' arguments over 1 MiB */
  SJ_LLM_CLIENT_ERROR_DEADLINE,                 /* the answer took longer than its deadline */
} SjLlmClientError;

/* Long enough for a reasoning model thinking before its first token. */
#define SJ_LLM_CLIENT_DEFAULT_STALL_TIMEOUT 120
/* The longest one answer may take, from the request to its last byte. */
#define SJ_LLM_CLIENT_DEFAULT_DEADLINE 600

/* What one answer may hold. */
#define SJ_LLM_MAX_CONTENT        (4 * 1024 * 1024)
#define SJ_LLM_MAX_REASONING      (4 * 1024 * 1024)
#define SJ_LLM_MAX_TOOL_ARGUMENTS (1024 * 1024)

GQuark sj_llm_client_error_quark (void);

#define SJ_TYPE_LLM_CLIENT (sj_llm_client_get_type ())

G_DECLARE_FINAL_TYPE (SjLlmClient, sj_llm_client, SJ, LLM_CLIENT, GObject)

const char  *sj_llm_client_get_openrouter_url     (void);
SjLlmClient *sj_llm_client_new                    (const char           *base_url,
                                                   const char           *api_key);
const char  *sj_llm_client_get_base_url           (SjLlmClient          *self);
void         sj_llm_client_set_timeout            (SjLlmClient          *self,
                                                   guint                 seconds);
void         sj_llm_client_set_stall_timeout      (SjLlmClient          *self,
                                                   guint                 seconds);
void         sj_llm_client_set_deadline           (SjLlmClient          *self,
                                                   guint                 seconds);
void         sj_llm_client_stream_async           (SjLlmClient          *self,
                                                   JsonObject           *request_body,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
JsonObject  *sj_llm_client_stream_finish          (SjLlmClient          *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
JsonObject  *sj_llm_client_stream_get_partial     (GAsyncResult         *result);
guint        sj_llm_client_result_get_retry_after (GAsyncResult         *result);
void         sj_llm_client_list_models_async      (SjLlmClient          *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
char       **sj_llm_client_list_models_finish     (SjLlmClient          *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
void         sj_llm_client_list_catalog_async     (SjLlmClient          *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
SjModelCatalog *sj_llm_client_list_catalog_finish (SjLlmClient          *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
void         sj_llm_client_check_key_async        (SjLlmClient          *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean     sj_llm_client_check_key_finish       (SjLlmClient          *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);

G_END_DECLS
