/* sj-sound-library-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-sound-library.h"

G_BEGIN_DECLS

struct _SjSoundLibrary
{
  GObject        parent_instance;

  GStringChunk  *strings;
  GPtrArray     *sounds;       /* of SjLibrarySound, in registration order */
  GHashTable    *by_name;      /* name → SjLibrarySound (the last registered wins) */
  GHashTable    *files;        /* "pack/local path" → SjLibraryFile */
  GHashTable    *bases;        /* pack → upstream base URL */
  GPtrArray     *packs;        /* pack ids, NULL-terminated */
  GPtrArray     *banks;        /* bank names, sorted, NULL-terminated */
  GPtrArray     *allocations;  /* arrays the sounds point into */
  gint64         load_time_us;
};

gboolean  _sj_sound_library_load     (SjSoundLibrary  *self,
                                      GError         **error);
char     *_sj_sound_library_file_key (const char      *pack,
                                      const char      *local_path);

G_END_DECLS
