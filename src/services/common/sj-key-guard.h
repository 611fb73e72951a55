/* sj-key-guard.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_KEY_GUARD_ERROR (sj_key_guard_error_quark ())

typedef enum
{
  SJ_KEY_GUARD_ERROR_INSECURE,  /* plain http:// to another computer */
} SjKeyGuardError;

/* The setting listing the http:// addresses allowed a key anyway. */
#define SJ_KEY_GUARD_SETTING "insecure-key-urls"

GQuark   sj_key_guard_error_quark      (void);
gboolean sj_key_guard_is_loopback_url  (const char  *url);
gboolean sj_key_guard_needs_permission (const char  *url);
gboolean sj_key_guard_check            (const char  *url,
                                        GError     **error);

G_END_DECLS
