/* sj-markdown-render.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <cmark-gfm.h>
#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Where the widgets built for a message send what happens to them: each
 * label's GtkLabel::activate-link goes to @activate_link_cb with
 * @user_data, which must outlive the widgets (it is their ancestor). A code
 * block's Apply is the window's win.apply-code. */
typedef struct
{
  GCallback activate_link_cb;
  gpointer  user_data;
} SjMarkdownRenderer;

cmark_node *sj_markdown_parse         (const char               *text,
                                       gsize                     length);
GtkWidget  *sj_markdown_render_block  (const SjMarkdownRenderer *renderer,
                                       cmark_node               *node);
gboolean    sj_markdown_render_update (GtkWidget                *widget,
                                       cmark_node               *node);
gboolean    sj_markdown_uri_is_safe   (const char               *uri);

G_END_DECLS
