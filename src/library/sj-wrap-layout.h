/* sj-wrap-layout.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_WRAP_LAYOUT (sj_wrap_layout_get_type ())

G_DECLARE_FINAL_TYPE (SjWrapLayout, sj_wrap_layout, SJ, WRAP_LAYOUT, GtkLayoutManager)

GtkLayoutManager *sj_wrap_layout_new (int spacing);

G_END_DECLS
