/* sj-repl-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-repl.h"

G_BEGIN_DECLS

void      sj_repl_call        (SjRepl               *self,
                               const char           *body,
                               GVariant             *arguments,
                               guint                 timeout_ms,
                               GCancellable         *cancellable,
                               GAsyncReadyCallback   callback,
                               gpointer              user_data,
                               gpointer              source_tag);
JsonNode *sj_repl_call_finish (SjRepl               *self,
                               GAsyncResult         *result,
                               gpointer              source_tag,
                               GError              **error);

G_END_DECLS
