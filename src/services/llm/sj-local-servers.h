/* sj-local-servers.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-model-catalog.h"

G_BEGIN_DECLS

/* A model server that answered on this computer. */
typedef struct
{
  char           *name;      /* "Ollama", "llama.cpp", "LM Studio", or "a model server" */
  char           *base_url;  /* "http://127.0.0.1:11434/v1" */
  SjModelCatalog *catalog;   /* the models it offers */
} SjLocalServer;

void           sj_local_server_free          (SjLocalServer        *server);

void           sj_local_servers_detect_async (GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
SjLocalServer *sj_local_servers_detect_finish (GAsyncResult        *result,
                                              GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjLocalServer, sj_local_server_free)

G_END_DECLS
