/* sj-remote-samples-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The insides of SjRemoteSamples, shared by sj-remote-samples.c (the
 * page's requests), sj-remote-samples-address.c (where an address is
 * cached and downloaded from) and sj-remote-samples-index.c (the maps
 * remembered, what they register and how it would play).
 */

#pragma once

#include "sj-remote-samples.h"

G_BEGIN_DECLS

struct _SjRemoteSamples
{
  GObject       parent_instance;

  SjSoundCache *cache;
  GFile        *directory;
  char         *url_override;   /* STRUDEL_JAM_REMOTE_URL, for tests */

  GHashTable   *maps;           /* cache path → SjRemoteMap: the maps fetched */
  GPtrArray    *order;          /* their cache paths, the oldest first */
  GHashTable   *reported;       /* url → error code + 1: failures said once */
  guint         index_loaded : 1;
};

/* Where a URL lives in the cache, and where it is downloaded from. */
typedef struct
{
  char  *url;       /* as asked for, without a fragment */
  char  *download;  /* the URL, or under STRUDEL_JAM_REMOTE_URL */
  GFile *file;      /* <directory>/<host>/<path> */
} SjRemoteLocation;

/* sj-remote-samples-address.c */
gboolean  _sj_remote_samples_locate       (SjRemoteSamples   *self,
                                           const char        *url,
                                           SjRemoteLocation  *location,
                                           GError           **error);
void      _sj_remote_location_clear       (SjRemoteLocation  *location);

/* sj-remote-samples-index.c */
void      _sj_remote_samples_load_index   (SjRemoteSamples   *self);
void      _sj_remote_samples_remember     (SjRemoteSamples   *self,
                                           SjRemoteMap       *map,
                                           gboolean           save);
char     *_sj_remote_samples_describe_url (SjRemoteSamples   *self,
                                           const char        *url);

G_END_DECLS
