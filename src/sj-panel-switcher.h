/* sj-panel-switcher.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SJ_TYPE_PANEL_SWITCHER (sj_panel_switcher_get_type ())

G_DECLARE_FINAL_TYPE (SjPanelSwitcher, sj_panel_switcher, SJ, PANEL_SWITCHER, GtkWidget)

AdwViewStack *sj_panel_switcher_get_stack (SjPanelSwitcher *self);
void          sj_panel_switcher_set_stack (SjPanelSwitcher *self,
                                           AdwViewStack    *stack);

G_END_DECLS
