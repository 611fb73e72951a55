/* sj-render-dialog.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "sj-history-store.h"
#include "sj-renderer.h"

G_BEGIN_DECLS

#define SJ_TYPE_RENDER_DIALOG (sj_render_dialog_get_type ())

G_DECLARE_FINAL_TYPE (SjRenderDialog, sj_render_dialog, SJ, RENDER_DIALOG, AdwWindow)

SjRenderDialog *sj_render_dialog_new (GtkWindow  *parent,
                                      SjRenderer *renderer,
                                      const char *code,
                                      double      cps);
SjRenderDialog *sj_render_dialog_new_for_session (GtkWindow      *parent,
                                                  SjRenderer     *renderer,
                                                  SjHistoryStore *store,
                                                  gint64          session_id,
                                                  const char     *title,
                                                  double          cps);

G_END_DECLS
