/* sj-skill-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the skill files share: the instance struct, filled by the loader
 * (sj-skill-load.c) and read by the getters (sj-skill.c), and what the
 * registry sets once it knows both roots.
 */

#pragma once

#include "sj-skill.h"

G_BEGIN_DECLS

struct _SjSkill
{
  GObject        parent_instance;

  char          *name;
  char          *title;
  char          *description;
  char          *version;
  GStrv          tags;
  GStrv          triggers;
  int            priority;
  char          *rules;
  char          *markdown;
  GPtrArray     *templates;  /* of SjSkillSnippet */
  GPtrArray     *patterns;   /* of SjSkillSnippet */
  SjSkillOrigin  origin;
  GFile         *folder;
  gboolean       overrides;
};

SjSkill *_sj_skill_new           (void);
void     _sj_skill_snippet_free  (gpointer  snippet);
void     _sj_skill_set_overrides (SjSkill  *self,
                                  gboolean  overrides);
gboolean _sj_skill_check_depth   (const char *json,
                                  gsize       length,
                                  guint       max_depth);

G_END_DECLS
