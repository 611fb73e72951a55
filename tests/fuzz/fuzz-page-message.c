/* fuzz-page-message.c: a message from the page, decoded and checked
 * before anything acts on it.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-page-message.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  SjPageMessage *message = sj_page_message_parse ((const char *)data, size, NULL);

  g_clear_pointer (&message, sj_page_message_free);
  return 0;
}
