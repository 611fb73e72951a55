/* sj-secrets-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Between SjSecrets and its probe of the Secret Service.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* How long the Secret Service gets to answer at all, its start on demand
 * included, before the keyring counts as missing. */
#define SJ_SECRETS_DEADLINE_MS 2000

void     _sj_secrets_probe_async  (GCancellable         *cancellable,
                                   GAsyncReadyCallback   callback,
                                   gpointer              user_data);
gboolean _sj_secrets_probe_finish (GAsyncResult         *result,
                                   GError              **error);

G_END_DECLS
