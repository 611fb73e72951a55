/* sj-window.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "sj-agent.h"
#include "sj-change-applier.h"

G_BEGIN_DECLS

#define SJ_TYPE_WINDOW (sj_window_get_type ())

G_DECLARE_FINAL_TYPE (SjWindow, sj_window, SJ, WINDOW, AdwApplicationWindow)

SjWindow        *sj_window_new                (GtkApplication *application);
SjChangeApplier *sj_window_get_applier        (SjWindow       *self);
SjAgent         *sj_window_get_agent          (SjWindow       *self);
void             sj_window_handle_mcp_call    (SjWindow              *self,
                                               GDBusMethodInvocation *invocation);
void             sj_window_open_files         (SjWindow       *self,
                                               GFile         **files,
                                               int             n_files);

G_END_DECLS
