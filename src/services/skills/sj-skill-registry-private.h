/* sj-skill-registry-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the registry's files share: sj-skill-registry.c (loading, the
 * list, enabling), sj-skill-registry-install.c (writing user skills) and
 * sj-skill-choose.c (a turn's skills within the budget) and
 * sj-skill-registry-monitor.c (following the user's skills on disk).
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
  GPtrArray      *monitors;     /* of GFileMonitor, NULL when not following the disk */
  guint           reload_id;
};

void _sj_skill_registry_rebuild_matcher (SjSkillRegistry *self);

/* sj-skill-registry-monitor.c; the start is for the tests too. */
void _sj_skill_registry_start_monitor   (SjSkillRegistry *self);
void _sj_skill_registry_stop_monitor    (SjSkillRegistry *self);

G_END_DECLS
