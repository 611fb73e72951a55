/* sj-html-text.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *sj_html_to_text (const char *html);

G_END_DECLS
