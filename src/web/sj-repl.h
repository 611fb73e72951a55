/* sj-repl.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

#include "sj-page-message.h"
#include "sj-remote-samples.h"
#include "sj-sound-cache.h"
#include "sj-swap-result.h"
#include "sj-user-samples.h"

G_BEGIN_DECLS

#define SJ_TYPE_REPL (sj_repl_get_type ())

G_DECLARE_FINAL_TYPE (SjRepl, sj_repl, SJ, REPL, GObject)

/* How long a command may take before it fails with G_IO_ERROR_TIMED_OUT. */
#define SJ_REPL_DEFAULT_TIMEOUT_MS 10000

SjRepl            *sj_repl_new                     (void);
GtkWidget         *sj_repl_get_widget              (SjRepl               *self);
void               sj_repl_load                    (SjRepl               *self,
                                                    const char           *initial_code);
void               sj_repl_restart                 (SjRepl               *self);
gboolean           sj_repl_get_ready               (SjRepl               *self);
const SjReplState *sj_repl_get_state               (SjRepl               *self);
JsonObject        *sj_repl_get_sounds              (SjRepl               *self);
void               sj_repl_set_sound_cache         (SjRepl               *self,
                                                    SjSoundCache         *sound_cache);
void               sj_repl_set_remote_samples      (SjRepl               *self,
                                                    SjRemoteSamples      *remote_samples);
void               sj_repl_set_user_samples        (SjRepl               *self,
                                                    SjUserSamples        *user_samples);

void               sj_repl_fetch_code_async        (SjRepl               *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
char              *sj_repl_fetch_code_finish       (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_evaluate_async          (SjRepl               *self,
                                                    const char           *code,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
JsonObject        *sj_repl_evaluate_finish         (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_stop_async              (SjRepl               *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_repl_stop_finish             (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_query_state_async       (SjRepl               *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_repl_query_state_finish      (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    SjReplState          *state,
                                                    GError              **error);
void               sj_repl_set_code_async          (SjRepl               *self,
                                                    const char           *code,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_repl_set_code_finish         (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_insert_text_async       (SjRepl               *self,
                                                    const char           *text,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_repl_insert_text_finish      (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_preview_sound_async     (SjRepl               *self,
                                                    const char           *name,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_repl_preview_sound_finish    (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);

void               sj_repl_schedule_swap_async     (SjRepl               *self,
                                                    const char           *code,
                                                    const char           *quantize,
                                                    guint                 bars,
                                                    guint                 bar_cycles,
                                                    gboolean              auto_start,
                                                    gboolean              refuse_unavailable,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
SjSwapResult      *sj_repl_schedule_swap_finish    (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_cancel_swap_async       (SjRepl               *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
gboolean           sj_repl_cancel_swap_finish      (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    gboolean             *canceled,
                                                    GError              **error);
void               sj_repl_code_at_cycle_async     (SjRepl               *self,
                                                    double                cycle,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
char              *sj_repl_code_at_cycle_finish    (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_send_midi_controls      (SjRepl               *self,
                                                    const char           *controls_json);

void      sj_repl_set_duck_async            (SjRepl              *self,
                                             gboolean             duck,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
gboolean  sj_repl_set_duck_finish           (SjRepl              *self,
                                             GAsyncResult        *result,
                                             GError             **error);
void      sj_repl_set_limiter               (SjRepl              *self,
                                             gboolean             limiter);
gboolean  sj_repl_get_limiter               (SjRepl              *self);

/* Render to a file (sj-repl-render.c), for a hidden page only. */
void               sj_repl_render_async            (SjRepl               *self,
                                                    const char           *code,
                                                    const char           *timeline,
                                                    guint                 cycles,
                                                    double                cps,
                                                    guint                 sample_rate,
                                                    double                max_seconds,
                                                    gboolean              mix,
                                                    gboolean              stems,
                                                    guint                 timeout_ms,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
JsonObject        *sj_repl_render_finish           (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_render_chunk_async      (SjRepl               *self,
                                                    guint                 index,
                                                    guint64               offset,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
GBytes            *sj_repl_render_chunk_finish     (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
void               sj_repl_render_progress_async   (SjRepl               *self,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
double             sj_repl_render_progress_finish  (SjRepl               *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);

G_END_DECLS
