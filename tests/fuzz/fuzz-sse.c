/* fuzz-sse.c: the event-stream parser, fed the input cut at every
 * position the first byte picks.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "sj-sse-parser.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

static void
event_cb (const char *event,
          gpointer    user_data)
{
  *(gsize *)user_data += strlen (event);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  gsize total = 0;
  g_autoptr(SjSseParser) parser = sj_sse_parser_new (event_cb, &total);
  gsize step = size > 0 ? MAX (data[0], 1) : 1;

  for (gsize at = 0; at < size; at += step)
    if (!sj_sse_parser_feed (parser, (const char *)data + at, MIN (step, size - at), NULL))
      break;
  sj_sse_parser_finish (parser);

  return 0;
}
