/* sj-llm-client-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests reach in the client: its base URL, and whether it sends
 * the attribution headers.
 */

#pragma once

#include "sj-llm-client.h"

G_BEGIN_DECLS

const char *_sj_llm_client_get_base_url         (SjLlmClient *self);
gboolean    _sj_llm_client_get_send_attribution (SjLlmClient *self);
void        _sj_llm_client_set_send_attribution (SjLlmClient *self,
                                                 gboolean     send_attribution);

G_END_DECLS
