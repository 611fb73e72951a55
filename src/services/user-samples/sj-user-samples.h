/* sj-user-samples.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The pack of the user's folders in the page's URLs:
 * strudel-jam://sounds/user/<folder id>/<path>. */
#define SJ_USER_SAMPLES_PACK "user"

#define SJ_USER_SAMPLES_MAX_FOLDERS    16
#define SJ_USER_SAMPLES_MAX_DEPTH      8                   /* folders below the one added */
#define SJ_USER_SAMPLES_MAX_ENTRIES    20000               /* files and folders looked at, per folder */
#define SJ_USER_SAMPLES_MAX_FILES      2048                /* playable files, per folder */
#define SJ_USER_SAMPLES_MAX_FILE_SIZE  (50 * 1024 * 1024)
#define SJ_USER_SAMPLES_MAX_NAME_BYTES 128                 /* of a sound name */
#define SJ_USER_SAMPLES_MAX_PROBLEMS   256                 /* listed per folder; the rest are counted */

#define SJ_USER_SAMPLES_ERROR (sj_user_samples_error_quark ())

typedef enum
{
  SJ_USER_SAMPLES_ERROR_NOT_FOUND,        /* not a file a scan listed */
  SJ_USER_SAMPLES_ERROR_TOO_LARGE,
  SJ_USER_SAMPLES_ERROR_CHANGED,          /* no longer what the scan found */
  SJ_USER_SAMPLES_ERROR_IO,
  SJ_USER_SAMPLES_ERROR_TOO_MANY_FOLDERS,
  SJ_USER_SAMPLES_ERROR_NOT_LOCAL,        /* the folder has no path on this computer */
} SjUserSamplesError;

/* What a file's first bytes say it is. */
typedef enum
{
  SJ_SAMPLE_FORMAT_NONE,
  SJ_SAMPLE_FORMAT_WAV,
  SJ_SAMPLE_FORMAT_FLAC,
  SJ_SAMPLE_FORMAT_OGG,
  SJ_SAMPLE_FORMAT_MP3,
  SJ_SAMPLE_FORMAT_AIFF,                  /* audio, but not a format the page decodes */
  SJ_SAMPLE_FORMAT_MP4,                   /* likewise (M4A, AAC in MP4) */
} SjSampleFormat;

#define SJ_SAMPLE_FORMAT_SNIFF_BYTES 12

/* Why a file of a folder does not play. */
typedef enum
{
  SJ_USER_SAMPLE_PROBLEM_NOT_AUDIO,       /* neither named nor made as audio */
  SJ_USER_SAMPLE_PROBLEM_NOT_FORMAT,      /* named .wav (…) but not one, nor any format that plays */
  SJ_USER_SAMPLE_PROBLEM_UNSUPPORTED,     /* AIFF, M4A */
  SJ_USER_SAMPLE_PROBLEM_EMPTY,
  SJ_USER_SAMPLE_PROBLEM_TOO_LARGE,
  SJ_USER_SAMPLE_PROBLEM_UNREADABLE,
  SJ_USER_SAMPLE_PROBLEM_SAME_NAME,       /* its sound already has a file of this name */
  SJ_USER_SAMPLE_PROBLEM_BAD_NAME,        /* its folder's name cannot be a sound's */
  SJ_USER_SAMPLE_PROBLEM_TOO_DEEP,        /* a folder too far down, not looked into */
  SJ_USER_SAMPLE_PROBLEM_LOOP,            /* a link back to a folder already scanned */
  SJ_USER_SAMPLE_PROBLEM_TOO_MANY,        /* not looked at: the folder's limit was reached */
} SjUserSampleProblemKind;

typedef struct
{
  char                    *path;          /* relative to the folder, for people (UTF-8) */
  SjUserSampleProblemKind  kind;
  SjSampleFormat           format;        /* NOT_FORMAT: what its name says; UNSUPPORTED: what it is */
} SjUserSampleProblem;

typedef struct
{
  char           *path;                   /* relative to the folder, in the file system's encoding */
  char           *display;                /* the same, for people (UTF-8) */
  char           *url_path;               /* the same, percent-encoded: what the page asks for */
  SjSampleFormat  format;
  goffset         size;
} SjUserSampleFile;

