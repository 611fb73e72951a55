/* sj-onboarding.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-agent-config.h"

G_BEGIN_DECLS

#define SJ_TYPE_ONBOARDING (sj_onboarding_get_type ())

G_DECLARE_FINAL_TYPE (SjOnboarding, sj_onboarding, SJ, ONBOARDING, GtkWidget)

void     sj_onboarding_set_config  (SjOnboarding  *self,
                                    SjAgentConfig *config);
gboolean sj_onboarding_is_needed   (SjOnboarding  *self);
void     sj_onboarding_focus       (SjOnboarding  *self);

G_END_DECLS
