/* sj-accessible.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void sj_accessible_name_peek_buttons (GtkWidget *widget);

G_END_DECLS
