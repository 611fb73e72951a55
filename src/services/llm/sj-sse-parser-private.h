/* sj-sse-parser-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests and the benchmark reach in the parser.
 */

#pragma once

#include "sj-sse-parser.h"

G_BEGIN_DECLS

gsize _sj_sse_parser_get_buffered  (SjSseParser *self);
void  _sj_sse_parser_set_max_event (SjSseParser *self,
                                    gsize        max_event);

G_END_DECLS
