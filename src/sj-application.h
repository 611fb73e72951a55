/* sj-application.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SJ_TYPE_APPLICATION (sj_application_get_type ())

G_DECLARE_FINAL_TYPE (SjApplication, sj_application, SJ, APPLICATION, AdwApplication)

SjApplication *sj_application_new            (void);
void           sj_application_prepare_env    (void);

G_END_DECLS
