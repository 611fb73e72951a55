/* sj-code-block.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_CODE_BLOCK (sj_code_block_get_type ())

G_DECLARE_FINAL_TYPE (SjCodeBlock, sj_code_block, SJ, CODE_BLOCK, GtkWidget)

GtkWidget  *sj_code_block_new          (const char  *code,
                                        const char  *language);
const char *sj_code_block_get_language (SjCodeBlock *self);
void        sj_code_block_set_code     (SjCodeBlock *self,
                                        const char  *code);
void        sj_code_block_copy         (SjCodeBlock *self);
void        sj_code_block_apply        (SjCodeBlock *self);

G_END_DECLS
