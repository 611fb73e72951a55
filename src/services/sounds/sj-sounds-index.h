/* sj-sounds-index.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The categories of Strudel's sounds tab. */
typedef enum
{
  SJ_SOUND_CATEGORY_ALL,
  SJ_SOUND_CATEGORY_USER,
  SJ_SOUND_CATEGORY_DRUMS,
  SJ_SOUND_CATEGORY_SAMPLES,
  SJ_SOUND_CATEGORY_SYNTHS,
  SJ_SOUND_CATEGORY_WAVETABLES,
  SJ_N_SOUND_CATEGORIES,
} SjSoundCategory;

typedef struct
{
  char     *name;
  char     *lower;
  gsize     len;
  char     *type;
  char     *tag;       /* or NULL */
  gboolean  prebake;
  int       count;     /* samples, tables or fonts; -1 when unknown */
  char     *bank;      /* "RolandTR808" for "RolandTR808_bd", or NULL */
  char     *bank_sound;/* "bd" for "RolandTR808_bd", or NULL */
  guint64   mask;      /* sj_fuzzy_mask() of lower */
  guint     categories;/* bit per SjSoundCategory */
  gboolean  alias;     /* another name of a library sound (aliasBank: "tr909_bd") */
} SjSound;

typedef struct
{
  char      *name;
  char      *lower;
  gsize      len;
  guint64    mask;     /* sj_fuzzy_mask() of lower */
  GPtrArray *sounds;   /* (element-type SjSound) (transfer none) */
  gboolean   alias;    /* another name of a drum machine ("tr909") */
} SjSoundBank;

#define SJ_TYPE_SOUNDS_INDEX (sj_sounds_index_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundsIndex, sj_sounds_index, SJ, SOUNDS_INDEX, GObject)

SjSoundsIndex     *sj_sounds_index_new               (void);
gboolean           sj_sounds_index_load_snapshot     (SjSoundsIndex   *self,
                                                      JsonObject      *snapshot,
                                                      GError         **error);
gboolean           sj_sounds_index_load_file         (SjSoundsIndex   *self,
                                                      GFile           *file,
                                                      GError         **error);
gboolean           sj_sounds_index_load_cache        (SjSoundsIndex   *self,
                                                      GFile           *file,
                                                      GError         **error);
gboolean           sj_sounds_index_save_file         (SjSoundsIndex   *self,
                                                      GFile           *file,
                                                      GError         **error);
void               sj_sounds_index_load_bundled      (SjSoundsIndex   *self);
SjSoundsIndex     *sj_sounds_index_new_for_lookup    (const char      *path,
                                                      GError         **error);
GFile             *sj_sounds_index_get_cache_file    (void);
gboolean           sj_sounds_index_get_loaded        (SjSoundsIndex   *self);
guint              sj_sounds_index_get_n_sounds      (SjSoundsIndex   *self);
const SjSound     *sj_sounds_index_get_sound         (SjSoundsIndex   *self,
                                                      guint            position);
const SjSound     *sj_sounds_index_lookup            (SjSoundsIndex   *self,
                                                      const char      *name);
guint              sj_sounds_index_get_n_banks       (SjSoundsIndex   *self);
const SjSoundBank *sj_sounds_index_get_bank          (SjSoundsIndex   *self,
                                                      guint            position);
const SjSoundBank *sj_sounds_index_lookup_bank       (SjSoundsIndex   *self,
                                                      const char      *name);
guint              sj_sounds_index_count             (SjSoundsIndex   *self,
                                                      SjSoundCategory  category);
gboolean           sj_sound_in_category              (const SjSound   *sound,
                                                      SjSoundCategory  category);
const char        *sj_sound_category_to_string       (SjSoundCategory  category);
gboolean           sj_sound_category_from_string     (const char      *text,
                                                      SjSoundCategory *category);
char              *sj_sound_usage                    (const SjSound   *sound);

G_END_DECLS
