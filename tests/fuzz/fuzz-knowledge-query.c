/* fuzz-knowledge-query.c: strudel_knowledge's query parser; the first byte
 * picks the domain and the mode.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-knowledge-query.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = NULL;
  g_autoptr(SjKnowledgeQuery) query = NULL;

  if (size < 1)
    return 0;

  text = g_strndup ((const char *)data + 1, size - 1);
  query = sj_knowledge_query_parse (text, data[0] % 3, (data[0] / 3) % 4);

  return 0;
}
