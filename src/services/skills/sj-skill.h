/* sj-skill.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_SKILL_ERROR (sj_skill_error_quark ())

/* Why a skill folder was refused; the message names the skill and the rule. */
typedef enum
{
  SJ_SKILL_ERROR_MISSING_FILE,  /* no skill.json or SKILL.md */
  SJ_SKILL_ERROR_TOO_LARGE,     /* a file or the folder over its limit */
  SJ_SKILL_ERROR_BAD_FOLDER,    /* a symlink, a sub-folder, too many files, not a folder */
  SJ_SKILL_ERROR_INVALID_JSON,  /* not UTF-8, not JSON, too deeply nested, not an object */
  SJ_SKILL_ERROR_UNKNOWN_KEY,   /* a key skill.json does not know (a typo) */
  SJ_SKILL_ERROR_INVALID_FIELD, /* a known key with a wrong type or value */
  SJ_SKILL_ERROR_NAME_MISMATCH, /* "name" is not the folder's name */
  SJ_SKILL_ERROR_INVALID_MARKDOWN, /* SKILL.md without its title or its ## Rules */
  SJ_SKILL_ERROR_INVALID_TEMPLATES, /* templates.strudel */
  SJ_SKILL_ERROR_INVALID_PATTERNS,  /* patterns.json */
  SJ_SKILL_ERROR_NOT_FOUND,     /* no skill of that name */
  SJ_SKILL_ERROR_EXISTS,        /* a user skill of that name is already there */
} SjSkillError;

GQuark sj_skill_error_quark (void);

typedef enum
{
  SJ_SKILL_ORIGIN_BUNDLED,
  SJ_SKILL_ORIGIN_USER,
} SjSkillOrigin;

/* The format's limits (docs: data/skills/README.md). */
#define SJ_SKILL_MAX_JSON      (16 * 1024)
#define SJ_SKILL_MAX_MARKDOWN  (24 * 1024)
#define SJ_SKILL_MAX_SNIPPETS  (16 * 1024)
#define SJ_SKILL_MAX_EXTRA     (64 * 1024)
#define SJ_SKILL_MAX_FOLDER    (256 * 1024)
#define SJ_SKILL_MAX_FILES     16
#define SJ_SKILL_MAX_DEPTH     8
#define SJ_SKILL_MAX_TAGS      12
#define SJ_SKILL_MAX_TRIGGERS  32
#define SJ_SKILL_MAX_PATTERNS  32

/* One snippet of patterns.json or one program of templates.strudel. */
typedef struct
{
  char *name;         /* the template's title for templates */
  char *description;  /* "" for templates */
  char *code;
} SjSkillSnippet;

#define SJ_TYPE_SKILL (sj_skill_get_type ())

G_DECLARE_FINAL_TYPE (SjSkill, sj_skill, SJ, SKILL, GObject)

SjSkill            *sj_skill_load_folder       (GFile         *folder,
                                                SjSkillOrigin  origin,
                                                GCancellable  *cancellable,
                                                GError       **error);
gboolean            sj_skill_is_valid_name     (const char    *name);

const char         *sj_skill_get_name          (SjSkill       *self);
const char         *sj_skill_get_title         (SjSkill       *self);
const char         *sj_skill_get_description   (SjSkill       *self);
const char         *sj_skill_get_version       (SjSkill       *self);
const char * const *sj_skill_get_tags          (SjSkill       *self);
const char * const *sj_skill_get_triggers      (SjSkill       *self);
int                 sj_skill_get_priority      (SjSkill       *self);
const char         *sj_skill_get_rules         (SjSkill       *self);
const char         *sj_skill_get_markdown      (SjSkill       *self);
GPtrArray          *sj_skill_get_templates     (SjSkill       *self);
GPtrArray          *sj_skill_get_patterns      (SjSkill       *self);
SjSkillOrigin       sj_skill_get_origin        (SjSkill       *self);
GFile              *sj_skill_get_folder        (SjSkill       *self);
gboolean            sj_skill_get_overrides     (SjSkill       *self);
gboolean            sj_skill_has_tag           (SjSkill       *self,
                                                const char    *tag);

G_END_DECLS
