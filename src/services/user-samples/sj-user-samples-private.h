/* sj-user-samples-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the files of SjUserSamples share: sj-user-samples.c (the list of
 * folders), sj-user-folder.c (a folder as the rest of the app reads it),
 * sj-user-samples-page.c (the packs and the files the page asks for) and
 * sj-user-samples-scan.c (reading a folder in a thread),
 * sj-user-samples-names.c (formats, names and order); and the
 * hooks the tests use: smaller limits, and how many files the page asked
 * for.
 */

#pragma once

#include "sj-user-samples.h"

G_BEGIN_DECLS

typedef struct
{
  guint  max_depth;
  guint  max_entries;
  guint  max_files;
  gsize  max_file_size;
} SjUserSamplesLimits;

/* What scanning a folder found: made in a thread, read-only after. */
typedef struct
{
  GPtrArray  *sounds;     /* of SjUserSound, sorted by name */
  GHashTable *by_name;    /* name → SjUserSound */
  GHashTable *files;      /* path → SjUserSampleFile (owned by the sounds) */
  GPtrArray  *problems;   /* of SjUserSampleProblem, at most SJ_USER_SAMPLES_MAX_PROBLEMS */
  guint       n_problems; /* all of them, listed or not */
  guint       n_files;
} SjUserScan;

struct _SjUserFolder
{
  char              *id;
  char              *uri;
  char              *name;
  GFile             *file;
  SjUserFolderState  state;
  GError            *error;
  SjUserScan        *scan;    /* the last complete scan, or NULL */
  GCancellable      *cancellable;
  guint              generation;
};

struct _SjUserSamples
{
  GObject              parent_instance;

  GPtrArray           *folders;   /* of SjUserFolder, in the order they were added */
  SjUserSamplesLimits  limits;
  guint                n_scanning;
  guint                n_loads;
};

/* sj-user-samples-scan.c */
SjUserScan   *_sj_user_scan_run       (GFile                     *folder,
                                       const char                *folder_name,
                                       const SjUserSamplesLimits *limits,
                                       GCancellable              *cancellable,
                                       GError                   **error);
void          _sj_user_scan_free      (SjUserScan                *scan);

/* sj-user-samples-names.c */
char         *_sj_user_samples_escape          (const char *path);
int           _sj_user_samples_compare_natural (const char *a,
                                                const char *b);

/* For tests. */
void          _sj_user_samples_set_limits (SjUserSamples             *self,
                                           const SjUserSamplesLimits *limits);
guint         _sj_user_samples_get_n_loads (SjUserSamples            *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjUserScan, _sj_user_scan_free)

G_END_DECLS
