/* sj-chat-panel-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the files of the Chat page share (sj-chat-panel.c, the page and
 * its actions; sj-chat-panel-messages.c, the conversation), and what the
 * tests and the chat benchmark reach that the window does not: a panel of
 * their own, and the parts they look at and drive.
 */

#pragma once

#include "sj-autoscroll.h"
#include "sj-chat-panel.h"
#include "sj-composer.h"
#include "sj-onboarding.h"
#include "sj-problem-banner.h"

G_BEGIN_DECLS

struct _SjChatPanel
{
  GtkWidget          parent_instance;

  SjAgent           *agent;
  SjAgentConfig     *config;
  GSignalGroup      *agent_signals;
  GBindingGroup     *agent_bindings;
  GSignalGroup      *config_signals;
  GListStore        *messages;
  GtkSliceListModel *slice;
  SjAutoscroll      *autoscroll;
  gboolean           editing;

  /* Template widgets */
  GtkStack          *main_stack;
  SjOnboarding      *onboarding;
  SjProblemBanner   *banner;
  SjProblemBanner   *voice_banner;
  GtkStack          *stack;
  GtkScrolledWindow *scroller;
  GtkListView       *list_view;
  GtkWidget         *jump_button;
  GtkLabel          *status_label;
  SjComposer        *composer;
};

/* sj-chat-panel-messages.c */
void               _sj_chat_panel_init_messages      (SjChatPanel *self);
void               _sj_chat_panel_update_last_flags  (SjChatPanel *self);
void               _sj_chat_panel_drop_last_turn     (SjChatPanel *self,
                                                      gboolean     from_user);

/* For the tests and the benchmark. */
GtkWidget         *_sj_chat_panel_new            (void);
GListModel        *_sj_chat_panel_get_messages   (SjChatPanel *self);
SjComposer        *_sj_chat_panel_get_composer   (SjChatPanel *self);
SjAutoscroll      *_sj_chat_panel_get_autoscroll (SjChatPanel *self);
SjOnboarding      *_sj_chat_panel_get_onboarding (SjChatPanel *self);
SjProblemBanner   *_sj_chat_panel_get_banner     (SjChatPanel *self);
SjProblemBanner   *_sj_chat_panel_get_voice_banner (SjChatPanel *self);
GtkScrolledWindow *_sj_chat_panel_get_scroller   (SjChatPanel *self);

G_END_DECLS
