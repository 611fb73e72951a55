/* sj-autoscroll.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_AUTOSCROLL (sj_autoscroll_get_type ())

G_DECLARE_FINAL_TYPE (SjAutoscroll, sj_autoscroll, SJ, AUTOSCROLL, GObject)

SjAutoscroll *sj_autoscroll_new            (GtkScrolledWindow *scroller,
                                            GtkWidget         *jump_button);
gboolean      sj_autoscroll_get_pinned     (SjAutoscroll      *self);
void          sj_autoscroll_jump_to_latest (SjAutoscroll      *self);

G_END_DECLS
