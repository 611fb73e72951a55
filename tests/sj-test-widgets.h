/* sj-test-widgets.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void        sj_test_widgets_spin_until (gboolean    (*done) (gpointer),
                                        gpointer      data,
                                        guint         timeout_s,
                                        const char   *what);
GtkWidget  *sj_test_find_by_class      (GtkWidget    *root,
                                        const char   *css_class);
GdkTexture *sj_test_render_widget      (GtkWidget    *widget);

G_END_DECLS
