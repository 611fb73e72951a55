/* sj-sound-library.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The pack of the General MIDI soundfonts: its files are "<font>.js". */
#define SJ_SOUND_LIBRARY_SOUNDFONTS "soundfonts"

typedef struct _SjLibrarySound SjLibrarySound;

/* One note of a pitched map (piano): its files, and its pitch as
 * superdough's noteToMidi() reads the key. */
typedef struct
{
  const char          *name;     /* "Ds1", as the map writes it */
  double               midi;
  const char * const  *files;    /* paths as the map lists them */
  guint                n_files;
} SjLibraryNote;

/* A sound as superdough registers it from the library. */
struct _SjLibrarySound
{
  const char           *name;       /* lower-cased, as superdough registers it */
  const char           *type;       /* "sample", "wavetable" or "soundfont" */
  const char           *tag;        /* "drum-machines", or NULL */
  gboolean              prebake;
  guint                 count;      /* what the sounds tab counts: files, notes or fonts */
  const char           *pack;       /* the pack id (library.json), or "soundfonts" */
  const char           *bank;       /* what .bank() selects ("rolandtr909", "tr909"), or NULL */
  const char           *bank_sound; /* "bd" for "rolandtr909_bd", or NULL */
  const SjLibrarySound *alias_of;   /* the sound an alias (aliasBank) shares, or NULL */
  const char * const   *files;      /* array maps: the paths, as the map lists them */
  guint                 n_files;
  const SjLibraryNote  *notes;      /* pitched maps: the notes, in the map's order */
  guint                 n_notes;
};

/* A file of a pack, and the first sound that lists it. */
typedef struct
{
  const char           *pack;
  const char           *path;        /* as the map lists it (may be percent-encoded) */
  const char           *local_path;  /* percent-decoded: where it lives in a cache */
  const SjLibrarySound *sound;
  guint                 variant;     /* its index in the sound's (or the note's) files */
  const char           *note;        /* the note's key in pitched maps, else NULL */
} SjLibraryFile;

#define SJ_TYPE_SOUND_LIBRARY (sj_sound_library_get_type ())

G_DECLARE_FINAL_TYPE (SjSoundLibrary, sj_sound_library, SJ, SOUND_LIBRARY, GObject)

SjSoundLibrary       *sj_sound_library_get_default     (void);
SjSoundLibrary       *sj_sound_library_new_bundled     (GError         **error);
gint64                sj_sound_library_get_load_time   (SjSoundLibrary  *self);
guint                 sj_sound_library_get_n_sounds    (SjSoundLibrary  *self);
const SjLibrarySound *sj_sound_library_get_sound       (SjSoundLibrary  *self,
                                                        guint            position);
const SjLibrarySound *sj_sound_library_lookup          (SjSoundLibrary  *self,
                                                        const char      *name);
gboolean              sj_sound_library_has_pack        (SjSoundLibrary  *self,
                                                        const char      *pack);
const char * const   *sj_sound_library_get_packs       (SjSoundLibrary  *self);
const char           *sj_sound_library_get_bank        (SjSoundLibrary  *self,
                                                        const char      *name);
const char * const   *sj_sound_library_get_banks       (SjSoundLibrary  *self);
gboolean              sj_sound_library_resolve         (SjSoundLibrary  *self,
                                                        const char      *sound,
                                                        double           n,
                                                        double           midi,
                                                        SjLibraryFile   *file);
const SjLibraryFile  *sj_sound_library_lookup_file     (SjSoundLibrary  *self,
                                                        const char      *pack,
                                                        const char      *path);
char                 *sj_sound_library_get_url         (SjSoundLibrary  *self,
                                                        const char      *pack,
                                                        const char      *path);
JsonObject           *sj_sound_library_dup_snapshot    (SjSoundLibrary  *self);
double                sj_sound_library_note_to_midi    (const char      *note);

G_END_DECLS
