/* sj-skill-matcher.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SjSkillMatcher SjSkillMatcher;

/* Longer messages are matched on their first words only. */
#define SJ_SKILL_MATCHER_MAX_TOKENS 256

SjSkillMatcher *sj_skill_matcher_new   (void);
void            sj_skill_matcher_free  (SjSkillMatcher     *self);
void            sj_skill_matcher_add   (SjSkillMatcher     *self,
                                        gpointer            item,
                                        int                 priority,
                                        const char * const *triggers);
GPtrArray      *sj_skill_matcher_match (SjSkillMatcher     *self,
                                        const char         *message);
guint           sj_skill_matcher_get_n_triggers (SjSkillMatcher *self);
char           *sj_skill_stem          (const char         *word);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjSkillMatcher, sj_skill_matcher_free)

G_END_DECLS
