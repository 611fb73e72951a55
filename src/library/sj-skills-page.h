/* sj-skills-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-skill-registry.h"

G_BEGIN_DECLS

#define SJ_TYPE_SKILLS_PAGE (sj_skills_page_get_type ())

G_DECLARE_FINAL_TYPE (SjSkillsPage, sj_skills_page, SJ, SKILLS_PAGE, GtkWidget)

void             sj_skills_page_set_registry (SjSkillsPage    *self,
                                              SjSkillRegistry *registry);
SjSkillRegistry *sj_skills_page_get_registry (SjSkillsPage    *self);
void             sj_skills_page_focus_search (SjSkillsPage    *self);
gboolean         sj_skills_page_show_skill   (SjSkillsPage    *self,
                                              const char      *name);
void             sj_skills_page_import       (SjSkillsPage    *self,
                                              GFile           *source);

G_END_DECLS
