/* sj-skill-row.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-skill-registry.h"

G_BEGIN_DECLS

#define SJ_TYPE_SKILL_ROW (sj_skill_row_get_type ())

G_DECLARE_FINAL_TYPE (SjSkillRow, sj_skill_row, SJ, SKILL_ROW, GtkListBoxRow)

GtkWidget *sj_skill_row_new        (SjSkillRegistry *registry,
                                    SjSkill         *skill);
SjSkill   *sj_skill_row_get_skill  (SjSkillRow      *self);
GtkSwitch *sj_skill_row_get_switch (SjSkillRow      *self);
void       sj_skill_row_sync       (SjSkillRow      *self);

G_END_DECLS
