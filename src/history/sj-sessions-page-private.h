/* sj-sessions-page-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-code-timeline.h"
#include "sj-session-item.h"
#include "sj-sessions-page.h"

G_BEGIN_DECLS

struct _SjSessionsPage
{
  GtkWidget             parent_instance;

  SjHistoryStore       *store;
  GListStore           *sessions;
  gint64                current;

  /* The deletion waiting for its toast: the row is gone, the store still
   * has the session. */
  SjSessionItem        *pending_item;
  guint                 pending_position;
  AdwToast             *pending_toast;

  AdwToastOverlay      *toast_overlay;  /* weak */
  GtkFileChooserNative *export_dialog;

  /* Template widgets */
  GtkListBox           *sessions_list;
  SjCodeTimeline       *timeline;
};

gboolean       _sj_sessions_page_find                 (SjSessionsPage *self,
                                                       gint64          session_id,
                                                       guint          *position);
SjSessionItem *_sj_sessions_page_get_item             (SjSessionsPage *self,
                                                       gint64          session_id);
GtkWidget     *_sj_sessions_page_create_row_cb        (gpointer        item,
                                                       gpointer        user_data);
GtkWidget     *_sj_sessions_page_find_row             (SjSessionsPage *self,
                                                       gint64          session_id);
void           _sj_sessions_page_start_rename         (SjSessionsPage *self,
                                                       gint64          session_id);
void           _sj_sessions_page_stop_rename          (SjSessionsPage *self,
                                                       GtkWidget      *row);
void           _sj_sessions_page_show_toast           (SjSessionsPage *self,
                                                       const char     *title);
void           _sj_sessions_page_class_init_actions   (GtkWidgetClass *widget_class);
void           _sj_sessions_page_dispose_actions      (SjSessionsPage *self);
void           _sj_sessions_page_emit_session_deleted (SjSessionsPage *self,
                                                       gint64          session_id);

/* For the tests. */
gint64      _sj_sessions_page_get_current  (SjSessionsPage *self);
GListModel *_sj_sessions_page_get_sessions (SjSessionsPage *self);

G_END_DECLS
