/* sj-model-catalog.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  SJ_MODEL_TOOLS_UNKNOWN,  /* the provider does not say (local servers) */
  SJ_MODEL_TOOLS_YES,
  SJ_MODEL_TOOLS_NO,
} SjModelTools;

typedef enum
{
  SJ_MODEL_FETCH_DEFAULT    = 0,
  SJ_MODEL_FETCH_STORED_KEY = 1 << 0,  /* without a key given, use the keyring's */
} SjModelFetchFlags;

#define SJ_TYPE_MODEL_CATALOG (sj_model_catalog_get_type ())

G_DECLARE_FINAL_TYPE (SjModelCatalog, sj_model_catalog, SJ, MODEL_CATALOG, GObject)

SjModelCatalog      *sj_model_catalog_new_from_json  (const char           *data,
                                                      gssize                len,
                                                      GError              **error);
const char * const  *sj_model_catalog_get_ids        (SjModelCatalog       *self);
SjModelTools         sj_model_catalog_get_tools      (SjModelCatalog       *self,
                                                      const char           *id);
char               **sj_model_catalog_list_for_agent (SjModelCatalog       *self);
const char          *sj_model_catalog_choose_default (SjModelCatalog       *self,
                                                      gboolean              hosted);

void                 sj_model_catalog_fetch_async    (const char           *provider,
                                                      const char           *base_url,
                                                      const char           *api_key,
                                                      SjModelFetchFlags     flags,
                                                      guint                 timeout_s,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
SjModelCatalog      *sj_model_catalog_fetch_finish   (GAsyncResult         *result,
                                                      GError              **error);

G_END_DECLS
