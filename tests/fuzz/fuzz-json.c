/* fuzz-json.c: sj_json_parse(), the parser of everything the app reads;
 * the first byte picks the depth limit.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-json.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  SjJsonLimits limits = { 0, 0 };
  g_autoptr(JsonNode) node = NULL;

  if (size < 1)
    return 0;

  limits.max_depth = data[0] + 1;
  node = sj_json_parse ((const char *)data + 1, size - 1, &limits, NULL);

  return 0;
}
