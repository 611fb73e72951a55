/* sj-user-samples-view-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at: the file chooser while it is open, the message
 * and the folders' rows.
 */

#pragma once

#include "sj-user-samples-view.h"

G_BEGIN_DECLS

GtkFileChooserNative *_sj_user_samples_view_get_chooser        (SjUserSamplesView *self);
GtkLabel             *_sj_user_samples_view_get_problems_label (SjUserSamplesView *self);
GtkListBox           *_sj_user_samples_view_get_folder_list    (SjUserSamplesView *self);

G_END_DECLS
