/* sj-repl-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-audio-priority.h"
#include "sj-repl.h"
#include "sj-web-assets.h"

G_BEGIN_DECLS

/* The page's script world (isolated from the user's code), the name of
 * its message handler, and where the page's files are served from. */
#define SJ_REPL_BRIDGE_WORLD        "strudel-jam"
#define SJ_REPL_BRIDGE_HANDLER      "sj"
#define SJ_REPL_WEB_RESOURCE_PREFIX "/io/github/strudeljam/StrudelJam/web"

/* sj-repl-view.c */
WebKitWebView *_sj_repl_view_new   (SjRepl                   *repl,
                                    SjWebAssets              *assets,
                                    WebKitUserContentManager *content_manager);

void      _sj_repl_call        (SjRepl               *self,
                               const char           *body,
                               GVariant             *arguments,
                               guint                 timeout_ms,
                               GCancellable         *cancellable,
                               GAsyncReadyCallback   callback,
                               gpointer              user_data,
                               gpointer              source_tag);
JsonNode *_sj_repl_call_finish (SjRepl               *self,
                               GAsyncResult         *result,
                               gpointer              source_tag,
                               GError              **error);

/* sj-repl.c, for the other files of SjRepl. */
SjWebAssets       *_sj_repl_get_assets              (SjRepl               *self);

/* sj-repl-commands.c, for sj_repl_set_limiter() */
void               _sj_repl_send_limiter            (SjRepl               *self,
                                                    gboolean              limiter);

/* sj-repl-user-samples.c */
JsonNode          *_sj_repl_user_samples_for_hello  (SjRepl               *self);

/* Only the tests and benchmarks call these. */
SjAudioPriority   *_sj_repl_get_audio_priority      (SjRepl               *self);
const char        *_sj_repl_get_code                (SjRepl               *self);
JsonObject        *_sj_repl_get_versions            (SjRepl               *self);
const char * const*_sj_repl_get_external_requests   (SjRepl               *self);
void               _sj_repl_query_haps_async        (SjRepl               *self,
                                                    double                begin,
                                                    double                end,
                                                    guint                 limit,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
JsonArray         *_sj_repl_query_haps_finish       (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               _sj_repl_fetch_sounds_async      (SjRepl               *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
JsonObject        *_sj_repl_fetch_sounds_finish     (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);

G_END_DECLS
