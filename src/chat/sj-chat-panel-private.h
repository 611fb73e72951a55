/* sj-chat-panel-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests and the chat benchmark reach that the window does not: a
 * panel of their own, and the parts they look at and drive.
 */

#pragma once

#include "sj-autoscroll.h"
#include "sj-chat-panel.h"
#include "sj-composer.h"
#include "sj-onboarding.h"
#include "sj-problem-banner.h"

G_BEGIN_DECLS

GtkWidget         *_sj_chat_panel_new            (void);
GListModel        *_sj_chat_panel_get_messages   (SjChatPanel *self);
SjComposer        *_sj_chat_panel_get_composer   (SjChatPanel *self);
SjAutoscroll      *_sj_chat_panel_get_autoscroll (SjChatPanel *self);
SjOnboarding      *_sj_chat_panel_get_onboarding (SjChatPanel *self);
SjProblemBanner   *_sj_chat_panel_get_banner     (SjChatPanel *self);
GtkScrolledWindow *_sj_chat_panel_get_scroller   (SjChatPanel *self);

G_END_DECLS
