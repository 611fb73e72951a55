/* fuzz-llm-response.c: a provider's answer as the client reads it, an
 * event stream of chunks whose deltas and tool calls are assembled; the
 * first byte picks where reads are cut, the second whether the body is a
 * streamed answer or a plain JSON completion.
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-llm-response.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

static void
delta_cb (SjLlmDeltaKind  kind,
          const char     *text,
          gpointer        user_data)
{
  g_assert (g_utf8_validate (text, -1, NULL));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(SjLlmResponse) response = sj_llm_response_new (delta_cb, NULL);
  g_autoptr(JsonObject) result = NULL;
  gsize step;

  if (size < 2)
    return 0;
  step = MAX (data[0], 1);

  if (data[1] & 1)
    {
      g_autofree char *body = g_strndup ((const char *)data + 2, size - 2);

      sj_llm_response_feed_completion (response, body);
    }
  else
    {
      for (gsize at = 2; at < size; at += step)
        if (!sj_llm_response_feed (response, (const char *)data + at, MIN (step, size - at)))
          break;
    }
  sj_llm_response_end (response);
  result = sj_llm_response_to_json (response);

  return 0;
}
