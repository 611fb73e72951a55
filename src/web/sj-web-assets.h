/* sj-web-assets.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <webkit/webkit.h>

#include "sj-remote-samples.h"
#include "sj-sound-cache.h"
#include "sj-user-samples.h"

G_BEGIN_DECLS

#define SJ_WEB_SCHEME     "strudel-jam"
#define SJ_WEB_PAGE_URI   SJ_WEB_SCHEME "://app/index.html"

#define SJ_TYPE_WEB_ASSETS (sj_web_assets_get_type ())

G_DECLARE_FINAL_TYPE (SjWebAssets, sj_web_assets, SJ, WEB_ASSETS, GObject)

SjWebAssets *sj_web_assets_new           (const char       *resource_prefix);
void         sj_web_assets_register      (SjWebAssets      *self,
                                          WebKitWebContext *context);
GBytes      *sj_web_assets_lookup        (SjWebAssets      *self,
                                          const char       *uri,
                                          const char      **content_type,
                                          GError          **error);
void         sj_web_assets_set_sound_cache (SjWebAssets    *self,
                                          SjSoundCache     *sound_cache);
void         sj_web_assets_set_remote_samples (SjWebAssets *self,
                                          SjRemoteSamples  *remote_samples);
void         sj_web_assets_set_user_samples (SjWebAssets *self,
                                          SjUserSamples    *user_samples);
SjUserSamples *sj_web_assets_get_user_samples (SjWebAssets *self);
gboolean     sj_web_assets_is_own_uri    (const char       *uri);

G_END_DECLS
