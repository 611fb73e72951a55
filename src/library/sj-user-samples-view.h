/* sj-user-samples-view.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-user-samples.h"

G_BEGIN_DECLS

#define SJ_TYPE_USER_SAMPLES_VIEW (sj_user_samples_view_get_type ())

G_DECLARE_FINAL_TYPE (SjUserSamplesView, sj_user_samples_view, SJ, USER_SAMPLES_VIEW, GtkWidget)

void sj_user_samples_view_set_samples (SjUserSamplesView *self,
                                       SjUserSamples     *samples);

G_END_DECLS
