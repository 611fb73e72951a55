/* sj-skill-archive-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the archive's files share: sj-skill-archive-read.c reads a .zip or
 * a folder into memory, checking every entry against the limits before
 * anything is written; sj-skill-archive.c writes what it read into a
 * private folder, validates it as a skill and installs it, and exports.
 */

#pragma once

#include "sj-skill-archive.h"

G_BEGIN_DECLS

/* One file of the skill, read and within its limits. */
typedef struct
{
  char   *name;
  GBytes *data;
} SjSkillArchiveFile;

/* A skill read from an archive or a folder, not yet validated as a skill. */
typedef struct
{
  GPtrArray *files;    /* of SjSkillArchiveFile */
  char      *folder;   /* the archive's top folder, or %NULL for files at its top */
  gsize      total;    /* bytes, decompressed */
  gboolean   is_zip;   /* for the messages: an archive, or a folder */
} SjSkillArchiveContents;

SjSkillArchiveContents *_sj_skill_archive_contents_new  (gboolean                 is_zip);
void                    _sj_skill_archive_contents_free (SjSkillArchiveContents  *contents);
SjSkillArchiveContents *_sj_skill_archive_read_zip      (GFile                   *zip,
                                                         GCancellable            *cancellable,
                                                         GError                 **error);
SjSkillArchiveContents *_sj_skill_archive_read_folder   (GFile                   *folder,
                                                         GCancellable            *cancellable,
                                                         GError                 **error);
gboolean                _sj_skill_archive_refuse        (GError                 **error,
                                                         SjSkillArchiveError      code,
                                                         const char              *format,
                                                         ...) G_GNUC_PRINTF (3, 4);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjSkillArchiveContents, _sj_skill_archive_contents_free)

G_END_DECLS