typedef struct
{
  char      *name;                        /* as superdough registers it: lower-case, spaces "_" */
  GPtrArray *files;                       /* (element-type SjUserSampleFile): its variants, in order */
  gboolean   writable;                    /* mini-notation can spell it: s("name") plays it */
  gboolean   replaces;                    /* a built-in sound of this name exists: this one plays */
} SjUserSound;

typedef enum
{
  SJ_USER_FOLDER_SCANNING,
  SJ_USER_FOLDER_READY,
  SJ_USER_FOLDER_FAILED,
} SjUserFolderState;

typedef struct _SjUserFolder SjUserFolder;

#define SJ_TYPE_USER_SAMPLES (sj_user_samples_get_type ())

G_DECLARE_FINAL_TYPE (SjUserSamples, sj_user_samples, SJ, USER_SAMPLES, GObject)

GQuark               sj_user_samples_error_quark          (void);
SjUserSamples       *sj_user_samples_new                  (void);
char               **sj_user_samples_dup_folder_uris      (SjUserSamples        *self);
void                 sj_user_samples_set_folder_uris      (SjUserSamples        *self,
                                                           const char * const   *uris);
SjUserFolder        *sj_user_samples_add_folder           (SjUserSamples        *self,
                                                           GFile                *folder,
                                                           GError              **error);
gboolean             sj_user_samples_remove_folder        (SjUserSamples        *self,
                                                           const char           *id);
void                 sj_user_samples_rescan               (SjUserSamples        *self);
gboolean             sj_user_samples_rescan_folder        (SjUserSamples        *self,
                                                           const char           *id);
gboolean             sj_user_samples_get_busy             (SjUserSamples        *self);
guint                sj_user_samples_get_n_folders        (SjUserSamples        *self);
SjUserFolder        *sj_user_samples_get_folder           (SjUserSamples        *self,
                                                           guint                 position);
SjUserFolder        *sj_user_samples_lookup_folder        (SjUserSamples        *self,
                                                           const char           *id);
JsonNode            *sj_user_samples_dup_packs            (SjUserSamples        *self);
void                 sj_user_samples_load_async           (SjUserSamples        *self,
                                                           const char           *path,
                                                           GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
GBytes              *sj_user_samples_load_finish          (SjUserSamples        *self,
                                                           GAsyncResult         *result,
                                                           const char          **content_type,
                                                           GError              **error);

const char          *sj_user_folder_get_id                (SjUserFolder         *folder);
const char          *sj_user_folder_get_uri               (SjUserFolder         *folder);
const char          *sj_user_folder_get_name              (SjUserFolder         *folder);
SjUserFolderState    sj_user_folder_get_state             (SjUserFolder         *folder);
const GError        *sj_user_folder_get_error             (SjUserFolder         *folder);
GPtrArray           *sj_user_folder_get_sounds            (SjUserFolder         *folder);
const SjUserSound   *sj_user_folder_lookup_sound          (SjUserFolder         *folder,
                                                           const char           *name);
GPtrArray           *sj_user_folder_get_problems          (SjUserFolder         *folder);
guint                sj_user_folder_get_n_problems        (SjUserFolder         *folder);
guint                sj_user_folder_get_n_files           (SjUserFolder         *folder);
char                *sj_user_folder_describe_problems     (SjUserFolder         *folder,
                                                           guint                 max_listed);

SjSampleFormat       sj_sample_format_sniff               (const guint8         *data,
                                                           gsize                 length);
SjSampleFormat       sj_sample_format_from_name           (const char           *name);
gboolean             sj_sample_format_plays               (SjSampleFormat        format);
const char          *sj_sample_format_get_content_type    (SjSampleFormat        format);
char                *sj_user_sample_problem_describe      (const SjUserSampleProblem *problem);
char                *sj_user_samples_sound_name           (const char           *folder_name);
gboolean             sj_user_samples_name_is_writable     (const char           *name);

G_END_DECLS
