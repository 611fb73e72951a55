/* sj-problem-banner-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests need: a banner of their own, and which problem it shows.
 */

#pragma once

#include "sj-problem-banner.h"

G_BEGIN_DECLS

GtkWidget *_sj_problem_banner_new         (void);
SjProblem  _sj_problem_banner_get_problem (SjProblemBanner *self);
const char *_sj_problem_banner_get_title  (SjProblemBanner *self);
const char *_sj_problem_banner_get_message (SjProblemBanner *self);
GtkButton  *_sj_problem_banner_get_button (SjProblemBanner *self);
gboolean    _sj_problem_banner_get_revealed (SjProblemBanner *self);

G_END_DECLS
