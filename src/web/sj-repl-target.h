/* sj-repl-target.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-live-target.h"
#include "sj-repl.h"

G_BEGIN_DECLS

#define SJ_TYPE_REPL_TARGET (sj_repl_target_get_type ())

G_DECLARE_FINAL_TYPE (SjReplTarget, sj_repl_target, SJ, REPL_TARGET, GObject)

SjReplTarget *sj_repl_target_new (SjRepl *repl);

G_END_DECLS
