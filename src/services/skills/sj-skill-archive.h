/* sj-skill-archive.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-skill-registry.h"

G_BEGIN_DECLS

#define SJ_SKILL_ARCHIVE_ERROR (sj_skill_archive_error_quark ())

/* Why an import or an export was refused; the message says what was
 * wrong, where, and that nothing was imported. */
typedef enum
{
  SJ_SKILL_ARCHIVE_ERROR_NOT_AN_ARCHIVE,    /* not a .zip, or a damaged one */
  SJ_SKILL_ARCHIVE_ERROR_EMPTY,             /* an empty file, or a zip without files */
  SJ_SKILL_ARCHIVE_ERROR_TRAVERSAL,         /* an absolute path, "..", a backslash */
  SJ_SKILL_ARCHIVE_ERROR_SYMLINK,           /* a symbolic or hard link */
  SJ_SKILL_ARCHIVE_ERROR_SPECIAL_FILE,      /* a device, a pipe, a socket */
  SJ_SKILL_ARCHIVE_ERROR_NESTED,            /* a sub-folder, or several top folders */
  SJ_SKILL_ARCHIVE_ERROR_DUPLICATE,         /* the same file twice */
  SJ_SKILL_ARCHIVE_ERROR_TOO_LARGE,         /* a file, the whole, or the archive too big */
  SJ_SKILL_ARCHIVE_ERROR_TOO_MANY_FILES,
  SJ_SKILL_ARCHIVE_ERROR_MISSING_SKILL_JSON,
  SJ_SKILL_ARCHIVE_ERROR_MISSING_SKILL_MD,
  SJ_SKILL_ARCHIVE_ERROR_BAD_JSON,          /* skill.json or patterns.json not JSON, or too deep */
  SJ_SKILL_ARCHIVE_ERROR_INVALID_SKILL,     /* any other rule of the skill format */
  SJ_SKILL_ARCHIVE_ERROR_EXISTS,            /* a user skill of that name: confirm, then replace */
  SJ_SKILL_ARCHIVE_ERROR_FAILED,            /* reading or writing failed */
} SjSkillArchiveError;

GQuark   sj_skill_archive_error_quark   (void);

/* What an archive may hold: one folder of at most the format's files. */
#define SJ_SKILL_ARCHIVE_MAX_ZIP      (1024 * 1024)
#define SJ_SKILL_ARCHIVE_MAX_ENTRIES  (SJ_SKILL_MAX_FILES + 1)
#define SJ_SKILL_ARCHIVE_MAX_FILE     SJ_SKILL_MAX_EXTRA
#define SJ_SKILL_ARCHIVE_MAX_TOTAL    SJ_SKILL_MAX_FOLDER

SjSkill *sj_skill_archive_import        (SjSkillRegistry      *registry,
                                         GFile                *source,
                                         gboolean              replace,
                                         GCancellable         *cancellable,
                                         GError              **error);
void     sj_skill_archive_import_async  (SjSkillRegistry      *registry,
                                         GFile                *source,
                                         gboolean              replace,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
SjSkill *sj_skill_archive_import_finish (SjSkillRegistry      *registry,
                                         GAsyncResult         *result,
                                         GError              **error);

gboolean sj_skill_archive_export        (SjSkill              *skill,
                                         GFile                *target,
                                         GCancellable         *cancellable,
                                         GError              **error);
void     sj_skill_archive_export_async  (SjSkill              *skill,
                                         GFile                *target,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
gboolean sj_skill_archive_export_finish (SjSkill              *skill,
                                         GAsyncResult         *result,
                                         GError              **error);

G_END_DECLS
