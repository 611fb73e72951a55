/* sj-llm-client-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests reach in the client: its base URL, whether it sends
 * the attribution headers, and where OpenRouter is.
 */

#pragma once

#include "sj-llm-client.h"

G_BEGIN_DECLS

const char *_sj_llm_client_get_base_url         (SjLlmClient *self);
gboolean    _sj_llm_client_get_send_attribution (SjLlmClient *self);
void        _sj_llm_client_set_send_attribution (SjLlmClient *self,
                                                 gboolean     send_attribution);
void        _sj_llm_client_set_openrouter_url   (const char  *url);

G_END_DECLS
