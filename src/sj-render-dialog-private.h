/* sj-render-dialog-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-render-dialog.h"

G_BEGIN_DECLS

/* Tests: render to @path as if it had been chosen in the file chooser. */
void        _sj_render_dialog_render_to     (SjRenderDialog *self,
                                             const char     *path);
gboolean    _sj_render_dialog_is_busy       (SjRenderDialog *self);
JsonObject *_sj_render_dialog_get_summary   (SjRenderDialog *self);
const char *_sj_render_dialog_get_status    (SjRenderDialog *self);
GtkButton  *_sj_render_dialog_get_cancel_button (SjRenderDialog *self);

G_END_DECLS
