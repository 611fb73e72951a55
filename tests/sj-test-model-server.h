/* sj-test-model-server.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _SjTestModelServer SjTestModelServer;

SjTestModelServer *sj_test_model_server_new             (void);
void               sj_test_model_server_free            (SjTestModelServer *self);
const char        *sj_test_model_server_get_url         (SjTestModelServer *self);
guint16            sj_test_model_server_get_port        (SjTestModelServer *self);

/* GET /models and, as OpenRouter's, GET /key. */
void               sj_test_model_server_set_models      (SjTestModelServer *self,
                                                         const char        *json);
void               sj_test_model_server_set_api_key     (SjTestModelServer *self,
                                                         const char        *key);
const char        *sj_test_model_server_get_checked_key (SjTestModelServer *self);
guint              sj_test_model_server_get_n_model_lists (SjTestModelServer *self);

/* Replies are given to requests in order; a request beyond them gets a
 * 500. Text is streamed in pieces of @piece characters. */
void               sj_test_model_server_reply_text      (SjTestModelServer *self,
                                                         const char        *text,
                                                         guint              piece);
void               sj_test_model_server_reply_slow_text (SjTestModelServer *self,
                                                         const char        *text,
                                                         guint              piece,
                                                         guint              interval_ms);
void               sj_test_model_server_reply_tool_call (SjTestModelServer *self,
                                                         const char        *content,
                                                         const char        *call_id,
                                                         const char        *name,
                                                         const char        *arguments);
void               sj_test_model_server_reply_tool_calls (SjTestModelServer *self,
                                                         guint              n_calls,
                                                         const char * const *call_ids,
                                                         const char * const *names,
                                                         const char * const *arguments);
void               sj_test_model_server_reply_status    (SjTestModelServer *self,
                                                         guint              status,
                                                         const char        *retry_after,
                                                         const char        *body);
void               sj_test_model_server_reply_drop      (SjTestModelServer *self,
                                                         const char        *text_before);
void               sj_test_model_server_reply_hold      (SjTestModelServer *self,
                                                         const char        *text_before);
/* Raw server-sent events ("data: …\n\n", ": comment\n\n"), written as
 * they are, one per piece; the stream ends after them. */
void               sj_test_model_server_reply_events    (SjTestModelServer *self,
                                                         const char * const *events);

guint              sj_test_model_server_get_n_requests  (SjTestModelServer *self);
JsonObject        *sj_test_model_server_get_request     (SjTestModelServer *self,
                                                         guint              index);
gint64             sj_test_model_server_get_request_time (SjTestModelServer *self,
                                                         guint              index);
gint64             sj_test_model_server_get_last_byte_time (SjTestModelServer *self,
                                                         guint              index);
char              *sj_test_model_server_find_tool_result (SjTestModelServer *self,
                                                         guint              request,
                                                         const char        *call_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjTestModelServer, sj_test_model_server_free)

G_END_DECLS
