/* sj-secrets.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_SECRETS_SCHEMA_NAME "io.github.strudeljam.StrudelJam.ApiKey"

#define SJ_SECRETS_ERROR (sj_secrets_error_quark ())

typedef enum
{
  SJ_SECRETS_ERROR_NO_KEYRING,  /* no Secret Service on the session bus, or no bus at all */
  SJ_SECRETS_ERROR_LOCKED,      /* the collection is locked and could not be unlocked */
  SJ_SECRETS_ERROR_FAILED,      /* anything else the keyring refused */
} SjSecretsError;

GQuark   sj_secrets_error_quark           (void);

void     sj_secrets_store_api_key_async   (const char           *provider,
                                           const char           *base_url,
                                           const char           *key,
                                           GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
gboolean sj_secrets_store_api_key_finish  (GAsyncResult         *result,
                                           GError              **error);

void     sj_secrets_lookup_api_key_async  (const char           *provider,
                                           const char           *base_url,
                                           GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
char    *sj_secrets_lookup_api_key_finish (GAsyncResult         *result,
                                           GError              **error);

void     sj_secrets_has_api_key_async     (const char           *provider,
                                           const char           *base_url,
                                           GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
gboolean sj_secrets_has_api_key_finish    (GAsyncResult         *result,
                                           gboolean             *has_key,
                                           GError              **error);

void     sj_secrets_clear_api_key_async   (const char           *provider,
                                           const char           *base_url,
                                           GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
gboolean sj_secrets_clear_api_key_finish  (GAsyncResult         *result,
                                           GError              **error);

G_END_DECLS
