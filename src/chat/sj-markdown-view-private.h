/* sj-markdown-view-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the tests reach in a Markdown view: a view of their own, its text, a
 * render without waiting for the next frame, and the counters that show how
 * much work a stream of deltas cost.
 */

#pragma once

#include "sj-markdown-view.h"

G_BEGIN_DECLS

GtkWidget  *_sj_markdown_view_new                (void);
const char *_sj_markdown_view_get_text           (SjMarkdownView *self);
void        _sj_markdown_view_flush              (SjMarkdownView *self);
guint       _sj_markdown_view_get_n_blocks_built (SjMarkdownView *self);
guint       _sj_markdown_view_get_n_renders      (SjMarkdownView *self);
void        _sj_markdown_view_set_fold           (SjMarkdownView *self,
                                                  gsize           fold_bytes);
GtkWidget  *_sj_markdown_view_get_show_all       (SjMarkdownView *self);

G_END_DECLS
