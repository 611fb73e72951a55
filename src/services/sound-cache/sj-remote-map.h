/* sj-remote-map.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What a sample map from the network may be. The largest map of the
 * library (vcsl.json) is 184 KiB and 3 levels deep. */
#define SJ_REMOTE_MAP_MAX_SIZE   (2 * 1024 * 1024)
#define SJ_REMOTE_MAP_MAX_DEPTH  16
#define SJ_REMOTE_MAP_MAX_SOUNDS 10000
#define SJ_REMOTE_MAP_MAX_FILES  100000
#define SJ_REMOTE_MAP_MAX_STRING 2048

#define SJ_REMOTE_MAP_ERROR (sj_remote_map_error_quark ())

typedef enum
{
  SJ_REMOTE_MAP_ERROR_TOO_LARGE,  /* more bytes, sounds or files than a map may have */
  SJ_REMOTE_MAP_ERROR_TOO_DEEP,   /* nested deeper than SJ_REMOTE_MAP_MAX_DEPTH */
  SJ_REMOTE_MAP_ERROR_INVALID,    /* not JSON, or not a sample map */
} SjRemoteMapError;

/* A sound as superdough's samples() registers it from a map. */
typedef struct
{
  char   *name;     /* lower-cased, blanks as "_", as superdough registers it */
  char   *type;     /* "sample", or "wavetable" for a wt_ name */
  GStrv   files;    /* absolute URLs (base + path), the notes' in the map's order */
  guint   n_files;
} SjRemoteSound;

typedef struct
{
  char       *url;      /* where the map comes from */
  char       *base;     /* its base: the map's _base, else the URL's folder (superdough's getBaseURL()) */
  GPtrArray  *sounds;   /* of SjRemoteSound, in the map's order */
  GHashTable *by_name;  /* name → SjRemoteSound (the last of a name wins) */
  guint       n_files;
} SjRemoteMap;

GQuark               sj_remote_map_error_quark   (void);
SjRemoteMap         *sj_remote_map_parse         (GBytes             *bytes,
                                                  const char         *url,
                                                  GError            **error);
void                 sj_remote_map_free          (SjRemoteMap        *map);
const SjRemoteSound *sj_remote_map_lookup        (const SjRemoteMap  *map,
                                                  const char         *name);
char                *sj_remote_map_resolve_base  (const char         *base);
char                *sj_remote_map_base_of_url   (const char         *url);
char                *sj_remote_map_sound_name    (const char         *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjRemoteMap, sj_remote_map_free)

G_END_DECLS
