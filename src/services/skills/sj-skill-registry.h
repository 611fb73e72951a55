/* sj-skill-registry.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-skill.h"

G_BEGIN_DECLS

/* How a turn came to use a skill; also its order in the context. */
typedef enum
{
  SJ_SKILL_USE_PINNED,  /* the musician pinned it to the session */
  SJ_SKILL_USE_TOOL,    /* the model activated it with activate_skills */
  SJ_SKILL_USE_AUTO,    /* the message matched its triggers */
} SjSkillUse;

typedef struct
{
  SjSkill    *skill;
  SjSkillUse  use;
} SjSkillChoice;

/* What one turn's context takes of skills at most: a few automatic
 * skills, and a ceiling on the rules' characters (pinned skills first). */
#define SJ_SKILL_MAX_AUTO        3
#define SJ_SKILL_RULES_BUDGET    4000
#define SJ_SKILL_REGISTRY_MAX_SKILLS 512

#define SJ_TYPE_SKILL_REGISTRY (sj_skill_registry_get_type ())

G_DECLARE_FINAL_TYPE (SjSkillRegistry, sj_skill_registry, SJ, SKILL_REGISTRY, GObject)

SjSkillRegistry *sj_skill_registry_new            (GSettings           *settings);
SjSkillRegistry *sj_skill_registry_new_for_roots  (const char          *bundled_root,
                                                   const char          *user_root,
                                                   GSettings           *settings);
void             sj_skill_registry_reload         (SjSkillRegistry     *self);
const char      *sj_skill_registry_get_bundled_root (SjSkillRegistry   *self);
const char      *sj_skill_registry_get_user_root  (SjSkillRegistry     *self);
GPtrArray       *sj_skill_registry_get_errors     (SjSkillRegistry     *self);
SjSkill         *sj_skill_registry_lookup         (SjSkillRegistry     *self,
                                                   const char          *name);
GPtrArray       *sj_skill_registry_list_with_tag  (SjSkillRegistry     *self,
                                                   const char          *tag);
GPtrArray       *sj_skill_registry_search         (SjSkillRegistry     *self,
                                                   const char          *query);
GStrv            sj_skill_registry_suggest        (SjSkillRegistry     *self,
                                                   const char          *name);
gboolean         sj_skill_registry_is_enabled     (SjSkillRegistry     *self,
                                                   const char          *name);
void             sj_skill_registry_set_enabled    (SjSkillRegistry     *self,
                                                   const char          *name,
                                                   gboolean             enabled);
GPtrArray       *sj_skill_registry_match          (SjSkillRegistry     *self,
                                                   const char          *message);
GPtrArray       *sj_skill_registry_choose         (SjSkillRegistry     *self,
                                                   const char          *message,
                                                   const char * const  *pinned,
                                                   const char * const  *activated,
                                                   guint                max_auto,
                                                   gsize                max_chars);
char            *sj_skill_choices_format          (GPtrArray           *choices);
const char      *sj_skill_use_to_string           (SjSkillUse           use);

SjSkill         *sj_skill_registry_install_folder (SjSkillRegistry     *self,
                                                   GFile               *source,
                                                   gboolean             replace,
                                                   GCancellable        *cancellable,
                                                   GError             **error);
SjSkill         *sj_skill_registry_create         (SjSkillRegistry     *self,
                                                   const char          *name,
                                                   const char          *title,
                                                   GError             **error);
gboolean         sj_skill_registry_remove         (SjSkillRegistry     *self,
                                                   const char          *name,
                                                   GError             **error);

G_END_DECLS
