/* sj-code-block-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests look at in a code block: its code and its source view.
 */

#pragma once

#include "sj-code-block.h"

G_BEGIN_DECLS

const char *_sj_code_block_get_code (SjCodeBlock *self);
GtkWidget  *_sj_code_block_get_view (SjCodeBlock *self);

G_END_DECLS
