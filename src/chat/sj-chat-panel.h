/* sj-chat-panel.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-agent-config.h"
#include "sj-composer.h"

G_BEGIN_DECLS

#define SJ_TYPE_CHAT_PANEL (sj_chat_panel_get_type ())

G_DECLARE_FINAL_TYPE (SjChatPanel, sj_chat_panel, SJ, CHAT_PANEL, GtkWidget)

void             sj_chat_panel_set_agent       (SjChatPanel   *self,
                                                SjAgent       *agent,
                                                SjAgentConfig *config);
void             sj_chat_panel_load_session    (SjChatPanel   *self,
                                                gint64         session_id);
void             sj_chat_panel_focus_composer  (SjChatPanel   *self);
gboolean         sj_chat_panel_get_needs_setup (SjChatPanel   *self);
SjComposer      *sj_chat_panel_get_composer    (SjChatPanel   *self);
void             sj_chat_panel_show_voice_problem (SjChatPanel  *self,
                                                   const GError *error);
void             sj_chat_panel_swap_changed    (SjChatPanel   *self,
                                                const char    *state,
                                                double         cycle);
void             sj_chat_panel_swap_countdown  (SjChatPanel   *self,
                                                double         cycle,
                                                int            beats);
void             sj_chat_panel_change_verified (SjChatPanel   *self,
                                                const char    *state,
                                                double         cycle,
                                                const char    *message);

G_END_DECLS
