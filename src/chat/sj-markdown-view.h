/* sj-markdown-view.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SJ_TYPE_MARKDOWN_VIEW (sj_markdown_view_get_type ())

G_DECLARE_FINAL_TYPE (SjMarkdownView, sj_markdown_view, SJ, MARKDOWN_VIEW, GtkWidget)

void        sj_markdown_view_set_text           (SjMarkdownView *self,
                                                 const char     *text);
void        sj_markdown_view_append             (SjMarkdownView *self,
                                                 const char     *delta);

G_END_DECLS
