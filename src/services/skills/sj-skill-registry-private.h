/* sj-skill-registry-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the registry's files share: sj-skill-registry.c (loading, the
 * list, enabling), sj-skill-registry-install.c (writing user skills) and
 * sj-skill-choose.c (a turn's skills within the budget).
 */

#pragma once

#include "sj-skill-matcher.h"
#include "sj-skill-registry.h"

G_BEGIN_DECLS

struct _SjSkillRegistry
{
  GObject         parent_instance;

  char           *bundled_root;
  char           *user_root;
  GSettings      *settings;     /* nullable: the disabled set is then in memory */
  GHashTable     *disabled;     /* names */
  GPtrArray      *skills;       /* of SjSkill, by title: the GListModel */
  GHashTable     *by_name;      /* name → SjSkill (not owning) */
  GPtrArray      *errors;       /* of GError */
  SjSkillMatcher *matcher;      /* the enabled skills' triggers */
};

void _sj_skill_registry_rebuild_matcher (SjSkillRegistry *self);

G_END_DECLS
