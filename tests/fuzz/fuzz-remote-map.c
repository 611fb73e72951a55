/* fuzz-remote-map.c: a sample map (strudel.json) as a code's samples()
 * fetches it from anywhere.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-remote-map.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(SjRemoteMap) map = sj_remote_map_parse (bytes, "https://example.org/samples/strudel.json", NULL);

  if (map != NULL)
    sj_remote_map_lookup (map, "bd");

  return 0;
}
