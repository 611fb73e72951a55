/* sj-window.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "sj-code-store.h"
#include "sj-console-page.h"
#include "sj-reference-page.h"
#include "sj-repl.h"
#include "sj-sounds-page.h"

#include "sj-change-applier.h"

#include "sj-agent.h"

G_BEGIN_DECLS

#define SJ_TYPE_WINDOW (sj_window_get_type ())

G_DECLARE_FINAL_TYPE (SjWindow, sj_window, SJ, WINDOW, AdwApplicationWindow)

SjWindow        *sj_window_new                (GtkApplication *application);
SjRepl          *sj_window_get_repl           (SjWindow       *self);
SjChangeApplier *sj_window_get_applier        (SjWindow       *self);
SjConsolePage   *sj_window_get_console_page   (SjWindow       *self);
SjReferencePage *sj_window_get_reference_page (SjWindow       *self);
SjSoundsPage    *sj_window_get_sounds_page    (SjWindow       *self);
SjCodeStore     *sj_window_get_code_store     (SjWindow       *self);
SjAgent         *sj_window_get_agent          (SjWindow       *self);

G_END_DECLS
