/* sj-js-call.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>
#include <webkit/webkit.h>

G_BEGIN_DECLS

void      sj_js_call_async  (WebKitWebView        *view,
                             gpointer              source_object,
                             const char           *body,
                             GVariant             *arguments,
                             guint                 timeout_ms,
                             GCancellable         *cancellable,
                             GAsyncReadyCallback   callback,
                             gpointer              user_data,
                             gpointer              source_tag);
JsonNode *sj_js_call_finish (gpointer              source_object,
                             GAsyncResult         *result,
                             gpointer              source_tag,
                             GError              **error);
gboolean  sj_json_node_is   (JsonNode             *node,
                             JsonNodeType          type,
                             const char           *what,
                             GError              **error);

G_END_DECLS
