/* sj-sessions-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

#define SJ_TYPE_SESSIONS_PAGE (sj_sessions_page_get_type ())

G_DECLARE_FINAL_TYPE (SjSessionsPage, sj_sessions_page, SJ, SESSIONS_PAGE, GtkWidget)

GtkWidget      *sj_sessions_page_new                   (SjHistoryStore       *store);
void            sj_sessions_page_set_toast_overlay     (SjSessionsPage       *self,
                                                        AdwToastOverlay      *overlay);
void            sj_sessions_page_set_current           (SjSessionsPage       *self,
                                                        gint64                session_id);
void            sj_sessions_page_reload                (SjSessionsPage       *self);
gboolean        sj_sessions_page_rename_session        (SjSessionsPage       *self,
                                                        gint64                session_id,
                                                        const char           *title,
                                                        GError              **error);
void            sj_sessions_page_delete_session        (SjSessionsPage       *self,
                                                        gint64                session_id);
void            sj_sessions_page_finish_pending_delete (SjSessionsPage       *self);
void            sj_sessions_page_export_to_file        (SjSessionsPage       *self,
                                                        gint64                session_id,
                                                        GFile                *file,
                                                        GCancellable         *cancellable,
                                                        GAsyncReadyCallback   callback,
                                                        gpointer              user_data);
gboolean        sj_sessions_page_export_to_file_finish (SjSessionsPage       *self,
                                                        GAsyncResult         *result,
                                                        GError              **error);

G_END_DECLS
