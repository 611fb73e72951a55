/* sj-secrets-monitor.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SJ_TYPE_SECRETS_MONITOR (sj_secrets_monitor_get_type ())

G_DECLARE_FINAL_TYPE (SjSecretsMonitor, sj_secrets_monitor, SJ, SECRETS_MONITOR, GObject)

SjSecretsMonitor *sj_secrets_monitor_get_default  (void);
void              sj_secrets_monitor_key_changed  (SjSecretsMonitor *self,
                                                   const char       *provider,
                                                   const char       *base_url);

G_END_DECLS
