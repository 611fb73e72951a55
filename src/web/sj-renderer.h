/* sj-renderer.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sj-remote-samples.h"
#include "sj-render-options.h"
#include "sj-sound-cache.h"
#include "sj-user-samples.h"

G_BEGIN_DECLS

#define SJ_TYPE_RENDERER (sj_renderer_get_type ())

G_DECLARE_FINAL_TYPE (SjRenderer, sj_renderer, SJ, RENDERER, GObject)

SjRenderer *sj_renderer_new            (SjSoundCache           *sound_cache,
                                        SjRemoteSamples        *remote_samples,
                                        SjUserSamples          *user_samples);
double      sj_renderer_get_progress   (SjRenderer             *self);
void        sj_renderer_render_async   (SjRenderer             *self,
                                        const SjRenderOptions  *options,
                                        GCancellable           *cancellable,
                                        GAsyncReadyCallback     callback,
                                        gpointer                user_data);
JsonObject *sj_renderer_render_finish  (SjRenderer             *self,
                                        GAsyncResult           *result,
                                        GError                **error);

G_END_DECLS
