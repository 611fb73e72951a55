/* sj-test-settings.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean  sj_test_settings_string_is  (GSettings  *settings,
                                       const char *key,
                                       const char *value);
char     *sj_test_settings_lookup_key (const char *provider,
                                       const char *base_url,
                                       guint       timeout_s);
guint16   sj_test_closed_port         (void);

G_END_DECLS
