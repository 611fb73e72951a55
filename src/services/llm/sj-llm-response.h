/* sj-llm-response.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  SJ_LLM_DELTA_CONTENT,
  SJ_LLM_DELTA_REASONING,
} SjLlmDeltaKind;

typedef void (*SjLlmDeltaFunc) (SjLlmDeltaKind  kind,
                                const char     *text,
                                gpointer        user_data);

typedef struct _SjLlmResponse SjLlmResponse;

SjLlmResponse *sj_llm_response_new             (SjLlmDeltaFunc  func,
                                                gpointer        user_data);
void           sj_llm_response_free            (SjLlmResponse  *self);
gboolean       sj_llm_response_feed            (SjLlmResponse  *self,
                                                const char     *data,
                                                gsize           len);
void           sj_llm_response_feed_completion (SjLlmResponse  *self,
                                                const char     *json);
void           sj_llm_response_end             (SjLlmResponse  *self);
const GError  *sj_llm_response_get_error       (SjLlmResponse  *self);
gboolean       sj_llm_response_is_complete     (SjLlmResponse  *self);
JsonObject    *sj_llm_response_to_json         (SjLlmResponse  *self);

GError        *sj_llm_error_from_status        (guint           status,
                                                GByteArray     *body);
guint          sj_llm_parse_retry_after        (const char     *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjLlmResponse, sj_llm_response_free)

G_END_DECLS
