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

/* The instance, shared by sj-repl.c and sj-repl-messages.c. */
struct _SjRepl
{
  GObject                   parent_instance;

  WebKitWebView            *view;
  WebKitUserContentManager *content_manager;
  SjWebAssets              *assets;
  SjAudioPriority          *audio_priority;

  char                     *initial_code;
  char                     *code;
  JsonObject               *sounds;
  JsonObject               *versions;
  GPtrArray                *external_requests;
  SjReplState               state;
  guint                     ready : 1;
  guint                     print_stats : 1;
  guint                     limiter : 1;
  guint                     draw_fps;
};

/* SjRepl's properties and signals: the other files of SjRepl notify and
 * emit them through _sj_repl_notify () and _sj_repl_emit (), as the arrays
 * stay in sj-repl.c. */
typedef enum
{
  SJ_REPL_PROP_0,
  SJ_REPL_PROP_READY,
  SJ_REPL_PROP_PLAYING,
  SJ_REPL_PROP_CPS,
  SJ_REPL_PROP_CYCLE,
  SJ_REPL_PROP_LIMITER,
  SJ_REPL_N_PROPS
} SjReplProperty;

typedef enum
{
  SJ_REPL_SIGNAL_READY,
  SJ_REPL_SIGNAL_LOG,
  SJ_REPL_SIGNAL_EVAL_ERROR,
  SJ_REPL_SIGNAL_NOTHING_TO_PLAY,
  SJ_REPL_SIGNAL_SOUNDS_CHANGED,
  SJ_REPL_SIGNAL_CODE_CHANGED,
  SJ_REPL_SIGNAL_EXTERNAL_REQUEST,
  SJ_REPL_SIGNAL_NAVIGATION_REFUSED,
  SJ_REPL_SIGNAL_SWAP_CHANGED,
  SJ_REPL_SIGNAL_OUTPUT,
  SJ_REPL_SIGNAL_MIDI_INPUT,
  SJ_REPL_SIGNAL_LEVELS,
  SJ_REPL_SIGNAL_SWAP_COUNTDOWN,
  SJ_REPL_SIGNAL_ACTION_REQUESTED,
  SJ_REPL_N_SIGNALS
} SjReplSignal;

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
void               _sj_repl_emit                    (SjRepl               *self,
                                                    SjReplSignal          signal,
                                                    ...);
void               _sj_repl_notify                  (SjRepl               *self,
                                                    SjReplProperty        property);

/* sj-repl-messages.c */
void               _sj_repl_set_state               (SjRepl               *self,
                                                    const SjReplState    *state);
gboolean           _sj_repl_script_message_cb       (WebKitUserContentManager *manager,
                                                    JSCValue                 *value,
                                                    WebKitScriptMessageReply *reply,
                                                    gpointer                  user_data);
void               _sj_repl_resource_load_started_cb  (WebKitWebView     *view,
                                                      WebKitWebResource *resource,
                                                      WebKitURIRequest  *request,
                                                      gpointer           user_data);
void               _sj_repl_web_process_terminated_cb (WebKitWebView                     *view,
                                                      WebKitWebProcessTerminationReason  reason,
                                                      gpointer                           user_data);

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
