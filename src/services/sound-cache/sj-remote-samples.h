/* sj-remote-samples.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-remote-map.h"
#include "sj-sound-cache.h"

G_BEGIN_DECLS

/* What the page asks for through strudel-jam://remote/<kind>/… */
typedef enum
{
  SJ_REMOTE_KIND_MAP,   /* a sample map (JSON), checked before it is kept */
  SJ_REMOTE_KIND_FILE,  /* a file a map lists */
} SjRemoteKind;

/* Where the tests point the remote hosts (STRUDEL_JAM_SOUNDS_URL's twin):
 * https://host/path is then downloaded from $STRUDEL_JAM_REMOTE_URL/host/path. */
#define SJ_REMOTE_SAMPLES_URL_ENV "STRUDEL_JAM_REMOTE_URL"

/* The most maps remembered; the oldest are forgotten first. */
#define SJ_REMOTE_SAMPLES_MAX_MAPS 256

#define SJ_TYPE_REMOTE_SAMPLES (sj_remote_samples_get_type ())

G_DECLARE_FINAL_TYPE (SjRemoteSamples, sj_remote_samples, SJ, REMOTE_SAMPLES, GObject)

SjRemoteSamples     *sj_remote_samples_new                   (SjSoundCache         *cache,
                                                              GFile                *directory);
GFile               *sj_remote_samples_get_directory         (SjRemoteSamples      *self);
SjSoundCache        *sj_remote_samples_get_cache             (SjRemoteSamples      *self);
char                *sj_remote_samples_url_for_path          (const char           *path,
                                                              const char           *query,
                                                              GError              **error);
GFile               *sj_remote_samples_get_file              (SjRemoteSamples      *self,
                                                              const char           *url,
                                                              GError              **error);
void                 sj_remote_samples_load_async            (SjRemoteSamples      *self,
                                                              SjRemoteKind          kind,
                                                              const char           *url,
                                                              GCancellable         *cancellable,
                                                              GAsyncReadyCallback   callback,
                                                              gpointer              user_data);
GBytes              *sj_remote_samples_load_finish           (SjRemoteSamples      *self,
                                                              GAsyncResult         *result,
                                                              const char          **content_type,
                                                              GError              **error);
gboolean             sj_remote_samples_get_online            (SjRemoteSamples      *self);
const SjRemoteMap   *sj_remote_samples_lookup_map            (SjRemoteSamples      *self,
                                                              const char           *url);
const SjRemoteSound *sj_remote_samples_lookup_sound          (SjRemoteSamples      *self,
                                                              const char           *name,
                                                              const SjRemoteMap   **map);
GPtrArray           *sj_remote_samples_list_maps             (SjRemoteSamples      *self);
gboolean             sj_remote_samples_get_sound_availability (SjRemoteSamples     *self,
                                                              const char           *name,
                                                              SjSoundAvailability  *availability,
                                                              SjSoundFiles         *files);
SjSoundAvailability  sj_remote_samples_get_file_availability (SjRemoteSamples      *self,
                                                              const char           *url);
char                *sj_remote_samples_describe_failure      (SjRemoteSamples      *self,
                                                              SjRemoteKind          kind,
                                                              const char           *url,
                                                              const GError         *error);

G_END_DECLS
