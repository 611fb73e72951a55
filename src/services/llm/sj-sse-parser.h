/* sj-sse-parser.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SjSseParser SjSseParser;

/* Called once per complete event with its data lines joined by "\n". */
typedef void (*SjSseEventFunc) (const char *data,
                                gpointer    user_data);

SjSseParser *sj_sse_parser_new    (SjSseEventFunc  func,
                                   gpointer        user_data);
void         sj_sse_parser_free   (SjSseParser    *self);
gboolean     sj_sse_parser_feed   (SjSseParser    *self,
                                   const char     *data,
                                   gsize           len,
                                   GError        **error);
void         sj_sse_parser_finish (SjSseParser    *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjSseParser, sj_sse_parser_free)

G_END_DECLS
