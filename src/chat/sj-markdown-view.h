/* sj-markdown-view.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_MARKDOWN_VIEW (sj_markdown_view_get_type ())

G_DECLARE_FINAL_TYPE (SjMarkdownView, sj_markdown_view, SJ, MARKDOWN_VIEW, GtkWidget)

GtkWidget  *sj_markdown_view_new                (void);
void        sj_markdown_view_set_text           (SjMarkdownView *self,
                                                 const char     *text);
const char *sj_markdown_view_get_text           (SjMarkdownView *self);
void        sj_markdown_view_append             (SjMarkdownView *self,
                                                 const char     *delta);
void        sj_markdown_view_flush              (SjMarkdownView *self);
guint       sj_markdown_view_get_n_blocks_built (SjMarkdownView *self);
guint       sj_markdown_view_get_n_renders      (SjMarkdownView *self);

G_END_DECLS
